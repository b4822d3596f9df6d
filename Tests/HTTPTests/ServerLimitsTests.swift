import HTTP
import QualifyTestSupport
import Testing

/// Hostile input gets a 4xx from the server itself and never crashes it.
@Suite struct ServerLimitsTests {
  func statusLine(_ raw: String) -> String {
    raw.split(separator: "\r\n").first.map(String.init) ?? ""
  }

  @Test(arguments: [
    ("GET / FOO/1.1\r\nHost: a\r\n\r\n", " 400 "),
    ("GET /\r\n\r\n", " 400 "),
    ("G@T / HTTP/1.1\r\nHost: a\r\n\r\n", " 400 "),
    ("GET / HTTP/1.1\r\n\r\n", " 400 "),
    ("GET / HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n", " 400 "),
    ("GET / HTTP/9.9\r\n\r\n", " 505 "),
  ])
  func malformedRequestGetsAnErrorStatus(request: String, status: String) throws {
    let server = try TestServer(tls: false) { _ in .text("ok") }
    defer { server.stop() }
    let answer = try RawSocket.exchange(port: server.port, bytes: Array(request.utf8))
    #expect(
      statusLine(answer).contains(status), "\(request.debugDescription) → \(statusLine(answer))")
    #expect(server.requests.isEmpty)
  }

  /// A request line with no target is not HTTP at all: libmicrohttpd drops the connection
  /// without a status line, and the server carries on.
  @Test func requestLineWithoutTargetIsDroppedWithoutReachingTheHandler() throws {
    let server = try TestServer(tls: false) { _ in .text("ok") }
    defer { server.stop() }
    let answer = try RawSocket.exchange(port: server.port, bytes: Array("GARBAGE\r\n\r\n".utf8))
    #expect(!answer.contains(" 200 "))
    #expect(server.requests.isEmpty)
  }

  @Test func oversizedHeadersGet4xx() throws {
    var limits = HTTPServer.Limits()
    limits.headerMemory = 8 * 1024
    let server = try TestServer(tls: false, limits: limits) { _ in .text("ok") }
    defer { server.stop() }
    let huge = String(repeating: "x", count: 20_000)
    let answer = try RawSocket.exchange(
      port: server.port, bytes: Array("GET / HTTP/1.1\r\nHost: a\r\nX-Big: \(huge)\r\n\r\n".utf8))
    let line = statusLine(answer)
    #expect(
      line.contains(" 431 ") || line.contains(" 413 ") || line.contains(" 400 "), "got \(line)")
    #expect(server.requests.isEmpty)
  }

  @Test func oversizedDeclaredBodyGets413WithoutReadingIt() throws {
    var limits = HTTPServer.Limits()
    limits.maxBodyBytes = 1024
    let server = try TestServer(tls: false, limits: limits) { _ in .text("ok") }
    defer { server.stop() }
    let answer = try RawSocket.exchange(
      port: server.port,
      bytes: Array("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\n\r\n".utf8))
    #expect(statusLine(answer).contains(" 413 "))
    #expect(server.requests.isEmpty)
  }

  @Test func oversizedChunkedBodyGets413() throws {
    var limits = HTTPServer.Limits()
    limits.maxBodyBytes = 1024
    let server = try TestServer(tls: false, limits: limits) { _ in .text("ok") }
    defer { server.stop() }
    let chunk = String(repeating: "y", count: 4000)
    let request =
      "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
      + String(chunk.count, radix: 16) + "\r\n" + chunk + "\r\n0\r\n\r\n"
    let answer = try RawSocket.exchange(port: server.port, bytes: Array(request.utf8))
    #expect(statusLine(answer).contains(" 413 "))
    #expect(server.requests.isEmpty)
  }

  @Test func serverKeepsServingAfterHostileInput() throws {
    let server = try TestServer(tls: false) { _ in .text("still here") }
    defer { server.stop() }
    _ = try RawSocket.exchange(port: server.port, bytes: Array("\u{0}\u{1}\r\n\r\n".utf8))
    let answer = try RawSocket.exchange(
      port: server.port, bytes: Array("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n".utf8)
    )
    #expect(answer.contains("still here"))
  }
}
