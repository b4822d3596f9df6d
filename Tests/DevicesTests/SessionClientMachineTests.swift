import Foundation
import Testing

@testable import Devices

/// Seed 002's client rules driven without a socket: the envelope "remplacée entièrement"
/// after a refresh, one refresh for concurrent calls, everything deleted "après logout ou
/// erreur terminale de refresh" but the backend's deviceId.
@Suite struct SessionClientMachineTests {
  typealias Machine = SessionClientMachine

  static let envelope = Machine.Envelope(
    accessToken: "a1", refreshToken: "r1", sessionId: "s1", deviceId: "d1", bootstrapVersion: 3)

  static func signedIn(_ behaviours: Machine.Behaviours = .init()) -> Machine {
    var machine = Machine(behaviours: behaviours)
    machine.signIn(envelope)
    return machine
  }

  @Test func aLoginStoresTheEnvelopeButTheAccessTokenInSecureStorage() {
    let machine = Self.signedIn()
    #expect(machine.phase == .signedIn)
    #expect(machine.accessToken == "a1")
    #expect(
      machine.storage == [
        "refreshToken": "r1", "sessionId": "s1", "deviceId": "d1", "bootstrapVersion": "3",
      ])
  }

  struct CallRow: Sendable, CustomTestStringConvertible {
    var status: Int?
    var error: String?
    var retried: Bool
    var expected: Machine.AfterCall
    var testDescription: String {
      "\(status.map(String.init) ?? "no answer") \(error ?? "-")\(retried ? " (retried)" : "")"
    }
  }

  @Test(arguments: [
    CallRow(status: 200, error: nil, retried: false, expected: .done),
    CallRow(status: nil, error: "session_expired", retried: false, expected: .done),
    CallRow(status: 401, error: "access_token_expired", retried: false, expected: .refreshAndRetry),
    // Once refreshed, an expired access token again is not refreshed twice.
    CallRow(status: 401, error: "access_token_expired", retried: true, expected: .done),
    CallRow(
      status: 401, error: "session_expired", retried: false,
      expected: .wipe(.terminal("session_expired"))),
    CallRow(
      status: 401, error: "refresh_reused", retried: true,
      expected: .wipe(.terminal("refresh_reused"))),
    // invalid_credentials is a login's answer, never the end of a session.
    CallRow(status: 401, error: "invalid_credentials", retried: false, expected: .done),
    CallRow(status: 403, error: "session_expired", retried: false, expected: .done),
  ])
  func aPrivateCallsAnswerDecidesTheNextMove(_ row: CallRow) {
    #expect(
      Self.signedIn().afterCall(status: row.status, error: row.error, retried: row.retried)
        == row.expected)
  }

  @Test(arguments: [1, 2, 5])
  func concurrentExpiredCallsShareOneRefresh(expired: Int) {
    #expect(Self.signedIn().refreshes(forExpiredCalls: expired) == [nil])
    var off = Machine.Behaviours()
    off.noSingleFlight = true
    #expect(
      Self.signedIn(off).refreshes(forExpiredCalls: expired)
        == Array(repeating: "r1", count: expired))
    #expect(Self.signedIn().refreshes(forExpiredCalls: 0) == [])
  }

  @Test func aRefreshReplacesTheWholeEnvelopeAndRetiresThePresentedToken() {
    var machine = Self.signedIn()
    let presented = machine.beginRefresh()
    #expect(presented == "r1")
    #expect(machine.isRefreshing && machine.signedIn)
    let end = machine.refreshAnswered(
      status: 200, error: nil,
      envelope: .init(accessToken: "a2", refreshToken: "r2", sessionId: "s1", bootstrapVersion: 3))
    #expect(end == .renewed(bootstrapChanged: false))
    #expect(machine.phase == .signedIn)
    #expect(machine.accessToken == "a2" && machine.storage["refreshToken"] == "r2")
    #expect(machine.retiredRefreshToken == "r1")
  }

  @Test func aNewBootstrapVersionAsksForABootstrapReload() {
    var machine = Self.signedIn()
    _ = machine.beginRefresh()
    let end = machine.refreshAnswered(
      status: 200, error: nil,
      envelope: .init(accessToken: "a2", refreshToken: "r2", bootstrapVersion: 4))
    #expect(end == .renewed(bootstrapChanged: true))
  }

  @Test func aClientThatKeepsTheOldRefreshTokenTakesOnlyTheAccessToken() {
    var keeps = Machine.Behaviours()
    keeps.keepsOldRefreshToken = true
    var machine = Self.signedIn(keeps)
    _ = machine.beginRefresh()
    _ = machine.refreshAnswered(
      status: 200, error: nil, envelope: .init(accessToken: "a2", refreshToken: "r2"))
    #expect(machine.accessToken == "a2" && machine.storage["refreshToken"] == "r1")
    #expect(machine.retiredRefreshToken == nil)
  }

  struct RefusalRow: Sendable, CustomTestStringConvertible {
    var status: Int?
    var error: String?
    var expected: Machine.RefreshEnd
    var testDescription: String { "\(status.map(String.init) ?? "no answer") \(error ?? "-")" }
  }

  @Test(arguments: [
    RefusalRow(status: nil, error: nil, expected: .refused(nil)),
    RefusalRow(status: 500, error: nil, expected: .refused(nil)),
    RefusalRow(status: 429, error: "rate_limited", expected: .refused(nil)),
    RefusalRow(
      status: 401, error: "session_expired", expected: .refused(.terminal("session_expired"))),
    RefusalRow(
      status: 401, error: "refresh_reused", expected: .refused(.terminal("refresh_reused"))),
    RefusalRow(
      status: 403, error: "profile_banned", expected: .refused(.terminal("profile_banned"))),
    // A 200 without an envelope renews nothing.
    RefusalRow(status: 200, error: nil, expected: .refused(nil)),
  ])
  func aRefusedRefreshEndsTheSessionOnlyOnATerminalCode(_ row: RefusalRow) {
    var machine = Self.signedIn()
    _ = machine.beginRefresh()
    let end = machine.refreshAnswered(status: row.status, error: row.error, envelope: nil)
    #expect(end == row.expected)
    #expect(machine.phase == .signedIn)
    #expect(machine.storage["refreshToken"] == "r1")
  }

  @Test(arguments: [
    Machine.Wipe.logout, .logoutEverywhere, .terminal("session_expired"),
  ])
  func aWipeForgetsEveryPieceOfAuthStateButTheDeviceId(_ wipe: Machine.Wipe) {
    var machine = Self.signedIn()
    let wiped = machine.wipe(wipe)
    #expect(wiped)
    #expect(machine.phase == .signedOut)
    #expect(machine.authStateHeld == [])
    #expect(machine.storage == ["deviceId": "d1"])
    #expect(machine.retiredAccessToken == "a1" && machine.retiredRefreshToken == "r1")
  }

  @Test func theControlsBugsKeepWhatTheRulesDelete() {
    var keeps = Machine.Behaviours()
    keeps.keepsStateOnTerminalError = true
    var kept = Self.signedIn(keeps)
    let terminal = kept.wipe(.terminal("refresh_reused"))
    #expect(!terminal)
    #expect(kept.phase == .signedIn && kept.authStateHeld.contains("refreshToken"))
    // A logout is no terminal error: that bug does not keep it.
    let logout = kept.wipe(.logout)
    #expect(logout)

    var half = Machine.Behaviours()
    half.wipeKeepsRefreshToken = true
    var halfWiped = Self.signedIn(half)
    let wiped = halfWiped.wipe(.logout)
    #expect(wiped)
    #expect(halfWiped.phase == .signedOut && halfWiped.authStateHeld == ["refreshToken"])
  }

  @Test(arguments: [(Int?.none, true), (204, false), (500, true), (401, true)])
  func aLogoutWipesWhetherOrNotTheBackendHeardIt(status: Int?, keptByTheBug: Bool) {
    #expect(!Self.signedIn().keepsStateAfterLogout(status: status))
    var confirmed = Machine.Behaviours()
    confirmed.wipesOnlyAfterConfirmedLogout = true
    #expect(Self.signedIn(confirmed).keepsStateAfterLogout(status: status) == keptByTheBug)
  }

  @Test func aColdStartDropsTheAccessTokenAndResumesAStoredSession() {
    var machine = Self.signedIn()
    let resumed = machine.coldStart()
    #expect(resumed)
    #expect(machine.accessToken == nil && machine.phase == .signedIn)
    _ = machine.wipe(.logout)
    let again = machine.coldStart()
    #expect(!again)
    #expect(machine.phase == .signedOut)
  }

  @Test func aRefreshNeedsAStoredOrGivenToken() {
    var machine = Machine()
    let none = machine.beginRefresh()
    #expect(none == nil)
    #expect(machine.phase == .signedOut)
    // Someone else's token presented from a signed-out client returns it to the login screen.
    let stolen = machine.beginRefresh(using: "stolen")
    #expect(stolen == "stolen")
    _ = machine.refreshAnswered(status: 401, error: "refresh_reused", envelope: nil)
    #expect(machine.phase == .signedOut)
  }
}
