import Foundation
import HTTP
import QualifyCore

/// A stored cookie.
public struct Cookie: Sendable, Hashable {
  public var name: String
  public var value: String
  public var domain: String
  /// Sent to `domain` only, not to its subdomains (no `Domain` attribute).
  public var hostOnly: Bool
  public var path: String
  public var secure: Bool
  public var httpOnly: Bool
  public var sameSite: SetCookie.SameSite
  /// nil for a session cookie.
  public var expires: Date?
  public var created: Date

  /// Whether the cookie outlives the browser session.
  public var isPersistent: Bool { expires != nil }
}

/// A cookie store on the virtual clock (RFC 6265 §5.3–5.4): domain and path matching,
/// `Secure`, `HttpOnly`, `SameSite`, `Expires` / `Max-Age`.
///
/// Each native HTTP stack has its own jar; each device has a system jar its system browser
/// sessions use. Time is the world's virtual clock, so `advance 13h` expires a 12 h session.
public final class CookieJar {
  private let clock: VirtualClock
  private let lock = NSLock()
  private var cookies: [Cookie] = []
  /// Every cookie ever stored, in order, deleted or not: what a tester who watched the device
  /// could name afterwards.
  public private(set) var history: [Cookie] = []

  public init(clock: VirtualClock) {
    self.clock = clock
  }

  /// Stores the `Set-Cookie` headers of a response to `url`.
  public func store(_ headers: [String], from url: String) {
    guard let origin = Origin(url: url) else { return }
    let requestPath = URLComponents(string: url)?.path ?? "/"
    let now = clock.now
    lock.lock()
    defer { lock.unlock() }
    for header in headers {
      guard let parsed = SetCookie(header: header) else { continue }
      var domain = origin.host
      var hostOnly = true
      if let attribute = parsed.domain {
        // A cookie for a domain the response's host does not belong to is ignored.
        guard CookieJar.domainMatches(origin.host, attribute) else { continue }
        domain = attribute
        hostOnly = false
      }
      if parsed.secure && !origin.isSecure && !origin.isLocal { continue }
      var expires: Date?
      if let maxAge = parsed.maxAge {
        expires = now.addingTimeInterval(maxAge)
      } else if let date = parsed.expires {
        expires = date
      }
      let cookie = Cookie(
        name: parsed.name, value: parsed.value, domain: domain, hostOnly: hostOnly,
        path: parsed.path ?? CookieJar.defaultPath(requestPath), secure: parsed.secure,
        httpOnly: parsed.httpOnly, sameSite: parsed.sameSite ?? .lax, expires: expires,
        created: now)
      let created =
        cookies.first {
          $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path
        }?
        .created ?? now
      cookies.removeAll {
        $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path
      }
      if let expires, expires <= now { continue }  // An expiry in the past deletes.
      var stored = cookie
      stored.created = created
      cookies.append(stored)
      history.append(stored)
    }
  }

  /// The kind of request a cookie is sent with, for `SameSite`.
  public enum RequestContext: Sendable {
    /// An API call of a native stack: no browser, no site to compare.
    case native
    /// A browser navigation; `crossSite` when initiated from another site, `topLevelGET` for
    /// a top-level GET (where `Lax` cookies still go).
    case navigation(crossSite: Bool, topLevelGET: Bool)
  }

  /// The `Cookie` header for a request to `url`, or nil when no cookie applies.
  public func header(for url: String, context: RequestContext = .native) -> String? {
    let matching = cookies(for: url, context: context)
    guard !matching.isEmpty else { return nil }
    return matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
  }

  /// The cookies sent with a request to `url`, longest path first.
  public func cookies(for url: String, context: RequestContext = .native) -> [Cookie] {
    guard let origin = Origin(url: url) else { return [] }
    let path = URLComponents(string: url)?.path ?? "/"
    let now = clock.now
    lock.lock()
    cookies.removeAll { ($0.expires.map { $0 <= now }) ?? false }
    let all = cookies
    lock.unlock()
    return all.filter { cookie in
      let domainOK =
        cookie.hostOnly
        ? cookie.domain == origin.host : CookieJar.domainMatches(origin.host, cookie.domain)
      guard domainOK, CookieJar.pathMatches(path, cookie.path) else { return false }
      if cookie.secure && !origin.isSecure && !origin.isLocal { return false }
      if case .navigation(let crossSite, let topLevelGET) = context, crossSite {
        switch cookie.sameSite {
        case .strict: return false
        case .lax: return topLevelGET
        case .none: return true
        }
      }
      return true
    }.sorted { ($0.path.count, $1.created) > ($1.path.count, $0.created) }
  }

  /// Every unexpired cookie.
  public var all: [Cookie] {
    let now = clock.now
    lock.lock()
    defer { lock.unlock() }
    return cookies.filter { ($0.expires.map { $0 > now }) ?? true }
  }

  public func removeAll() {
    lock.lock()
    cookies.removeAll()
    lock.unlock()
  }

  /// Ends the browser session: session cookies go, persistent ones stay.
  public func removeSessionCookies() {
    lock.lock()
    cookies.removeAll { $0.expires == nil }
    lock.unlock()
  }

  /// Adds cookies copied from another store (a browser session seeded from Safari's).
  public func insert(_ copied: [Cookie]) {
    lock.lock()
    for cookie in copied {
      cookies.removeAll {
        $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path
      }
      cookies.append(cookie)
    }
    lock.unlock()
  }

  /// A redacted, one-line-per-cookie snapshot for evidence.
  public func snapshot(redactor: Redactor) -> String {
    let lines = all.sorted { ($0.domain, $0.name) < ($1.domain, $1.name) }.map { cookie in
      let lifetime =
        cookie.expires.map { "expires \(ISO8601.string(from: $0))" } ?? "session"
      let flags = [
        cookie.secure ? "Secure" : nil, cookie.httpOnly ? "HttpOnly" : nil,
        "SameSite=\(cookie.sameSite.rawValue)",
      ]
      .compactMap { $0 }.joined(separator: " ")
      return
        "\(cookie.domain)\(cookie.path) \(cookie.name)=\(Redactor.marker(for: cookie.value)) (\(lifetime); \(flags))"
    }
    return redactor.redact(lines.isEmpty ? "(empty)" : lines.joined(separator: "\n"))
  }

  static func domainMatches(_ host: String, _ domain: String) -> Bool {
    host == domain
      || (host.hasSuffix("." + domain) && !host.allSatisfy { $0.isNumber || $0 == "." })
  }

  static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
    if requestPath == cookiePath { return true }
    guard requestPath.hasPrefix(cookiePath) else { return false }
    return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).hasPrefix("/")
  }

  static func defaultPath(_ requestPath: String) -> String {
    guard requestPath.hasPrefix("/"), let slash = requestPath.lastIndex(of: "/"),
      slash != requestPath.startIndex
    else { return "/" }
    return String(requestPath[..<slash])
  }
}
