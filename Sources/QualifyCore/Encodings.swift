import Foundation

/// Base64url without padding (RFC 4648 §5), as JOSE and PKCE use it.
public enum Base64URL {
  public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String
  where Bytes.Element == UInt8 {
    // Byte by byte: Foundation's string replacement bridges through UTF-16 and was a tenth
    // of a JWT's signing cost.
    var out: [UInt8] = []
    for byte in Data(bytes).base64EncodedData() {
      switch byte {
      case UInt8(ascii: "+"): out.append(UInt8(ascii: "-"))
      case UInt8(ascii: "/"): out.append(UInt8(ascii: "_"))
      case UInt8(ascii: "="): continue
      default: out.append(byte)
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  public static func decode(_ text: String) -> Data? {
    var base64: [UInt8] = []
    base64.reserveCapacity(text.utf8.count + 3)
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "-"): base64.append(UInt8(ascii: "+"))
      case UInt8(ascii: "_"): base64.append(UInt8(ascii: "/"))
      default: base64.append(byte)
      }
    }
    while base64.count % 4 != 0 { base64.append(UInt8(ascii: "=")) }
    return Data(base64Encoded: Data(base64))
  }
}

/// Lowercase hexadecimal.
public enum Hex {
  private static let digits = Array("0123456789abcdef".utf8)

  public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String
  where Bytes.Element == UInt8 {
    var out: [UInt8] = []
    for byte in bytes {
      out.append(digits[Int(byte >> 4)])
      out.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  public static func decode(_ text: String) -> Data? {
    let chars = Array(text.utf8)
    guard chars.count % 2 == 0 else { return nil }
    var out = Data(capacity: chars.count / 2)
    var index = 0
    while index < chars.count {
      guard let high = value(chars[index]), let low = value(chars[index + 1]) else { return nil }
      out.append(high << 4 | low)
      index += 2
    }
    return out
  }

  private static func value(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
    default: return nil
    }
  }
}

/// Keys as env files carry them (seed 000's `make mobile-ota-keygen`): base64 of a PEM.
public enum Base64PEM {
  public static func encode(_ pem: String) -> String { Data(pem.utf8).base64EncodedString() }

  /// The PEM of `text`, which may also be a PEM as is; nil when it is neither.
  public static func decode(_ text: String) -> String? {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    if trimmed.hasPrefix("-----BEGIN") { return trimmed }
    return Data(base64Encoded: trimmed).map { String(decoding: $0, as: UTF8.self) }
  }
}

/// Characters that reorder what a reader sees without being seen themselves: the Unicode
/// bidirectional embeddings, overrides and isolates (the "Trojan Source" characters). Every
/// writer of text a person reads — the terminal, HTML, JUnit, Markdown — shows them as
/// `\u{202E}` instead of obeying them.
public enum BidiControls {
  public static func contains(_ scalar: Unicode.Scalar) -> Bool {
    (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
      || scalar.value == 0x061C || scalar.value == 0x200E || scalar.value == 0x200F
  }

  /// How a writer shows one: visible, and inert in every format it writes.
  public static func visible(_ scalar: Unicode.Scalar) -> String {
    String(format: "\\u{%04X}", scalar.value)
  }
}

/// Text made safe for HTML element content and attribute values.
public enum HTMLText {
  /// Escapes text for element content and quoted attribute values.
  ///
  /// Works on Unicode scalars, not characters: a grapheme cluster such as U+0600 followed by
  /// `<` is one `Character` in Swift, and matching characters would let the `<` through.
  /// Control characters other than tab and newline are written as character references so
  /// that nothing invisible reaches the page.
  ///
  /// Written byte by byte, and the text returned as it is when nothing needs escaping: the
  /// report escapes every evidence line of a run.
  public static func escape(_ text: String) -> String {
    if text.utf8.allSatisfy(isPlain) { return text }
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count + 32)
    for scalar in text.unicodeScalars {
      switch scalar.value {
      case 0x26: out.append(contentsOf: "&amp;".utf8)
      case 0x3C: out.append(contentsOf: "&lt;".utf8)
      case 0x3E: out.append(contentsOf: "&gt;".utf8)
      case 0x22: out.append(contentsOf: "&quot;".utf8)
      case 0x27: out.append(contentsOf: "&#39;".utf8)
      case 0x0A, 0x09: out.append(UInt8(scalar.value))
      case 0..<0x20, 0x7F: out.append(contentsOf: "&#\(scalar.value);".utf8)
      case 0..<0x80: out.append(UInt8(scalar.value))
      default:
        if BidiControls.contains(scalar) {
          out.append(contentsOf: BidiControls.visible(scalar).utf8)
        } else {
          UTF8.encode(scalar) { out.append($0) }
        }
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// A byte that stands for itself in HTML: printable ASCII other than the five escaped, tab
  /// and newline.
  private static func isPlain(_ byte: UInt8) -> Bool {
    switch byte {
    case 0x26, 0x3C, 0x3E, 0x22, 0x27: return false
    case 0x0A, 0x09, 0x20..<0x7F: return true
    default: return false
    }
  }
}

/// Timestamps as `ISO8601DateFormatter` writes them by default (`2026-12-04T14:30:47Z`, UTC,
/// whole seconds), without creating a formatter per call: evidence stamps every cookie.
public enum ISO8601 {
  public static func string(from date: Date) -> String {
    let seconds = Int(date.timeIntervalSince1970.rounded(.down))
    var days = seconds / 86_400
    var rest = seconds % 86_400
    if rest < 0 {
      rest += 86_400
      days -= 1
    }
    // Days since 1970-01-01 to a proleptic Gregorian date (Hinnant's civil_from_days).
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let yearText = String(year)
    let paddedYear = String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText
    return
      "\(paddedYear)-\(two(month))-\(two(day))T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))Z"
  }
}
