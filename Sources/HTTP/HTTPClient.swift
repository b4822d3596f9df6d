import CCurl
import Foundation
import QualifyCore

/// A request a simulated client sends.
public struct ClientRequest: Sendable {
  public var method: String
  public var url: String
  public var headers: HTTPHeaders
  public var body: [UInt8]
  /// The most body bytes this request accepts; a bigger response is cut off with an error
  /// rather than read into memory (nil: the client's configured limit).
  public var maxResponseBytes: Int?
  /// When set, the response body is written to this file as it arrives (the response's
  /// `body` is then empty): a large download never sits in memory.
  public var bodyFile: URL?

  public init(
    method: String = "GET", url: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
    maxResponseBytes: Int? = nil, bodyFile: URL? = nil
  ) {
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
    self.maxResponseBytes = maxResponseBytes
    self.bodyFile = bodyFile
  }
}

/// One request and what came back (or why nothing did), with its wall-clock cost.
public struct HTTPExchange: Sendable {
  public var request: ClientRequest
  public var response: HTTPResponse?
  public var error: HTTPClientError?
  /// Seconds from the start of the transfer to its end, as libcurl measured it.
  public var duration: TimeInterval

  public init(
    request: ClientRequest, response: HTTPResponse?, error: HTTPClientError?, duration: TimeInterval
  ) {
    self.request = request
    self.response = response
    self.error = error
    self.duration = duration
  }
}

/// Why a request got no response.
public struct HTTPClientError: Error, CustomStringConvertible, Sendable, Hashable {
  public enum Kind: String, Sendable {
    /// The URL's origin is not part of the stack under test and outside traffic is off.
    case originNotInStack
    /// The URL could not be parsed or uses a scheme the client does not speak.
    case badURL
    /// libcurl failed: connection refused, TLS verification failed, timeout, …
    case transport
    /// The response was bigger than the request accepts: the download was stopped.
    case tooLarge
  }

  public var kind: Kind
  public var message: String

  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  public var description: String { message }
}

/// An HTTP(S) client over one libcurl easy handle: keep-alive, redirects never followed, the
/// run's CA as its only trust anchor, every exchange recorded.
///
/// Redirects are returned, not followed, because the simulated browser must see every hop
/// (a CSP `form-action` check, a custom-scheme hand-off, a cookie set on the way). Origins are
/// mapped onto local ports (`messages.example:443` → `127.0.0.1:40123`) with
/// `CURLOPT_CONNECT_TO`, so URLs, `Host` headers, SNI and certificates all carry the real
/// names while nothing leaves loopback.
public final class HTTPClient: Sendable {
  public struct Configuration: Sendable {
    /// PEM of the CA certificates to trust; nil uses the system store (external stacks).
    public var trustedCertificatesPEM: String?
    /// `host:port` → loopback port.
    public var origins: [String: UInt16]
    /// Whether an origin missing from `origins` may be reached over the network.
    public var allowsOutsideOrigins: Bool
    /// `host:port` of real systems (`--stack`) reached over the network, beside the loopback
    /// origins; any other origin outside `origins` is refused unless `allowsOutsideOrigins`.
    public var realAuthorities: Set<String> = []
    /// Seconds before a request gives up.
    public var timeout: TimeInterval
    public var userAgent: String
    /// The most body bytes a response may have unless a request says otherwise.
    public var maxResponseBytes: Int

    public init(
      trustedCertificatesPEM: String? = nil, origins: [String: UInt16] = [:],
      allowsOutsideOrigins: Bool = false, timeout: TimeInterval = 10,
      userAgent: String = "qualify", maxResponseBytes: Int = 16 << 20
    ) {
      self.trustedCertificatesPEM = trustedCertificatesPEM
      self.origins = origins
      self.allowsOutsideOrigins = allowsOutsideOrigins
      self.timeout = timeout
      self.userAgent = userAgent
      self.maxResponseBytes = maxResponseBytes
    }
  }

  private static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

  /// The easy handle and what goes with it. A libcurl handle must not be used by two threads
  /// at once, so all of it lives behind one lock, held for a whole request.
  struct Connection {
    var configuration: Configuration
    let handle: UnsafeMutableRawPointer
    var connectTo: UnsafeMutablePointer<curl_slist>?
    var observers: [@Sendable (HTTPExchange) -> Void] = []
  }

  private let connection: Locked<Connection>

  public var configuration: Configuration { connection.withLock { $0.configuration } }

  public init(configuration: Configuration) throws {
    guard HTTPClient.globalInit, let handle = curl_easy_init() else {
      throw HTTPClientError(.transport, "libcurl could not be initialised")
    }
    let state = Connection(
      configuration: configuration, handle: handle,
      connectTo: HTTPClient.connectList(configuration.origins))
    do {
      try state.configureOnce()
    } catch {
      curl_easy_cleanup(handle)
      curl_slist_free_all(state.connectTo)
      throw error
    }
    connection = Locked(state)
  }

  /// Every libcurl status goes through here: a refused option is an error naming it, never
  /// a request sent with a setting silently missing.
  private static func check(_ code: CURLcode, _ what: String) throws {
    guard code == CURLE_OK else {
      throw HTTPClientError(
        .transport, "libcurl refused \(what): \(String(cString: curl_easy_strerror(code)))")
    }
  }

  private static func connectList(_ origins: [String: UInt16]) -> UnsafeMutablePointer<curl_slist>?
  {
    var list: UnsafeMutablePointer<curl_slist>?
    for (origin, port) in origins.sorted(by: { $0.key < $1.key }) {
      let (host, originPort) = HTTPClient.split(origin)
      list = curl_slist_append(list, "\(host):\(originPort):127.0.0.1:\(port)")
    }
    return list
  }

  /// Points the client at another set of origins, keeping its open connections (a pooled
  /// client serving one world after another).
  public func update(origins: [String: UInt16]) {
    connection.withLock { state in
      guard origins != state.configuration.origins else { return }
      curl_slist_free_all(state.connectTo)
      state.configuration.origins = origins
      state.connectTo = HTTPClient.connectList(origins)
    }
  }

  deinit {
    connection.withLock { state in
      curl_easy_cleanup(state.handle)
      curl_slist_free_all(state.connectTo)
    }
  }

  /// Calls `observer` with every exchange this client makes, failed ones included.
  public func onExchange(_ observer: @escaping @Sendable (HTTPExchange) -> Void) {
    connection.withLock { $0.observers.append(observer) }
  }

  /// Sends `request` and returns the exchange; a transport failure is in `exchange.error`.
  @discardableResult
  public func send(_ request: ClientRequest) -> HTTPExchange {
    let (exchange, current) = connection.withLock { state in
      (state.perform(request), state.observers)
    }
    for observer in current { observer(exchange) }
    return exchange
  }

  /// Sends `request` and returns its response, throwing when there is none.
  public func response(to request: ClientRequest) throws -> HTTPResponse {
    let exchange = send(request)
    if let error = exchange.error { throw error }
    guard let response = exchange.response else {
      throw HTTPClientError(.transport, "no response from \(request.url)")
    }
    return response
  }

  static func split(_ origin: String) -> (String, String) {
    guard let colon = origin.lastIndex(of: ":") else { return (origin, "443") }
    return (String(origin[..<colon]), String(origin[origin.index(after: colon)...]))
  }

  private static let writeBody: CCurl_data_callback = { pointer, size, count, context in
    guard let pointer, let context else { return 0 }
    let accumulator = Unmanaged<ResponseAccumulator>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    accumulator.received += length
    // Returning less than `length` makes libcurl stop the transfer.
    if accumulator.received > accumulator.limit {
      accumulator.exceeded = true
      return 0
    }
    pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
      let chunk = UnsafeBufferPointer(start: $0, count: length)
      if let file = accumulator.file {
        file.write(Data(buffer: chunk))
      } else {
        accumulator.body.append(contentsOf: chunk)
      }
    }
    return length
  }

  private static let writeHeader: CCurl_data_callback = { pointer, size, count, context in
    guard let pointer, let context else { return 0 }
    let accumulator = Unmanaged<ResponseAccumulator>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    let line = pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
      String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
    }.trimmingOWS()
    if line.hasPrefix("HTTP/") {
      // A new status line (after a 100 Continue) starts a new header block.
      accumulator.headers = HTTPHeaders()
    } else if let colon = line.firstIndex(of: ":") {
      let name = String(line[..<colon])
      let value = line[line.index(after: colon)...].trimmingOWS()
      accumulator.headers.add(name, value)
    }
    return length
  }
}

private final class ResponseAccumulator {
  var headers = HTTPHeaders()
  var body: [UInt8] = []
  let limit: Int
  var received = 0
  var exceeded = false
  var file: FileHandle?

  init(limit: Int) {
    self.limit = limit
  }
}

extension HTTPClient.Connection {
  /// The options that never change between requests, set once: the handle keeps them, and
  /// a request no longer pays for re-parsing the CA or resetting the handle.
  func configureOnce() throws {
    let h = handle
    try HTTPClient.check(CCurl_easy_setopt_long(h, CURLOPT_NOSIGNAL, 1), "CURLOPT_NOSIGNAL")
    try HTTPClient.check(
      CCurl_easy_setopt_long(h, CURLOPT_FOLLOWLOCATION, 0), "CURLOPT_FOLLOWLOCATION")
    try HTTPClient.check(
      CCurl_easy_setopt_long(h, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1),
      "CURLOPT_HTTP_VERSION")
    try HTTPClient.check(
      CCurl_easy_setopt_long(h, CURLOPT_TIMEOUT_MS, Int(configuration.timeout * 1000)),
      "CURLOPT_TIMEOUT_MS")
    try HTTPClient.check(
      CCurl_easy_setopt_long(h, CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.timeout * 1000)),
      "CURLOPT_CONNECTTIMEOUT_MS")
    try HTTPClient.check(
      CCurl_easy_setopt_string(h, CURLOPT_USERAGENT, configuration.userAgent), "CURLOPT_USERAGENT")
    try HTTPClient.check(
      CCurl_easy_setopt_string(h, CURLOPT_PROTOCOLS_STR, "http,https"), "CURLOPT_PROTOCOLS_STR")
    if let pem = configuration.trustedCertificatesPEM {
      var bytes = Array(pem.utf8)
      let code = bytes.withUnsafeMutableBytes { raw -> CURLcode in
        var blob = curl_blob(data: raw.baseAddress, len: raw.count, flags: UInt32(CURL_BLOB_COPY))
        return CCurl_easy_setopt_blob(h, CURLOPT_CAINFO_BLOB, &blob)
      }
      try HTTPClient.check(code, "CURLOPT_CAINFO_BLOB")
      try HTTPClient.check(CCurl_easy_setopt_string(h, CURLOPT_CAPATH, nil), "CURLOPT_CAPATH")
    }
    try HTTPClient.check(
      CCurl_easy_setopt_data_callback(h, CURLOPT_WRITEFUNCTION, HTTPClient.writeBody),
      "CURLOPT_WRITEFUNCTION")
    try HTTPClient.check(
      CCurl_easy_setopt_data_callback(h, CURLOPT_HEADERFUNCTION, HTTPClient.writeHeader),
      "CURLOPT_HEADERFUNCTION")
  }

  func perform(_ request: ClientRequest) -> HTTPExchange {
    func failed(_ error: HTTPClientError) -> HTTPExchange {
      HTTPExchange(request: request, response: nil, error: error, duration: 0)
    }
    if let refusal = refusal(of: request.url) { return failed(refusal) }

    let accumulator = ResponseAccumulator(
      limit: request.maxResponseBytes ?? configuration.maxResponseBytes)
    if let file = request.bodyFile {
      guard FileManager.default.createFile(atPath: file.path, contents: nil),
        let handle = FileHandle(forWritingAtPath: file.path)
      else {
        return failed(HTTPClientError(.transport, "cannot write \(file.path)"))
      }
      accumulator.file = handle
    }
    defer { try? accumulator.file?.close() }
    var headerList: UnsafeMutablePointer<curl_slist>?
    defer { curl_slist_free_all(headerList) }
    var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

    let outcome: Result<CURLcode, HTTPClientError> = errorBuffer.withUnsafeMutableBufferPointer {
      errorPointer in
      let h = handle
      defer {
        // The buffers these point at die with this call.
        _ = CCurl_easy_setopt_pointer(h, CURLOPT_ERRORBUFFER, nil)
        _ = CCurl_easy_setopt_slist(h, CURLOPT_HTTPHEADER, nil)
      }
      do {
        try HTTPClient.check(CCurl_easy_setopt_string(h, CURLOPT_URL, request.url), "CURLOPT_URL")
        try HTTPClient.check(
          CCurl_easy_setopt_pointer(h, CURLOPT_ERRORBUFFER, errorPointer.baseAddress),
          "CURLOPT_ERRORBUFFER")
        try HTTPClient.check(
          CCurl_easy_setopt_slist(h, CURLOPT_CONNECT_TO, connectTo), "CURLOPT_CONNECT_TO")
        try Self.setMethod(request, on: h)
        for field in Self.headerFields(request) {
          headerList = curl_slist_append(headerList, field)
        }
        try HTTPClient.check(
          CCurl_easy_setopt_slist(h, CURLOPT_HTTPHEADER, headerList), "CURLOPT_HTTPHEADER")
        let context = Unmanaged.passUnretained(accumulator).toOpaque()
        try HTTPClient.check(
          CCurl_easy_setopt_pointer(h, CURLOPT_WRITEDATA, context), "CURLOPT_WRITEDATA")
        try HTTPClient.check(
          CCurl_easy_setopt_pointer(h, CURLOPT_HEADERDATA, context), "CURLOPT_HEADERDATA")
      } catch {
        return .failure(error as? HTTPClientError ?? HTTPClientError(.transport, "\(error)"))
      }
      return .success(withExtendedLifetime(accumulator) { curl_easy_perform(h) })
    }
    let code: CURLcode
    switch outcome {
    case .failure(let error): return failed(error)
    case .success(let value): code = value
    }

    let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
    return finished(request, code: code, accumulator: accumulator, detail: detail)
  }

  /// The exchange once libcurl is done: the response, or why there is none (a body over the
  /// limit, libcurl's error in its own words), with how long it took.
  private func finished(
    _ request: ClientRequest, code: CURLcode, accumulator: ResponseAccumulator, detail: String
  ) -> HTTPExchange {
    func failed(_ error: HTTPClientError) -> HTTPExchange {
      HTTPExchange(request: request, response: nil, error: error, duration: 0)
    }
    var totalMicroseconds: curl_off_t = 0
    if CCurl_easy_getinfo_off_t(handle, CURLINFO_TOTAL_TIME_T, &totalMicroseconds) != CURLE_OK {
      totalMicroseconds = 0
    }
    let duration = TimeInterval(totalMicroseconds) / 1_000_000
    guard code == CURLE_OK else {
      if accumulator.exceeded {
        return HTTPExchange(
          request: request, response: nil,
          error: HTTPClientError(
            .tooLarge,
            "\(request.method) \(request.url): the response is larger than \(accumulator.limit) bytes; the download was stopped"
          ), duration: duration)
      }
      let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
      return HTTPExchange(
        request: request, response: nil,
        error: HTTPClientError(.transport, "\(request.method) \(request.url): \(reason)"),
        duration: duration)
    }
    var status = 0
    guard CCurl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK else {
      return failed(HTTPClientError(.transport, "libcurl gave no status for \(request.url)"))
    }
    return HTTPExchange(
      request: request,
      response: HTTPResponse(status: status, headers: accumulator.headers, body: accumulator.body),
      error: nil, duration: duration)
  }

  /// Why `url` must not be requested: not http(s), or an origin outside the stack (the
  /// client never leaves loopback unless told to); nil when it may.
  func refusal(of url: String) -> HTTPClientError? {
    guard let components = URLComponents(string: url), let scheme = components.scheme,
      let host = components.host, ["http", "https"].contains(scheme.lowercased())
    else {
      return HTTPClientError(.badURL, "not an http(s) URL: \(url)")
    }
    let port = components.port ?? (scheme.lowercased() == "https" ? 443 : 80)
    let origin = "\(host.lowercased()):\(port)"
    if !configuration.allowsOutsideOrigins && configuration.origins[origin] == nil
      && !configuration.realAuthorities.contains(origin)
    {
      return HTTPClientError(
        .originNotInStack,
        "\(scheme)://\(host):\(port) is not an origin of the stack under test; refusing to leave loopback"
      )
    }
    return nil
  }

  /// The request's method and body on the reused handle, every option of the last request
  /// reset first.
  static func setMethod(_ request: ClientRequest, on h: UnsafeMutableRawPointer) throws {
    try HTTPClient.check(
      CCurl_easy_setopt_string(h, CURLOPT_CUSTOMREQUEST, nil), "CURLOPT_CUSTOMREQUEST")
    try HTTPClient.check(CCurl_easy_setopt_long(h, CURLOPT_NOBODY, 0), "CURLOPT_NOBODY")
    switch request.method.uppercased() {
    case "GET":
      try HTTPClient.check(CCurl_easy_setopt_long(h, CURLOPT_HTTPGET, 1), "CURLOPT_HTTPGET")
    case "HEAD":
      try HTTPClient.check(CCurl_easy_setopt_long(h, CURLOPT_NOBODY, 1), "CURLOPT_NOBODY")
    default:
      try HTTPClient.check(
        CCurl_easy_setopt_string(h, CURLOPT_CUSTOMREQUEST, request.method.uppercased()),
        "CURLOPT_CUSTOMREQUEST")
      try HTTPClient.check(
        CCurl_easy_setopt_off_t(
          h, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)),
        "CURLOPT_POSTFIELDSIZE_LARGE")
      let code: CURLcode
      if request.body.isEmpty {
        code = CCurl_easy_setopt_string(h, CURLOPT_COPYPOSTFIELDS, "")
      } else {
        code = request.body.withUnsafeBytes { raw in
          CCurl_easy_setopt_pointer(
            h, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress))
        }
      }
      try HTTPClient.check(code, "CURLOPT_COPYPOSTFIELDS")
    }
  }

  /// The header lines sent: the caller's, with libcurl's own additions switched off (`Expect`,
  /// a `Content-Type` it would invent) and an `Accept` as browsers send one.
  static func headerFields(_ request: ClientRequest) -> [String] {
    var fields = request.headers.fields.map { "\($0.name): \($0.value)" }
    if !request.headers.contains("Expect") { fields.append("Expect:") }
    if !request.headers.contains("Content-Type") && !request.body.isEmpty {
      fields.append("Content-Type:")
    }
    if !request.headers.contains("Accept") { fields.append("Accept: */*") }
    return fields
  }
}
