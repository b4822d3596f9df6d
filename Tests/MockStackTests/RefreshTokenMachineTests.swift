import Foundation
import Testing

@testable import MockStack

/// Seed 002's refresh rules driven without a socket: a "refreshToken opaque rotatif" the client
/// replaces "immédiatement" and never reuses, and `refresh_reused` among the errors a client
/// must tell apart from an expiry.
@Suite struct RefreshTokenMachineTests {
  static let login = Date(timeIntervalSince1970: 1_800_000_000)
  static let expires = login.addingTimeInterval(30 * 86_400)

  enum Event {
    case refresh(String, at: TimeInterval = 60, banned: Bool = false)
    case end(RefreshTokenMachine.Ending)
  }

  static func drive(
    _ events: [Event], _ behaviours: RefreshTokenMachine.Behaviours = .init()
  ) -> (RefreshTokenMachine, [RefreshTokenMachine.Answer]) {
    var machine = RefreshTokenMachine(token: "t1", expires: expires, behaviours: behaviours)
    var drawn = 1
    var answers: [RefreshTokenMachine.Answer] = []
    for event in events {
      switch event {
      case .refresh(let token, let at, let banned):
        let answer = machine.refresh(token, now: login.addingTimeInterval(at), banned: banned)
        answers.append(answer)
        // The backend draws the next token, t2, t3, …, when the answer rotates.
        if answer == .renewed(rotated: true) {
          drawn += 1
          machine.rotate(to: "t\(drawn)")
        }
      case .end(let ending): machine.end(ending)
      }
    }
    return (machine, answers)
  }

  @Test func aRefreshRotatesAndRetiresTheOldToken() {
    let (machine, answers) = Self.drive([.refresh("t1"), .refresh("t2")])
    #expect(answers == [.renewed(rotated: true), .renewed(rotated: true)])
    #expect(machine.current == "t3")
    #expect(machine.issued("t1") && machine.issued("t2"))
    #expect(machine.state == .live)
  }

  @Test func aReplayedTokenRevokesTheSessionForEveryone() {
    // The thief replays t1 after the owner rotated to t2: both are refused from then on.
    let (machine, answers) = Self.drive([.refresh("t1"), .refresh("t1"), .refresh("t2")])
    #expect(answers[1] == .replayed)
    #expect(answers[1].refusal?.code == "refresh_reused")
    #expect(answers[2] == .ended(.refreshReused))
    #expect(answers[2].refusal?.code == "refresh_reused")
    #expect(machine.state == .ended(.refreshReused))
  }

  @Test func withoutReuseDetectionAReplayRefreshes() {
    var off = RefreshTokenMachine.Behaviours()
    off.noReuseDetection = true
    let (_, answers) = Self.drive([.refresh("t1"), .refresh("t1")], off)
    #expect(answers == [.renewed(rotated: true), .renewed(rotated: true)])
  }

  @Test func withoutRotationTheTokenStays() {
    var off = RefreshTokenMachine.Behaviours()
    off.noRotation = true
    let (machine, answers) = Self.drive([.refresh("t1"), .refresh("t1")], off)
    #expect(answers == [.renewed(rotated: false), .renewed(rotated: false)])
    #expect(machine.current == "t1")
    #expect(machine.state == .live)
  }

  @Test(arguments: [
    (RefreshTokenMachine.Ending.loggedOut, "session_expired"),
    (.loggedOutEverywhere, "session_expired"),
    (.deviceDeleted, "session_expired"),
    (.profileBanned, "session_expired"),
    (.refreshReused, "refresh_reused"),
  ])
  func anEndedSessionNeverRefreshes(ending: RefreshTokenMachine.Ending, code: String) {
    let (_, answers) = Self.drive([.end(ending), .refresh("t1")])
    #expect(answers == [.ended(ending)])
    #expect(answers.first?.refusal?.status == 401)
    #expect(answers.first?.refusal?.code == code)
  }

  @Test func theRefreshTokenExpiresAtItsSecondUnlessALeewayKeepsIt() {
    let end = Self.expires.timeIntervalSince(Self.login)
    let expired = RefreshTokenMachine.Answer.expired
    #expect(Self.drive([.refresh("t1", at: end - 1)]).1 == [.renewed(rotated: true)])
    #expect(Self.drive([.refresh("t1", at: end)]).1 == [expired])
    var lenient = RefreshTokenMachine.Behaviours()
    lenient.leeway = 1
    #expect(Self.drive([.refresh("t1", at: end)], lenient).1 == [.renewed(rotated: true)])
  }

  @Test func aBannedProfileIsRefusedAndItsSessionEnds() {
    let (machine, answers) = Self.drive([.refresh("t1", banned: true), .refresh("t1")])
    #expect(answers == [.banned, .ended(.profileBanned)])
    #expect(answers[0].refusal?.status == 403 && answers[0].refusal?.code == "profile_banned")
    #expect(machine.state == .ended(.profileBanned))
    #expect(answers[1].refusal?.code == "session_expired")
  }
}
