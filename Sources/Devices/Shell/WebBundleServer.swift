import Artifacts
import Foundation
import HTTP
import QualifyCore

/// The shell's local origin as a real engine loads it: the app's built web bundle (Capacitor
/// serves `webDir` at `capacitor://localhost` on iOS and `https://localhost` on Android; here
/// at a loopback origin of its own), and `/api/` answered through the app's native HTTP
/// stack, as CapacitorHttp answers the page's `fetch` with the app's session.
public final class WebBundleServer: HTTPHandler, Sendable {
  /// The largest file of the bundle served: the bundle is the app's, so hostile input too.
  public static let maximumFileSize = 16 << 20

  let bundle: WebBundle
  /// A script put first in every HTML page's `<head>` (a control's edit of the app's code).
  let prelude: String?
  let api: @Sendable (HTTPRequest) -> HTTPResponse
  /// The only other origin the page may reach (the beacon standing for the Internet), nil
  /// for none.
  let outside: String?
  /// What the page has asked of the origin so far: a view that has stopped asking, and shows
  /// nothing, is finished, not slow.
  public let activity = RequestActivity()

  /// The policy every page of the bundle is served with: the app's code comes from a pull
  /// request and runs in a real browser on the runner's loopback, where the WebDriver
  /// servers listen; it reaches its own origin and `outside` only (no request, form or frame
  /// to another port). A body's frame inherits it, so the app's own CSP still decides what a
  /// body may load from `outside`.
  var fence: String {
    let also = outside.map { " " + $0 } ?? ""
    return [
      "default-src 'self' data: blob:\(also)",
      "script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:\(also)",
      "style-src 'self' 'unsafe-inline'\(also)", "img-src 'self' data: blob:\(also)",
      "connect-src 'self'\(also)", "frame-src 'self' about: blob: data:\(also)",
      "form-action 'self'\(also)", "worker-src 'self' blob:", "object-src 'none'",
    ].joined(separator: "; ")
  }

  public init(
    bundle: WebBundle, prelude: String? = nil, outside: String? = nil,
    api: @escaping @Sendable (HTTPRequest) -> HTTPResponse
  ) {
    self.bundle = bundle
    self.prelude = prelude
    self.outside = outside
    self.api = api
  }

  public func handle(_ request: HTTPRequest) -> HTTPResponse {
    activity.begin()
    defer { activity.end() }
    return serve(request)
  }

  func serve(_ request: HTTPRequest) -> HTTPResponse {
    // The request's path is decoded already: a `%` left in it is a file's own name.
    let path = request.path
    if path.hasPrefix("/api/") { return api(request) }
    guard request.method == "GET" || request.method == "HEAD" else { return .notFound }
    let relative = path == "/" ? "index.html" : String(path.drop { $0 == "/" })
    guard !relative.split(separator: "/").contains(where: { $0 == ".." || $0.hasPrefix(".") })
    else { return .notFound }
    for (folder, _) in bundle.folders {
      // Within the bundle's own folder, resolved: a link out of it (to the app's .git, an
      // env file the pipeline dropped beside it) is not served.
      guard let root = ConfinedFile.resolved(folder),
        let data = try? ConfinedFile.read(
          folder + "/" + relative, within: [root], limit: WebBundleServer.maximumFileSize)
      else { continue }
      let type = WebBundleServer.contentType(relative)
      var body = [UInt8](data)
      if type.hasPrefix("text/html"), let prelude {
        body = WebBundleServer.inject(prelude, into: String(decoding: body, as: UTF8.self))
      }
      var headers: HTTPHeaders = ["Content-Type": type, "Cache-Control": "no-store"]
      if type.hasPrefix("text/html") { headers.set("Content-Security-Policy", fence) }
      return HTTPResponse(status: 200, headers: headers, body: body)
    }
    return .notFound
  }

  /// `script` as the first element of `<head>` (or of the document when it has none).
  static func inject(_ script: String, into html: String) -> [UInt8] {
    let tag = "<script>\(script)</script>"
    if let head = html.range(of: "<head>", options: .caseInsensitive) {
      return Array((html[..<head.upperBound] + tag + html[head.upperBound...]).utf8)
    }
    return Array((tag + html).utf8)
  }

  static func contentType(_ path: String) -> String {
    switch (path as NSString).pathExtension.lowercased() {
    case "html", "htm": return "text/html; charset=utf-8"
    case "js", "mjs": return "text/javascript; charset=utf-8"
    case "css": return "text/css; charset=utf-8"
    case "json": return "application/json"
    case "svg": return "image/svg+xml"
    case "png": return "image/png"
    case "jpg", "jpeg": return "image/jpeg"
    case "woff2": return "font/woff2"
    default: return "application/octet-stream"
    }
  }
}

/// Requests in flight at an origin, and when the last one ended.
public final class RequestActivity: Sendable {
  private let state = Locked((inFlight: 0, lastEnded: Date.distantPast, served: 0))

  public init() {}

  func begin() { state.withLock { $0.inFlight += 1 } }

  func end() {
    state.withLock {
      $0.inFlight -= 1
      $0.served += 1
      $0.lastEnded = Date()
    }
  }

  /// How many requests were answered so far.
  public var served: Int { state.withLock { $0.served } }

  /// Whether nothing is in flight and nothing has been answered for `interval`.
  public func quiet(for interval: TimeInterval, now: Date = Date()) -> Bool {
    state.withLock { $0.inFlight == 0 && now.timeIntervalSince($0.lastEnded) >= interval }
  }
}
