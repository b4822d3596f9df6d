import CMicroHTTPD
import Foundation
import QualifyCore
import QualifyCrypto

/// An in-process HTTP(S) server over libmicrohttpd, bound to 127.0.0.1 on an ephemeral port.
///
/// Mock servers never listen beyond loopback. Requests are handed to a plain
/// `HTTPHandler`; a malformed request line, oversized headers or an oversized body get a 4xx
/// from the server itself and never reach the handler.
public final class HTTPServer: Sendable {
  /// Limits a request must stay within.
  public struct Limits: Sendable {
    /// Per-connection memory for the request line and headers (MHD answers 431 beyond it).
    public var headerMemory: Int = 32 * 1024
    /// The largest accepted body; larger ones get 413.
    public var maxBodyBytes: Int = 64 * 1024 * 1024
    /// Idle seconds before MHD closes a connection.
    public var idleTimeout: UInt32 = 30
    /// Seconds a connection has to deliver a request's headers, from its opening or from the
    /// end of its previous response. MHD's idle timeout restarts on every byte, so without
    /// this a client trickling a header (slowloris) would hold its connection forever.
    public var headerTimeout: Double = 30
    /// Connections served at once; more wait in the listen queue. Well above the ~1020 a
    /// `select()` loop allows (the daemon polls with epoll), and the process's open-file
    /// limit is raised to fit.
    public var maxConnections: UInt32 = 4096
    /// Seconds a request has to deliver its body once its headers are in: MHD's idle timer
    /// restarts on every byte, so a client trickling a body would otherwise hold its
    /// connection, and with enough of them lock every new client out.
    public var bodyTimeout: Double = 30
    /// Connections one source address may hold at once (0: no cap), so that one client
    /// cannot take every slot; loopback clients from 127.0.0.2 and 127.0.0.1 count apart.
    public var perAddressConnections: UInt32 = 1024

    public init() {}
  }

  /// The TLS versions the servers speak: 1.2 and 1.3, as GnuTLS priorities (1.0 and 1.1 are
  /// deprecated by RFC 8996 and refused by every platform browser a shell embeds).
  public static let tlsPriorities = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

  public let port: UInt16
  public let isTLS: Bool
  private let handler: HTTPHandler
  private let limits: Limits
  /// What the running daemon owns: MHD keeps pointers to the PEM copies and to the box for
  /// its whole life, so they are freed only after it stops.
  private struct Running {
    var daemon: OpaquePointer?
    let box: BoxedServer
    let keyPEM: UnsafeMutablePointer<CChar>?
    let certificatePEM: UnsafeMutablePointer<CChar>?
  }

  private let running: Locked<Running>

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
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")

    var flags = UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue) | UInt32(MHD_USE_EPOLL.rawValue)
    if tls != nil { flags |= UInt32(MHD_USE_TLS.rawValue) }

    // The daemon holds an unretained pointer to the box; the server keeps the box alive and
    // stops the daemon before letting it go.
    HTTPServer.raiseOpenFileLimit(toFit: limits.maxConnections)
    let watchdog = RequestWatchdog(
      timeout: limits.headerTimeout, shortest: min(limits.headerTimeout, limits.bodyTimeout))
    let box = BoxedServer(handler: handler, limits: limits, tls: tls != nil, watchdog: watchdog)
    let running = Locked(
      Running(
        daemon: nil, box: box, keyPEM: tls.map { strdup($0.privateKeyPEM) } ?? nil,
        certificatePEM: tls.map { strdup($0.certificatePEM) } ?? nil))
    let boundPort = running.withLock { state -> UInt16? in
      let boxPointer = Unmanaged.passUnretained(state.box).toOpaque()
      let started = withUnsafePointer(to: &address) { pointer in
        HTTPServer.tlsPriorities.withCString { priorities in
          CMHD_start_daemon(
            flags, pointer, HTTPServer.accessHandler, boxPointer, HTTPServer.uriLogger, nil,
            HTTPServer.requestCompleted, boxPointer, HTTPServer.connectionNotified, boxPointer,
            state.keyPEM, state.certificatePEM, tls != nil ? priorities : nil,
            limits.headerMemory, limits.idleTimeout, limits.maxConnections,
            limits.perAddressConnections)
        }
      }
      state.daemon = started
      return started.map(CMHD_daemon_port)
    }
    guard let boundPort else {
      running.withLock { state in
        free(state.keyPEM)
        free(state.certificatePEM)
      }
      throw HTTPServerError(
        "could not start the \(tls != nil ? "HTTPS" : "HTTP") server on 127.0.0.1:\(port)"
          + (tls != nil && MHD_is_feature_supported(.FEATURE_TLS) != .YES
            ? " (this libmicrohttpd has no TLS support)"
            : HTTPServer.bindProblem(port).map { ": \($0)" } ?? ""))
    }
    self.running = running
    self.port = boundPort
    watchdog.start()
  }

  /// Why binding 127.0.0.1:`port` fails, found by trying it: MHD reports only that it could
  /// not start, and "address already in use" is the answer a user needs.
  static func bindProblem(_ port: UInt16) -> String? {
    guard port != 0 else { return nil }
    let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard probe >= 0 else { return String(cString: strerror(errno)) }
    defer { close(probe) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    return bound == 0 ? nil : String(cString: strerror(errno))
  }

  /// Raises the soft open-file limit (1024 on a stock Debian) towards the hard one, so that
  /// the connection limit, not the descriptor table, decides how many clients are served.
  private static func raiseOpenFileLimit(toFit connections: UInt32) {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
    // Each connection may be served by this process and, in tests, opened by it too.
    let wanted = min(limit.rlim_max, rlim_t(connections) * 2 + 256)
    guard limit.rlim_cur < wanted else { return }
    limit.rlim_cur = wanted
    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
  }

  /// The base URL clients reach this server at directly (`https://127.0.0.1:PORT`).
  public var loopbackURL: String { "\(isTLS ? "https" : "http")://127.0.0.1:\(port)" }

  /// Stops the daemon; open connections are closed. Safe to call twice.
  public func stop() {
    let (daemon, box) = running.withLock { state in
      defer { state.daemon = nil }
      return (state.daemon, state.box)
    }
    box.watchdog.stop()
    if let daemon { MHD_stop_daemon(daemon) }
  }

  deinit {
    stop()
    running.withLock { state in
      free(state.keyPEM)
      free(state.certificatePEM)
    }
  }

  // MARK: libmicrohttpd callbacks

  /// Called once per request before parsing: the raw URI (with its query) is kept here, since
  /// MHD strips the query from the `url` it hands the access handler.
  private static let uriLogger: CMHD_uri_logger = { _, uri, _ in
    let context = RequestContext(target: uri.map { String(cString: $0) } ?? "/")
    return Unmanaged.passRetained(context).toOpaque()
  }

  private static let requestCompleted: MHD_RequestCompletedCallback = {
    cls, connection, contextPointer, _ in
    if let cls, let connection {
      // The connection now waits for its next request, which gets the same deadline.
      Unmanaged<BoxedServer>.fromOpaque(cls).takeUnretainedValue().watchdog.awaitRequest(
        on: CMHD_connection_fd(connection))
    }
    guard let contextPointer, let raw = contextPointer.pointee else { return }
    Unmanaged<RequestContext>.fromOpaque(raw).release()
    contextPointer.pointee = nil
  }

  private static let connectionNotified: MHD_NotifyConnectionCallback = {
    cls, connection, _, code in
    guard let cls, let connection else { return }
    let watchdog = Unmanaged<BoxedServer>.fromOpaque(cls).takeUnretainedValue().watchdog
    let socket = CMHD_connection_fd(connection)
    if code == .CONNECTION_NOTIFY_STARTED {
      watchdog.awaitRequest(on: socket)
    } else {
      watchdog.forget(socket)
    }
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
      // The headers are in; the body now has its own deadline.
      server.watchdog.awaitBody(
        on: CMHD_connection_fd(connection), within: server.limits.bodyTimeout)
      // MHD lets these through; RFC 9110/9112 require a 400.
      if !HTTPServer.isToken(context.method) {
        return HTTPServer.queue(.problem(400, "Malformed request method."), connection)
      }
      if version.map({ String(cString: $0) }) == "HTTP/1.1" && context.headers["Host"] == nil {
        return HTTPServer.queue(.problem(400, "HTTP/1.1 request without Host."), connection)
      }
      if context.headers.values("Host").count > 1 {
        // Two hosts make virtual-host routing ambiguous (RFC 9112 §3.2: respond 400).
        return HTTPServer.queue(.problem(400, "More than one Host header."), connection)
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
    server.watchdog.requestArrived(on: CMHD_connection_fd(connection))
    let request = HTTPRequest(
      method: context.method, target: context.target, headers: context.headers,
      body: context.body, scheme: server.tls ? "https" : "http")
    let response = server.handler.handle(request)
    // MHD answers HEAD with the full response's headers, its real Content-Length included,
    // and sends no body.
    return HTTPServer.queue(response, connection)
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
      // MHD refuses a header with a line break or an empty name: a response that cannot be
      // written as given is a 500, never a response quietly missing a header.
      guard MHD_add_response_header(created, field.name, field.value) == .YES else {
        return queue(.problem(500, "A response header could not be sent."), connection)
      }
    }
    return MHD_queue_response(connection, UInt32(response.status), created)
  }
}

/// What the C callbacks need of the server, kept alive by the server.
private final class BoxedServer: Sendable {
  let handler: HTTPHandler
  let limits: HTTPServer.Limits
  let tls: Bool
  let watchdog: RequestWatchdog

  init(handler: HTTPHandler, limits: HTTPServer.Limits, tls: Bool, watchdog: RequestWatchdog) {
    self.handler = handler
    self.limits = limits
    self.tls = tls
    self.watchdog = watchdog
  }
}

/// Shuts down connections that have not delivered a request's headers, or then its body, by
/// their deadline.
///
/// Every connection waiting for headers or a body has a deadline; MHD's callbacks set the
/// header deadline on opening and after each response, replace it by the body deadline when
/// the headers arrive, clear it when the whole request is in, and drop it on close. A timer shuts the
/// overdue sockets down; MHD then sees the end of the stream and closes them itself (the
/// descriptor stays MHD's to close). MHD notifies a close before it closes the descriptor, so
/// a number in the table always belongs to the connection it was recorded for.
final class RequestWatchdog: Sendable {
  private struct State {
    var deadlines: [Int32: DispatchTime] = [:]
    var timer: DispatchSourceTimer?
  }

  private let state = Locked(State())
  private let timeout: Double
  /// The shortest deadline it enforces, which sets how often it looks.
  private let shortest: Double

  init(timeout: Double, shortest: Double) {
    self.timeout = timeout
    self.shortest = shortest
  }

  func start() {
    let interval = max(0.05, min(1, shortest / 4))
    state.withLock { state in
      let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
      timer.schedule(deadline: .now() + interval, repeating: interval)
      timer.setEventHandler { [weak self] in self?.sweep() }
      timer.resume()
      state.timer = timer
    }
  }

  func stop() {
    state.withLock {
      $0.timer?.cancel()
      $0.timer = nil
    }
  }

  func awaitRequest(on socket: Int32) {
    guard socket >= 0 else { return }
    let deadline = DispatchTime.now() + timeout
    state.withLock { $0.deadlines[socket] = deadline }
  }

  /// The request's headers arrived: its body must follow within `seconds`.
  func awaitBody(on socket: Int32, within seconds: Double) {
    guard socket >= 0 else { return }
    let deadline = DispatchTime.now() + seconds
    state.withLock { $0.deadlines[socket] = deadline }
  }

  /// The whole request arrived: no deadline until the response is sent.
  func requestArrived(on socket: Int32) {
    state.withLock { $0.deadlines[socket] = nil }
  }

  func forget(_ socket: Int32) {
    state.withLock { $0.deadlines[socket] = nil }
  }

  /// Connections currently waiting for headers or a body (tests and the benchmark read it).
  var waiting: Int { state.withLock { $0.deadlines.count } }

  private func sweep() {
    let now = DispatchTime.now()
    state.withLock { state in
      for (socket, deadline) in state.deadlines where deadline < now {
        _ = shutdown(socket, Int32(SHUT_RDWR))
        state.deadlines[socket] = nil
      }
    }
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

/// The server could not start or serve.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
  public var description: String
  public init(_ description: String) { self.description = description }
}
