import Foundation
import QualifyCore

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

  /// A policy for the pages the mocks serve: no script runs, nothing loads from elsewhere.
  /// It names no `form-action`, so a profile's own login-page policy (ProConnect's) stays the
  /// one a browser enforces on form submissions.
  public static let pageSecurityPolicy =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; frame-ancestors 'none'"

  /// An HTML response, under `pageSecurityPolicy` unless `headers` bring a policy of their own.
  public static func html(_ html: String, status: Int = 200, headers: HTTPHeaders = [:])
    -> HTTPResponse
  {
    var all = headers
    all.set("Content-Type", "text/html; charset=utf-8")
    if all["Content-Security-Policy"] == nil {
      all.set("Content-Security-Policy", pageSecurityPolicy)
    }
    return HTTPResponse(status: status, headers: all, body: Array(html.utf8))
  }

  /// A JSON response from a JSON-serialisable value, keys sorted so bodies are reproducible.
  public static func json(_ value: Any, status: Int = 200) -> HTTPResponse {
    let data = JSONText.data(value, escapingSlashes: false) ?? Array("{}".utf8)
    return HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: data)
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

/// A single byte range of a `Range` request (RFC 9110 §14), resolved against a length.
public enum ByteRange: Equatable, Sendable {
  /// No usable `Range` header (absent, another unit, several ranges): the whole object.
  case whole
  case partial(ClosedRange<Int>)
  /// A syntactically valid range that starts past the end: 416.
  case unsatisfiable

  /// Resolves `header` against an object of `length` bytes. Several ranges are answered with
  /// the whole object, which RFC 9110 allows.
  public static func resolve(_ header: String?, length: Int) -> ByteRange {
    guard let header, header.lowercased().hasPrefix("bytes=") else { return .whole }
    let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
    guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
    let first = spec[..<dash]
    let last = spec[spec.index(after: dash)...]
    func number(_ text: Substring) -> Int? {
      text.allSatisfy { $0.isASCII && $0.isNumber } && !text.isEmpty && text.count <= 18
        ? Int(text) : nil
    }
    if first.isEmpty {
      // `bytes=-N`: the last N bytes.
      guard let suffix = number(last) else { return .whole }
      guard suffix > 0, length > 0 else { return .unsatisfiable }
      return .partial(max(0, length - suffix)...(length - 1))
    }
    guard let start = number(first) else { return .whole }
    let end: Int
    if last.isEmpty {
      end = length - 1
    } else {
      guard let value = number(last), value >= start else { return .whole }
      end = min(value, length - 1)
    }
    return start < length ? .partial(start...end) : .unsatisfiable
  }
}

extension HTTPResponse {
  /// `self` cut to the range `request` asks for: 206 with `Content-Range`, 416 when it
  /// starts past the end, unchanged otherwise. Only a 200 is ever cut.
  public func ranged(for request: HTTPRequest) -> HTTPResponse {
    guard status == 200 else { return self }
    var copy = self
    copy.headers.set("Accept-Ranges", "bytes")
    switch ByteRange.resolve(request.headers["Range"], length: body.count) {
    case .whole:
      return copy
    case .partial(let range):
      copy.status = 206
      copy.body = Array(body[range])
      copy.headers.set(
        "Content-Range", "bytes \(range.lowerBound)-\(range.upperBound)/\(body.count)")
      return copy
    case .unsatisfiable:
      return HTTPResponse(
        status: 416, headers: ["Content-Range": "bytes */\(body.count)", "Accept-Ranges": "bytes"])
    }
  }
}
