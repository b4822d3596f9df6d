import Artifacts
import Devices
import Foundation
import HTTP
import QualifyCore
import Testing

@testable import Engines

/// The W3C WebDriver client against recorded answers of chromedriver and WebKitWebDriver (a
/// loopback server replays them and records what the client sent).
@Suite struct WebDriverRecordedTests {
  /// Answers each `METHOD path` with a recorded body; records every request.
  final class Recorded: HTTPHandler, @unchecked Sendable {
    let answers: [String: (Int, String)]
    private let lock = NSLock()
    private var seen: [(String, String)] = []

    init(_ answers: [String: (Int, String)]) { self.answers = answers }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
      lock.withLock { seen.append(("\(request.method) \(request.path)", request.bodyText)) }
      guard let (status, body) = answers["\(request.method) \(request.path)"] else {
        return HTTPResponse(
          status: 404, headers: ["Content-Type": "application/json"],
          body: Array(#"{"value":{"error":"unknown command","message":"unknown"}}"#.utf8))
      }
      return HTTPResponse(
        status: status, headers: ["Content-Type": "application/json"], body: Array(body.utf8))
    }

    var requests: [(String, String)] { lock.withLock { seen } }
  }

  func session(_ answers: [String: (Int, String)]) throws -> (
    WebDriverSession, Recorded, HTTPServer
  ) {
    let recorded = Recorded(
      answers.merging([
        // chromedriver 156's answer to a new session, shortened.
        "POST /session": (
          200,
          #"{"value":{"capabilities":{"acceptInsecureCerts":false,"browserName":"chrome","browserVersion":"156.0.8078.129"},"sessionId":"5e1d"}}"#
        )
      ]) { $1 })
    let server = try HTTPServer(handler: recorded)
    let client = try HTTPClient(
      configuration: HTTPClient.Configuration(origins: ["127.0.0.1:\(server.port)": server.port]))
    let session = try WebDriverSession.open(
      endpoint: server.loopbackURL, capabilities: ["browserName": "chrome"], client: client)
    return (session, recorded, server)
  }

  @Test func aSessionIsOpenedWithAlwaysMatchAndItsIdKept() throws {
    let (session, recorded, server) = try session([:])
    defer { server.stop() }
    #expect(session.id == "5e1d")
    let sent = try #require(recorded.requests.first)
    #expect(sent.0 == "POST /session")
    let body = try #require(
      try JSONSerialization.jsonObject(with: Data(sent.1.utf8)) as? [String: Any])
    let always = (body["capabilities"] as? [String: Any])?["alwaysMatch"] as? [String: Any]
    #expect(always?["browserName"] as? String == "chrome")
  }

  @Test func anElementIsSwitchedIntoByItsW3CReference() throws {
    let (session, recorded, server) = try session([
      // WebKitWebDriver's element reference.
      "POST /session/5e1d/element": (
        200, #"{"value":{"element-6066-11e4-a52e-4f735466cecf":"node-62A8"}}"#
      ),
      "POST /session/5e1d/frame": (200, #"{"value":null}"#),
      "POST /session/5e1d/execute/sync": (200, #"{"value":"Hello body"}"#),
    ])
    defer { server.stop() }
    let frame = try session.element(css: "iframe")
    #expect(frame.id == "node-62A8")
    try session.switchToFrame(frame)
    try session.switchToFrame(nil)
    #expect(try session.execute("return document.body.innerText") as? String == "Hello body")
    let switches = recorded.requests.filter { $0.0 == "POST /session/5e1d/frame" }.map(\.1)
    #expect(switches.count == 2)
    #expect(switches.first?.contains(#""element-6066-11e4-a52e-4f735466cecf":"node-62A8""#) == true)
    #expect(switches.last?.contains(#""id":null"#) == true)
  }

  @Test func aW3CErrorIsThrownWithItsCodeAndFirstLine() throws {
    let (session, _, server) = try session([
      // chromedriver's answer to a frame switch missing its element, stack trace included.
      "POST /session/5e1d/element": (
        404,
        ##"{"value":{"error":"no such element","message":"no such element: Unable to locate element: {\"method\":\"css selector\",\"selector\":\"#nope\"}\n  (Session info: chrome=156.0.8078.129)","stacktrace":"#0 0x5576675d2e0e"}}"##
      )
    ])
    defer { server.stop() }
    #expect(throws: WebDriverError.self) { try session.element(css: "#nope") }
    do {
      _ = try session.element(css: "#nope")
    } catch let error as WebDriverError {
      #expect(error.code == "no such element")
      #expect(!error.message.contains("Session info"))
    }
  }

  @Test func aScreenshotIsDecodedAndSummarisedInTheTranscript() throws {
    let png = Data(
      [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 600))
    let (session, _, server) = try session([
      "GET /session/5e1d/screenshot": (200, #"{"value":""# + png.base64EncodedString() + #""}"#)
    ])
    defer { server.stop() }
    #expect(try session.screenshot() == png)
    let line = WebDriverSession.summary(#"{"value":""# + png.base64EncodedString() + #""}"#)
    #expect(line.hasSuffix("bytes)") && line.count < 200)
  }

  @Test func anUnreachableDriverIsAnErrorNotAnAnswer() throws {
    let port = try EngineProcess.freePort()
    let client = try HTTPClient(
      configuration: HTTPClient.Configuration(origins: ["127.0.0.1:\(port)": port], timeout: 2))
    #expect(!WebDriverSession.ready(endpoint: "http://127.0.0.1:\(port)", client: client))
    #expect(throws: WebDriverError.self) {
      _ = try WebDriverSession.open(
        endpoint: "http://127.0.0.1:\(port)", capabilities: [:], client: client)
    }
  }
}

/// Both real drivers, as `make test` installs them: each engine reads a sandboxed srcdoc
/// frame's text, and runs none of its script.
@Suite(.serialized) struct RealEngineTests {
  final class Page: HTTPHandler, Sendable {
    func handle(_ request: HTTPRequest) -> HTTPResponse {
      .html(
        """
        <!doctype html><html><body><h1>Thread</h1>
        <iframe id="f" sandbox="allow-same-origin" srcdoc="<p>Hello body</p><script>parent.document.title='ran'</script>"></iframe>
        </body></html>
        """)
    }
  }

  @Test(arguments: EngineKind.allCases)
  func eachEngineReadsASandboxedFrameAndRunsNoneOfItsScript(_ kind: EngineKind) throws {
    #expect(EnginePool.shared.unavailable(kind) == nil, "make test installs \(kind.installHint)")
    let server = try HTTPServer(handler: Page())
    defer { server.stop() }
    let lines = Locked<[String]>([])
    let transcript: @Sendable (String) -> Void = { line in lines.withLock { $0.append(line) } }
    let (text, title) = try EnginePool.shared.use(kind, transcript: transcript) {
      session -> (String?, String?) in
      try session.navigate(to: server.loopbackURL + "/")
      try session.switchToFrame(try session.element(css: "#f"))
      let text = try session.execute("return document.body.innerText") as? String
      try session.switchToFrame(nil)
      let title = try session.execute("return document.title") as? String
      return (text, title)
    }
    #expect(text == "Hello body")
    #expect(title == "")
    #expect(lines.withLock { $0 }.contains { $0.hasPrefix("POST /session/") })
    #expect(EnginePool.shared.startTimes[kind] ?? 0 > 0)
  }
}

/// The page the app's bundle runs in is fenced: on the runner's loopback, where the WebDriver
/// servers listen, its script reaches no other port — the same page unfenced does.
@Suite(.serialized) struct FencedPageTests {
  final class Recorder: HTTPHandler, Sendable {
    let hits = Locked(0)
    func handle(_ request: HTTPRequest) -> HTTPResponse {
      hits.withLock { $0 += 1 }
      return .text("driver")
    }
  }

  /// A page trying every way to send to `target`: fetch, an image, a form POST.
  static func page(_ target: String) -> String {
    """
    <html><head></head><body><form id="f" method="post" action="\(target)/session"></form>
    <img src="\(target)/img">
    <script>
    fetch("\(target)/session", { method: "POST", mode: "no-cors", body: "{}" }).catch(function () {});
    setTimeout(function () { document.getElementById("f").submit(); }, 50);
    </script></body></html>
    """
  }

  @Test(arguments: EngineKind.allCases)
  func theBundlesPageReachesNoOtherLoopbackPort(_ kind: EngineKind) throws {
    let recorder = Recorder()
    let driver = try HTTPServer(handler: recorder)
    defer { driver.stop() }
    let app = FileManager.default.temporaryDirectory.appendingPathComponent(
      "qualify-fence-\(UUID().uuidString.prefix(6))")
    let dist = app.appendingPathComponent("dist")
    try FileManager.default.createDirectory(at: dist, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: app) }
    try Self.page(driver.loopbackURL).write(
      to: dist.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
    let fenced = try HTTPServer(
      handler: WebBundleServer(
        bundle: WebBundle(folders: [(dist.path, app.path)], webDir: "dist", threadPath: nil)
      ) { _ in .notFound })
    defer { fenced.stop() }
    // The control: the same page served without the fence reaches the other port.
    let page = Self.page(driver.loopbackURL)
    // No policy at all (`.html` would add the harness's own pages' policy).
    let open = try HTTPServer(
      handler: ClosureHandler { _ in
        HTTPResponse(
          status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: Array(page.utf8)
        )
      })
    defer { open.stop() }
    for (server, expectsHits) in [(fenced, false), (open, true)] {
      recorder.hits.withLock { $0 = 0 }
      try EnginePool.shared.use(kind) { session in
        try session.navigate(to: server.loopbackURL + "/index.html")
        usleep(400_000)
        try session.navigate(to: "about:blank")
      }
      let hits = recorder.hits.withLock { $0 }
      #expect((hits > 0) == expectsHits, "\(kind) \(expectsHits ? "unfenced" : "fenced"): \(hits)")
    }
  }
}

/// An engine whose browser dies is started afresh for the next caller.
@Suite(.serialized) struct EngineRestartTests {
  @Test func aDeadSessionIsReplacedOnTheNextUse() throws {
    let kind = EngineKind.chromium
    #expect(EnginePool.shared.unavailable(kind) == nil, "make test installs \(kind.installHint)")
    let first = try EnginePool.shared.use(kind) { $0.id }
    // The session ends under the pool's feet, as when the browser crashes.
    #expect(throws: WebDriverError.self) {
      try EnginePool.shared.use(kind) { session in
        session.close()
        _ = try session.currentURL()
      }
    }
    let second = try EnginePool.shared.use(kind) { session -> String in
      try session.navigate(to: "about:blank")
      return session.id
    }
    #expect(first != second)
  }
}

/// An engine writes its temporary files (Chromium's profile and singleton socket) to a folder
/// of its own, which is gone once the engine is stopped: runs do not fill the machine's /tmp.
@Suite struct EngineScratchTests {
  @Test(arguments: EngineKind.allCases)
  func theEnginesTemporaryFilesGoWithIt(_ kind: EngineKind) throws {
    #expect(EnginePool.shared.unavailable(kind) == nil, "make test installs \(kind.installHint)")
    let engine = try EngineProcess(kind: kind, transcript: nil)
    try engine.session.navigate(to: "about:blank")
    let scratch = engine.scratch
    #expect(FileManager.default.fileExists(atPath: scratch.path))
    if kind == .chromium {
      // The control: the browser did write there, so the folder is the one it uses.
      let written = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
      #expect(!written.isEmpty, "chromedriver put its profile elsewhere")
    }
    engine.stop()
    let deadline = Date().addingTimeInterval(10)
    while FileManager.default.fileExists(atPath: scratch.path) && Date() < deadline {
      usleep(50_000)
    }
    #expect(!FileManager.default.fileExists(atPath: scratch.path))
  }
}
