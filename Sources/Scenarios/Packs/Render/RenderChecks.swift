import Engines
import Foundation

/// What the render pack expects of the engine's view of a thread: each body's text visible
/// inside its frame; each frame an `srcdoc` document with a sandbox and a CSP; nothing in a
/// body running, reaching the network or navigating.
enum RenderChecks {
  static let expectations: [ExpectationSpec] = [
    ExpectationSpec(
      "message bodies shown on", [.value("app", .app)],
      summary:
        "Every message the backend holds in the rendered thread shows its text inside a frame of the app's thread view, as the engine read it through WebDriver's frame switch.",
      example: "expect message bodies shown on mail"
    ) { context in
      let (result, held) = try rendered(context)
      guard result.state == "ready" else {
        return context.fail(
          .bodyNotShown, "not ready",
          "\(result.engine.displayName) never showed the thread's frames at \(result.url): \(result.state)"
        )
      }
      for (index, message) in held.enumerated()
      where !result.frames.contains(where: { $0.text.contains(message.marker) }) {
        let frame = index < result.frames.count ? result.frames[index] : nil
        return context.fail(
          .bodyNotShown, message.kind,
          "\(result.engine.displayName) shows no text of the \(message.kind) message in any frame (\(frame.map { $0.unreadable ?? "its frame holds \($0.text.count) characters, document \($0.url)" } ?? "no frame for it"))"
        )
      }
      // Shown is the whole body in the thread: a frame shorter than what it holds cuts the
      // message, the rest behind a scroll of its own inside the thread's.
      for (index, frame) in result.frames.enumerated() {
        guard let outer = frame.frameHeight, let inner = frame.contentHeight, inner > outer + 2
        else { continue }
        return context.fail(
          .bodyNotShown, "cut",
          "message frame \(index + 1) in \(result.engine.displayName) is \(Int(outer)) px tall and its body \(Int(inner)) px: the thread view does not size the frame to the message, which is cut"
        )
      }
      return nil
    },
    ExpectationSpec(
      "message bodies framed on", [.value("app", .app)],
      summary:
        "Each message frame is an `srcdoc` document (no `src` URL), with a `sandbox` that does not grant `allow-scripts` and `allow-same-origin` together, and a CSP whose `default-src` is `'none'`.",
      example: "expect message bodies framed on mail"
    ) { context in
      let (result, _) = try rendered(context)
      guard !result.frames.isEmpty else {
        return context.fail(
          .bodyFrame, "no frame", "\(result.engine.displayName) shows no message frame at all")
      }
      for (index, frame) in result.frames.enumerated() {
        if let problem = framing(frame) {
          return context.fail(
            .bodyFrame, problem,
            "message frame \(index + 1) in \(result.engine.displayName): \(problem)")
        }
      }
      return nil
    },
    ExpectationSpec(
      "message bodies contained on", [.value("app", .app)],
      summary:
        "Nothing in the bodies ran (no mark of a script in the body or the thread), reached the network (no request at the beacon), navigated (the thread and every frame stay where they were) or opened a window.",
      example: "expect message bodies contained on mail"
    ) { context in
      let (result, _) = try rendered(context)
      // Nothing seen is not nothing escaped: a thread that did not show, or a frame that could
      // not be read, proves no containment.
      if result.state != "ready" {
        return context.fail(
          .bodyEscaped, "not shown",
          "\(result.engine.displayName) never showed the thread (\(result.state)): containment is not proven"
        )
      }
      if let index = result.frames.firstIndex(where: { $0.unreadable != nil }) {
        return context.fail(
          .bodyEscaped, "unreadable",
          "message frame \(index + 1) in \(result.engine.displayName) could not be read (\(result.frames[index].unreadable ?? "")): containment is not proven"
        )
      }
      var escapes: [String] = []
      if !result.beaconHits.isEmpty {
        escapes.append("requests left the body: \(result.beaconHits.joined(separator: ", "))")
      }
      for (index, frame) in result.frames.enumerated() {
        if let ran = frame.ran { escapes.append("a \(ran) ran in frame \(index + 1)") }
        if frame.srcdoc && frame.unreadable == nil && frame.url != "about:srcdoc" {
          escapes.append("frame \(index + 1) navigated to \(frame.url)")
        }
      }
      if let ran = result.ranInThread {
        escapes.append("a \(ran) of a body marked the thread's document")
      }
      if result.finalURL != result.url {
        escapes.append("the thread navigated to \(result.finalURL)")
      }
      if result.openedWindows > 0 { escapes.append("\(result.openedWindows) window(s) opened") }
      guard let first = escapes.first else { return nil }
      return context.fail(
        .bodyEscaped, first,
        "in \(result.engine.displayName): \(escapes.joined(separator: "; "))")
    },
    ExpectationSpec(
      "message links open outside on", [.value("app", .app)],
      summary:
        "A link in a body, tapped, opens its page in a window of its own (what the shell hands to the system browser), while the thread and the body's frame stay where they were: no link replaces the app's view or the message.",
      example: "expect message links open outside on mail"
    ) { context in
      let (result, _) = try rendered(context)
      guard result.followedLink else {
        return context.fail(
          .linkNotOutside, "no link",
          "\(result.engine.displayName) showed no body with a link to follow in \(result.thread)")
      }
      if result.finalURL != result.url {
        return context.fail(
          .linkNotOutside, "the thread",
          "in \(result.engine.displayName), the link replaced the app's view: the thread navigated to \(result.finalURL)"
        )
      }
      if let index = result.frames.firstIndex(where: {
        $0.hasLink && $0.urlAfterLink != nil && $0.urlAfterLink != $0.url
      }) {
        return context.fail(
          .linkNotOutside, "its frame",
          "in \(result.engine.displayName), the link navigated message frame \(index + 1) to \(result.frames[index].urlAfterLink ?? "?") inside the app's view"
        )
      }
      guard result.windowURLs.contains(where: { $0.hasSuffix(RenderBodies.outsidePath) }) else {
        return context.fail(
          .linkNotOutside, "nowhere",
          "in \(result.engine.displayName), the link opened no window on its page (windows: \(result.windowURLs.isEmpty ? "none" : result.windowURLs.joined(separator: ", ")))"
        )
      }
      return nil
    },
  ]

  /// What a frame lacks of srcdoc + sandbox + CSP, nil when it has all three.
  static func framing(_ frame: RenderResult.Frame) -> String? {
    if let src = frame.src { return "the body is loaded from \(src), not written with srcdoc" }
    if !frame.srcdoc { return "the frame has no srcdoc" }
    guard let sandbox = frame.sandbox else { return "the frame has no sandbox" }
    if RenderResult.escapable(sandbox) {
      return
        "the sandbox \"\(sandbox)\" grants allow-scripts with allow-same-origin: a body's script can remove it"
    }
    if frame.unreadable != nil { return "the frame's document cannot be read" }
    // `default-src 'none'` alone: a source listed beside 'none' makes browsers ignore it.
    let closed = frame.csp.contains { policy in
      policy.lowercased().split(separator: ";").contains { directive in
        let words = directive.split(whereSeparator: { $0.isWhitespace })
        return words.first == "default-src" && words.dropFirst() == ["'none'"]
      }
    }
    if !closed {
      return frame.csp.isEmpty
        ? "the body's document has no Content-Security-Policy"
        : "the body's CSP does not set default-src 'none': \(frame.csp.joined(separator: " | "))"
    }
    return nil
  }

  static func rendered(_ context: ExpectationContext) throws -> (
    RenderResult, [(kind: String, marker: String)]
  ) {
    guard let session = context.world.render, let result = session.last else {
      throw ScenarioRuntimeError("no thread was rendered before this expectation")
    }
    return (result, session.held[result.thread] ?? [])
  }
}
