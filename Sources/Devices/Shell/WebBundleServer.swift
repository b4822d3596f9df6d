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

  public init(
    bundle: WebBundle, prelude: String? = nil,
    api: @escaping @Sendable (HTTPRequest) -> HTTPResponse
  ) {
    self.bundle = bundle
    self.prelude = prelude
    self.api = api
  }

  public func handle(_ request: HTTPRequest) -> HTTPResponse {
    let path = request.path.removingPercentEncoding ?? request.path
    if path.hasPrefix("/api/") { return api(request) }
    guard request.method == "GET" || request.method == "HEAD" else { return .notFound }
    let relative = path == "/" ? "index.html" : String(path.drop { $0 == "/" })
    guard !relative.split(separator: "/").contains(where: { $0 == ".." || $0.hasPrefix(".") })
    else { return .notFound }
    for (folder, app) in bundle.folders {
      let file = folder + "/" + relative
      guard
        let data = try? ConfinedFile.read(
          file, within: [app], limit: WebBundleServer.maximumFileSize)
      else { continue }
      let type = WebBundleServer.contentType(relative)
      var body = [UInt8](data)
      if type.hasPrefix("text/html"), let prelude {
        body = WebBundleServer.inject(prelude, into: String(decoding: body, as: UTF8.self))
      }
      return HTTPResponse(
        status: 200, headers: ["Content-Type": type, "Cache-Control": "no-store"], body: body)
    }
    return .notFound
  }

  /// Whether the bundle has the file at `relative` (`index.html`).
  public func has(_ relative: String) -> Bool {
    bundle.folders.contains { folder, app in
      guard let real = ConfinedFile.resolved(folder + "/" + relative) else { return false }
      return ConfinedFile.isInside(real, ConfinedFile.resolved(app) ?? app)
    }
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
