import Foundation

/// Substring search on the hot paths of evidence handling: every evidence line passes
/// through the redactor and the run diff's masks, and Foundation's `contains` bridges both
/// strings through UTF-16 each time.
public enum TextSearch {
  /// Whether Foundation's `text.contains(needle)` may find `needle`: never false where it
  /// finds it, so a guard in front of Foundation's replacement loses nothing. Byte by byte
  /// for an ASCII needle (a secret, a marker): no sequence of other scalars is canonically
  /// equivalent to ASCII text except three singletons (KELVIN SIGN, GREEK QUESTION MARK,
  /// GREEK VARIA), and a text holding one of them is left to Foundation. True on bytes that
  /// Foundation would not match (a needle whose last letter carries a combining accent in
  /// the text), which only costs the guarded work.
  public static func contains(_ text: String, _ needle: String) -> Bool {
    guard !needle.isEmpty, needle.utf8.allSatisfy({ $0 < 0x80 }) else {
      return text.contains(needle)
    }
    if containsBytes(text, needle) { return true }
    // U+212A is E2 84 AA, U+037E is CD BE, U+1FEF is E1 BF AF.
    let equivalentToASCII =
      containsBytes(text, "\u{212A}") || containsBytes(text, "\u{037E}")
      || containsBytes(text, "\u{1FEF}")
    return equivalentToASCII ? text.contains(needle) : false
  }

  /// Whether `needle`'s UTF-8 bytes occur in `text`'s: what a regular expression or any other
  /// code-point match of `needle` needs (no canonical equivalence). True for an empty needle.
  public static func containsBytes(_ text: String, _ needle: String) -> Bool {
    var text = text
    var needle = needle
    return text.withUTF8 { bytes in
      needle.withUTF8 { pattern in
        guard let first = pattern.first else { return true }
        guard bytes.count >= pattern.count else { return false }
        for index in 0...(bytes.count - pattern.count) where bytes[index] == first {
          var offset = 1
          while offset < pattern.count && bytes[index + offset] == pattern[offset] { offset += 1 }
          if offset == pattern.count { return true }
        }
        return false
      }
    }
  }
}
