import Foundation

/// A web origin: scheme, host and port (RFC 6454), as cookies, CSRF checks and the
/// connection map see it.
public struct Origin: Hashable, Sendable, CustomStringConvertible {
  public var scheme: String
  public var host: String
  public var port: Int

  public init(scheme: String, host: String, port: Int? = nil) {
    self.scheme = scheme.lowercased()
    self.host = host.lowercased()
    self.port = port ?? (scheme.lowercased() == "https" ? 443 : 80)
  }

  /// The origin of an absolute http(s) URL.
  public init?(url: String) {
    guard let components = URLComponents(string: url), let scheme = components.scheme,
      let host = components.host, !host.isEmpty, ["http", "https"].contains(scheme.lowercased())
    else { return nil }
    self.init(scheme: scheme, host: host, port: components.port)
  }

  public var isSecure: Bool { scheme == "https" }

  /// Whether the port is the scheme's default (and so absent from URLs and `Host`).
  public var hasDefaultPort: Bool { port == (isSecure ? 443 : 80) }

  /// `host:port`, always with the port: the key of the connection map.
  public var authority: String { "\(host):\(port)" }

  /// What a client sends as `Host`.
  public var hostHeader: String { hasDefaultPort ? host : "\(host):\(port)" }

  /// `https://host[:port]`.
  public var description: String { "\(scheme)://\(hostHeader)" }

  /// An absolute URL on this origin.
  public func url(_ pathAndQuery: String) -> String {
    description + (pathAndQuery.hasPrefix("/") ? pathAndQuery : "/" + pathAndQuery)
  }

  /// Whether the host is loopback or a `.local` name (what iOS `NSAllowsLocalNetworking`
  /// covers).
  public var isLocal: Bool {
    host == "localhost" || host.hasSuffix(".local") || host == "127.0.0.1" || host == "::1"
      || isIPLiteral
  }

  /// Whether the host is an IP address literal (ATS never applies to those).
  public var isIPLiteral: Bool {
    host.allSatisfy { $0.isNumber || $0 == "." } || host.contains(":")
  }
}
