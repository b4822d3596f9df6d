import Foundation

/// What a secret looks like when nobody registered it: a setting whose name says it is one, a
/// value long or random enough to be a key or a token, a PEM block. Error paths use it to
/// decide what they may quote (docs/threat-model.md).
public enum SecretShape {
  /// Whether an environment variable or setting named `key` holds a secret.
  public static func isSecretName(_ key: String) -> Bool {
    let upper = key.uppercased()
    if upper.contains("PUBLIC") { return false }
    // Where a secret is used, how long it lives, what it is called: settings, not secrets.
    let settings = [
      "_ID", "_URL", "_URI", "_ENDPOINT", "_TTL", "_LIFETIME", "_NAME", "_TYPE", "_ALGORITHM",
      "_ENABLED", "_FILE", "_PATH", "_ENV",
    ]
    if settings.contains(where: upper.hasSuffix) { return false }
    return [
      "SECRET", "PASSWORD", "PASSWD", "PRIVATE_KEY", "CREDENTIAL", "_KEY", "TOKEN", "APIKEY",
      "SALT", "DSN",
    ].contains { upper.contains($0) } || upper.hasSuffix("KEY") || upper.hasSuffix("_PASS")
  }

  /// The length from which a value is not quoted whatever it holds.
  public static let longValue = 32

  /// Whether `value` could be a key, a token or a password: long, a PEM line, or a run of
  /// mixed characters whose entropy is that of random text.
  public static func looksSecret(_ value: String) -> Bool {
    let text = value.trimmingCharacters(in: .whitespaces)
    if text.count >= longValue || text.contains("-----BEGIN") || text.contains("-----END") {
      return true
    }
    guard text.count >= 12 else { return false }
    let letters = text.contains { $0.isLetter }
    let digits = text.contains { $0.isNumber }
    return letters && digits && entropy(text) >= 3.2
  }

  /// Shannon entropy of `text`, in bits per character.
  public static func entropy(_ text: String) -> Double {
    var counts: [Character: Int] = [:]
    for character in text { counts[character, default: 0] += 1 }
    let total = Double(text.count)
    return counts.values.reduce(0) { sum, count in
      let p = Double(count) / total
      return sum - p * log2(p)
    }
  }

  /// Whether a diagnostic may show a line holding `key` (nil when the line has no key) and
  /// `value`.
  public static func mayQuote(key: String?, value: String) -> Bool {
    if let key, isSecretName(key) { return false }
    return !looksSecret(value)
  }
}
