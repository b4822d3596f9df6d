import Artifacts
import Devices
import Engines
import Foundation
import QualifyCore
import ResultModel

/// The render pack: seed 000's checklist item 3 in real engines — a thread's message bodies
/// rendered by the app's own web bundle in Chromium (Android's WebView) and WebKit (iOS's
/// WKWebView), each body an `srcdoc` frame with a sandbox and a CSP, nothing in it running
/// or reaching the network.
enum RenderPack: ScenarioPack {
  static let name = "render"
  static let shells: Set<ShellKind> = [.singleOrigin]

  static let actions: [ActionSpec] = renderActions + RenderChannel.actions

  static let renderActions: [ActionSpec] = [
    ActionSpec(
      .world, "backend holds message",
      [.value("kind", .choice(RenderBodies.kinds)), .keyword("in", "thread", .text)],
      summary:
        "The backend puts a message in THREAD (default thread-1): `plain`, `hostile` (a script, an event handler, a remote image and stylesheet, a nested frame, `<base>`, a meta refresh, a form and a link, each pointing at a loopback origin standing for the Internet) or `huge` (about 300 KB, three times the size past which Gmail clips a message). Each body carries a marker only it has.",
      example: "backend holds message hostile in thread-7",
      powers: [.backendHook]
    ) { context in
      let world = context.world
      let thread = context.arguments["thread"] ?? "thread-1"
      let kind = context.arguments["kind"] ?? "plain"
      let app = try world.renderApp()
      let session = try world.renderSession(for: app)
      let marker = "qualify-body-\(kind)-\(Hex.encode(world.chance.bytes(6)))"
      let body = RenderBodies.body(
        kind, marker: marker, beacon: session.beaconURL, outside: session.outsideURL)
      try world.embeddedStack().backend.hold(
        message: body.html, text: body.text, in: thread, subject: "A \(kind) message")
      session.held[thread, default: []].append((kind, marker))
      return Outcome(
        "the backend holds a \(kind) message in \(thread)")
    },
    ActionSpec(
      .app, "renders thread", [.value("thread", .text), .flag("from-the-channel")],
      summary:
        "The app's own web bundle (qualify.json `render`) shows THREAD in a real engine of the device's family — Chromium for Android, WebKit for iOS — at a loopback origin of the shell, its API answered through the app's native stack; the view gets until it shows a frame per message held, or until it has asked its origin nothing and changed nothing for 1 s (a view that shows too few then is broken, not slow); every message frame is read from outside and inside, a form in a body is submitted, and a screenshot kept. With `from-the-channel`, the bundle the app's OTA channel serves, verified and unpacked by the app's updater, is shown instead (from then on in the scenario).",
      example: "mail renders thread thread-7", drivesEngine: true
    ) { context in
      let app = try context.requireApp()
      let world = context.world
      let engine: EngineKind = app.device.platform == .android ? .chromium : .webkit
      guard let bundle = app.build.webBundle, let path = bundle.threadPath else {
        throw ScenarioNotApplicable(
          "not covered: \(app.build.name) names no thread page (qualify.json render.threadPath), so no engine can show its message bodies; check item 3 by hand",
          cause: .noThreadView)
      }
      if EnginePool.shared.turnedOff {
        throw ScenarioNotApplicable(
          "not covered: the real engines are off (--no-engines)", cause: .enginesOff)
      }
      if let missing = EnginePool.shared.unavailable(engine) {
        throw ScenarioNotApplicable(
          "not covered: engine not installed — \(engine.displayName), for \(engine.standsFor): \(missing)",
          cause: .renderUnavailable)
      }
      let session = try world.renderSession(for: app)
      let page = String(path.drop { $0 == "/" }.prefix { $0 != "#" && $0 != "?" })
      if context.arguments.has("from-the-channel") {
        guard app.build.features.ota.enabled else {
          throw ScenarioNotApplicable("OTA is not enabled in this build", cause: .declared)
        }
        if let problem = try RenderChannel.serveChannelBundle(
          app, session: session, threadPath: path, page: page)
        {
          return Outcome(
            "the channel's bundle was not rendered",
            problem: .init(kind: .failed, message: problem, reason: .bodyNotShown))
        }
      } else if !bundle.has(page) {
        throw ScenarioNotApplicable(
          "not covered: the web bundle is not built — \(bundle.webDir)/\(page) does not exist (build the frontend, or point render.webDir at its output)",
          cause: .renderUnavailable)
      }
      let thread = context.arguments["thread"] ?? "thread-1"
      let result: RenderResult
      do {
        result = try session.render(
          thread: thread, path: path, engine: engine,
          expected: session.held[thread]?.count ?? 0,
          settles: session.held[thread]?.contains { $0.kind == "hostile" } ?? false)
      } catch let error as WebDriverError {
        throw ScenarioRuntimeError("\(engine.displayName): \(error.description)")
      }
      session.last = result
      world.record(result, thread: thread)
      return Outcome(
        "\(engine.displayName) showed \(thread) (\(String(format: "%.2f", result.seconds)) s): \(result.frames.count) frame\(result.frames.count == 1 ? "" : "s"), \(result.state)"
      )
    },
  ]

  static let expectations: [ExpectationSpec] = RenderChecks.expectations

  static let mutations: [MutationSpec] = [
    MutationSpec(
      "app.message-body", [.value("edit", .choice(RenderBodies.controls))],
      summary:
        "The renderer of the message body regresses, as the bundle runs in the engine: `sandbox-dropped`, `sandbox-scripts-same-origin` (the pair that lets a body's script lift its own sandbox), `csp-removed`, `src-url` (the body loaded from a URL instead of `srcdoc`), `renderer-broken` (no body set at all), `csp-allows-remote-images` (the CSP's img-src opened to any host: every remote image a read receipt), `links-in-frame` (no `<base target=\"_blank\">`: a link opens inside the message's frame), `links-replace-thread` (links aimed at the top with `allow-top-navigation`: a link replaces the app's view), `frames-not-sized` (the frame keeps its default height: a body taller than it is cut).",
      breaks: "seed 000, item 3: the message body iframe (srcDoc + sandbox + CSP) must render"
    ) { configuration, arguments in
      configuration.shell.renderEdits.append(arguments["edit"] ?? "")
    }
  ]

  static let failureReasons: [FailureReason] = [
    .bodyNotShown, .bodyFrame, .bodyEscaped, .linkNotOutside,
  ]
}

extension FailureReason {
  static let bodyNotShown = FailureReason(
    "body-not-shown", detail: "what the engine showed",
    "A message body's text is not visible inside its frame.")
  static let bodyFrame = FailureReason(
    "body-frame", detail: "what the frame lacks",
    "A message body is not an srcdoc frame with a sandbox and a CSP.")
  static let bodyEscaped = FailureReason(
    "body-escaped", detail: "what got out",
    "Something in a message body ran, reached the network or navigated out of its frame.")
  static let linkNotOutside = FailureReason(
    "link-not-outside", detail: "where the link went",
    "A tapped link in a message body did not open outside the app's view: it replaced the thread or the message, or opened nothing."
  )
}

extension World {
  /// The app whose bundle the render steps load (the scenario's first).
  func renderApp() throws -> App {
    guard let app = apps.sorted(by: { $0.key < $1.key }).first?.value else {
      throw ScenarioRuntimeError("the render steps need an app")
    }
    return app
  }

  func renderSession(for app: App) throws -> RenderSession {
    if let render { return render }
    let session = try RenderSession(app: app, edits: app.behaviours.renderEdits)
    render = session
    return session
  }

  /// The engine's view in the evidence: the frames as read, the WebDriver exchange, the
  /// screenshot.
  func record(_ result: RenderResult, thread: String) {
    let frames = result.frames.enumerated().map { index, frame in
      "frame \(index + 1): srcdoc \(frame.srcdoc), sandbox \(frame.sandbox.map { "\"\($0)\"" } ?? "none"), src \(frame.src ?? "none"), document \(frame.url), CSP \(frame.csp.isEmpty ? "none" : frame.csp.joined(separator: " | ")), script mark \(frame.ran ?? "none"), \(frame.text.count) characters of text\(frame.unreadable.map { ", unreadable: \($0)" } ?? "")"
    }
    note(
      "render/\(result.engine.rawValue)",
      // Ports and timings stay out of the summary: a diff compares summaries across runs.
      "\(result.engine.displayName) showed \(thread) at the shell's \(result.path): \(result.state); \(result.beaconHits.count) request\(result.beaconHits.count == 1 ? "" : "s") reached the beacon",
      detail: (frames + [
        "beacon: \(result.beaconHits.isEmpty ? "nothing" : result.beaconHits.joined(separator: ", "))",
        "thread document after: \(result.finalURL); windows opened: \(result.openedWindows)",
      ]).joined(separator: "\n"))
    note(
      "render/\(result.engine.rawValue)",
      "WebDriver exchange with \(result.engine.displayName)",
      detail: "\(result.transcript.count) requests\n" + result.transcript.joined(separator: "\n"))
    if let png = result.screenshot {
      evidence.append(
        Evidence(
          kind: .screenshot, source: "render/\(result.engine.rawValue)",
          summary: "\(result.engine.displayName) screenshot of \(thread)",
          detail: png.base64EncodedString(), time: clock.now))
    }
  }
}
