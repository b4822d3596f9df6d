import Foundation
import QualifyCore

/// What a loaded instance — remote content — can reach of the native side (sovereign-mobile's
/// hard rule: remote instance content never gets uncontrolled native access), read from the
/// shell's native code:
///
/// - iOS: Capacitor injects its scripts into every main frame whatever its origin, and its
///   `bridge` message handler answers any frame; the shell must remove both before remote
///   content loads — a function of the app that calls `removeAllUserScripts()` and
///   `removeScriptMessageHandler(forName: "bridge")`, called from `decidePolicyFor`.
///   (Android's Capacitor scopes its own bridge to the app's origins.)
/// - The device bridge the shell gives the instance instead (`sovereignBridge`): which frames
///   reach it. iOS's `WKScriptMessageHandler` answers every frame of the page, so its
///   `didReceive` must refuse a frame that is not the main one (`frameInfo.isMainFrame`) or
///   not of the instance's origin (`frameInfo.securityOrigin`); Android's
///   `addWebMessageListener` takes the origins allowed (not `"*"`), and its `onPostMessage`
///   may refuse sub-frames (`isMainFrame`); an `addJavascriptInterface` object reaches every
///   frame of every origin.
enum RemoteIsolationReader {
  /// Whether iOS removes Capacitor's scripts and bridge handler before remote content; nil
  /// when no `decidePolicyFor` is found.
  static func iosIsolation(_ ios: CodeSearch) -> Sourced<Bool>? {
    guard let decide = ios.blocks(after: "decidePolicyFor").first else { return nil }
    let removes = ["removeAllUserScripts()", #"removeScriptMessageHandler(forName: "bridge")"#]
    if removes.allSatisfy(decide.body.contains) {
      return Sourced(true, at: FileLocation(file: decide.file, line: decide.line, column: 1))
    }
    for (file, lines) in ios.files {
      let text = lines.map(\.1).joined(separator: "\n")
      for function in swiftFunctions(in: text) where removes.allSatisfy(function.body.contains) {
        guard
          decide.body.range(
            of: #"\b"# + function.name + #"\s*\("#, options: .regularExpression) != nil
        else { continue }
        let line = lines.count > function.line ? lines[function.line].0 + 1 : 0
        return Sourced(true, at: FileLocation(file: file, line: line, column: 1))
      }
    }
    return Sourced(
      false, at: FileLocation(file: decide.file, line: decide.line, column: 1),
      derivation: [
        "decidePolicyFor calls nothing that removes Capacitor's user scripts and its \"bridge\" handler"
      ])
  }

  /// Whether iOS puts Capacitor back when the local page loads again after an instance:
  /// `decidePolicyFor` — itself or through the app's functions it calls — re-adds user scripts
  /// (`addUserScript`) and re-registers the `"bridge"` handler (`add(…, name: "bridge")` or
  /// `addScriptMessageHandler`, the name a literal or a constant holding it), in a function
  /// other than one that only isolates. Either missing, the local page loads without
  /// `window.Capacitor` or with nothing answering it: Preferences never answers and boot()
  /// stays on its placeholder. Nil when the app does not isolate (nothing to put back).
  static func iosLocalRestore(_ ios: CodeSearch, isolation: Sourced<Bool>?) -> Sourced<Bool>? {
    guard let isolation, isolation.value, let decide = ios.blocks(after: "decidePolicyFor").first
    else { return nil }
    let constants = ios.captures(#"\blet\s+(\w+)\s*(?::\s*String\s*)?=\s*"bridge""#).map(\.value)
    let names = (["\"bridge\""] + constants.map { #"(?:\w+\.)?"# + $0 + #"\b"# })
      .joined(separator: "|")
    let handlerBack = #"\.add(?:ScriptMessageHandler)?\([^\n]*name:\s*(?:"# + names + ")"
    var functions: [(name: String, body: String, at: FileLocation)] = []
    for (file, lines) in ios.files {
      let text = lines.map(\.1).joined(separator: "\n")
      for function in swiftFunctions(in: text) {
        let line = lines.count > function.line ? lines[function.line].0 + 1 : 0
        functions.append(
          (function.name, function.body, FileLocation(file: file, line: line, column: 1)))
      }
    }
    let addsHandler = { (body: String) in
      body.range(of: handlerBack, options: .regularExpression) != nil
    }
    let isolatesOnly = { (body: String) in
      body.contains(#"removeScriptMessageHandler(forName: "bridge")"#) && !addsHandler(body)
    }
    func called(from body: String) -> [(name: String, body: String, at: FileLocation)] {
      // The app's own functions, called bare or on self (not `handler.webView(…)`).
      functions.filter {
        body.range(
          of: #"(?:(?<![\w.])|\bself\.)"# + $0.name + #"\s*\("#, options: .regularExpression)
          != nil && !body.contains("func \($0.name)(") && $0.body != decide.body
      }
    }
    // What decidePolicyFor reaches, two calls deep; the function named is where a piece goes back.
    var candidates: [(name: String, body: String, at: FileLocation)] = [
      (
        "decidePolicyFor", decide.body,
        FileLocation(file: decide.file, line: decide.line, column: 1)
      )
    ]
    for first in called(from: decide.body) {
      candidates.append(first)
      candidates += called(from: first.body)
    }
    var best: (name: String, scripts: Bool, handler: Bool, at: FileLocation, score: Int)?
    for candidate in candidates where !isolatesOnly(candidate.body) {
      // A restore split into helpers reaches them too (not a helper that only isolates);
      // decidePolicyFor counts for what it writes itself.
      let helpers =
        candidate.name == "decidePolicyFor"
        ? [] : called(from: candidate.body).filter { !isolatesOnly($0.body) }.map(\.body)
      let reach = ([candidate.body] + helpers).joined(separator: "\n")
      let scripts = reach.contains("addUserScript")
      let handler = addsHandler(reach)
      if scripts && handler { return Sourced(true, at: candidate.at) }
      let score = (scripts ? 1 : 0) + (handler ? 1 : 0)
      if score > 0, score > best?.score ?? 0 {
        best = (candidate.name, scripts, handler, candidate.at, score)
      }
    }
    guard let best else {
      return Sourced(
        false, at: FileLocation(file: decide.file, line: decide.line, column: 1),
        derivation: [
          "decidePolicyFor calls nothing that puts Capacitor's user scripts and its \"bridge\" handler back when the local page loads again"
        ])
    }
    let missing = [
      best.scripts ? nil : "user scripts (no addUserScript)",
      best.handler ? nil : "\"bridge\" handler (no add(…, name: \"bridge\"))",
    ].compactMap { $0 }
    return Sourced(
      false, at: best.at,
      derivation: [
        "\(best.name)() does not put back Capacitor's \(missing.joined(separator: " and ")): the local page loaded again after an instance has no working Capacitor bridge"
      ])
  }

  /// iOS's device bridge: the `WKScriptMessageHandler` of the app other than Capacitor's, and
  /// the frames its `didReceive` refuses; nil when the app has none.
  static func iosDeviceBridge(_ ios: CodeSearch) -> Sourced<DeviceBridgeScope>? {
    guard let handler = ios.blocks(after: "didReceive message: WKScriptMessage").first else {
      return nil
    }
    let refuses = { (what: String) in
      handler.body.range(
        of: #"(?:guard|if)[^{\n]*frameInfo\."# + what, options: .regularExpression) != nil
    }
    let name =
      ios.captures(#"static\s+let\s+handlerName\s*=\s*"([^"]+)""#).first?.value
      ?? "the script message handler"
    return Sourced(
      DeviceBridgeScope(
        name: name, originScoped: refuses("securityOrigin"), mainFrameOnly: refuses("isMainFrame")),
      at: FileLocation(file: handler.file, line: handler.line, column: 1))
  }

  /// Android's device bridge: `addWebMessageListener(view, name, origins, listener)` and its
  /// `onPostMessage`, or an `addJavascriptInterface` object; nil when the app has neither.
  static func androidDeviceBridge(_ android: CodeSearch) -> Sourced<DeviceBridgeScope>? {
    if let call = android.capturesAcrossLines(#"addWebMessageListener\(([^;]*)\)\s*;"#).first {
      let arguments = ScriptStatements.topLevelParts(call.value, angles: true)
      let rules = arguments.count > 2 ? arguments[2] : ""
      var name = arguments.count > 1 ? arguments[1] : "the web message listener"
      // A constant (`BridgeMessageListener.JS_OBJECT_NAME`) read where it is declared.
      if let constant = name.split(separator: ".").last,
        let value = android.captures(
          #"String\s+"# + NSRegularExpression.escapedPattern(for: String(constant))
            + #"\s*=\s*"([^"]+)""#
        ).first
      {
        name = value.value
      }
      name = name.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
      let listener = android.blocks(after: "onPostMessage(").first
      let mainFrameOnly =
        listener?.body.range(of: #"if\s*\([^)]*!\s*isMainFrame"#, options: .regularExpression)
        != nil
      return Sourced(
        DeviceBridgeScope(
          name: name, originScoped: !rules.contains("\"*\"") && !rules.isEmpty,
          mainFrameOnly: mainFrameOnly),
        at: call.location)
    }
    if let interface = android.captures(#"addJavascriptInterface\(\s*[^,]+,\s*"([^"]+)""#).first {
      return Sourced(
        DeviceBridgeScope(name: interface.value, originScoped: false, mainFrameOnly: false),
        at: interface.location)
    }
    return nil
  }

  /// The functions of a Swift text: name, body, and the line (from 0) they start on.
  static func swiftFunctions(in text: String) -> [(name: String, body: String, line: Int)] {
    guard let regex = try? NSRegularExpression(pattern: #"\bfunc\s+(\w+)\s*\("#) else {
      return []
    }
    var out: [(name: String, body: String, line: Int)] = []
    for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
      guard let name = Range(match.range(at: 1), in: text),
        let whole = Range(match.range, in: text),
        let open = text[whole.upperBound...].firstIndex(of: "{"),
        let close = ScriptStatements.closingBrace(String(text[open...]))
      else { continue }
      let body = String(String(text[open...])[...close])
      let line = text[..<whole.lowerBound].filter { $0 == "\n" }.count
      out.append((String(text[name]), body, line))
    }
    return out
  }
}
