import Foundation
import QualifyCore
import Testing

@testable import Artifacts

/// The same-origin decision of a native navigation policy, read from its condition and
/// evaluated (issue 23, A): what the code compares is what the simulated shell keeps.
@Suite struct NavigationPolicyReaderTests {
  func decision(_ source: String, marker: String, file: String = "Policy.swift")
    -> Sourced<ReadDecision<NavigationDecision>>?
  {
    NavigationPolicyReader(file: file, lines: SourceText.codeLines(source))
      .decision(marker: marker)
  }

  static let swift = """
    func webView(
      _ webView: WKWebView, decidePolicyFor action: WKNavigationAction,
      decisionHandler: @escaping (WKNavigationActionPolicy) -> Void
    ) {
      guard let active = UserDefaults.standard.string(forKey: "k").flatMap(URL.init)
      else { return decisionHandler(.allow) }
      // if url.host == active.host { a comment is not the decision }
      if CONDITION {
        decisionHandler(.allow)
        return
      }
      decisionHandler(.cancel)
      UIApplication.shared.open(url)
    }
    """

  func swift(_ condition: String) -> ReadDecision<NavigationDecision>? {
    decision(
      Self.swift.replacingOccurrences(of: "CONDITION", with: condition),
      marker: "decidePolicyFor")?.value
  }

  @Test func theCommittedConditionKeepsExactlyTheActiveOrigin() throws {
    let read = try #require(
      swift("url.scheme == active.scheme && url.host == active.host && url.port == active.port")?
        .value)
    #expect(read.keeps("https://work.example/plugins/console", active: "https://work.example"))
    #expect(!read.keeps("https://work.example:8443/", active: "https://work.example"))
    #expect(!read.keeps("http://work.example/", active: "https://work.example"))
    #expect(!read.keeps("https://evilwork.example/", active: "https://work.example"))
    let location = try #require(
      decision(
        Self.swift.replacingOccurrences(of: "CONDITION", with: "url.host == active.host"),
        marker: "decidePolicyFor")?.location)
    #expect(location.line == 8)
  }

  /// Issue 28: the real sovereign-mobile names its test (`let sameOrigin = …` then
  /// `if sameOrigin {`, Java's `boolean sameOrigin = …;`): the local's expression is the test.
  @Test func aTestNamedByALocalIsReadAsItsExpression() throws {
    let named = Self.swift.replacingOccurrences(
      of: "  if CONDITION {",
      with: """
          let sameOrigin =
            url.scheme == active.scheme && url.host == active.host && url.port == active.port

          if sameOrigin {
        """)
    let read = try #require(decision(named, marker: "decidePolicyFor")?.value.value)
    #expect(read.keeps("https://work.example/a", active: "https://work.example"))
    #expect(!read.keeps("https://evilwork.example/", active: "https://work.example"))
    // The same local with the host left out keeps a look-alike: evaluated as written.
    let weakened = named.replacingOccurrences(of: " && url.host == active.host", with: "")
    let loose = try #require(decision(weakened, marker: "decidePolicyFor")?.value.value)
    #expect(loose.keeps("https://evil.example/", active: "https://work.example"))

    let java = """
      public boolean shouldOverrideUrlLoading(WebView view, WebResourceRequest request) {
          Uri url = request.getUrl();
          Uri activeUri = Uri.parse(activeOrigin);
          boolean sameOrigin =
              url.getScheme().equals(activeUri.getScheme())
                  && url.getHost() != null
                  && url.getHost().equals(activeUri.getHost())
                  && url.getPort() == activeUri.getPort();
          if (!sameOrigin) {
              view.getContext().startActivity(new Intent(Intent.ACTION_VIEW, url));
              return true;
          }
          return false;
      }
      """
    let leaving = try #require(
      decision(java, marker: "shouldOverrideUrlLoading", file: "Policy.java")?.value.value)
    #expect(leaving.keeps("https://work.example/a", active: "https://work.example"))
    #expect(!leaving.keeps("https://work.example:8443/", active: "https://work.example"))
  }

  @Test func aComparisonWrittenTheWrongWayIsEvaluatedAsWritten() throws {
    let dropped = try #require(
      swift("url.scheme == active.scheme && url.host == active.host")?.value)
    #expect(dropped.keeps("https://work.example:8443/", active: "https://work.example"))
    let swapped = try #require(
      swift("url.scheme == active.scheme && url.host == active.host || url.port == active.port")?
        .value)
    #expect(swapped.keeps("https://docs.example/guide", active: "https://work.example"))
    let flipped = try #require(
      swift("url.scheme != active.scheme && url.host == active.host")?.value)
    #expect(!flipped.keeps("https://work.example/", active: "https://work.example"))
  }

  @Test func aLookAlikeMatchIsReadAsTheMatchItIs() throws {
    let read = try #require(
      swift("url.scheme == active.scheme && url.host!.hasSuffix(active.host!)")?.value)
    #expect(read.keeps("https://evilwork.example/", active: "https://work.example"))
  }

  @Test func whatCannotBeEvaluatedIsUnverifiedWithItsLocation() throws {
    let source = Self.swift.replacingOccurrences(
      of: "CONDITION", with: "url.host?.caseInsensitiveCompare(active.host ?? \"\") == .orderedSame"
    )
    let read = try #require(decision(source, marker: "decidePolicyFor"))
    guard case .unverified(let reason) = read.value else {
      Issue.record("expected unverified, got \(read.value)")
      return
    }
    #expect(reason.contains("cannot evaluate"))
    #expect(read.location?.line == 8)
    // A helper qualify does not read: no condition compares the URLs at all.
    let helper = Self.swift.replacingOccurrences(of: "CONDITION", with: "isSameOrigin(url, active)")
    guard
      case .unverified(let why) = try #require(decision(helper, marker: "decidePolicyFor")).value
    else {
      Issue.record("expected unverified")
      return
    }
    #expect(why.contains("no condition"))
  }

  @Test func javaEqualsAliasesNullChecksAndBooleanReturns() throws {
    let java = """
      public boolean shouldOverrideUrlLoading(WebView view, WebResourceRequest request) {
          Uri url = request.getUrl();
          String scheme = url.getScheme();
          if (!request.isForMainFrame() || !("http".equals(scheme) || "https".equals(scheme))) {
              return super.shouldOverrideUrlLoading(view, request);
          }
          if (active == null) return false;
          Uri activeUri = Uri.parse(active);
          if (scheme.equals(activeUri.getScheme()) && url.getHost() != null
              && url.getHost().equals(activeUri.getHost()) && url.getPort() == activeUri.getPort()) {
              return false;
          }
          bridge.getContext().startActivity(intent);
          return true;
      }
      """
    let read = try #require(
      decision(java, marker: "shouldOverrideUrlLoading", file: "P.java")?.value.value)
    #expect(read.keeps("https://work.example/x", active: "https://work.example"))
    #expect(!read.keeps("https://work.example:8443/x", active: "https://work.example"))
    #expect(!read.keeps("http://work.example/x", active: "https://work.example"))
    // The inverse branch: the condition names what leaves.
    let inverse = java.replacingOccurrences(
      of: "return false;\n    }\n    bridge", with: "return true;\n    }\n    bridge")
    let leaves = try #require(
      decision(inverse, marker: "shouldOverrideUrlLoading", file: "P.java")?.value.value)
    #expect(!leaves.keeps("https://work.example/x", active: "https://work.example"))
  }

  @Test func theGuardTriesTheLookAlikes() throws {
    let hostOnly = Sourced(
      ReadDecision.read(
        NavigationDecision(
          staysInWebView: .equal(
            .init(side: .url, component: "host"), .init(side: .active, component: "host")),
          written: "url.host == active.host")),
      at: FileLocation(file: "P.swift", line: 3, column: 1))
    let hits = sameOriginHits(hostOnly)
    #expect(hits.count == 2)
    #expect(hits.allSatisfy { $0.message.contains("keeps") && $0.location?.line == 3 })
    #expect(hits.contains { $0.message.contains("another port") })
    #expect(hits.contains { $0.message.contains("over http") })
    let unread = Sourced(
      ReadDecision<NavigationDecision>.unverified("a helper"),
      at: FileLocation(file: "P.swift", line: 3, column: 1))
    #expect(sameOriginHits(unread).map(\.unverified) == [true])
  }

  @Test func aDeepLinkSchemeTestIsEvaluatedOnTheLinkItMustAccept() throws {
    let swift = """
      func application(
        _ app: UIApplication, open url: URL, options: [UIApplication.OpenURLOptionsKey: Any] = [:]
      ) -> Bool {
        if url.scheme?.lowercased() OP "sovereign",
          let controller = window?.rootViewController as? MainViewController
        {
          BODY
          return true
        }
        return false
      }
      """
    func read(_ op: String, _ body: String = "controller.loadDeepLink(url)") -> Sourced<Bool>? {
      let text = swift.replacingOccurrences(of: "OP", with: op)
        .replacingOccurrences(of: "BODY", with: body)
      return NavigationPolicyReader(file: "A.swift", lines: SourceText.codeLines(text))
        .deepLinkHandoff(
          marker: "open url", handoff: ["loadDeepLink("],
          testURL: "sovereign://work.example/x")
    }
    #expect(read("==")?.value == true)
    #expect(read("!=")?.value == false)
    #expect(read("!=")?.location?.line == 4)
    #expect(read("==", "print(url)")?.value == false)
    let java = """
      private void handleDeepLinkIntent(Intent intent) {
          if (intent == null || intent.getData() == null) return;
          Uri data = intent.getData();
          if (TEST.equalsIgnoreCase(data.getScheme())) return;
          bridge.getWebView().loadUrl(LOCAL_ORIGIN + "?deeplink=" + data);
      }
      """
    func android(_ test: String) -> Sourced<Bool>? {
      NavigationPolicyReader(
        file: "M.java",
        lines: SourceText.codeLines(java.replacingOccurrences(of: "TEST", with: test))
      ).deepLinkHandoff(
        marker: "getData()", handoff: ["loadUrl("], testURL: "sovereign://work.example/x")
    }
    #expect(android("!\"sovereign\"")?.value == true)
    #expect(android("!\"SOVEREIGN\"")?.value == true)
    #expect(android("\"sovereign\"")?.value == false)
    #expect(android("!\"sovereing\"")?.value == false)
  }

  @Test func successiveExitsGuardsAndConditionListsCombine() throws {
    let java = """
      public boolean shouldOverrideUrlLoading(WebView view, WebResourceRequest request) {
          Uri url = request.getUrl();
          Log.d(TAG, "checking if " + url + " stays (host, port)");
          if (!url.getScheme().equals(activeUri.getScheme())) { open(url); return true; }
          if (!url.getHost().equals(activeUri.getHost())) { open(url); return true; }
          if (url.getPort() != activeUri.getPort()) { open(url); return true; }
          return false;
      }
      """
    let read = try #require(
      decision(java, marker: "shouldOverrideUrlLoading", file: "P.java")?.value.value)
    #expect(read.keeps("https://work.example/x", active: "https://work.example"))
    #expect(!read.keeps("https://work.example:8443/x", active: "https://work.example"))
    #expect(!read.keeps("http://work.example/x", active: "https://work.example"))
    #expect(!read.keeps("https://evilwork.example/x", active: "https://work.example"))
    let guarded = Self.swift.replacingOccurrences(
      of: "if CONDITION {",
      with:
        "guard url.scheme == active.scheme else { decisionHandler(.cancel); return }\n  if url.host == active.host, url.port == active.port {"
    )
    let swift = try #require(decision(guarded, marker: "decidePolicyFor")?.value.value)
    #expect(swift.keeps("https://work.example/x", active: "https://work.example"))
    #expect(!swift.keeps("http://work.example/x", active: "https://work.example"))
    #expect(!swift.keeps("https://work.example:8443/x", active: "https://work.example"))
    // Capacitor's own handler opens a remote origin outside: handing over to it is leaving.
    let handedToCapacitor = java.replacingOccurrences(
      of: "{ open(url); return true; }\n    if (!url.getHost()",
      with: "return super.shouldOverrideUrlLoading(view, request);\n    if (!url.getHost()")
    let capacitor = try #require(
      decision(handedToCapacitor, marker: "shouldOverrideUrlLoading", file: "P.java")?.value
        .value)
    #expect(!capacitor.keeps("http://work.example/x", active: "https://work.example"))
  }

  @Test func elseIfChainsOneLineSignaturesAndLoggedExits() throws {
    let java = """
      class A {
        void onCreate() { }
        private void handle(Intent intent) {
          Uri data = intent.getData();
          if ("https".equals(data.getScheme())) {
            handleAppLink(data);
          } else if ("sovereign".equals(data.getScheme())) {
            bridge.getWebView().loadUrl(LOCAL + data);
          }
        }
      }
      """
    func android(_ text: String) -> Sourced<Bool>? {
      NavigationPolicyReader(file: "M.java", lines: SourceText.codeLines(text))
        .deepLinkHandoff(
          marker: "getData()", handoff: ["loadUrl("], testURL: "sovereign://work.example/x")
    }
    #expect(android(java)?.value == true)
    #expect(
      android(java.replacingOccurrences(of: "\"sovereign\".equals", with: "\"sovereing\".equals"))?
        .value == false)
    let logged = """
      private void handle(Intent intent) {
          Uri data = intent.getData();
          if (!"sovereign".equals(data.getScheme())) { Log.w(TAG, "ignored"); return; }
          bridge.getWebView().loadUrl(LOCAL + data);
      }
      """
    #expect(android(logged)?.value == true, "\(String(describing: android(logged)?.derivation))")
    #expect(
      android(logged.replacingOccurrences(of: "(!\"sovereign\"", with: "(\"sovereign\""))?.value
        == false)
    let swift = """
      func applicationWillTerminate(_ application: UIApplication) {}
      func application(_ app: UIApplication, open url: URL, options: [UIApplication.OpenURLOptionsKey: Any] = [:]) -> Bool {
        if url.scheme == "sovereign" { controller.loadDeepLink(url); return true }
        return ApplicationDelegateProxy.shared.application(
          app, open: url, options: options)
      }
      """
    func ios(_ text: String) -> Sourced<Bool>? {
      NavigationPolicyReader(file: "A.swift", lines: SourceText.codeLines(text))
        .deepLinkHandoff(
          marker: "open url", handoff: ["loadDeepLink("], testURL: "sovereign://work.example/x")
    }
    #expect(ios(swift)?.value == true)
    #expect(
      ios(swift.replacingOccurrences(of: "== \"sovereign\"", with: "!= \"sovereign\""))?.value
        == false)
    // A constant the reader cannot see is not taken for the URL itself.
    #expect(ios(swift.replacingOccurrences(of: "\"sovereign\"", with: "AppConfig.scheme")) == nil)
  }
}

/// What an `if` runs, found wherever it starts: Kotlin lets a branch without braces sit on the
/// next line, and its first statement is the branch, not the line break before it.
@Suite struct IfStatementTests {
  @Test func aBranchOnTheNextLineIsReadWhole() {
    let body = [
      (10, "if (url.host != origin.host)"),
      (11, "    return true"),
      (12, "if (url.scheme == \"https\") { return false }"),
    ]
    let statements = NavigationPolicyReader.ifStatements(in: body)
    #expect(statements.map(\.condition) == ["url.host != origin.host", "url.scheme == \"https\""])
    #expect(statements.first?.branch.trimmingCharacters(in: .whitespaces) == "return true\n")
    #expect(statements.last?.branch == "{ return false }")
  }
}
