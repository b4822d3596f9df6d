import Foundation
import HTTP
import QualifyTestSupport
import Testing

/// What the audit did to the servers: many connections, slow headers, HEAD, two Hosts.
@Suite struct ServerHardeningTests {
  func statusLine(_ raw: String) -> String {
    raw.split(separator: "\r\n").first.map(String.init) ?? ""
  }

  func get(_ port: UInt16) throws -> String {
    statusLine(
      try RawSocket.exchange(
        port: port, bytes: Array("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n".utf8),
        timeout: 5))
  }

  /// A `select()` loop stops accepting at about 1020 descriptors; the daemon polls with
  /// epoll and its limit is well above.
  @Test func aRequestGetsThroughWhileOverAThousandConnectionsAreOpen() throws {
    let server = try TestServer(tls: false) { _ in .text("ok") }
    defer { server.stop() }
    var held: [Int32] = []
    defer { for fd in held { close(fd) } }
    for _ in 0..<1100 { held.append(try RawSocket.open(port: server.port, from: "127.0.0.2")) }
    #expect(try get(server.port).contains(" 200 "))
  }

  /// Many clients trickling request bodies (a byte now and then, so MHD's idle timer never
  /// fires) neither lock a new client out nor hold their connections past the body deadline.
  @Test func clientsTricklingBodiesAreCappedAndDroppedAtTheDeadline() throws {
    var limits = HTTPServer.Limits()
    limits.bodyTimeout = 1
    limits.perAddressConnections = 64
    let server = try TestServer(tls: false, limits: limits) { _ in .text("ok") }
    defer { server.stop() }
    var held: [Int32] = []
    defer { for fd in held { close(fd) } }
    for _ in 0..<200 {
      let fd = try RawSocket.open(port: server.port, from: "127.0.0.3")
      held.append(fd)
      _ = RawSocket.send(
        "POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\n\r\nx", on: fd)
    }
    // Another client is answered at once.
    #expect(try get(server.port).contains(" 200 "))
    // Past the deadline every trickler is gone, however often it sends a byte.
    var open = held
    for _ in 0..<40 where !open.isEmpty {
      open = open.filter {
        RawSocket.send("x", on: $0) && !RawSocket.isClosedByPeer($0, timeout: 0)
      }
      Thread.sleep(forTimeInterval: 0.1)
    }
    #expect(open.isEmpty, "\(open.count) of \(held.count) trickling connections still open")
    #expect(
      server.requests.allSatisfy { $0.method == "GET" }, "no trickled body reached the handler")
  }

  @Test func aConnectionTricklingItsHeadersIsDroppedAtTheDeadline() throws {
    var limits = HTTPServer.Limits()
    limits.headerTimeout = 1
    let server = try TestServer(tls: false, limits: limits) { _ in .text("ok") }
    defer { server.stop() }
    let slow = try RawSocket.open(port: server.port)
    defer { close(slow) }
    #expect(RawSocket.send("GET / HTTP/1.1\r\nHost: a\r\n", on: slow))
    // One header line every 200 ms keeps MHD's idle timer from ever firing; only the
    // header deadline ends it. Give up after 10 s: the deadline is 1 s.
    var dropped = false
    for index in 0..<50 {
      if RawSocket.isClosedByPeer(slow) || !RawSocket.send("X-Slow-\(index): 1\r\n", on: slow) {
        dropped = true
        break
      }
      if index == 2 {
        // A well-behaved client is served meanwhile.
        #expect(try get(server.port).contains(" 200 "))
      }
    }
    #expect(dropped)
    #expect(server.requests.count == 1)
  }

  @Test func aKeptAliveConnectionThatSendsItsNextRequestInTimeIsServed() throws {
    var limits = HTTPServer.Limits()
    limits.headerTimeout = 2
    let server = try TestServer(tls: false, limits: limits) { _ in .text("ok") }
    defer { server.stop() }
    let answer = try RawSocket.exchange(
      port: server.port,
      bytes: Array(
        "GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
          .utf8))
    #expect(answer.components(separatedBy: "HTTP/1.1 200").count == 3)
  }

  @Test func headAnswersWithTheLengthOfTheBodyItWouldSend() throws {
    let server = try TestServer(tls: false) { _ in .text(String(repeating: "x", count: 1234)) }
    defer { server.stop() }
    let answer = try RawSocket.exchange(
      port: server.port,
      bytes: Array("HEAD / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n".utf8))
    #expect(statusLine(answer).contains(" 200 "))
    #expect(answer.lowercased().contains("content-length: 1234\r\n"))
    #expect(!answer.contains("xxxx"))
  }

  @Test func twoHostHeadersAreA400() throws {
    let server = try TestServer(tls: false) { _ in .text("ok") }
    defer { server.stop() }
    let answer = try RawSocket.exchange(
      port: server.port,
      bytes: Array("GET / HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\n\r\n".utf8))
    #expect(statusLine(answer).contains(" 400 "))
    #expect(server.requests.isEmpty)
  }

  @Test func aHeaderTheServerCannotWriteIsA500NotASilentlyMissingHeader() throws {
    let server = try TestServer(tls: false) { _ in
      HTTPResponse.text("ok").with("X-Broken", "line\r\nInjected: yes")
    }
    defer { server.stop() }
    let answer = try RawSocket.exchange(
      port: server.port,
      bytes: Array("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n".utf8))
    #expect(statusLine(answer).contains(" 500 "))
    #expect(!answer.contains("Injected: yes"))
  }

  @Test func aBusyPortIsNamedInTheError() throws {
    let first = try HTTPServer(handler: ClosureHandler { _ in .text("ok") })
    defer { first.stop() }
    #expect {
      _ = try HTTPServer(handler: ClosureHandler { _ in .text("ok") }, port: first.port)
    } throws: { error in
      "\(error)".contains("127.0.0.1:\(first.port)") && "\(error)".contains("in use")
    }
  }

  @Test(arguments: [
    ("bytes=0-3", ByteRange.partial(0...3)), ("bytes=5-", .partial(5...9)),
    ("bytes=-2", .partial(8...9)), ("bytes=8-100", .partial(8...9)), ("bytes=10-", .unsatisfiable),
    ("bytes=3-1", .whole), ("bytes=0-1,4-5", .whole), ("items=0-1", .whole),
    ("bytes=x-1", .whole),
  ])
  func byteRanges(header: String, expected: ByteRange) {
    #expect(ByteRange.resolve(header, length: 10) == expected)
  }
}
