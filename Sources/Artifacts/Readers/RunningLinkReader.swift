import Foundation
import QualifyCore

/// What a container does with a Universal Link or App Link that arrives while the app runs
/// (seed 003, AppDelegate: the URL is injected "pour effectuer la navigation au sein de la
/// WebView sans perte d'état"). The link's page must be loaded in the WebView that runs: a
/// new activity, fragment, WKWebView or root view controller shows the page too, and loses
/// what the page held (a draft, the history, the page's session storage), which no test of the
/// link's destination notices.
enum RunningLinkReader {
  /// What makes a new WebView where the link is handled, per platform.
  static let androidRecreates = [
    "recreate(", ".replace(", ".add(R.id", "WebView(", "startActivity(", "setContentView(",
  ]
  static let iosRecreates = [
    "WKWebView(", "rootViewController =", "instantiateViewController", "present(",
  ]

  /// Android: the App Link activity's launch mode and its `onNewIntent`. `standard` starts
  /// another activity for each link (another WebView); `singleTask`, `singleTop` or
  /// `singleInstance` hand the link to the running one's `onNewIntent`, which must read the
  /// intent's data and load it (one helper deep: `linkOf(intent)`, `fragment.open(url)`).
  static func android(
    _ code: CodeSearch, activity: String, launchMode: Sourced<String>
  ) -> (keepsWebView: Sourced<Bool>, routes: Sourced<Bool>?) {
    let mode = launchMode.value
    guard mode != "standard" else {
      return (
        Sourced(
          false, at: launchMode.location,
          derivation: [
            "\(activity) has android:launchMode=\"standard\" (the default): each link opened while the app runs starts another \(activity) with a WebView of its own"
          ]), nil
      )
    }
    let className = activity.split(separator: ".").last.map(String.init) ?? activity
    let own = code.files.filter {
      $0.file.hasSuffix("/\(className).kt") || $0.file.hasSuffix("/\(className).java")
        || $0.file == "\(className).kt" || $0.file == "\(className).java"
    }
    guard let file = own.first else {
      return (Sourced(true, at: launchMode.location), nil)
    }
    var only = code
    only.files = [file]
    guard let block = only.blocks(after: "onNewIntent(").first else {
      return (
        Sourced(true, at: launchMode.location),
        Sourced(
          false, at: FileLocation(file: file.file, line: 0, column: 1),
          derivation: [
            "\(className) is launched \(mode) and does not override onNewIntent: a link opened while the app runs brings it forward on the page it shows"
          ])
      )
    }
    let at = FileLocation(file: block.file, line: block.line, column: 1)
    let bodies = [block.body] + helpers(called: block.body, in: code)
    if let recreation = androidRecreates.first(where: { needle in
      bodies.contains { $0.contains(needle) }
    }) {
      return (
        Sourced(
          false, at: at,
          derivation: [
            "onNewIntent makes a new view for the link with \(recreation)…): the running WebView and what its page held are dropped"
          ]), Sourced(true, at: at)
      )
    }
    let readsData = bodies.contains {
      $0.contains(".data") || $0.contains("getData()") || $0.contains("dataString")
    }
    let loads = bodies.contains { $0.contains("loadUrl(") }
    return (
      Sourced(true, at: at),
      Sourced(
        readsData && loads, at: at,
        derivation: readsData && loads
          ? []
          : [
            "onNewIntent \(readsData ? "reads the link but loads nothing" : "does not read the intent's data"): a link opened while the app runs leaves the page as it was"
          ])
    )
  }

  /// iOS: where the link is handled (the `NSUserActivityTypeBrowsingWeb` branch, and the
  /// observer its notification reaches) must load it in the web view that runs. An app with a
  /// scene delegate gets its links in `scene(_:continue:)` (and `willConnectTo`'s
  /// `connectionOptions` at a cold start): its app delegate's `application(_:continue:)` is
  /// never called.
  static func ios(_ code: CodeSearch, relay: NotificationRelay, sceneManifest: FileLocation?)
    -> (keepsWebView: Sourced<Bool>?, unreachable: Sourced<Bool>?)
  {
    guard let handler = code.find(["NSUserActivityTypeBrowsingWeb"]) else { return (nil, nil) }
    var unreachable: Sourced<Bool>?
    let inSceneDelegate = code.files.contains {
      $0.file == handler.file && $0.lines.contains { $0.1.contains("UIWindowSceneDelegate") }
    }
    if let scenes = sceneManifest, !inSceneDelegate {
      let delegate =
        code.find(["UIWindowSceneDelegate"]).map {
          " for a scene delegate at \($0.file):\($0.line)"
        }
        ?? ""
      unreachable = Sourced(
        false, at: handler,
        derivation: [
          "Info.plist declares scenes (\(scenes.file):\(scenes.line))\(delegate): iOS hands a Universal Link to the scene delegate's scene(_:continue:) or, at a cold start, to scene(_:willConnectTo:options:)'s connectionOptions, never to the app delegate's application(_:continue:) that handles it here"
        ])
    }
    var bodies: [(FileLocation, String)] = []
    var only = code
    only.files = code.files.filter { $0.file == handler.file }
    if let block = only.blocks(after: "continue userActivity").first {
      bodies.append((FileLocation(file: block.file, line: block.line, column: 1), block.body))
    }
    for post in relay.posts
    where post.location.file == handler.file && post.location.line >= handler.line
      && post.location.line <= handler.line + 12
    {
      for observer in relay.observers where observer.name == post.name {
        bodies.append((observer.location, observer.body))
      }
    }
    for (at, body) in bodies {
      if let recreation = iosRecreates.first(where: body.contains) {
        return (
          Sourced(
            false, at: at,
            derivation: [
              "the link is handled by making a new view with \(recreation)…): the running web view and what its page held are dropped"
            ]), unreachable
        )
      }
    }
    return (bodies.isEmpty ? nil : Sourced(true, at: bodies[0].0), unreachable)
  }

  /// The bodies of the functions `body` calls, in any file, a Kotlin expression body cut at
  /// its end.
  static func helpers(called body: String, in code: CodeSearch) -> [String] {
    code.calledBodies(from: body, except: ["onNewIntent"]).map { expressionBody($0.body) }
  }

  /// A Kotlin function written `fun f(…) = expression` has no braces of its own: its body
  /// ends where the next declaration or the class's closing brace starts, not at a brace.
  static func expressionBody(_ body: String) -> String {
    let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
    guard let first = lines.first, !first.contains("{") else { return body }
    var kept = [first]
    for line in lines.dropFirst() {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.isEmpty || trimmed.hasPrefix("}") || trimmed.hasPrefix("@")
        || trimmed.contains("fun ") || trimmed.hasPrefix("override ")
      {
        break
      }
      kept.append(line)
    }
    return kept.joined(separator: "\n")
  }
}
