import Foundation
import QualifyCore

/// Something that answers requests: a mock component, a router, a virtual-host table.
public protocol HTTPHandler: Sendable {
  func handle(_ request: HTTPRequest) -> HTTPResponse
}

/// A handler made of a closure.
public struct ClosureHandler: HTTPHandler {
  private let body: @Sendable (HTTPRequest) -> HTTPResponse

  public init(_ body: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
    self.body = body
  }

  public func handle(_ request: HTTPRequest) -> HTTPResponse { body(request) }
}

/// Routes by method and path: exact paths, or prefixes ending in `*`.
///
/// A path that matches with another method answers 405 with `Allow`, as a real framework
/// would; nothing matches: 404.
public struct Router: HTTPHandler {
  public typealias Route = @Sendable (HTTPRequest) -> HTTPResponse

  private var routes: [(method: String, pattern: String, route: Route)] = []

  public init() {}

  /// Adds a route; `pattern` is an exact path or a prefix ending in `*`.
  public mutating func on(_ method: String, _ pattern: String, _ route: @escaping Route) {
    routes.append((method: method.uppercased(), pattern: pattern, route: route))
  }

  public mutating func get(_ pattern: String, _ route: @escaping Route) {
    on("GET", pattern, route)
  }
  public mutating func post(_ pattern: String, _ route: @escaping Route) {
    on("POST", pattern, route)
  }
  public mutating func put(_ pattern: String, _ route: @escaping Route) {
    on("PUT", pattern, route)
  }

  public func handle(_ request: HTTPRequest) -> HTTPResponse {
    let path = request.path
    let matching = routes.filter { Router.matches($0.pattern, path) }
    if let hit = matching.first(where: {
      $0.method == request.method || ($0.method == "GET" && request.method == "HEAD")
    }) {
      return hit.route(request)
    }
    if !matching.isEmpty {
      let allowed = Set(matching.map(\.method)).sorted().joined(separator: ", ")
      return HTTPResponse.problem(405, "Method \"\(request.method)\" not allowed.")
        .with("Allow", allowed)
    }
    return .notFound
  }

  static func matches(_ pattern: String, _ path: String) -> Bool {
    if pattern.hasSuffix("*") { return path.hasPrefix(pattern.dropLast()) }
    return pattern == path
  }
}

/// Dispatches on the `Host` header, so one listening socket can serve several origins
/// (the backend, the IdP, the bucket) exactly as separate servers would look to a client.
public final class VirtualHosts: HTTPHandler, Sendable {
  // Hosts are added while a world is built, and read by the server's thread as requests come.
  private let table = Locked<[String: HTTPHandler]>([:])

  public init() {}

  /// Serves `handler` for `authority` (`host` or `host:port`, as clients send `Host`).
  public func add(_ authority: String, _ handler: HTTPHandler) {
    table.withLock { $0[authority.lowercased()] = handler }
  }

  public var authorities: [String] { table.withLock { $0.keys.sorted() } }

  public func handle(_ request: HTTPRequest) -> HTTPResponse {
    let host = request.host
    let handler = table.withLock { table -> HTTPHandler? in
      if let exact = table[host] { return exact }
      // A client may send the default port explicitly.
      for suffix in [":443", ":80"] where host.hasSuffix(suffix) {
        if let bare = table[String(host.dropLast(suffix.count))] { return bare }
      }
      return nil
    }
    if let handler { return handler.handle(request) }
    return HTTPResponse.problem(
      421, "No origin \(host.isEmpty ? "(no Host)" : host) on this server.")
  }
}

/// A handler whose target can be switched: a listener that serves one world after another.
public final class SwitchableHandler: HTTPHandler, Sendable {
  private let target = Locked<HTTPHandler?>(nil)

  public init() {}

  public func mount(_ handler: HTTPHandler?) {
    target.withLock { $0 = handler }
  }

  public func handle(_ request: HTTPRequest) -> HTTPResponse {
    let current = target.withLock { $0 }
    return current?.handle(request)
      ?? HTTPResponse.problem(503, "No world is mounted on this listener.")
  }
}
