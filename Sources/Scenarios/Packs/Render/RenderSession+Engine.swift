import Engines
import Foundation
import QualifyCore

extension RenderSession {
  /// How long a frame may take to load its document.
  static let patience: TimeInterval = 10
  /// How long the thread page may take to show its frames: everything it fetches is on
  /// loopback, so a view that shows none by then is broken (a control's scenario must fail
  /// inside its own time limit, not time out).
  static let threadPatience: TimeInterval = 5
  /// How long a loaded view that shows too few frames must have asked its origin nothing
  /// and changed nothing before it counts as finished: far longer than a fetch and a render
  /// take on loopback, far shorter than the patience.
  static let settle: TimeInterval = 1

  /// Loads `path` (the app's thread page) for `thread` in `engine`, reads every message
  /// frame from outside and from inside, submits any form a body holds, and keeps a
  /// screenshot; leaves the engine with one window, on the thread.
  func render(thread: String, path: String, engine: EngineKind, expected: Int, settles: Bool)
    throws -> RenderResult
  {
    let url = origin + path.replacingOccurrences(of: "{thread}", with: thread)
    var result = RenderResult(engine: engine, url: url, state: "not loaded")
    result.thread = thread
    result.path = String(url.dropFirst(origin.count))
    let lines = Locked<[String]>([])
    let began = Date()
    let transcript: @Sendable (String) -> Void = { line in lines.withLock { $0.append(line) } }
    try EnginePool.shared.use(engine, transcript: transcript) { session in
      try forwarder.answer {
        try show(&result, session: session, url: url, expected: expected, settles: settles)
      }
    }
    result.beaconHits = beacon.paths
    result.transcript = lines.withLock { $0 }
    result.seconds = Date().timeIntervalSince(began)
    return result
  }

  private func show(
    _ result: inout RenderResult, session: WebDriverSession, url: String, expected: Int,
    settles: Bool
  ) throws {
    try session.switchToFrame(nil)
    let home = try session.windowHandle()
    // A window the previous page opened after its render ended is not this render's.
    RenderSession.reset(session, home: home)
    // Whatever happens here, the next scenario finds the engine with one window.
    defer { RenderSession.reset(session, home: home) }
    // A thread routed by the URL's fragment is opened as a reader opens it: the app's page
    // first, then the route (a hashchange, as a tap in the list makes), so the view's
    // in-app navigation is what shows it, not only its first load.
    // Every change the view makes to its document from now on is timed, so a view that
    // stopped changing and asking can be told from one still at work.
    let watch =
      "window.__qualifyChanged = Date.now(); new MutationObserver(function () { window.__qualifyChanged = Date.now(); }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });"
    if let hash = url.firstIndex(of: "#") {
      try session.navigate(to: String(url[..<hash]))
      _ = try session.execute(
        watch + " location.hash = arguments[0];", [String(url[url.index(after: hash)...])])
    } else {
      try session.navigate(to: url)
      _ = try session.execute(watch)
    }
    let deadline = Date().addingTimeInterval(RenderSession.threadPatience)
    var count = 0
    var settled = false
    repeat {
      let probe =
        // A document that replaced the watched one (a client redirect) is watched afresh,
        // from now: it has not been still yet.
        try session.execute(
          "if (window.__qualifyChanged === undefined) { " + watch
            + " } return [document.readyState, document.querySelectorAll('iframe').length, Date.now() - window.__qualifyChanged]"
        ) as? [Any] ?? []
      count = probe.count > 1 ? probe[1] as? Int ?? 0 : 0
      if count >= expected { break }
      // Loaded, asking its origin nothing and changing nothing for a while, and still short
      // of frames: the view has shown all it will (a control's broken renderer), and
      // waiting out the patience would only slow the run.
      let stillFor = probe.count > 2 ? (probe[2] as? NSNumber)?.doubleValue ?? 0 : 0
      if probe.first as? String == "complete", activity.served > 0,
        stillFor >= RenderSession.settle * 1000, activity.quiet(for: RenderSession.settle)
      {
        settled = true
        break
      }
      usleep(25_000)
    } while Date() < deadline
    let shortBecause =
      settled
      ? "once the view had asked and changed nothing for \(Int(RenderSession.settle)) s"
      : "after \(Int(RenderSession.threadPatience)) s"
    result.state =
      count >= expected && expected > 0
      ? "ready"
      : "\(count) of \(expected) message frames \(shortBecause): \(try session.execute("return document.body ? document.body.innerText.slice(0, 200) : ''") as? String ?? "")"
    let outside =
      try session.execute(
        "return Array.prototype.map.call(document.querySelectorAll('iframe'), function (f) { return [f.hasAttribute('srcdoc'), f.getAttribute('sandbox'), f.getAttribute('src')]; })"
      ) as? [[Any]] ?? []
    for (index, element) in try session.elements(css: "iframe").enumerated() {
      let attributes = index < outside.count ? outside[index] : []
      var frame = RenderResult.Frame(
        srcdoc: attributes.first as? Bool ?? false,
        sandbox: attributes.count > 1 ? attributes[1] as? String : nil,
        src: attributes.count > 2 ? attributes[2] as? String : nil, url: "", text: "", csp: [],
        ran: nil, nestedFrames: 0)
      do {
        try session.switchToFrame(element)
        try read(&frame, session)
      } catch let error as WebDriverError {
        frame.unreadable = error.description
      }
      try session.switchToFrame(nil)
      result.frames.append(frame)
    }
    // How tall each frame is in the thread, once the view sized it on the frame's load.
    let heights =
      try session.execute(
        "return Array.prototype.map.call(document.querySelectorAll('iframe'), function (f) { return f.getBoundingClientRect().height; })"
      ) as? [Any] ?? []
    for (index, height) in heights.enumerated() where index < result.frames.count {
      result.frames[index].frameHeight = (height as? NSNumber)?.doubleValue
    }
    try follow(&result, session, home: home)
    // A body that can act after its load (a meta refresh, the form just submitted) gets a
    // moment to; a frame's load event already waited for everything it loads.
    if settles { usleep(150_000) }
    result.ranInThread =
      try session.execute("return document.documentElement.getAttribute('data-body-ran')")
      as? String
    result.finalURL = try session.currentURL()
    result.windowURLs = try windowURLs(session, home: home)
    result.openedWindows =
      result.windowURLs.filter { !$0.hasPrefix(outsideURL + RenderBodies.outsidePath) }.count
    // The check's evidence; a control's run needs none.
    if keepsScreenshot { result.screenshot = try? session.screenshot() }
  }

  /// Back to one window: what a body opened does not count against the next scenario. The
  /// thread's page stays until the next render navigates away (a blank page costs a load
  /// per render); its calls to the app are refused once this render is over.
  static func reset(_ session: WebDriverSession, home: String) {
    try? session.switchToFrame(nil)
    for other in (try? session.windowHandles()) ?? [] where other != home {
      try? session.switchToWindow(other)
      try? session.closeWindow()
    }
    try? session.switchToWindow(home)
  }

  /// The frame's document as it is inside: its URL, text, CSP, any mark a script left, its
  /// own frames; a form it holds is submitted, as a tap on its button would.
  private func read(_ frame: inout RenderResult.Frame, _ session: WebDriverSession) throws {
    let deadline = Date().addingTimeInterval(RenderSession.patience)
    var answer: [Any] = []
    // One request reads the document once it has loaded; a frame still loading is asked again.
    repeat {
      // Once the patience is out, the document is read as it is.
      let late = Date() >= deadline
      answer =
        try session.execute(
          """
          if (!arguments[0] && document.readyState !== 'complete') return [document.readyState];
          var metas = Array.prototype.filter.call(document.querySelectorAll('meta[http-equiv]'),
            function (m) { return m.httpEquiv.toLowerCase() === 'content-security-policy'; });
          return ['complete', location.href, document.body ? document.body.innerText : '',
            metas.map(function (m) { return m.content; }),
            document.documentElement.getAttribute('data-ran'),
            document.querySelectorAll('iframe').length,
            !!document.getElementById('qualify-submit'),
            !!document.getElementById('qualify-outside-link'),
            document.documentElement.scrollHeight];
          """, [late]) as? [Any] ?? []
      if answer.count > 1 || late { break }
      usleep(20_000)
    } while true
    let inside = Array(answer.dropFirst())
    frame.url = inside.first as? String ?? ""
    frame.text = inside.count > 1 ? inside[1] as? String ?? "" : ""
    frame.csp = inside.count > 2 ? inside[2] as? [String] ?? [] : []
    frame.ran = inside.count > 3 ? inside[3] as? String : nil
    frame.nestedFrames = inside.count > 4 ? inside[4] as? Int ?? 0 : 0
    frame.hasLink = inside.count > 6 && inside[6] as? Bool == true
    frame.contentHeight = inside.count > 7 ? (inside[7] as? NSNumber)?.doubleValue : nil
    if inside.count > 5, inside[5] as? Bool == true {
      try? session.click(try session.element(css: "#qualify-submit"))
    }
  }

  /// Taps the link of each body that holds one, as a reader would, and waits for where it
  /// leads to load: a new window on the link's page (the shell hands it to the system
  /// browser), or, in a regressed renderer, the frame or the thread itself.
  private func follow(_ result: inout RenderResult, _ session: WebDriverSession, home: String)
    throws
  {
    let elements = try session.elements(css: "iframe")
    for (index, frame) in result.frames.enumerated() where frame.hasLink && index < elements.count {
      try session.switchToFrame(elements[index])
      try? session.click(try session.element(css: "#qualify-outside-link"))
      try session.switchToFrame(nil)
      result.followedLink = true
      // Until the link's page was requested, a window opened or the view left the thread; on
      // loopback a tap that did none of these within a second opened nothing.
      let deadline = Date().addingTimeInterval(1)
      while !outside.paths.contains(RenderBodies.outsidePath),
        (try? session.windowHandles().count) == 1, (try? session.currentURL()) == result.url,
        Date() < deadline
      {
        usleep(25_000)
      }
      let current = try session.currentURL()
      guard current == result.url else { return }
      let after = try session.elements(css: "iframe")
      guard index < after.count else { continue }
      try session.switchToFrame(after[index])
      result.frames[index].urlAfterLink = try session.execute("return location.href") as? String
      try session.switchToFrame(nil)
    }
  }

  /// The URL of every window but `home`, each once it left `about:blank`; the engine is back
  /// on `home` after.
  private func windowURLs(_ session: WebDriverSession, home: String) throws -> [String] {
    var urls: [String] = []
    for handle in try session.windowHandles() where handle != home {
      try session.switchToWindow(handle)
      let deadline = Date().addingTimeInterval(2)
      var url = (try? session.currentURL()) ?? ""
      while url == "about:blank" || url.isEmpty, Date() < deadline {
        usleep(25_000)
        url = (try? session.currentURL()) ?? ""
      }
      urls.append(url)
    }
    try session.switchToWindow(home)
    return urls
  }
}
