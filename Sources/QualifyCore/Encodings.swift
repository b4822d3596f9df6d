import Foundation

/// Base64url without padding (RFC 4648 §5), as JOSE and PKCE use it.
public enum Base64URL {
  public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String
  where Bytes.Element == UInt8 {
    Data(bytes).base64EncodedString()
      .replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
  }

  public static func decode(_ text: String) -> Data? {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(
      of: "_", with: "/")
    while base64.count % 4 != 0 { base64.append("=") }
    return Data(base64Encoded: base64)
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
  public static func escape(_ text: String) -> String {
    var out = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out.append(contentsOf: "&amp;".unicodeScalars)
      case "<": out.append(contentsOf: "&lt;".unicodeScalars)
      case ">": out.append(contentsOf: "&gt;".unicodeScalars)
      case "\"": out.append(contentsOf: "&quot;".unicodeScalars)
      case "'": out.append(contentsOf: "&#39;".unicodeScalars)
      case "\n", "\t":
        out.append(scalar)
      default:
        if BidiControls.contains(scalar) {
          out.append(contentsOf: BidiControls.visible(scalar).unicodeScalars)
        } else if scalar.value < 0x20 || scalar.value == 0x7F {
          out.append(contentsOf: "&#\(scalar.value);".unicodeScalars)
        } else {
          out.append(scalar)
        }
      }
    }
    return String(out)
  }
}
