import Foundation

/// Removes secrets from text before it reaches the store, the report or the terminal.
///
/// Two nets, because either alone leaks: values of parameters, cookies, headers and JSON
/// fields whose *name* is sensitive (`token=…`, `code_verifier`, `sessionid`, `Authorization`),
/// and every secret the simulated world minted (registered as it is created), wherever it
/// appears — inside a deep link, an HTML page or a log line. A redacted value keeps a short
/// fingerprint (`[REDACTED:1a2b]`) so that an engineer can still see that the token in the
/// deep link is the one the exchange sent, without seeing the token.
public final class Redactor: @unchecked Sendable {
  /// Names whose values are secrets wherever they appear (case-insensitive).
  public static let sensitiveNames: Set<String> = [
    "token", "code", "code_verifier", "verifier", "password", "client_secret", "secret",
    "sessionid", "csrftoken", "csrf_token", "csrfmiddlewaretoken", "x-csrftoken", "id_token",
    "access_token", "refresh_token", "authorization", "keycloak_identity",
    "keycloak_identity_legacy", "keycloak_session", "auth_session_id", "form_token",
    "private_key", "privatekey", "sessionkey", "id_token_hint", "login_token", "push_token",
    "device_token", "mobile_ota_signing_private_key_b64",
  ]

  private let lock = NSLock()
  private var secrets: Set<String> = []

  public init() {}

  /// Registers a value that must never be shown; values shorter than 8 characters are ignored
  /// because they would also match innocent text. Secrets are token-shaped: a secret with
  /// other characters is registered by its token-shaped parts.
  public func register(_ secret: String) {
    guard secret.count >= 8 else { return }
    let parts = secret.unicodeScalars.split { !Redactor.isTokenScalar($0) && $0 != "=" }.map {
      String(String.UnicodeScalarView($0))
    }
    if parts.count > 1 {
      for part in parts { register(part) }
      return
    }
    lock.lock()
    secrets.insert(secret)
    lock.unlock()
  }

  /// The marker that stands for `secret`: stable across a run, so equal secrets look equal.
  public static func marker(for secret: String) -> String {
    let fingerprint = String(SeededGenerator.fnv1a(secret) & 0xffff, radix: 16)
    return "[REDACTED:\(String(repeating: "0", count: 4 - fingerprint.count))\(fingerprint)]"
  }

  /// `text` with every registered secret and every sensitive named value replaced.
  public func redact(_ text: String) -> String {
    lock.lock()
    let known = secrets
    lock.unlock()
    return Redactor.redactNamedValues(known.isEmpty ? text : Redactor.replace(known, in: text))
  }

  /// Replaces registered secrets in one pass: secrets are token-shaped (base64, base64url,
  /// hex, JWTs), so every maximal run of token characters — with any `=` padding — is looked
  /// up in the set.
  static func replace(_ secrets: Set<String>, in text: String) -> String {
    let scalars = Array(text.unicodeScalars)
    var out = String.UnicodeScalarView()
    var index = 0
    var changed = false
    while index < scalars.count {
      guard isTokenScalar(scalars[index]) else {
        out.append(scalars[index])
        index += 1
        continue
      }
      var end = index
      while end < scalars.count && isTokenScalar(scalars[end]) { end += 1 }
      var padded = end
      while padded < scalars.count && padded - end < 2 && scalars[padded] == "=" { padded += 1 }
      let run = String(String.UnicodeScalarView(scalars[index..<end]))
      let withPadding =
        padded > end ? String(String.UnicodeScalarView(scalars[index..<padded])) : run
      if padded > end, secrets.contains(withPadding) {
        out.append(contentsOf: marker(for: withPadding).unicodeScalars)
        index = padded
        changed = true
      } else if secrets.contains(run) {
        out.append(contentsOf: marker(for: run).unicodeScalars)
        index = end
        changed = true
      } else {
        out.append(contentsOf: scalars[index..<end])
        index = end
      }
    }
    return changed ? String(out) : text
  }

  private static func isTokenScalar(_ c: Unicode.Scalar) -> Bool {
    switch c.value {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
    case 0x2D, 0x5F, 0x2E, 0x7E, 0x2B, 0x2F: return true  // - _ . ~ + /
    default: return false
    }
  }

  private static let pairPattern: NSRegularExpression? = try? NSRegularExpression(
    pattern: #"(?i)(?<![A-Za-z0-9_-])([A-Za-z0-9_-]+)=([^&;\s"'<>,]+)"#)
  private static let jsonPattern: NSRegularExpression? = try? NSRegularExpression(
    pattern: #"(?i)"([A-Za-z0-9_-]+)"\s*:\s*"((?:[^"\\]|\\.)*)""#)
  private static let headerPattern: NSRegularExpression? = try? NSRegularExpression(
    pattern: #"(?im)^(authorization|x-csrftoken|proxy-authorization):[ \t]*(.+)$"#)

  /// Replaces values of sensitive names in `name=value` pairs (queries, forms, cookies),
  /// JSON string fields and credential headers.
  static func redactNamedValues(_ text: String) -> String {
    var out = text
    for pattern in [pairPattern, jsonPattern, headerPattern].compactMap({ $0 }) {
      out = replaceValues(in: out, pattern: pattern)
    }
    return out
  }

  private static func replaceValues(in text: String, pattern: NSRegularExpression) -> String {
    let ns = text as NSString
    let matches = pattern.matches(in: text, range: NSRange(location: 0, length: ns.length))
    guard !matches.isEmpty else { return text }
    var out = ""
    var cursor = 0
    for match in matches {
      let name = ns.substring(with: match.range(at: 1)).lowercased()
      let valueRange = match.range(at: 2)
      let value = ns.substring(with: valueRange)
      guard sensitiveNames.contains(name), !value.isEmpty, !value.hasPrefix("[REDACTED") else {
        continue
      }
      out += ns.substring(with: NSRange(location: cursor, length: valueRange.location - cursor))
      out += marker(for: value)
      cursor = valueRange.location + valueRange.length
    }
    out += ns.substring(from: cursor)
    return out
  }
}
