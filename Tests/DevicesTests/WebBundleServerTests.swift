import Artifacts
import Foundation
import HTTP
import QualifyTestSupport
import Testing

@testable import Devices

/// The shell's local origin serves the app's built bundle and nothing else of the machine or
/// of the app: the bundle comes from a pull request and is read by a real browser.
@Suite struct WebBundleServerTests {
  func bundle() throws -> (URL, WebBundleServer) {
    let app = try Fixtures.temporaryDirectory("qualify-bundle")
    let dist = app.appendingPathComponent("dist")
    try FileManager.default.createDirectory(
      at: app.appendingPathComponent(".git"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: dist, withIntermediateDirectories: true)
    try "<html><head></head><body>app</body></html>".write(
      to: dist.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
    try "token=secret".write(
      to: app.appendingPathComponent(".git/config"), atomically: true, encoding: .utf8)
    try "beside".write(
      to: app.appendingPathComponent("secret.env"), atomically: true, encoding: .utf8)
    try "50%".write(
      to: dist.appendingPathComponent("50%.txt"), atomically: true, encoding: .utf8)
    // Links out of the bundle: to a file of the app beside it, and to its .git.
    try FileManager.default.createSymbolicLink(
      atPath: dist.appendingPathComponent("leak").path, withDestinationPath: "../secret.env")
    try FileManager.default.createSymbolicLink(
      atPath: dist.appendingPathComponent("git").path, withDestinationPath: "../.git")
    let web = WebBundle(folders: [(dist.path, app.path)], webDir: "dist", threadPath: nil)
    return (
      app,
      WebBundleServer(bundle: web, prelude: "window.edited = 1;", outside: "http://127.0.0.1:9") {
        _ in .json(["api": true])
      }
    )
  }

  func get(_ server: WebBundleServer, _ path: String) -> HTTPResponse {
    server.handle(HTTPRequest(method: "GET", target: path, headers: [:], body: []))
  }

  @Test func theBundleIsServedFencedWithThePreludeFirst() throws {
    let (app, server) = try bundle()
    defer { try? FileManager.default.removeItem(at: app) }
    let index = get(server, "/")
    #expect(index.status == 200)
    #expect(index.bodyText.hasPrefix("<html><head><script>window.edited = 1;</script>"))
    let policy = try #require(index.headers["Content-Security-Policy"])
    #expect(policy.contains("connect-src 'self' http://127.0.0.1:9"))
    #expect(policy.contains("form-action 'self' http://127.0.0.1:9"))
    #expect(get(server, "/50%.txt").bodyText == "50%")
    #expect(get(server, "/api/v1.0/messages/").bodyText.contains("api"))
  }

  @Test func nothingOutsideTheBundleFolderIsServed() throws {
    let (app, server) = try bundle()
    defer { try? FileManager.default.removeItem(at: app) }
    for path in ["/leak", "/git/config", "/../secret.env", "/.git/config", "/../.git/config"] {
      let response = get(server, path)
      #expect(response.status == 404, "\(path)")
      #expect(!response.bodyText.contains("secret") && !response.bodyText.contains("beside"))
    }
    #expect(server.bundle.has("index.html"))
    #expect(!server.bundle.has("leak"))
  }

  /// A view that stopped asking is told from one still waiting for an answer: the render
  /// stops waiting for frames only once nothing is in flight and nothing was for a while.
  @Test func theOriginKnowsWhenThePageStoppedAsking() throws {
    let (app, _) = try bundle()
    defer { try? FileManager.default.removeItem(at: app) }
    let web = WebBundle(
      folders: [(app.appendingPathComponent("dist").path, app.path)], webDir: "dist",
      threadPath: nil)
    let answering = DispatchSemaphore(value: 0)
    let asked = DispatchSemaphore(value: 0)
    let server = WebBundleServer(bundle: web) { _ in
      asked.signal()
      answering.wait()
      return .json(["api": true])
    }
    #expect(server.activity.served == 0)
    #expect(server.activity.quiet(for: 1))
    let done = DispatchGroup()
    DispatchQueue.global().async(group: done) {
      _ = server.handle(HTTPRequest(method: "GET", target: "/api/thread", headers: [:], body: []))
    }
    asked.wait()
    // In flight, however long ago anything ended.
    #expect(!server.activity.quiet(for: 0, now: Date().addingTimeInterval(60)))
    answering.signal()
    done.wait()
    _ = get(server, "/")
    #expect(server.activity.served == 2)
    #expect(!server.activity.quiet(for: 1))
    #expect(server.activity.quiet(for: 1, now: Date().addingTimeInterval(1.5)))
  }
}
