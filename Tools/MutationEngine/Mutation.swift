/// The operators of the mutation engine: the one-line mistakes developers make (issue 23, C).
public enum MutationOperator: String, Sendable, Codable, CaseIterable {
  /// `<` → `>=`, `<=` → `>`, …: a comparison written the wrong way.
  case relationalFlipped = "relational-flipped"
  /// `<` → `<=`, `>=` → `>`, …: a bound off by one.
  case relationalLoosened = "relational-loosened"
  /// `==` ↔ `!=`.
  case equalityFlipped = "equality-flipped"
  /// `a == b` → `a.hasSuffix(b)` (or `endsWith`, `contains`): presence instead of equality.
  case equalityToMatch = "equality-to-match"
  /// `&&` ↔ `||`.
  case logicalSwapped = "logical-swapped"
  /// `a && b` → `a`: one condition of a conjunction or disjunction dropped.
  case conditionDropped = "condition-dropped"
  /// `!a` → `a`.
  case negationRemoved = "negation-removed"
  /// An integer constant ±1.
  case boundaryShifted = "boundary-shifted"
  /// `true` ↔ `false`, `YES` ↔ `NO`, `True` ↔ `False`.
  case booleanFlipped = "boolean-flipped"
  /// A call or assignment statement, or an environment line, removed.
  case statementRemoved = "statement-removed"
  /// A string literal, a key or a setting's value changed by one character.
  case literalChanged = "literal-changed"
}

/// One generated mutant: a single edit of one file.
public struct Mutation: Sendable, Codable, Hashable {
  /// Stable across unrelated edits of the file: derived from the file, the operator, the text
  /// of the line and the edit, not from the line number.
  public var id: String
  public var file: String
  public var line: Int
  public var `operator`: MutationOperator
  /// The line before and after the edit, for the survivor's diff.
  public var before: String
  public var after: String
  /// Byte offset and length of the edited text in the file, and what replaces it.
  public var offset: Int
  public var length: Int
  public var original: String
  public var replacement: String

  /// The file's text with this mutant applied, or nil when the file no longer has the
  /// original text at the recorded place (a stale sample).
  public func apply(to text: String) -> String? {
    var bytes = Array(text.utf8)
    guard offset + length <= bytes.count,
      String(decoding: bytes[offset..<(offset + length)], as: UTF8.self) == original
    else { return nil }
    bytes.replaceSubrange(offset..<(offset + length), with: Array(replacement.utf8))
    return String(decoding: bytes, as: UTF8.self)
  }
}

/// A small, stable hash (FNV-1a, 64 bits): mutant ids and the seeded sample must be the same
/// on every machine and every run, which Swift's `Hasher` is not.
func stableHash(_ text: String, seed: UInt64 = 0) -> UInt64 {
  var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed
  for byte in text.utf8 {
    hash ^= UInt64(byte)
    hash = hash &* 0x100_0000_01b3
  }
  // A final mix so that neighbouring seeds give unrelated orders.
  hash ^= hash >> 33
  hash = hash &* 0xff51_afd7_ed55_8ccd
  hash ^= hash >> 33
  return hash
}

/// A seeded sample of mutants: the `count` whose seeded hash is smallest. Adding or removing
/// one candidate changes the sample by at most one mutant, unlike a seeded shuffle.
public func sample(_ mutations: [Mutation], count: Int, seed: UInt64) -> [Mutation] {
  let ranked = mutations.map { (stableHash($0.id, seed: seed &* 0x9e37_79b9_7f4a_7c15), $0) }
  return ranked.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1.id < $1.1.id }.prefix(count).map(\.1)
}
