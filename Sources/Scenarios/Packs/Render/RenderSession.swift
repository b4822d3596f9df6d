import Artifacts
import Devices
import Engines
import Foundation
import HTTP
import OTA
import QualifyCore

/// One scenario's rendering world: the shell's local origin serving the app's bundle (its
/// own loopback port, so no two scenarios share an engine's storage), the beacon standing for
/// the Internet, the messages held for the thread, and what the engine last showed.
final class RenderSession {
  /// The shell's local origin: the app's shipped bundle, or the one its OTA channel serves.
  private(set) var bundleServer: HTTPServer
  /// What the page asked of the shell's origin: when it stopped asking.
  private(set) var activity: RequestActivity
  let beaconServer: HTTPServer
  let beacon: Beacon
  /// The site a body's ordinary link leads to, which a followed link opens.
  let outsideServer: HTTPServer
  let outside: Beacon
  /// The markers of the messages held, by thread, in order.
  var held: [String: [(kind: String, marker: String)]] = [:]
  var last: RenderResult?
  /// Whether renders keep a screenshot: the check's do, a control's (an edited renderer) not.
  let keepsScreenshot: Bool

  init(app: App, edits: [String]) throws {
    guard let bundle = app.build.webBundle else {
      throw ScenarioRuntimeError("\(app.name)'s web bundle was not read")
    }
    keepsScreenshot = edits.isEmpty
    beacon = Beacon()
    beaconServer = try HTTPServer(handler: beacon)
    outside = Beacon()
    do {
      outsideServer = try HTTPServer(handler: outside)
    } catch {
      beaconServer.stop()
      throw error
    }
    forwarder = NativeForwarder(app: app)
    prelude = RenderBodies.prelude(
      edits.compactMap { RenderBodies.edits[$0] },
      scripts: edits.compactMap { RenderBodies.scripts[$0] })
    let handler = WebBundleServer(
      bundle: bundle, prelude: prelude, outside: beaconServer.loopbackURL,
      api: forwarder.forward)
    activity = handler.activity
    do {
      bundleServer = try HTTPServer(handler: handler)
    } catch {
      beaconServer.stop()
      outsideServer.stop()
      throw error
    }
  }

  let forwarder: NativeForwarder
  private let prelude: String?
  /// Where a bundle the channel served was unpacked, removed when the session stops.
  private var unpacked: [URL] = []

  /// The shell serves `bundle` from now on, at an origin of its own (a fresh port: nothing
  /// the shipped bundle stored carries over), as a device runs an applied OTA bundle.
  func serve(_ bundle: WebBundle) throws {
    let handler = WebBundleServer(
      bundle: bundle, prelude: prelude, outside: beaconServer.loopbackURL,
      api: forwarder.forward)
    let server = try HTTPServer(handler: handler)
    bundleServer.stop()
    bundleServer = server
    activity = handler.activity
  }

  /// The files of a bundle the updater verified, written to a folder of their own, as the
  /// plugin unpacks it: a bundle zipped with its folder (`dist/index.html`) has that folder
  /// for root. Nothing outside the folder is written, whatever an entry's name says.
  func unpack(_ archive: ZipArchive, version: String, threadPath: String?) throws -> WebBundle {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "qualify-ota-bundle-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    unpacked.append(folder)
    let names = archive.entries.map(\.name)
    let prefix =
      names.contains("index.html")
      ? "" : names.first { $0.hasSuffix("/index.html") }.map { String($0.dropLast(10)) } ?? ""
    for entry in archive.entries where entry.readable && !entry.name.hasSuffix("/") {
      guard entry.name.hasPrefix(prefix), CapgoBundle.isContained(entry.name) else { continue }
      let relative = String(entry.name.dropFirst(prefix.count))
      guard !relative.isEmpty, !relative.split(separator: "/").contains("..") else { continue }
      let target = folder.appendingPathComponent(relative)
      try FileManager.default.createDirectory(
        at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(entry.data).write(to: target)
    }
    return WebBundle(
      folders: [(folder.path, folder.path)], webDir: "the OTA bundle \(version)",
      threadPath: threadPath)
  }

  var origin: String { bundleServer.loopbackURL }
  var beaconURL: String { beaconServer.loopbackURL }
  var outsideURL: String { outsideServer.loopbackURL }

  func stop() {
    for folder in unpacked { try? FileManager.default.removeItem(at: folder) }
    bundleServer.stop()
    beaconServer.stop()
    outsideServer.stop()
  }
}

/// The page's `fetch` of `/api/`, through the app's native stack with its session, as
/// CapacitorHttp answers it. It answers only while a render step waits for the engine, so the
/// server's thread and the scenario's never use the app at once: a page left open after its
/// render (the engine keeps it until the next one) gets a 503, not the app.
final class NativeForwarder: @unchecked Sendable {
  let app: App
  private let answering = Locked(false)

  init(app: App) { self.app = app }

  /// Runs `body` with the page's calls answered.
  func answer<T>(_ body: () throws -> T) rethrows -> T {
    answering.withLock { $0 = true }
    defer { answering.withLock { $0 = false } }
    return try body()
  }

  @Sendable func forward(_ request: HTTPRequest) -> HTTPResponse {
    // Held for the whole call, so closing waits for one in flight to finish.
    answering.withLock { open -> HTTPResponse in
      guard open else { return .problem(503, "the thread is no longer shown") }
      return send(request)
    }
  }

  private func send(_ request: HTTPRequest) -> HTTPResponse {
    var outgoing = ClientRequest(method: request.method, url: app.apiURL(request.target))
    outgoing.body = request.body
    if let type = request.headers["Content-Type"] { outgoing.headers.set("Content-Type", type) }
    guard case .sent(let exchange) = app.native.send(outgoing), let response = exchange.response
    else { return .problem(502, "the native stack got no answer") }
    return HTTPResponse(
      status: response.status,
      headers: HTTPHeaders(
        [("Content-Type", response.headers["Content-Type"] ?? "application/json")]),
      body: response.body)
  }
}

/// The stand-in for the Internet: every request a body makes to it is recorded.
final class Beacon: HTTPHandler, Sendable {
  private let hits = Locked<[String]>([])

  func handle(_ request: HTTPRequest) -> HTTPResponse {
    hits.withLock { $0.append(request.path) }
    return .text("beacon")
  }

  var paths: [String] { hits.withLock { $0 } }
}

/// What an engine showed of a thread.
struct RenderResult {
  struct Frame {
    var srcdoc: Bool
    var sandbox: String?
    var src: String?
    /// The document's URL inside the frame (`about:srcdoc` for an srcdoc document).
    var url: String
    var text: String
    var csp: [String]
    /// What a body script marked in its own document, or in the thread's.
    var ran: String?
    var nestedFrames: Int
    /// Why the frame could not be read, nil when it was.
    var unreadable: String?
    /// Whether the body holds an ordinary link, which the render follows as a tap would.
    var hasLink = false
    /// The frame's document URL after its link was followed.
    var urlAfterLink: String?
    /// How tall the frame is in the thread, and its body's content, in CSS px (nil: not read).
    var frameHeight: Double?
    var contentHeight: Double?
  }

  var engine: EngineKind
  var thread = ""
  /// The page as the shell's origin serves it (`/index.html#/thread/thread-7`).
  var path = ""
  var url: String
  /// The view's state: `ready` when the thread showed, else what happened.
  var state: String
  var frames: [Frame] = []
  var ranInThread: String?
  /// The top-level document's URL after the bodies had their chance to navigate it.
  var finalURL: String = ""
  var beaconHits: [String] = []
  /// Windows opened while the thread showed (a popup, a link with a target), but the one a
  /// followed link opened on its own page.
  var openedWindows = 0
  /// The URLs of the windows opened, once they loaded.
  var windowURLs: [String] = []
  /// Whether a body's link was followed.
  var followedLink = false
  var screenshot: Data?
  var transcript: [String] = []
  var seconds: Double = 0

  /// The dangerous pair: with both, a script of the body could remove its own sandbox.
  static func escapable(_ sandbox: String) -> Bool {
    let tokens = Set(
      sandbox.lowercased().split(whereSeparator: { $0.isWhitespace }).map(String.init))
    return tokens.contains("allow-scripts") && tokens.contains("allow-same-origin")
  }
}
