import Foundation
import HTTP
import QualifyCore
import Testing

@testable import Devices

/// The shell's push rules driven through its state machine: no phone, no push service, one
/// row per rule, each citing where it comes from.
@Suite struct PushRegistrationStateMachineTests {
  typealias Machine = PushRegistrationStateMachine

  static func facts(
    _ platform: Platform, aps: String? = "production", playServices: Bool = true,
    project: String? = "prod", packages: [String] = ["org.example.mail"],
    postNotifications: Bool = true
  ) -> Machine.Facts {
    Machine.Facts(
      platform: platform, appId: "org.example.mail", apsEnvironment: aps,
      hasPlayServices: playServices, firebaseProject: project, firebasePackages: packages,
      declaresPostNotifications: postNotifications)
  }

  static func describe(_ request: Machine.TokenRequest) -> String {
    switch request {
    case .cached(let token): "cached \(token)"
    case .ask(let origin, _): "ask \(origin.host)"
    case .impossible(let why): "impossible: \(why)"
    }
  }

  static let tokenRows: [(Machine.Facts, String, String)] = [
    (
      facts(.ios), "ask api.push.apple.com", "rule 14: a distribution build holds production tokens"
    ),
    (
      facts(.ios, aps: "development"), "ask api.sandbox.push.apple.com",
      "rule 14: a development-signed build holds sandbox tokens"
    ),
    (
      facts(.ios, aps: nil), "impossible: no valid \"aps-environment\"",
      "Apple: registerForRemoteNotifications fails without the entitlement"
    ),
    (facts(.android), "ask fcm.googleapis.com", "seed 003: FCM registers through Play services"),
    (
      facts(.android, playServices: false), "impossible: SERVICE_NOT_AVAILABLE",
      "seed 003 / push.ts: no Play services, registration_failed"
    ),
    (
      facts(.android, project: nil), "impossible: Default FirebaseApp is not initialized",
      "Firebase: no google-services.json, no FirebaseApp"
    ),
    (
      facts(.android, packages: ["org.example.other"]), "impossible: No matching client found",
      "google-services plugin: a client for the application id"
    ),
  ]

  @Test(arguments: tokenRows)
  func theOSGivesATokenOnlyWhenThePlatformsRulesHold(
    facts: Machine.Facts, expected: String, source: String
  ) {
    let machine = Machine(facts: facts, behaviours: .init())
    #expect(Self.describe(machine.tokenRequest()).hasPrefix(expected), "\(source)")
  }

  @Test func aTokenIsAskedForOnceThenCachedUntilRotated() {
    var machine = Machine(facts: Self.facts(.ios), behaviours: .init())
    machine.tokenIssued("t1")
    #expect(Self.describe(machine.tokenRequest()) == "cached t1")
    #expect(machine.rotate() == "t1")
    #expect(Self.describe(machine.tokenRequest()) == "ask api.push.apple.com")
    machine.tokenIssued("t2")
    #expect(machine.uninstall() == ["t1", "t2"])
    #expect(machine.refreshesOnLaunch() == nil)
  }

  static let permissionRows: [(Machine.Facts, Bool, String?, String)] = [
    (facts(.ios), true, nil, "push.ts: requestPermissions, granted"),
    (facts(.ios), false, "the user refused notifications", "push.ts: denied"),
    (facts(.android), true, nil, "Android 13+: POST_NOTIFICATIONS granted at runtime"),
    (
      facts(.android, postNotifications: false), true, "the manifest does not declare",
      "Android 13+: an undeclared runtime permission is denied without a prompt"
    ),
  ]

  @Test(arguments: permissionRows)
  func notificationsNeedThePermission(
    facts: Machine.Facts, grants: Bool, denial: String?, source: String
  ) {
    var machine = Machine(facts: facts, behaviours: .init())
    let why = machine.askPermission(userGrants: grants)
    #expect((why == nil) == (denial == nil), "\(source)")
    if let denial { #expect(why?.hasPrefix(denial) == true, "\(source)") }
    #expect(
      (machine.hiddenBecause() == nil) == (denial == nil), "\(source): shown only when granted")
    // The answer sticks: iOS asks once, afterwards only the settings can change it.
    #expect((machine.askPermission(userGrants: !grants) == nil) == (denial == nil))
  }

  @Test func theRefreshOnLaunchIsForAnOptedInUserWithThePermission() {
    var machine = Machine(facts: Self.facts(.android), behaviours: .init())
    #expect(machine.refreshesOnLaunch() == nil)
    _ = machine.askPermission(userGrants: true)
    #expect(machine.refreshesOnLaunch() == nil)
    machine.optIn()
    #expect(machine.refreshesOnLaunch() == true)
    var skipping = Machine(
      facts: Self.facts(.android), behaviours: .init(skipsRefreshOnLaunch: true))
    _ = skipping.askPermission(userGrants: true)
    skipping.optIn()
    #expect(skipping.refreshesOnLaunch() == false)
  }

  static let routeRows: [([String: String], String, String)] = [
    (
      ["mailbox_id": "m1", "thread_id": "t9", "message_id": "x2"],
      "/mailbox/m1/thread/t9?has_active=1#thread-message-x2", "push.ts pushTargetUrl"
    ),
    (
      ["mailbox_id": "m1", "thread_id": "t9"], "/mailbox/m1/thread/t9?has_active=1",
      "pushTargetUrl without a message id"
    ),
    (["thread_id": "t9"], "/", "pushTargetUrl: no mailbox, the home"),
    (["mailbox_id": "", "thread_id": "t9"], "/", "pushTargetUrl: an empty id is none"),
    ([:], "/", "pushTargetUrl: no routing ids"),
  ]

  @Test(arguments: routeRows)
  func aTapOpensTheThreadItNames(data: [String: String], route: String, source: String) {
    #expect(Machine(facts: Self.facts(.ios), behaviours: .init()).route(data) == route, "\(source)")
    #expect(
      Machine(facts: Self.facts(.ios), behaviours: .init(tapsNotRouted: true)).route(data) == "/")
  }

  @Test func bannersComeFromTheAppsStringsWithAndroidsDefaultFallback() {
    let strings = ["en": ["title": "Mail", "body": "New message"], "fr": ["title": "Courrier"]]
    let android = Machine.banners(
      ["title", "body"], platform: .android, strings: strings,
      files: ["en": "res/values/strings.xml", "fr": "res/values-fr/strings.xml"])
    // Android resolves a missing translation in values/.
    #expect(android["fr"] == ["Courrier", "New message"])
    let ios = Machine.banners(
      ["title", "body"], platform: .ios, strings: strings,
      files: ["en": "en.lproj/Localizable.strings", "fr": "fr.lproj/Localizable.strings"])
    // iOS looks in the device language's table only: the part is drawn blank.
    #expect(ios["fr"] == ["Courrier", ""])
    #expect(ios["en"] == ["Mail", "New message"])
  }

  @Test func payloadsAreReadAsEachServiceWritesThem() {
    let apns = Machine.read([
      "aps": ["alert": ["loc-key": "NEW_MESSAGE"]], "thread_id": "t1", "mailbox_id": "m1",
    ])
    #expect(apns.transport == "apns")
    #expect(apns.keys == ["NEW_MESSAGE"])
    #expect(apns.data["thread_id"] == "t1")
    let fcm = Machine.read([
      "android": ["notification": ["title_loc_key": "a", "body_loc_key": "b"]],
      "data": ["thread_id": "t2"],
    ])
    #expect(fcm.transport == "fcm")
    #expect(fcm.keys == ["a", "b"])
    #expect(fcm.data == ["thread_id": "t2"])
  }
}
