import CMicroHTTPD
import Foundation
import QualifyCrypto

/// An in-process HTTP(S) server over libmicrohttpd, bound to 127.0.0.1 on an ephemeral port.
///
/// Mock servers never listen beyond loopback. Requests are handed to a plain
/// `HTTPHandler`; a malformed request line, oversized headers or an oversized body get a 4xx
/// from the server itself and never reach the handler.
public final class HTTPServer: @unchecked Sendable {
  /// Limits a request must stay within.
  public struct Limits: Sendable {
    /// Per-connection memory for the request line and headers (MHD answers 431 beyond it).
    public var headerMemory: Int = 32 * 1024
    /// The largest accepted body; larger ones get 413.
    public var maxBodyBytes: Int = 64 * 1024 * 1024
    /// Idle seconds before MHD closes a connection.
    public var idleTimeout: UInt32 = 30

    public init() {}
  }

  public let port: UInt16
  public let isTLS: Bool
  private var daemon: OpaquePointer?
  private let handler: HTTPHandler
  private let limits: Limits
  private let lock = NSLock()
  // MHD keeps pointers to these for the daemon's lifetime.
  private let keyPEM: UnsafeMutablePointer<CChar>?
  private let certificatePEM: UnsafeMutablePointer<CChar>?

  /// Starts serving `handler`.
  /// - Parameters:
  ///   - tls: the certificate and key to serve HTTPS with; nil serves cleartext HTTP.
  ///   - port: 0 picks an ephemeral port.
  /// - Throws: `HTTPServerError` when the daemon cannot start.
  public init(
    handler: HTTPHandler, tls: ServerCredentials? = nil, port: UInt16 = 0,
    limits: Limits = Limits()
  ) throws {
    self.handler = handler
    self.limits = limits
    self.isTLS = tls != nil
    let keyPEM = tls.map { strdup($0.privateKeyPEM) } ?? nil
    let certificatePEM = tls.map { strdup($0.certificatePEM) } ?? nil
    self.keyPEM = keyPEM
    self.certificatePEM = certificatePEM

    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")

    var flags = UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue) | UInt32(MHD_USE_EPOLL.rawValue)
    if tls != nil { flags |= UInt32(MHD_USE_TLS.rawValue) }

    // The daemon holds an unretained pointer to the box; the server keeps the box alive and
    // stops the daemon before letting it go.
    let box = BoxedServer(handler: handler, limits: limits, tls: tls != nil)
    let headerMemory = limits.headerMemory
    let idleTimeout = limits.idleTimeout
    let started = withUnsafePointer(to: &address) { pointer in
      CMHD_start_daemon(
        flags, pointer, HTTPServer.accessHandler, Unmanaged.passUnretained(box).toOpaque(),
        HTTPServer.uriLogger, nil, HTTPServer.requestCompleted, nil, keyPEM, certificatePEM,
        headerMemory, idleTimeout)
    }
    guard let started else {
      free(keyPEM)
      free(certificatePEM)
      throw HTTPServerError(
        "could not start the \(tls != nil ? "HTTPS" : "HTTP") server on 127.0.0.1:\(port)"
          + (tls != nil && MHD_is_feature_supported(.FEATURE_TLS) != .YES
            ? " (this libmicrohttpd has no TLS support)" : ""))
    }
    daemon = started
    self.box = box
    self.port = CMHD_daemon_port(started)
  }

  private var box: BoxedServer?

  /// The base URL clients reach this server at directly (`https://127.0.0.1:PORT`).
  public var loopbackURL: String { "\(isTLS ? "https" : "http")://127.0.0.1:\(port)" }

  /// Stops the daemon; open connections are closed. Safe to call twice.
  public func stop() {
    lock.lock()
    let running = daemon
    daemon = nil
    lock.unlock()
    if let running { MHD_stop_daemon(running) }
  }

  deinit {
    stop()
    free(keyPEM)
    free(certificatePEM)
  }

  // MARK: libmicrohttpd callbacks

  /// Called once per request before parsing: the raw URI (with its query) is kept here, since
  /// MHD strips the query from the `url` it hands the access handler.
  private static let uriLogger: CMHD_uri_logger = { _, uri, _ in
    let context = RequestContext(target: uri.map { String(cString: $0) } ?? "/")
    return Unmanaged.passRetained(context).toOpaque()
  }

  private static let requestCompleted: MHD_RequestCompletedCallback = { _, _, contextPointer, _ in
    guard let contextPointer, let raw = contextPointer.pointee else { return }
    Unmanaged<RequestContext>.fromOpaque(raw).release()
    contextPointer.pointee = nil
  }

  private static let accessHandler: MHD_AccessHandlerCallback = {
    cls, connection, _, method, version, uploadData, uploadDataSize, contextPointer in
    guard let cls, let connection, let contextPointer, let raw = contextPointer.pointee else {
      return .NO
    }
    let server = Unmanaged<BoxedServer>.fromOpaque(cls).takeUnretainedValue()
    let context = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()

    if !context.headersRead {
      context.headersRead = true
      context.method = method.map { String(cString: $0) } ?? "GET"
      context.headers = HTTPServer.headers(of: connection)
      // MHD lets these through; RFC 9110/9112 require a 400.
      if !HTTPServer.isToken(context.method) {
        return HTTPServer.queue(.problem(400, "Malformed request method."), connection)
      }
      if version.map({ String(cString: $0) }) == "HTTP/1.1" && context.headers["Host"] == nil {
        return HTTPServer.queue(.problem(400, "HTTP/1.1 request without Host."), connection)
      }
      if let length = context.headers["Content-Length"].flatMap(Int.init),
        length > server.limits.maxBodyBytes
      {
        return HTTPServer.queue(
          .problem(413, "Request body exceeds \(server.limits.maxBodyBytes) bytes."), connection)
      }
      return .YES
    }
    if let uploadDataSize, uploadDataSize.pointee > 0 {
      if let uploadData, !context.tooLarge {
        if context.body.count + uploadDataSize.pointee > server.limits.maxBodyBytes {
          context.tooLarge = true
          context.body = []
        } else {
          uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadDataSize.pointee) {
            context.body.append(
              contentsOf: UnsafeBufferPointer(start: $0, count: uploadDataSize.pointee))
          }
        }
      }
      uploadDataSize.pointee = 0
      return .YES
    }
    if context.tooLarge {
      return HTTPServer.queue(
        .problem(413, "Request body exceeds \(server.limits.maxBodyBytes) bytes."), connection)
    }
    let request = HTTPRequest(
      method: context.method, target: context.target, headers: context.headers,
      body: context.body, scheme: server.tls ? "https" : "http")
    let response = server.handler.handle(request)
    return HTTPServer.queue(request.method == "HEAD" ? response.headOnly : response, connection)
  }

  /// RFC 9110 `token`: the characters a method may have.
  static func isToken(_ text: String) -> Bool {
    !text.isEmpty
      && text.utf8.allSatisfy { c in
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
          || "!#$%&'*+-.^_`|~".utf8.contains(c)
      }
  }

  private static func headers(of connection: OpaquePointer) -> HTTPHeaders {
    final class Collector { var headers = HTTPHeaders() }
    let collector = Collector()
    let iterator: MHD_KeyValueIterator = { cls, _, key, value in
      guard let cls, let key else { return .YES }
      let collector = Unmanaged<Collector>.fromOpaque(cls).takeUnretainedValue()
      collector.headers.add(String(cString: key), value.map { String(cString: $0) } ?? "")
      return .YES
    }
    _ = withExtendedLifetime(collector) {
      MHD_get_connection_values(
        connection, .HEADER_KIND, iterator, Unmanaged.passUnretained(collector).toOpaque())
    }
    return collector.headers
  }

  private static func queue(_ response: HTTPResponse, _ connection: OpaquePointer) -> MHD_Result {
    let created = response.body.withUnsafeBytes { raw in
      MHD_create_response_from_buffer(
        raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let created else { return .NO }
    defer { MHD_destroy_response(created) }
    for field in response.headers.fields where field.name.lowercased() != "content-length" {
      _ = MHD_add_response_header(created, field.name, field.value)
    }
    return MHD_queue_response(connection, UInt32(response.status), created)
  }
}

/// What the C callbacks need of the server, kept alive by the server.
private final class BoxedServer: @unchecked Sendable {
  let handler: HTTPHandler
  let limits: HTTPServer.Limits
  let tls: Bool

  init(handler: HTTPHandler, limits: HTTPServer.Limits, tls: Bool) {
    self.handler = handler
    self.limits = limits
    self.tls = tls
  }
}

/// One request being received.
private final class RequestContext {
  let target: String
  var headersRead = false
  var method = "GET"
  var headers = HTTPHeaders()
  var body: [UInt8] = []
  var tooLarge = false

  init(target: String) {
    self.target = target
  }
}

extension HTTPResponse {
  /// The response to a HEAD request: the same headers, no body.
  var headOnly: HTTPResponse {
    var copy = self
    copy.body = []
    return copy
  }
}

/// The server could not start or serve.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
  public var description: String
  public init(_ description: String) { self.description = description }
}
