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
}
