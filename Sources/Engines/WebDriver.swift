import Foundation
import HTTP

/// A failure a W3C WebDriver server reported (`{"value": {"error": …, "message": …}}`), or a
/// request that never reached it.
public struct WebDriverError: Error, CustomStringConvertible, Sendable, Equatable {
  /// The W3C error code (`no such element`, `invalid argument`), or `unreachable`.
  public var code: String
  public var message: String

  public init(_ code: String, _ message: String) {
    self.code = code
    self.message = message
  }

  public var description: String { "WebDriver \(code): \(message)" }
}

/// An element reference of a WebDriver session.
public struct WebElement: Sendable, Equatable {
  /// The W3C key an element reference is sent under.
  public static let key = "element-6066-11e4-a52e-4f735466cecf"
  public var id: String

  var reference: [String: String] { [WebElement.key: id] }
}

/// The W3C WebDriver protocol over the project's libcurl client: plain HTTP and JSON to a
/// driver on loopback (chromedriver, WebKitWebDriver). Each call is one request; every
/// exchange goes to `transcript` (a screenshot's bytes summarised), which `--trace` prints.
public final class WebDriverSession: @unchecked Sendable {
  public let id: String
  let endpoint: String
  let client: HTTPClient
  let transcript: (@Sendable (String) -> Void)?

  init(id: String, endpoint: String, client: HTTPClient, transcript: (@Sendable (String) -> Void)?)
  {
    self.id = id
    self.endpoint = endpoint
    self.client = client
    self.transcript = transcript
  }

  /// Opens a session with `capabilities` (the `alwaysMatch` object).
  public static func open(
    endpoint: String, capabilities: [String: Any], client: HTTPClient,
    transcript: (@Sendable (String) -> Void)? = nil
  ) throws -> WebDriverSession {
    let value = try WebDriverSession.call(
      client, endpoint, "POST", "/session",
      ["capabilities": ["alwaysMatch": capabilities]], transcript: transcript)
    guard let object = value as? [String: Any], let id = object["sessionId"] as? String else {
      throw WebDriverError("invalid session", "the driver answered no sessionId")
    }
    return WebDriverSession(id: id, endpoint: endpoint, client: client, transcript: transcript)
  }

  /// Whether the driver at `endpoint` is ready for a new session.
  public static func ready(endpoint: String, client: HTTPClient) -> Bool {
    guard let value = try? call(client, endpoint, "GET", "/status", nil, transcript: nil),
      let object = value as? [String: Any]
    else { return false }
    return object["ready"] as? Bool ?? false
  }

  public func navigate(to url: String) throws {
    _ = try command("POST", "/url", ["url": url])
  }

  public func currentURL() throws -> String {
    try command("GET", "/url", nil) as? String ?? ""
  }

  public func element(css selector: String) throws -> WebElement {
    let value = try command("POST", "/element", ["using": "css selector", "value": selector])
    return try Self.element(value)
  }

  public func elements(css selector: String) throws -> [WebElement] {
    let value = try command("POST", "/elements", ["using": "css selector", "value": selector])
    return try (value as? [Any] ?? []).map(Self.element)
  }

  public func attribute(_ element: WebElement, _ name: String) throws -> String? {
    try command("GET", "/element/\(element.id)/attribute/\(name)", nil) as? String
  }

  public func click(_ element: WebElement) throws {
    _ = try command("POST", "/element/\(element.id)/click", [:])
  }

  /// Switches into the frame `element` is, or back to the top-level document (nil).
  public func switchToFrame(_ element: WebElement?) throws {
    _ = try command("POST", "/frame", ["id": element.map { $0.reference as Any } ?? NSNull()])
  }

  /// Runs `script` (a function body: `return …`) in the current browsing context.
  public func execute(_ script: String, _ arguments: [Any] = []) throws -> Any? {
    let value = try command("POST", "/execute/sync", ["script": script, "args": arguments])
    return value is NSNull ? nil : value
  }

  public func windowHandles() throws -> [String] {
    try command("GET", "/window/handles", nil) as? [String] ?? []
  }

  /// The current window's handle.
  public func windowHandle() throws -> String {
    try command("GET", "/window", nil) as? String ?? ""
  }

  public func switchToWindow(_ handle: String) throws {
    _ = try command("POST", "/window", ["handle": handle])
  }

  /// Closes the current window; the session ends with its last one.
  public func closeWindow() throws {
    _ = try command("DELETE", "/window", nil)
  }

  /// Resizes the current window (W3C Set Window Rect), the page's viewport with it.
  public func setWindowSize(width: Int, height: Int) throws {
    _ = try command("POST", "/window/rect", ["width": width, "height": height])
  }

  /// The current top-level browsing context as a PNG.
  public func screenshot() throws -> Data {
    guard let text = try command("GET", "/screenshot", nil) as? String,
      let data = Data(base64Encoded: text)
    else { throw WebDriverError("invalid screenshot", "the driver answered no base64 PNG") }
    return data
  }

  /// Ends the session (the driver closes its browser).
  public func close() {
    _ = try? Self.call(client, endpoint, "DELETE", "/session/\(id)", nil, transcript: transcript)
  }

  func command(_ method: String, _ path: String, _ body: [String: Any]?) throws -> Any {
    try Self.call(client, endpoint, method, "/session/\(id)" + path, body, transcript: transcript)
  }

  static func element(_ value: Any) throws -> WebElement {
    guard let object = value as? [String: Any], let id = object[WebElement.key] as? String else {
      throw WebDriverError("invalid element", "the driver answered no element reference")
    }
    return WebElement(id: id)
  }

  /// One request: the W3C answer's `value`, or its error thrown.
  static func call(
    _ client: HTTPClient, _ endpoint: String, _ method: String, _ path: String,
    _ body: [String: Any]?, transcript: (@Sendable (String) -> Void)?
  ) throws -> Any {
    var bytes: [UInt8] = []
    if let body {
      bytes = [UInt8](try JSONSerialization.data(withJSONObject: body))
    } else if method == "POST" {
      bytes = Array("{}".utf8)
    }
    let request = ClientRequest(
      method: method, url: endpoint + path,
      headers: HTTPHeaders([("Content-Type", "application/json; charset=utf-8")]), body: bytes)
    let exchange = client.send(request)
    guard let response = exchange.response else {
      let message = exchange.error?.message ?? "no answer"
      transcript?("\(method) \(path) → \(message)")
      throw WebDriverError("unreachable", "\(method) \(path): \(message)")
    }
    let parsed = try? JSONSerialization.jsonObject(
      with: Data(response.body), options: [.fragmentsAllowed])
    let value = (parsed as? [String: Any])?["value"] ?? NSNull()
    transcript?(
      "\(method) \(path)\(bytes.isEmpty ? "" : " " + summary(String(decoding: bytes, as: UTF8.self))) → \(response.status) \(summary(response.bodyText))"
    )
    if response.status >= 400 || (value as? [String: Any])?["error"] is String {
      let object = value as? [String: Any]
      throw WebDriverError(
        object?["error"] as? String ?? "HTTP \(response.status)",
        (object?["message"] as? String ?? response.bodyText).split(separator: "\n").first.map(
          String.init) ?? "")
    }
    return value
  }

  /// A transcript line's body: short bodies whole, long ones (a screenshot) by their size.
  static func summary(_ text: String) -> String {
    text.count <= 300 ? text : String(text.prefix(120)) + "… (\(text.utf8.count) bytes)"
  }
}
