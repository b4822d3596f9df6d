import Foundation

/// Removes secrets from text before it reaches the store, the report or the terminal.
///
/// Two nets, because either alone leaks: values of parameters, cookies, headers and JSON
/// fields whose *name* is sensitive (`token=…`, `code_verifier`, `sessionid`, `Authorization`),
/// and every secret the simulated world minted (registered as it is created), wherever it
/// appears — inside a deep link, an HTML page or a log line. A redacted value keeps a short
/// fingerprint (`[REDACTED:1a2b]`) so that an engineer can still see that the token in the
/// deep link is the one the exchange sent, without seeing the token.
public final class Redactor: Sendable {
  /// Names whose values are secrets wherever they appear (case-insensitive).
  public static let sensitiveNames: Set<String> = [
    "token", "code", "code_verifier", "verifier", "password", "client_secret", "secret",
    "sessionid", "csrftoken", "csrf_token", "csrfmiddlewaretoken", "x-csrftoken", "id_token",
    "access_token", "refresh_token", "authorization", "keycloak_identity",
    "keycloak_identity_legacy", "keycloak_session", "auth_session_id", "form_token",
    "private_key", "privatekey", "sessionkey", "id_token_hint", "login_token", "push_token",
    "device_token", "mobile_ota_signing_private_key_b64",
  ]

  private struct Known {
    var secrets: Set<String> = []
    var lengths: Set<Int> = []
    /// Secrets of any length and shape, replaced wherever they appear verbatim (a password a
    /// user chose: short, with punctuation), with their URL-encoded forms.
    var literals: [String] = []
  }

  private let known = Locked(Known())

  public init() {}

  /// The secrets this process holds outside any run (a stack file's client secrets and
  /// passwords): every error message, hint and diagnostic passes through it before it is
  /// printed (docs/threat-model.md).
  public static let process = Redactor()

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
    known.withLock {
      $0.secrets.insert(secret)
      $0.lengths.insert(secret.utf8.count)
    }
  }

  /// Registers a secret that is not token-shaped (a password someone chose), exactly as it
  /// is and as a form or a query would encode it: it is removed verbatim whatever its
  /// length.
  public func registerLiteral(_ secret: String) {
    guard !secret.isEmpty else { return }
    var forms = [secret]
    var query = CharacterSet.alphanumerics
    query.insert(charactersIn: "-._~")
    if let encoded = secret.addingPercentEncoding(withAllowedCharacters: query) {
      forms.append(encoded)
      forms.append(encoded.replacingOccurrences(of: "%20", with: "+"))
    }
    known.withLock { known in
      for form in forms where !known.literals.contains(form) { known.literals.append(form) }
      // Longest first, so a secret's encoded form is not half-replaced by a shorter one.
      known.literals.sort { $0.count > $1.count }
    }
    register(secret)
  }

  /// The marker that stands for `secret`: stable across a run, so equal secrets look equal.
  public static func marker(for secret: String) -> String {
    let fingerprint = String(SeededGenerator.fnv1a(secret) & 0xffff, radix: 16)
    return "[REDACTED:\(String(repeating: "0", count: 4 - fingerprint.count))\(fingerprint)]"
  }

  /// `text` with every registered secret and every sensitive named value replaced.
  public func redact(_ text: String) -> String {
    let current = known.withLock { $0 }
    var text = text
    for literal in current.literals where TextSearch.contains(text, literal) {
      text = text.replacingOccurrences(of: literal, with: Redactor.marker(for: literal))
    }
    return Redactor.redactPrivateKeys(
      Redactor.redactNamedValues(
        current.secrets.isEmpty
          ? text : Redactor.replace(current.secrets, lengths: current.lengths, in: text)))
  }

  /// Replaces every PEM private key block (`-----BEGIN … PRIVATE KEY-----` to its END line, or
  /// to the end of the text when it is cut off), whoever minted it.
  static func redactPrivateKeys(_ text: String) -> String {
    guard TextSearch.contains(text, "PRIVATE KEY-----") else { return text }
    var out = ""
    var rest = Substring(text)
    while let begin = rest.range(of: "-----BEGIN "),
      let header = rest[begin.upperBound...].range(of: "-----")
    {
      let label = rest[begin.upperBound..<header.lowerBound]
      guard label.hasSuffix("PRIVATE KEY"), !label.contains("\n") else {
        out += rest[..<header.upperBound]
        rest = rest[header.upperBound...]
        continue
      }
      out += rest[..<begin.lowerBound]
      let end = rest[header.upperBound...].range(of: "-----END \(label)-----")
      let block = rest[begin.lowerBound..<(end?.upperBound ?? rest.endIndex)]
      out += marker(for: String(block))
      rest = rest[(end?.upperBound ?? rest.endIndex)...]
    }
    return out + rest
  }

  /// Replaces registered secrets in one pass over the UTF-8 bytes: secrets are token-shaped
  /// (base64, base64url, hex, JWTs), so every maximal run of token characters — with any `=`
  /// padding — whose length is that of some secret is looked up in the set.
  static func replace(_ secrets: Set<String>, lengths: Set<Int>, in text: String) -> String {
    var utf8 = Array(text.utf8)
    var out: [UInt8] = []
    var copied = 0
    var index = 0
    var changed = false
    while index < utf8.count {
      guard isTokenByte(utf8[index]) else {
        index += 1
        continue
      }
      // After a percent escape (`%3D` of a URL nested in a parameter), the run's first two
      // characters are the escape's, not the token's.
      if index > 0, utf8[index - 1] == UInt8(ascii: "%"), index + 2 < utf8.count,
        isHexByte(utf8[index]), isHexByte(utf8[index + 1]), isTokenByte(utf8[index + 2])
      {
        index += 2
      }
      var end = index
      while end < utf8.count && isTokenByte(utf8[end]) { end += 1 }
      var padded = end
      while padded < utf8.count && padded - end < 2 && utf8[padded] == UInt8(ascii: "=") {
        padded += 1
      }
      var matchEnd: Int?
      if padded > end, lengths.contains(padded - index),
        secrets.contains(String(decoding: utf8[index..<padded], as: UTF8.self))
      {
        matchEnd = padded
      } else if lengths.contains(end - index),
        secrets.contains(String(decoding: utf8[index..<end], as: UTF8.self))
      {
        matchEnd = end
      }
      if let matchEnd {
        out.append(contentsOf: utf8[copied..<index])
        out.append(
          contentsOf: marker(for: String(decoding: utf8[index..<matchEnd], as: UTF8.self)).utf8)
        copied = matchEnd
        changed = true
        index = matchEnd
      } else {
        index = end
      }
    }
    guard changed else { return text }
    out.append(contentsOf: utf8[copied...])
    utf8 = out
    return String(decoding: utf8, as: UTF8.self)
  }

  static func isHexByte(_ c: UInt8) -> Bool {
    (0x30...0x39).contains(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c)
  }

  static func isTokenByte(_ c: UInt8) -> Bool {
    switch c {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
    case 0x2D, 0x5F, 0x2E, 0x7E, 0x2B, 0x2F: return true  // - _ . ~ + /
    default: return false
    }
  }

  private static func isTokenScalar(_ c: Unicode.Scalar) -> Bool {
    c.isASCII && isTokenByte(UInt8(c.value))
  }

  /// Replaces values of sensitive names in `name=value` pairs (queries, forms, cookies),
  /// JSON string fields (`"name": "value"`) and credential header lines, in one scan of the
  /// UTF-8 bytes.
  static func redactNamedValues(_ text: String) -> String {
    let bytes = Array(text.utf8)
    var out: [UInt8] = []
    var copied = 0
    var changed = false
    var index = 0

    func replace(_ start: Int, _ end: Int) {
      guard end > start else { return }
      let value = String(decoding: bytes[start..<end], as: UTF8.self)
      guard !value.hasPrefix("[REDACTED") else { return }
      out.append(contentsOf: bytes[copied..<start])
      out.append(contentsOf: marker(for: value).utf8)
      copied = end
      changed = true
    }

    /// The name ending just before `end` (name characters), if it is sensitive.
    func sensitiveName(endingAt end: Int) -> Bool {
      var start = end
      while start > 0 && isNameByte(bytes[start - 1]) { start -= 1 }
      guard start < end, end - start <= 64 else { return false }
      if start > 0 && isNameByte(bytes[start - 1]) { return false }
      return sensitiveNames.contains(
        String(decoding: bytes[start..<end], as: UTF8.self).lowercased())
    }

    while index < bytes.count {
      let c = bytes[index]
      if c == UInt8(ascii: "=") && index > copied && sensitiveName(endingAt: index) {
        // name=value: the value runs to a delimiter.
        var end = index + 1
        while end < bytes.count && !isValueDelimiter(bytes[end]) { end += 1 }
        replace(index + 1, end)
        index = max(end, index + 1)
        continue
      }
      if c == UInt8(ascii: "\""), let value = jsonValue(quoteAt: index, in: bytes) {
        replace(value.lowerBound, value.upperBound)
        index = value.upperBound
        continue
      }
      if c == UInt8(ascii: ":") && index > copied,
        let value = headerValue(colonAt: index, in: bytes)
      {
        replace(value.lowerBound, value.upperBound)
        index = max(value.upperBound, index + 1)
        continue
      }
      index += 1
    }
    guard changed else { return text }
    out.append(contentsOf: bytes[copied...])
    return String(decoding: out, as: UTF8.self)
  }

  /// `"name" : "value"` starting at the quote at `index`, with a sensitive name: the value's
  /// bytes (between its quotes, escapes kept).
  private static func jsonValue(quoteAt index: Int, in bytes: [UInt8]) -> Range<Int>? {
    guard index + 1 < bytes.count else { return nil }
    var close = index + 1
    while close < bytes.count && isNameByte(bytes[close]) { close += 1 }
    guard close < bytes.count, bytes[close] == UInt8(ascii: "\""), close > index + 1,
      sensitiveNames.contains(
        String(decoding: bytes[(index + 1)..<close], as: UTF8.self).lowercased())
    else { return nil }
    var cursor = close + 1
    while cursor < bytes.count && (bytes[cursor] == 0x20 || bytes[cursor] == 0x09) {
      cursor += 1
    }
    guard cursor < bytes.count && bytes[cursor] == UInt8(ascii: ":") else { return nil }
    cursor += 1
    while cursor < bytes.count && (bytes[cursor] == 0x20 || bytes[cursor] == 0x09) {
      cursor += 1
    }
    guard cursor < bytes.count && bytes[cursor] == UInt8(ascii: "\"") else { return nil }
    var end = cursor + 1
    while end < bytes.count && bytes[end] != UInt8(ascii: "\"") {
      end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
    }
    return (cursor + 1)..<min(end, bytes.count)
  }

  /// A credential header at the start of a line (`Authorization: Bearer …`) whose colon is at
  /// `index`: its value, to the end of the line.
  private static func headerValue(colonAt index: Int, in bytes: [UInt8]) -> Range<Int>? {
    var start = index
    while start > 0 && isNameByte(bytes[start - 1]) { start -= 1 }
    var lineStart = start
    while lineStart > 0
      && (bytes[lineStart - 1] == 0x20 || bytes[lineStart - 1] == UInt8(ascii: ">")
        || bytes[lineStart - 1] == UInt8(ascii: "<"))
    {
      lineStart -= 1
    }
    let atLineStart = lineStart == 0 || bytes[lineStart - 1] == 0x0A
    let name = String(decoding: bytes[start..<index], as: UTF8.self).lowercased()
    guard atLineStart && Redactor.credentialHeaders.contains(name) else { return nil }
    var valueStart = index + 1
    while valueStart < bytes.count && (bytes[valueStart] == 0x20 || bytes[valueStart] == 0x09) {
      valueStart += 1
    }
    var end = valueStart
    while end < bytes.count && bytes[end] != 0x0A && bytes[end] != 0x0D { end += 1 }
    return valueStart..<end
  }

  static let credentialHeaders: Set<String> = [
    "authorization", "x-csrftoken", "proxy-authorization",
  ]

  private static func isNameByte(_ c: UInt8) -> Bool {
    switch c {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x5F: return true
    default: return false
    }
  }

  private static func isValueDelimiter(_ c: UInt8) -> Bool {
    switch c {
    case UInt8(ascii: "&"), UInt8(ascii: ";"), UInt8(ascii: " "), UInt8(ascii: "\t"),
      UInt8(ascii: "\n"),
      UInt8(ascii: "\r"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "<"),
      UInt8(ascii: ">"),
      UInt8(ascii: ","):
      return true
    default: return false
    }
  }
}
