import Foundation

/// `application/x-www-form-urlencoded` and URL query strings.
public enum Query {
  /// Parses `a=1&b=two%20words` (also `+` as space) into ordered pairs.
  public static func parse(_ text: String) -> [(name: String, value: String)] {
    guard !text.isEmpty else { return [] }
    return text.split(separator: "&", omittingEmptySubsequences: true).map { part in
      let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let name = decode(String(pieces[0]))
      let value = pieces.count > 1 ? decode(String(pieces[1])) : ""
      return (name: name, value: value)
    }
  }

  /// The first value of `name` in `text`.
  public static func value(_ name: String, in text: String) -> String? {
    parse(text).first { $0.name == name }?.value
  }

  /// The base64 credentials of an OAuth client's HTTP Basic authentication: id and secret
  /// form-encoded first, then joined by `:` (RFC 6749 §2.3.1). Sent as `Basic <this>`.
  public static func basicCredentials(id: String, secret: String) -> String {
    Data("\(escape(id)):\(escape(secret))".utf8).base64EncodedString()
  }

  /// Encodes ordered pairs as a query string.
  public static func encode(_ pairs: [(String, String)]) -> String {
    pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
  }

  private static let unreserved = CharacterSet(
    charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

  /// Percent-encodes everything but RFC 3986 unreserved characters.
  public static func escape(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
  }

  /// `+` as a space, then `%XY` as its byte; a `%` without two hex digits after it, or bytes
  /// that are not UTF-8, leave the percent signs as they are (as `removingPercentEncoding`).
  /// Byte by byte, as the WHATWG form-urlencoded parser: every request of a run parses its
  /// query and form this way.
  public static func decode(_ text: String) -> String {
    let utf8 = Array(text.utf8)
    guard utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else {
      return text
    }
    var decoded: [UInt8] = []
    decoded.reserveCapacity(utf8.count)
    var index = 0
    var wellFormed = true
    while index < utf8.count {
      let byte = utf8[index]
      if byte == UInt8(ascii: "+") {
        decoded.append(UInt8(ascii: " "))
        index += 1
      } else if byte == UInt8(ascii: "%") {
        guard index + 2 < utf8.count, let high = hexValue(utf8[index + 1]),
          let low = hexValue(utf8[index + 2])
        else {
          wellFormed = false
          break
        }
        decoded.append(high << 4 | low)
        index += 3
      } else {
        decoded.append(byte)
        index += 1
      }
    }
    if wellFormed, let string = String(validating: decoded, as: UTF8.self) { return string }
    return String(
      decoding: utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
  }
}
