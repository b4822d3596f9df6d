import Foundation

/// A `Set-Cookie` header parsed (RFC 6265 §5.2).
public struct SetCookie: Sendable, Hashable {
  public enum SameSite: String, Sendable, Hashable {
    case strict = "Strict"
    case lax = "Lax"
    case none = "None"
  }

  public var name: String
  public var value: String
  public var domain: String?
  public var path: String?
  public var expires: Date?
  public var maxAge: TimeInterval?
  public var secure = false
  public var httpOnly = false
  public var sameSite: SameSite?

  public init(name: String, value: String) {
    self.name = name
    self.value = value
  }

  /// Parses one header value; nil when it has no `name=value` pair.
  public init?(header: String) {
    let parts = header.split(separator: ";", omittingEmptySubsequences: false).map {
      $0.trimmingOWS()
    }
    guard let first = parts.first, let eq = first.firstIndex(of: "=") else { return nil }
    name = String(first[..<eq]).trimmingOWS()
    value = String(first[first.index(after: eq)...]).trimmingOWS()
    guard !name.isEmpty else { return nil }
    for attribute in parts.dropFirst() {
      let pieces = attribute.split(separator: "=", maxSplits: 1).map {
        $0.trimmingOWS()
      }
      let key = pieces.first?.lowercased() ?? ""
      let argument = pieces.count > 1 ? pieces[1] : ""
      switch key {
      case "domain":
        let trimmed = argument.hasPrefix(".") ? String(argument.dropFirst()) : argument
        if !trimmed.isEmpty { domain = trimmed.lowercased() }
      case "path": if argument.hasPrefix("/") { path = argument }
      case "expires": expires = SetCookie.parseDate(argument)
      case "max-age": if let seconds = Double(argument) { maxAge = seconds }
      case "secure": secure = true
      case "httponly": httpOnly = true
      case "samesite": sameSite = SameSite(rawValue: argument.capitalized)
      default: break
      }
    }
  }

  /// The header value, as a server sends it.
  public var header: String {
    var out = "\(name)=\(value)"
    if let domain { out += "; Domain=\(domain)" }
    out += "; Path=\(path ?? "/")"
    if let maxAge { out += "; Max-Age=\(Int(maxAge))" }
    if let expires { out += "; Expires=\(SetCookie.formatDate(expires))" }
    if secure { out += "; Secure" }
    if httpOnly { out += "; HttpOnly" }
    if let sameSite { out += "; SameSite=\(sameSite.rawValue)" }
    return out
  }

  private static let formatter: DateFormatter = {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter
  }()

  private static let lock = NSLock()

  static func formatDate(_ date: Date) -> String {
    lock.lock()
    defer { lock.unlock() }
    return formatter.string(from: date)
  }

  static func parseDate(_ text: String) -> Date? {
    lock.lock()
    defer { lock.unlock() }
    for format in [
      "EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEE, dd-MMM-yyyy HH:mm:ss 'GMT'",
      "EEEE, dd-MMM-yy HH:mm:ss 'GMT'",
    ] {
      formatter.dateFormat = format
      if let date = formatter.date(from: text) {
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return date
      }
    }
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return nil
  }
}
