import Foundation

/// A request as a mock server receives it.
public struct HTTPRequest: Sendable {
  public var method: String
  /// The request target as sent: path plus `?query`, still percent-encoded.
  public var target: String
  public var headers: HTTPHeaders
  public var body: [UInt8]
  /// `https` when it arrived over TLS.
  public var scheme: String

  public init(
    method: String, target: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
    scheme: String = "https"
  ) {
    self.method = method
    self.target = target
    self.headers = headers
    self.body = body
    self.scheme = scheme
  }

  /// The percent-decoded path, without the query.
  public var path: String {
    let raw = target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? target
    return raw.removingPercentEncoding ?? raw
  }

  /// The raw query string (after `?`), or empty.
  public var queryString: String {
    guard let index = target.firstIndex(of: "?") else { return "" }
    return String(target[target.index(after: index)...])
  }

  /// The first query parameter `name`.
  public func query(_ name: String) -> String? {
    Query.value(name, in: queryString)
  }

  /// The `Host` header, lowercased (with its port when one was sent).
  public var host: String { (headers["Host"] ?? "").lowercased() }

  public var isSecure: Bool { scheme == "https" }

  /// The body as UTF-8 text.
  public var bodyText: String { String(decoding: body, as: UTF8.self) }

  /// The body parsed as a form (`application/x-www-form-urlencoded`).
  public var form: [(name: String, value: String)] { Query.parse(bodyText) }

  public func formValue(_ name: String) -> String? {
    form.first { $0.name == name }?.value
  }

  /// The body parsed as a JSON object, if it is one.
  public var jsonObject: [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
  }

  /// Cookies sent in the `Cookie` header.
  public var cookies: [String: String] {
    var out: [String: String] = [:]
    for header in headers.values("Cookie") {
      for part in header.split(separator: ";") {
        let pieces = part.split(separator: "=", maxSplits: 1)
        guard let name = pieces.first?.trimmingCharacters(in: .whitespaces) else { continue }
        out[name] = pieces.count > 1 ? String(pieces[1]).trimmingCharacters(in: .whitespaces) : ""
      }
    }
    return out
  }
}
