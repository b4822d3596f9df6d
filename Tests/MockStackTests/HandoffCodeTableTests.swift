import Foundation
import Testing

@testable import MockStack

/// Seed 001's handoff codes driven without a socket: "single-use, short-lived, bound to the
/// PKCE challenge", stored hashed, and redeemed by one statement that reads and consumes.
@Suite struct HandoffCodeTableTests {
  static let issued = Date(timeIntervalSince1970: 1_800_000_000)
  static let verifier = String(repeating: "v", count: 43)
  static let other = String(repeating: "w", count: 43)

  static func table(
    hashes: Bool = true, atomic: Bool = true, burns: Bool = true, lifetime: TimeInterval = 120
  ) -> HandoffCodeTable {
    var rules = HandoffCodeTable.Rules()
    rules.hashesCode = hashes
    rules.consumesAtomically = atomic
    rules.wrongVerifierBurns = burns
    rules.lifetime = lifetime
    var table = HandoffCodeTable(rules: rules)
    table.issue(
      code: "c1", user: "ada", challenge: HandoffCodeTable.sha256(verifier), state: "s",
      now: issued)
    return table
  }

  /// One redemption per element, each arriving alone, `at` seconds after the code's issue.
  static func alone(
    _ table: inout HandoffCodeTable, _ attempts: [(String, String)], at: TimeInterval = 1
  ) -> [HandoffCodeTable.Outcome] {
    attempts.flatMap {
      table.redeem([(code: $0.0, verifier: $0.1, state: "s")], now: issued.addingTimeInterval(at))
    }
  }

  struct Row: Sendable, CustomTestStringConvertible {
    var why: String
    var atomic = true
    var burns = true
    var attempts: [(String, String)]
    var expected: [HandoffCodeTable.Outcome]
    var testDescription: String { why }
  }

  static let ada = HandoffCodeTable.Outcome.redeemed(user: "ada")

  @Test(arguments: [
    Row(
      why: "a code is redeemed once", attempts: [("c1", verifier), ("c1", verifier)],
      expected: [ada, .unknownOrExpired]),
    Row(why: "an unknown code", attempts: [("c2", verifier)], expected: [.unknownOrExpired]),
    Row(
      why: "a wrong verifier burns the code", attempts: [("c1", other), ("c1", verifier)],
      expected: [.wrongVerifier, .unknownOrExpired]),
    Row(
      why: "a wrong verifier that does not burn leaves the code live", burns: false,
      attempts: [("c1", other), ("c1", verifier)], expected: [.wrongVerifier, ada]),
    Row(
      why: "a short verifier is malformed (RFC 7636 §4.1), the code stays live",
      attempts: [("c1", "short"), ("c1", verifier)], expected: [.unknownOrExpired, ada]),
    Row(
      why: "two statements: a code redeemed alone is still consumed", atomic: false,
      attempts: [("c1", verifier), ("c1", verifier)], expected: [ada, .unknownOrExpired]),
    Row(
      why: "two statements without burning: a wrong verifier leaves the code live",
      atomic: false, burns: false, attempts: [("c1", other), ("c1", verifier)],
      expected: [.wrongVerifier, ada]),
  ])
  func redemptionsOneAtATime(_ row: Row) {
    var table = Self.table(atomic: row.atomic, burns: row.burns)
    let outcomes = Self.alone(&table, row.attempts)
    #expect(outcomes == row.expected)
  }

  @Test(arguments: [(119.0, true), (120.0, false), (121.0, false)])
  func aCodeLivesForItsLifetimeAndNoLonger(at: TimeInterval, redeemable: Bool) {
    var table = Self.table()
    let outcomes = Self.alone(&table, [("c1", Self.verifier)], at: at)
    #expect(outcomes == [redeemable ? Self.ada : .unknownOrExpired])
  }

  /// The state sent with the code is compared where the verifier is: another attempt's (or
  /// none) burns the code; a server that does not compare it takes any.
  @Test func aStateNotTheAttemptsBurnsTheCodeWhenTheServerComparesIt() {
    let now = Self.issued.addingTimeInterval(1)
    for sent in ["t", nil] as [String?] {
      var table = Self.table()
      let outcomes = table.redeem(
        [
          (code: "c1", verifier: Self.verifier, state: sent),
          (code: "c1", verifier: Self.verifier, state: "s"),
        ], now: now)
      #expect(outcomes == [.wrongVerifier, .unknownOrExpired], "\(sent ?? "none")")
    }
    var rules = HandoffCodeTable.Rules()
    rules.checksState = false
    var lax = HandoffCodeTable(rules: rules)
    lax.issue(
      code: "c1", user: "ada", challenge: HandoffCodeTable.sha256(Self.verifier), state: "s",
      now: Self.issued)
    #expect(lax.redeem([(code: "c1", verifier: Self.verifier, state: "t")], now: now) == [Self.ada])
  }

  @Test func twoRedemptionsTogetherGetOneTokenWhenTheReadConsumes() {
    var table = Self.table()
    let both = table.redeem(
      [
        (code: "c1", verifier: Self.verifier, state: "s"),
        (code: "c1", verifier: Self.verifier, state: "s"),
      ],
      now: Self.issued.addingTimeInterval(1))
    #expect(both == [Self.ada, .unknownOrExpired])
    #expect(table.storedKeys.isEmpty)
  }

  @Test func twoRedemptionsTogetherBothWinWhenReadAndDeleteAreTwoStatements() {
    // The race the atomic statement closes: both attempts read the row before either deletes.
    var table = Self.table(atomic: false)
    let both = table.redeem(
      [
        (code: "c1", verifier: Self.verifier, state: "s"),
        (code: "c1", verifier: Self.verifier, state: "s"),
      ],
      now: Self.issued.addingTimeInterval(1))
    #expect(both == [Self.ada, Self.ada])
    #expect(table.storedKeys.isEmpty)
  }

  @Test func aBatchLeavesNoCodeHalfRead() {
    var table = Self.table(atomic: false, burns: false)
    _ = table.redeem(
      [
        (code: "c1", verifier: Self.other, state: "s"),
        (code: "c1", verifier: Self.other, state: "s"),
      ],
      now: Self.issued.addingTimeInterval(1))
    #expect(table.slots.values.allSatisfy { if case .live = $0 { true } else { false } })
    let later = Self.alone(&table, [("c1", Self.verifier)])
    #expect(later == [Self.ada])
  }

  @Test(arguments: [true, false])
  func theTableKeysItsRowsByTheCodesHashUnlessTheAppStoresCodesAsThey(hashes: Bool) {
    let table = Self.table(hashes: hashes)
    #expect(table.storedKeys == [hashes ? HandoffCodeTable.sha256("c1") : "c1"])
    #expect(table.storedKeys.contains("c1") == !hashes)
  }
}
