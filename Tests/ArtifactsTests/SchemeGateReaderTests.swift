import Foundation
import QualifyCore
import Testing

@testable import Artifacts

/// The scheme test a navigation policy makes before its same-origin decision: what it turns
/// away goes to Capacitor's handler, which opens a remote origin outside. An http instance (a
/// local dev server, seed 004's iOS check) must get through it.
@Suite struct SchemeGateReaderTests {
  func gate(_ source: String, marker: String) -> Sourced<ReadDecision<SchemeGate>>? {
    NavigationPolicyReader(file: "Policy", lines: SourceText.codeLines(source))
      .schemeGate(marker: marker)
  }

  /// A condition-list binding names the scheme, as the real MainViewController writes it.
  static let swift = """
    func webView(
        _ webView: WKWebView,
        decidePolicyFor navigationAction: WKNavigationAction,
        decisionHandler: @escaping (WKNavigationActionPolicy) -> Void
    ) {
        guard let url = navigationAction.request.url,
              let scheme = url.scheme, TEST else {
            enterLocalMode()
            forwardDecidePolicy(webView, navigationAction, decisionHandler)
            return
        }
        guard let activeURL = URL(string: MainViewController.activeOrigin()) else {
            decisionHandler(.allow)
            return
        }
        if url.scheme == activeURL.scheme && url.host == activeURL.host {
            decisionHandler(.allow)
            return
        }
        decisionHandler(.cancel)
    }
    """

  /// A named test inside a larger one, as the real NavigationPolicyWebViewClient writes it.
  static let java = """
    @Override
    public boolean shouldOverrideUrlLoading(WebView view, WebResourceRequest request) {
        Uri url = request.getUrl();
        String scheme = url.getScheme();
        boolean isHttpOrHttps = TEST;

        if (!request.isForMainFrame() || !isHttpOrHttps) {
            enterLocalMode();
            return super.shouldOverrideUrlLoading(view, request);
        }
        return false;
    }
    """

  @Test func bothSchemesReachTheDecisionAsCommitted() throws {
    let ios = try #require(
      gate(
        Self.swift.replacingOccurrences(
          of: "TEST", with: #"scheme == "http" || scheme == "https""#),
        marker: "decidePolicyFor"))
    let read = try #require(ios.value.value)
    #expect(read.admits("http://192.168.1.20:3000/") && read.admits("https://work.example/"))
    #expect(!read.admits("capacitor://localhost/"))
    #expect(ios.location?.line == 6)
    let android = try #require(
      gate(
        Self.java.replacingOccurrences(
          of: "TEST", with: #""http".equals(scheme) || "https".equals(scheme)"#),
        marker: "shouldOverrideUrlLoading")?.value.value)
    #expect(android.admits("http://10.0.2.2:3000/") && android.admits("https://work.example/"))
    #expect(!android.admits("tel:+33100000000"))
  }

  @Test func aTestNarrowedToHTTPSTurnsAnHTTPInstanceAway() throws {
    let ios = try #require(
      gate(
        Self.swift.replacingOccurrences(of: "TEST", with: #"scheme == "https""#),
        marker: "decidePolicyFor")?.value.value)
    #expect(!ios.admits("http://192.168.1.20:3000/"))
    #expect(ios.admits("https://work.example/"))
    let android = try #require(
      gate(
        Self.java.replacingOccurrences(of: "TEST", with: #""https".equals(scheme)"#),
        marker: "shouldOverrideUrlLoading")?.value.value)
    #expect(!android.admits("http://10.0.2.2:3000/"))
  }

  @Test func aTestThatHandsNothingToCapacitorIsNoGate() {
    let allows = Self.swift.replacingOccurrences(of: "TEST", with: #"scheme == "https""#)
      .replacingOccurrences(
        of: "forwardDecidePolicy(webView, navigationAction, decisionHandler)",
        with: "decisionHandler(.allow)")
    #expect(gate(allows, marker: "decidePolicyFor") == nil)
    #expect(gate("func other() {}", marker: "decidePolicyFor") == nil)
  }

  @Test func aTestQualifyCannotEvaluateIsUnverifiedAtItsLine() throws {
    let opaque = try #require(
      gate(
        Self.swift.replacingOccurrences(of: "TEST", with: "Schemes.allowed.contains(scheme)"),
        marker: "decidePolicyFor"))
    #expect(opaque.value.problem?.contains("cannot evaluate") == true)
    #expect(opaque.location?.line == 6)
  }
}

/// Review findings: a scheme test after the decision is not a gate; a condition-list binding
/// keeps the name that says it is the active instance's.
@Suite struct SchemeGatePlacementTests {
  @Test func aSchemeTestAfterTheDecisionGatesNothing() {
    let source = """
      func webView(_ webView: WKWebView, decidePolicyFor action: WKNavigationAction,
                   decisionHandler: @escaping (WKNavigationActionPolicy) -> Void) {
          guard let url = action.request.url, let active = self.activeInstanceURL else {
              return decisionHandler(.allow)
          }
          if url.host == active.host && url.port == active.port {
              return decisionHandler(.allow)
          }
          guard url.scheme == "https" else {
              capacitorHandler?.webView(webView, decidePolicyFor: action, decisionHandler: decisionHandler)
              return
          }
          decisionHandler(.cancel)
      }
      """
    let reader = NavigationPolicyReader(file: "P.swift", lines: SourceText.codeLines(source))
    #expect(reader.schemeGate(marker: "decidePolicyFor") == nil)
    // `let active = self.activeInstanceURL,` is still the active instance.
    let decision = reader.decision(marker: "decidePolicyFor")?.value.value
    #expect(decision?.keeps("https://work.example/a", active: "https://work.example") == true)
    #expect(decision?.keeps("https://docs.example/a", active: "https://work.example") == false)
  }
}
