import QualifyCore
import Testing

@testable import Devices

/// The OS's notification permission driven without a device: the rules both the Capacitor
/// shell (`PushRegistrationStateMachine`) and the hybrid containers take.
@Suite struct NotificationPermissionMachineTests {
  typealias Machine = NotificationPermissionMachine

  static func machine(
    _ platform: Platform, targetSdk: Int? = nil, declares: Bool = true
  ) -> Machine {
    Machine(
      facts: .init(
        platform: platform, targetSdk: targetSdk, declaresPostNotifications: declares))
  }

  /// One request at a time: the answers given, what each request did, the state after each,
  /// and how many dialogs showed in all.
  struct Row: Sendable, CustomTestStringConvertible {
    var name: String
    var platform: Platform
    var targetSdk: Int?
    var declares = true
    var answers: [Bool]
    var requests: [Machine.Request]
    var states: [Machine.State]
    var dialogs: Int
    var testDescription: String { name }
  }

  static let rows: [Row] = [
    Row(
      name: "iOS asks once and keeps the answer", platform: .ios, answers: [false, true],
      requests: [.dialog, .decided], states: [.denied, .denied], dialogs: 1),
    Row(
      name: "iOS: a grant", platform: .ios, answers: [true],
      requests: [.dialog], states: [.granted], dialogs: 1),
    Row(
      name: "Android 13 shows the dialog a second time, then no more", platform: .android,
      targetSdk: 34, answers: [false, false, true],
      requests: [.dialog, .dialog, .deniedTwice], states: [.denied, .denied, .denied],
      dialogs: 2),
    Row(
      name: "Android 13: a grant at the second dialog", platform: .android, targetSdk: 34,
      answers: [false, true], requests: [.dialog, .dialog], states: [.denied, .granted],
      dialogs: 2),
    Row(
      name: "Android 13: granted, a later request shows nothing and keeps it",
      platform: .android, targetSdk: 34, answers: [true, false],
      requests: [.dialog, .decided], states: [.granted, .granted], dialogs: 1),
    Row(
      name: "Android: undeclared in the manifest, refused without a dialog",
      platform: .android, targetSdk: 34, declares: false, answers: [true, true],
      requests: [.undeclared, .undeclared], states: [.denied, .denied], dialogs: 0),
    Row(
      name: "Android, targetSdk 32: the request returns the system prompt's state",
      platform: .android, targetSdk: 32, answers: [true],
      requests: [.legacy(targetSdk: 32)], states: [.notAsked], dialogs: 0),
    Row(
      name: "Android, targetSdk unread: the runtime rules", platform: .android,
      answers: [true], requests: [.dialog], states: [.granted], dialogs: 1),
  ]

  @Test(arguments: rows)
  func requests(_ row: Row) {
    var machine = Self.machine(row.platform, targetSdk: row.targetSdk, declares: row.declares)
    for (index, answer) in row.answers.enumerated() {
      let request = machine.request(userGrants: answer)
      #expect(request == row.requests[index], "request \(index)")
      #expect(machine.state == row.states[index], "state after request \(index)")
    }
    #expect(machine.dialogs == row.dialogs)
  }

  @Test func aLegacyAppIsAskedByTheSystemAtItsFirstChannel() {
    var legacy = Self.machine(.android, targetSdk: 32)
    let prompted = legacy.firstChannelCreated(userGrants: false)
    #expect(prompted)
    #expect(legacy.state == .denied)
    let request = legacy.request(userGrants: true)
    #expect(request == .legacy(targetSdk: 32))
    #expect(legacy.state == .denied, "the request returns the state the prompt left")
    var current = Self.machine(.android, targetSdk: 33)
    let currentPrompted = current.firstChannelCreated(userGrants: true)
    #expect(!currentPrompted)
    #expect(current.state == .notAsked)
    var ios = Self.machine(.ios)
    let iosPrompted = ios.firstChannelCreated(userGrants: true)
    #expect(!iosPrompted)
  }

  /// The Capacitor shell asks through the same machine: an undeclared permission on Android
  /// is refused without a prompt whatever the user would answer.
  @Test func theCapacitorShellTakesTheSameRules() {
    func registration(_ platform: Platform, declares: Bool) -> PushRegistrationStateMachine {
      PushRegistrationStateMachine(
        facts: .init(
          platform: platform, appId: "a.b.c", apsEnvironment: "production",
          hasPlayServices: true, firebaseProject: "p", firebasePackages: [],
          declaresPostNotifications: declares),
        behaviours: .init())
    }
    var undeclared = registration(.android, declares: false)
    let undeclaredDenial = undeclared.askPermission(userGrants: true)
    #expect(undeclaredDenial?.contains("POST_NOTIFICATIONS") == true)
    #expect(undeclared.permission == .denied)
    var declared = registration(.android, declares: true)
    let declaredDenial = declared.askPermission(userGrants: true)
    #expect(declaredDenial == nil)
    #expect(declared.permission == .granted)
    var refused = registration(.ios, declares: false)
    let first = refused.askPermission(userGrants: false)
    let second = refused.askPermission(userGrants: true)
    #expect(first == "the user refused notifications")
    #expect(second == "the user refused notifications", "asked once, the answer kept")
  }
}
