import Foundation
import Testing

@testable import Artifacts

/// The tests around the Android back handler's page load, evaluated on a loaded instance:
/// the real repository's shape (a boolean local of the URL test) and its one-character flips.
@Suite struct AndroidBackConditionTests {
  let constants = ["LOCAL_ORIGIN": "https://localhost/"]

  /// What the `loadUrl(` of `body` does on an instance.
  func outcome(_ body: String) throws -> BackCondition {
    let index = try #require(body.range(of: "loadUrl(")).lowerBound
    return AndroidBackReader.runsOnInstance(index, in: body, constants: constants)
  }

  func handler(_ test: String, action: String = "event.getAction() == KeyEvent.ACTION_DOWN")
    -> String
  {
    """
    if (event.getKeyCode() == KeyEvent.KEYCODE_BACK) {
        WebView webView = bridge.getWebView();
        String currentUrl = webView != null ? webView.getUrl() : null;
        boolean showingRemoteInstance = \(test);
        if (showingRemoteInstance) {
            if (\(action)) {
                webView.loadUrl(LOCAL_ORIGIN + "?manage=1");
            }
            return true;
        }
    }
    return super.dispatchKeyEvent(event);
    """
  }

  @Test func theRealHandlersTestsHoldOnAnInstance() throws {
    #expect(
      try outcome(handler("currentUrl != null && !currentUrl.startsWith(LOCAL_ORIGIN)")) == .runs)
    // The up event is the other half of the key: loading on it works as well.
    #expect(
      try outcome(
        handler(
          "currentUrl != null && !currentUrl.startsWith(LOCAL_ORIGIN)",
          action: "event.getAction() == KeyEvent.ACTION_UP")) == .runs)
  }

  @Test func aFlippedTestIsNamedAsTheOneThatKeepsTheLoadFromRunning() throws {
    let flipped = try outcome(handler("currentUrl != null && currentUrl.startsWith(LOCAL_ORIGIN)"))
    #expect(flipped == .skipped("showingRemoteInstance"))
    #expect(
      try outcome(handler("currentUrl == null || !currentUrl.startsWith(LOCAL_ORIGIN)")) == .runs)
    #expect(
      try outcome(handler("currentUrl == null && !currentUrl.startsWith(LOCAL_ORIGIN)"))
        == .skipped("showingRemoteInstance"))
    #expect(
      try outcome(
        handler("!currentUrl.startsWith(LOCAL_ORIGIN)", action: "event.getRepeatCount() > 0"))
        != .runs)
  }

  @Test func anEarlyReturnAndAnElseBranchAreGuardsToo() throws {
    let early = """
      String url = webView.getUrl();
      if (url == null || url.startsWith(LOCAL_ORIGIN)) return super.dispatchKeyEvent(event);
      webView.loadUrl(LOCAL_ORIGIN + "?manage=1");
      return true;
      """
    #expect(try outcome(early) == .runs)
    let inverted = early.replacingOccurrences(of: "url == null ||", with: "url != null &&")
      .replacingOccurrences(
        of: "url.startsWith(LOCAL_ORIGIN)) return", with: "!url.startsWith(LOCAL_ORIGIN)) return")
    #expect(try outcome(inverted) != .runs)
    let elseBranch = """
      if (webView.getUrl().startsWith(LOCAL_ORIGIN)) {
          return super.dispatchKeyEvent(event);
      } else {
          webView.loadUrl(LOCAL_ORIGIN + "?manage=1");
      }
      """
    #expect(try outcome(elseBranch) == .runs)
    #expect(
      try outcome(
        elseBranch.replacingOccurrences(of: "(webView.getUrl()", with: "(!webView.getUrl()"))
        == .skipped("!(!webView.getUrl().startsWith(LOCAL_ORIGIN))"))
  }

  @Test func kotlinsSafeCallsAndEqualsAreRead() throws {
    let kotlin = """
      val url = webView?.url
      if (url?.startsWith(LOCAL_ORIGIN) == false) {
          webView.loadUrl("${LOCAL_ORIGIN}?manage=1")
      }
      """
    #expect(try outcome(kotlin) == .runs)
    #expect(
      try outcome(kotlin.replacingOccurrences(of: "== false", with: "== true"))
        == .skipped("url?.startsWith(LOCAL_ORIGIN) == true"))
  }

  /// Kotlin ends a statement at its line: a braceless early return does not swallow the lines
  /// after it.
  @Test func kotlinsBracelessReturnEndsAtItsLine() throws {
    let kotlin = """
      if (event.keyCode != KeyEvent.KEYCODE_BACK) return super.dispatchKeyEvent(event)
      val url = bridge.webView.url
      if (url != null && !url.startsWith(LOCAL_ORIGIN)) {
          if (event.action == KeyEvent.ACTION_UP) bridge.webView.loadUrl("$LOCAL_ORIGIN?manage=1")
          return true
      }
      return super.dispatchKeyEvent(event)
      """
    #expect(try outcome(kotlin) == .runs)
    #expect(
      try outcome(kotlin.replacingOccurrences(of: "!url.startsWith", with: "url.startsWith"))
        == .skipped("url != null && url.startsWith(LOCAL_ORIGIN)"))
  }

  /// A return inside a nested `if` is that `if`'s, not the outer one's; a local assigned
  /// again in a branch has no one value and is not read.
  @Test func onlyAReturnAtItsOwnLevelAndOneValuedLocalsCount() throws {
    let nested = """
      String url = webView.getUrl();
      if (url != null) {
          if (url.startsWith(LOCAL_ORIGIN)) { return super.dispatchKeyEvent(event); }
      }
      webView.loadUrl(LOCAL_ORIGIN + "?manage=1");
      """
    #expect(try outcome(nested) == .runs)
    let reassigned = """
      boolean remote = false;
      if (url != null && !url.startsWith(LOCAL_ORIGIN)) { remote = true; }
      if (remote) { webView.loadUrl(LOCAL_ORIGIN + "?manage=1"); return true; }
      """
    guard case .unread = try outcome(reassigned) else {
      Issue.record("a local assigned again was read as its first value")
      return
    }
    // Assigned again after a test without braces, or in an else: still no one value.
    for again in ["if (url == null) remote = true;", "if (url == null) {} else remote = true;"] {
      let text = reassigned.replacingOccurrences(
        of: "if (url != null && !url.startsWith(LOCAL_ORIGIN)) { remote = true; }", with: again)
      #expect(text != reassigned)
      guard case .unread = try outcome(text) else {
        Issue.record("\(again): a local assigned again was read as its first value")
        return
      }
    }
  }

  /// What qualify does not model is unverified, never taken as passing or failing.
  @Test func aTestQualifyDoesNotModelIsUnread() throws {
    guard case .unread(let reason) = try outcome(handler("webView.canGoBack()")) else {
      Issue.record("canGoBack() was evaluated")
      return
    }
    #expect(reason.contains("canGoBack()"))
    guard case .unread = try outcome(handler("TextUtils.isEmpty(currentUrl)")) else {
      Issue.record("a static helper was evaluated")
      return
    }
    let when = """
      when {
          url?.startsWith(LOCAL_ORIGIN) == true -> webView.loadUrl("$LOCAL_ORIGIN?manage=1")
          else -> return super.dispatchKeyEvent(event)
      }
      """
    guard case .unread(let branch) = try outcome(when) else {
      Issue.record("a branch of a when was taken as running")
      return
    }
    #expect(branch.contains("when"))
  }
}
