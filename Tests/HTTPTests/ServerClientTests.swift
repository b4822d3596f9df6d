import Foundation
import HTTP
import QualifyTestSupport
import Testing

@Suite struct ServerClientTests {
  func client(for server: TestServer, host: String = "api.test", timeout: TimeInterval = 5) throws
    -> HTTPClient
  {
    try HTTPClient(
      configuration: .init(
        trustedCertificatesPEM: TestPKI.authority.certificatePEM,
        origins: ["\(host):443": server.port], timeout: timeout))
  }

  @Test func httpsRoundTripCarriesMethodTargetHeadersAndBody() throws {
    let server = try TestServer { request in
      .json([
        "method": request.method, "path": request.path, "q": request.query("q") ?? "",
        "body": request.bodyText, "header": request.headers["X-Probe"] ?? "",
        "host": request.host, "secure": request.isSecure,
      ])
    }
    defer { server.stop() }
    let response = try client(for: server).response(
      to: ClientRequest(
        method: "POST", url: "https://api.test/items/?q=a%20b&x=1",
        headers: ["X-Probe": "42", "Content-Type": "text/plain"], body: Array("hello".utf8)))
    #expect(response.status == 200)
    let json = try #require(response.jsonObject as? [String: Any])
    #expect(json["method"] as? String == "POST")
    #expect(json["path"] as? String == "/items/")
    #expect(json["q"] as? String == "a b")
    #expect(json["body"] as? String == "hello")
    #expect(json["header"] as? String == "42")
    #expect(json["host"] as? String == "api.test")
    #expect(json["secure"] as? Bool == true)
  }

  @Test func redirectsAreReturnedNotFollowed() throws {
    let server = try TestServer { request in
      request.path == "/start" ? .redirect(to: "https://api.test/next") : .text("followed")
    }
    defer { server.stop() }
    let response = try client(for: server).response(
      to: ClientRequest(url: "https://api.test/start"))
    #expect(response.status == 302)
    #expect(response.headers["Location"] == "https://api.test/next")
    #expect(server.requests.count == 1)
  }

  @Test func repeatedSetCookieHeadersStaySeparate() throws {
    let server = try TestServer { _ in
      HTTPResponse.text("ok").with("Set-Cookie", "a=1; Path=/").with("Set-Cookie", "b=2; Secure")
    }
    defer { server.stop() }
    let response = try client(for: server).response(to: ClientRequest(url: "https://api.test/"))
    #expect(response.headers.values("Set-Cookie") == ["a=1; Path=/", "b=2; Secure"])
  }

  @Test func originsOutsideTheStackAreRefusedWithoutNetwork() throws {
    let server = try TestServer { _ in .text("ok") }
    defer { server.stop() }
    let exchange = try client(for: server).send(ClientRequest(url: "https://elsewhere.test/"))
    #expect(exchange.response == nil)
    #expect(exchange.error?.kind == .originNotInStack)
    #expect(server.requests.isEmpty)
  }

  @Test func aCertificateForAnotherNameFailsVerification() throws {
    let server = try TestServer(hosts: ["other.test"]) { _ in .text("ok") }
    defer { server.stop() }
    let exchange = try client(for: server).send(ClientRequest(url: "https://api.test/"))
    #expect(exchange.error?.kind == .transport)
    #expect(server.requests.isEmpty)
  }

  @Test func anUntrustedCAFailsVerification() throws {
    let server = try TestServer { _ in .text("ok") }
    defer { server.stop() }
    let client = try HTTPClient(
      configuration: .init(
        trustedCertificatesPEM: try CertificateAuthorityFixture.otherCA(),
        origins: ["api.test:443": server.port]))
    let exchange = client.send(ClientRequest(url: "https://api.test/"))
    #expect(exchange.error?.kind == .transport)
  }

  @Test func keepAliveReusesTheConnection() throws {
    let server = try TestServer { _ in .text("ok") }
    defer { server.stop() }
    let client = try client(for: server)
    var durations: [TimeInterval] = []
    for _ in 0..<5 {
      let exchange = client.send(ClientRequest(url: "https://api.test/"))
      #expect(exchange.response?.status == 200)
      durations.append(exchange.duration)
    }
    // The first exchange pays the TLS handshake; a reused connection does not.
    #expect(durations[1...].allSatisfy { $0 < durations[0] })
  }

  @Test func aStalledServerTimesOutTheClient() throws {
    let server = try TestServer { _ in .text("late") }
    defer { server.stop() }
    server.misbehave(.stall(1.5))
    let exchange = try client(for: server, timeout: 0.3).send(
      ClientRequest(url: "https://api.test/"))
    #expect(exchange.error?.kind == .transport)
    #expect(
      exchange.error?.message.contains("imeout") == true
        || exchange.error?.message.contains("timed out") == true)
  }

  @Test func cleartextServerAnswersHTTP() throws {
    let server = try TestServer(tls: false) { request in .text(request.isSecure ? "tls" : "plain") }
    defer { server.stop() }
    let client = try HTTPClient(configuration: .init(origins: ["localhost:8901": server.port]))
    let response = try client.response(to: ClientRequest(url: "http://localhost:8901/health"))
    #expect(response.bodyText == "plain")
  }

  @Test func serverBindsLoopbackOnly() throws {
    let server = try TestServer { _ in .text("ok") }
    defer { server.stop() }
    #expect(server.server.loopbackURL.hasPrefix("https://127.0.0.1:"))
    #expect(try RawSocket.isListening(host: "127.0.0.1", port: server.port))
    #expect(
      try !RawSocket.isListening(
        host: RawSocket.nonLoopbackAddress() ?? "0.0.0.0", port: server.port))
  }
}
