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

  public static func decode(_ text: String) -> String {
    let spaced = text.replacingOccurrences(of: "+", with: " ")
    return spaced.removingPercentEncoding ?? spaced
  }
}
