import Artifacts
import Foundation
import QualifyCore
import QualifyCrypto

/// The handoff's callback codes (seed 001, *system-browser sign-in*), with no I/O: a code is
/// issued for one user and one S256 challenge, lives for the web app's TTL, and is redeemed
/// once with the verifier of that challenge. How the table keeps and consumes its rows is the
/// web app's own code as qualify read it (`HandoffServerCode`); `HandoffServer` is the HTTP
/// around it.
///
/// Each code is in one state of `Slot`. Redemptions that arrive together are judged as the
/// app's statements run them: a code read and deleted in two statements is read by every
/// attempt before any deletes it, which is the race an atomic `UPDATE … RETURNING` closes.
struct HandoffCodeTable: Sendable {
  /// How the web app's code keeps its codes; each nil fact of the code reads as the safe
  /// choice, since a missing fact already fails the `handoff-server` rule.
  struct Rules: Sendable, Equatable {
    /// The code is stored as its SHA-256 (the row's key), not as itself.
    var hashesCode = true
    /// How long a code lives.
    var lifetime: TimeInterval = 120
    /// The statement that reads a code also consumes it.
    var consumesAtomically = true
    /// The verifier is compared after the code is consumed, so a wrong one burns it.
    var wrongVerifierBurns = true
    /// The state given with the code is compared with the attempt's it was issued for.
    var checksState = true

    init() {}

    init(_ code: HandoffServerCode) {
      hashesCode = code.hashesCode?.value ?? true
      lifetime = TimeInterval(code.ttlMilliseconds?.value ?? 120_000) / 1000
      consumesAtomically = code.consumesAtomically?.value ?? true
      wrongVerifierBurns = code.wrongVerifierBurns?.value ?? true
      checksState = code.checksState?.value ?? true
    }
  }

  struct Row: Sendable, Equatable {
    var user: String
    var challenge: String
    var state: String
    var expires: Date
  }

  /// Where one code stands. A consumed code has no slot: its row is gone.
  enum Slot: Sendable, Equatable {
    /// Issued and redeemable until `Row.expires`.
    case live(Row)
    /// Read by a statement of a redemption under way that has not deleted it yet.
    case read(Row)
  }

  /// What one redemption is answered with.
  enum Outcome: Sendable, Equatable {
    case redeemed(user: String)
    /// No such code, an expired one, one already consumed, or a malformed verifier: a
    /// server tells these apart only if its rejections are not uniform.
    case unknownOrExpired
    /// The code is live but the verifier is not its challenge's, or the state given with it
    /// is not its attempt's (compared in the same place, after the read).
    case wrongVerifier
  }

  let rules: Rules
  private(set) var slots: [String: Slot] = [:]

  init(rules: Rules) { self.rules = rules }

  /// The keys the table holds: what a read of it would give away.
  var storedKeys: [String] { Array(slots.keys) }

  /// How many codes `user` holds that are neither redeemed nor expired at `now`.
  func outstanding(user: String, now: Date) -> Int {
    slots.values.filter { slot in
      switch slot {
      case .live(let row), .read(let row): return row.user == user && row.expires > now
      }
    }.count
  }

  /// The row's key for `code`.
  func key(_ code: String) -> String { rules.hashesCode ? Self.sha256(code) : code }

  /// A new code for `user`, valid for the rules' lifetime from `now`.
  mutating func issue(code: String, user: String, challenge: String, state: String, now: Date) {
    assert(slots[key(code)] == nil, "a fresh callback code collides with a stored one")
    slots[key(code)] = .live(
      Row(
        user: user, challenge: challenge, state: state,
        expires: now.addingTimeInterval(rules.lifetime)))
  }

  /// One redemption: the code, the verifier, and the state the page sends with them (nil:
  /// none sent).
  typealias Attempt = (code: String, verifier: String, state: String?)

  /// Redemptions arriving together at `now`, in order: first every attempt's read (an atomic
  /// read consumes the row), then each attempt's comparison of its verifier and state.
  mutating func redeem(_ attempts: [Attempt], now: Date) -> [Outcome] {
    let rows = attempts.map { read($0, now: now) }
    return zip(attempts, rows).map { attempt, row in
      guard let row else { return .unknownOrExpired }
      return settle(key(attempt.code), row: row, attempt: attempt)
    }
  }

  /// One attempt's read: the row, if the attempt may compare its verifier against it.
  private mutating func read(_ attempt: Attempt, now: Date) -> Row? {
    let key = key(attempt.code)
    guard Self.wellFormed(attempt.verifier), let slot = slots[key] else { return nil }
    let row: Row
    switch slot {
    case .live(let live), .read(let live): row = live
    }
    guard row.expires > now else { return nil }
    slots[key] = rules.consumesAtomically ? nil : .read(row)
    return row
  }

  /// One attempt's comparison, after every attempt of the batch read its row: a state that
  /// is not the attempt's burns the code as a wrong verifier does, both compared there.
  private mutating func settle(_ key: String, row: Row, attempt: Attempt) -> Outcome {
    let matches =
      Self.sha256(attempt.verifier) == row.challenge
      && (!rules.checksState || attempt.state == row.state)
    if rules.consumesAtomically {
      // Consumed by the read; a code whose wrong verifier does not burn it is put back.
      if !matches && !rules.wrongVerifierBurns { slots[key] = .live(row) }
    } else if matches || rules.wrongVerifierBurns {
      slots[key] = nil
    } else if case .read(let held)? = slots[key] {
      slots[key] = .live(held)
    }
    return matches ? .redeemed(user: row.user) : .wrongVerifier
  }

  /// RFC 7636 §4.1: 43 to 128 characters of the unreserved set (the reader's judge).
  static func wellFormed(_ verifier: String) -> Bool {
    (43...128).contains(verifier.count)
      && verifier.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
  }

  /// base64url(SHA-256(text)), as the challenge and the stored key are written.
  static func sha256(_ text: String) -> String {
    Base64URL.encode(Digest.sha256(Array(text.utf8)))
  }
}
