import Foundation

/// A response from a mock server, or as a simulated client received it.
public struct HTTPResponse: Sendable {
  public var status: Int
  public var headers: HTTPHeaders
  public var body: [UInt8]

  public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  public var bodyText: String { String(decoding: body, as: UTF8.self) }

  public var jsonObject: Any? { try? JSONSerialization.jsonObject(with: Data(body)) }

  /// A plain-text response.
  public static func text(_ text: String, status: Int = 200) -> HTTPResponse {
    HTTPResponse(
      status: status, headers: ["Content-Type": "text/plain; charset=utf-8"],
      body: Array(text.utf8))
  }

  /// An HTML response.
  public static func html(_ html: String, status: Int = 200, headers: HTTPHeaders = [:])
    -> HTTPResponse
  {
    var all = headers
    all.set("Content-Type", "text/html; charset=utf-8")
    return HTTPResponse(status: status, headers: all, body: Array(html.utf8))
  }

  /// A JSON response from a JSON-serialisable value, keys sorted so bodies are reproducible.
  public static func json(_ value: Any, status: Int = 200) -> HTTPResponse {
    let data =
      (try? JSONSerialization.data(
        withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    return HTTPResponse(
      status: status, headers: ["Content-Type": "application/json"], body: Array(data))
  }

  /// A redirect (302 by default) to `location`.
  public static func redirect(to location: String, status: Int = 302) -> HTTPResponse {
    HTTPResponse(status: status, headers: ["Location": location])
  }

  /// A JSON error body `{"detail": …}`, the shape Django REST framework answers with.
  public static func problem(_ status: Int, _ detail: String) -> HTTPResponse {
    json(["detail": detail], status: status)
  }

  public static let notFound = problem(404, "Not found.")

  /// Adds a header and returns the response, for chaining.
  public func with(_ name: String, _ value: String) -> HTTPResponse {
    var copy = self
    copy.headers.add(name, value)
    return copy
  }

  /// Whether the status is a redirect that carries a `Location`.
  public var isRedirect: Bool {
    [301, 302, 303, 307, 308].contains(status) && headers["Location"] != nil
  }
}
