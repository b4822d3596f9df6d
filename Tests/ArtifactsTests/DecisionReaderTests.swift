import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

@testable import Artifacts

/// Conditions of an app's TypeScript, evaluated as JavaScript would (issue 23).
@Suite struct ScriptConditionTests {
  func evaluate(_ text: String, _ values: [String: ScriptValue]) throws -> Bool? {
    let condition = try ScriptConditionParser.parse(text).get()
    return condition.evaluate { path in
      var current = values[path[0]] ?? .undefined
      for name in path.dropFirst() {
        guard let next = current.member(name) else { return nil }
        current = next
      }
      return current
    }
  }

  @Test func typeofNullAndStrictEqualityAreJavaScripts() throws {
    #expect(try evaluate("typeof body !== 'object' || body === null", ["body": .null]) == true)
    #expect(try evaluate("typeof body !== 'object'", ["body": .null]) == false)
    #expect(try evaluate("status !== 200", ["status": .number(200)]) == false)
    #expect(try evaluate("status === '200'", ["status": .number(200)]) == false)
    #expect(try evaluate("value == null", ["value": .undefined]) == true)
    #expect(try evaluate("value === null", ["value": .undefined]) == false)
    #expect(try evaluate("!origin || !info", ["origin": .string("https://a.example")]) == true)
    #expect(try evaluate("status >= 200 && status < 300", ["status": .number(204)]) == true)
  }

  @Test func aMemberOfNullThrowsAndOptionalChainingDoesNot() throws {
    #expect(try evaluate("record.status !== 'ok'", ["record": .null]) == nil)
    #expect(try evaluate("record?.status !== 'ok'", ["record": .null]) == true)
  }

  @Test func callsAndArithmeticAreNotRead() {
    for text in ["!isRecord(body)", "status % 100 !== 2", "body instanceof Object"] {
      guard case .failure = ScriptConditionParser.parse(text) else {
        Issue.record("\(text) was read")
        continue
      }
    }
  }

  @Test func precedenceAndPrintingFollowTheSource() throws {
    let condition = try ScriptConditionParser.parse("a !== 1 && b || !(c === 'x')").get()
    #expect("\(condition)" == "(a !== 1 && b) || !(c === 'x')")
    #expect(
      try evaluate(
        "a !== 1 && b || !(c === 'x')", ["a": .number(2), "b": .bool(false), "c": .string("x")])
        == false)
  }
}

/// The onboarding's instance check and submit handler of a multi-instance shell, read and
/// judged against the /api/instance contract's edges.
@Suite struct InstanceDecisionTests {
  func overlay(_ files: [String: String]) throws -> URL {
    try Fixtures.overlayApp(
      "qualify-instance-decisions", base: Fixtures.instanceShellApp, files: files)
  }

  func sample(_ path: String) throws -> String {
    try String(contentsOfFile: Fixtures.instanceShellApp + "/" + path, encoding: .utf8)
  }

  @Test func theSamplesCheckAcceptsOnlyTheGenuineAnswer() throws {
    let builds = try AppRepository(directory: Fixtures.instanceShellApp).builds(for: .prod)
    let build = try #require(builds[.ios])
    let check = try #require(build.instanceShell?.code.responseCheck?.value.value)
    #expect(check.rejections.count == 3)
    #expect(check.aliases == ["fields"])
    for edge in BuildGuards.instanceAnswerEdges {
      #expect(
        (check.name(status: edge.status, body: edge.body) != nil) == edge.accept, "\(edge.what)")
    }
    let gate = try #require(build.instanceShell?.code.addGate?.value.value)
    #expect(gate.adds(origin: "https://work.example", info: "Work") == true)
    #expect(gate.adds(origin: "https://work.example", info: nil) == false)
    #expect(gate.adds(origin: nil, info: nil) == false)
    #expect(BuildGuards.findings(for: build).isEmpty)
  }

  @Test func anOrWrittenAsAndAcceptsAnotherProduct() throws {
    let validate = try sample("src/validate.ts").replacingOccurrences(
      of: "fields.status !== 'ok' || fields.product",
      with: "fields.status !== 'ok' && fields.product")
    let directory = try overlay(["src/validate.ts": validate])
    defer { try? FileManager.default.removeItem(at: directory) }
    let build = try #require(
      try AppRepository(directory: directory.path).builds(for: .prod)[.android])
    let findings = BuildGuards.findings(for: build).filter { $0.rule == "instance-check" }
    #expect(findings.contains { $0.message.contains("product \"cloudfiles\"") })
    #expect(findings.contains { $0.message.contains("status \"degraded\"") })
    #expect(findings.allSatisfy { $0.location?.file.hasSuffix("src/validate.ts") == true })
  }

  @Test func aCheckQualifyCannotReadIsUnverifiedWithItsLocation() throws {
    let validate = try sample("src/validate.ts").replacingOccurrences(
      of: "if (status !== 200 || typeof body !== 'object' || body === null) return null;",
      with: "if (status !== 200 || !isRecord(body)) return null;")
    let directory = try overlay(["src/validate.ts": validate])
    defer { try? FileManager.default.removeItem(at: directory) }
    let build = try #require(try AppRepository(directory: directory.path).builds(for: .prod)[.ios])
    let finding = try #require(
      BuildGuards.findings(for: build).first { $0.rule == "instance-check" })
    #expect(finding.severity == .unverified)
    #expect(finding.location?.file.hasSuffix("src/validate.ts") == true)
    #expect(finding.location?.line == 25)
  }

  @Test func theManagerEmptiesItsRootInEveryFormTheRepositoriesUse() throws {
    let onboarding = try sample("src/onboarding.ts")
    func clears(_ text: String) throws -> Bool? {
      let directory = try overlay(["src/onboarding.ts": text])
      defer { try? FileManager.default.removeItem(at: directory) }
      let build = try #require(
        try AppRepository(directory: directory.path).builds(for: .prod)[.ios])
      return build.instanceShell?.code.managerClearsRoot?.value
    }
    #expect(try clears(onboarding) == true)
    // The Sovereign repository assigns the page's template, then appends to a child list.
    let template = onboarding.replacingOccurrences(
      of: "  root.innerHTML = '';\n",
      with: "  root.innerHTML = `\n    <ul class=\"instance-list\"></ul>\n  `;\n")
    #expect(try clears(template) == true)
    #expect(
      try clears(
        onboarding.replacingOccurrences(of: "root.innerHTML = '';", with: "root.replaceChildren();")
      )
        == true)
    #expect(
      try clears(
        onboarding.replacingOccurrences(of: "root.innerHTML = '';", with: "root.innerHTML += '';"))
        == false)
    #expect(
      try clears(onboarding.replacingOccurrences(of: "  root.innerHTML = '';\n", with: "")) == false
    )
    // Another parameter name after a defaulted options object's brace, and a root the body
    // looks up itself (not read, never a failure).
    let renamed = onboarding.replacingOccurrences(of: "root", with: "container")
    #expect(try clears(renamed) == true)
    let aliased = onboarding.replacingOccurrences(
      of: "renderOnboarding(root: HTMLElement,", with: "renderOnboarding(host: HTMLElement,"
    ).replacingOccurrences(
      of: "  const instances = await listInstances();\n",
      with: "  const instances = await listInstances();\n  const root = host;\n")
    #expect(try clears(aliased) == nil)
  }

  @Test func bootAndPageshowAreJudgedOnHowTheLocalPageWasReached() throws {
    func code(_ files: [String: String]) throws -> (
      ios: InstanceShellCode?, android: InstanceShellCode?
    ) {
      let directory = try overlay(files)
      defer { try? FileManager.default.removeItem(at: directory) }
      let builds = try AppRepository(directory: directory.path).builds(for: .prod)
      return (builds[.ios]?.instanceShell?.code, builds[.android]?.instanceShell?.code)
    }
    let main = try sample("src/main.ts")
    let sampleCode = try code([:])
    #expect(sampleCode.ios?.bootChecksBackForward?.value == true)
    #expect(sampleCode.ios?.pageshowHandler?.value == true)
    #expect(sampleCode.ios?.iosSnapshotsLocalScripts?.value == true)
    let redirect = "if (active !== null && !params.has('manage') && !isBackForward()) {"
    #expect(main.contains(redirect))
    // Each way of losing the test: dropped, negated, joined by ||, its function inverted.
    let broken = [
      "if (active !== null && !params.has('manage')) {",
      "if (active !== null && !params.has('manage') && isBackForward()) {",
      "if (active !== null && !params.has('manage') || !isBackForward()) {",
    ]
    for text in broken {
      let read = try code(["src/main.ts": main.replacingOccurrences(of: redirect, with: text)])
      #expect(read.ios?.bootChecksBackForward?.value == false, "\(text)")
      #expect(read.ios?.bootChecksBackForward?.location?.line == 29, "\(text)")
    }
    let inverted = try code([
      "src/main.ts": main.replacingOccurrences(
        of: "=== 'back_forward'", with: "!== 'back_forward'")
    ])
    #expect(inverted.ios?.bootChecksBackForward?.value == false)
    // A function the web code does not define (imported from elsewhere) may test the load
    // where qualify does not read: unverified, neither passed nor failed.
    let imported = try code([
      "src/main.ts": main.replacingOccurrences(
        of: redirect,
        with: "if (active !== null && !params.has('manage') && shouldRedirect(performance)) {")
    ])
    #expect(imported.ios?.bootChecksBackForward == nil)
    #expect(imported.ios?.bootRedirectUnread?.location?.line == 29)
    #expect(sampleCode.ios?.bootRedirectUnread == nil)
    // The handler that renders on the wrong restores, in both forms the repositories use.
    let negated = try code([
      "src/main.ts": main.replacingOccurrences(
        of: "if (event.persisted)", with: "if (!event.persisted)")
    ])
    #expect(negated.ios?.pageshowHandler?.value == false)
    let earlyReturn = main.replacingOccurrences(
      of: "if (event.persisted) void renderOnboarding(root);",
      with: "if (event.persisted) return;\n  void renderOnboarding(root);")
    #expect(earlyReturn != main)
    #expect(try code(["src/main.ts": earlyReturn]).ios?.pageshowHandler?.value == false)
    let kept = earlyReturn.replacingOccurrences(
      of: "if (event.persisted) return;", with: "if (!event.persisted) return;")
    #expect(try code(["src/main.ts": kept]).ios?.pageshowHandler?.value == true)
  }

  /// The handler boot() gives `?deeplink=` must open a known instance: itself, or through a
  /// wrapper that assigns the location; a renderer that navigates only on a tap is not one.
  @Test func theDeepLinkHandlerIsReadForItsNavigation() throws {
    func code(_ files: [String: String]) throws -> InstanceShellCode? {
      let directory = try overlay(files)
      defer { try? FileManager.default.removeItem(at: directory) }
      return try AppRepository(directory: directory.path).builds(for: .prod)[.ios]?
        .instanceShell?.code
    }
    let main = try sample("src/main.ts")
    let opens = "    loadInstance(link.instance.url + link.path);\n"
    #expect(main.contains(opens))
    #expect(try code([:])?.deepLinkHandlerNavigates?.value == true)
    let dropped = try code(["src/main.ts": main.replacingOccurrences(of: opens, with: "")])
    #expect(dropped?.deepLinkHandlerNavigates?.value == false)
    #expect(dropped?.deepLinkHandlerNavigates?.location?.line == 12)
    let wrapped =
      main.replacingOccurrences(
        of: opens, with: "    openAt(link.instance.url + link.path);\n")
      + "\nfunction openAt(url: string): void {\n  window.location.href = url;\n}\n"
    #expect(try code(["src/main.ts": wrapped])?.deepLinkHandlerNavigates?.value == true)
    // Without a deeplink parameter read in boot(), there is no handler to judge.
    let none = main.replacingOccurrences(of: "params.get('deeplink')", with: "null")
    #expect(try code(["src/main.ts": none])?.deepLinkHandlerNavigates == nil)
    // The parameter read however the code writes it: a URLSearchParams of its own kept in a
    // local, or passed straight to the handler.
    let own = "new URLSearchParams(window.location.search).get('deeplink')"
    let inline = main.replacingOccurrences(of: "params.get('deeplink')", with: own)
    #expect(inline != main)
    #expect(try code(["src/main.ts": inline])?.deepLinkHandlerNavigates?.value == true)
    let inlineDropped = try code([
      "src/main.ts": inline.replacingOccurrences(of: opens, with: "")
    ])
    #expect(inlineDropped?.deepLinkHandlerNavigates?.value == false)
    let direct = main.replacingOccurrences(
      of:
        "const deeplink = params.get('deeplink');\n  if (deeplink && (await handleDeepLink(deeplink))) return;",
      with: "if (await handleDeepLink(params.get('deeplink') ?? '')) return;")
    #expect(direct != main)
    #expect(try code(["src/main.ts": direct])?.deepLinkHandlerNavigates?.value == true)
    #expect(
      try code(["src/main.ts": direct.replacingOccurrences(of: opens, with: "")])?
        .deepLinkHandlerNavigates?.value == false)
    // A handler qualify cannot find is unverified with where it looked, never passed.
    let elsewhere = try code([
      "src/main.ts": main.replacingOccurrences(
        of: "await handleDeepLink(deeplink)", with: "await routeLink(deeplink)")
    ])
    #expect(elsewhere?.deepLinkHandlerNavigates == nil)
    #expect(elsewhere?.deepLinkHandlerUnread?.value.contains("routeLink()") == true)
    #expect(elsewhere?.deepLinkHandlerUnread?.location?.file.hasSuffix("src/main.ts") == true)
  }

  /// Android's back handler is read for the page it loads: the manager (`?manage=1`, as a
  /// literal or through a constant of any source file), the local page without it, or
  /// nothing — never "manage" found somewhere else in the code.
  @Test func androidsBackHandlerIsReadForThePageItLoads() throws {
    let path = "android/app/src/main/java/fs/sovereign/mobile/MainActivity.java"
    func code(_ files: [String: String]) throws -> InstanceShellCode? {
      let directory = try overlay(files)
      defer { try? FileManager.default.removeItem(at: directory) }
      return try AppRepository(directory: directory.path).builds(for: .prod)[.android]?
        .instanceShell?.code
    }
    let main = try sample(path)
    let loads = "webView.loadUrl(LOCAL_ORIGIN + \"?manage=1\");"
    #expect(main.contains(loads))
    let read = try code([:])
    #expect(read?.androidBackLoadsManager?.value == true)
    #expect(read?.androidBackLoadsPlainLocal == nil)
    // The local page alone, beside code that says "manager" elsewhere.
    let elsewhere = "android/app/src/main/java/fs/sovereign/mobile/Vibration.java"
    let plain = try code([
      path: main.replacingOccurrences(of: loads, with: "webView.loadUrl(LOCAL_ORIGIN);"),
      elsewhere: "class Vibration {\n  Object manager = null;\n  String manage = \"\";\n}\n",
    ])
    #expect(plain?.androidBackLoadsManager?.value == false)
    #expect(plain?.androidBackLoadsPlainLocal?.value == "LOCAL_ORIGIN")
    #expect(plain?.androidBackLoadsPlainLocal?.location?.line == 45)
    // The manager's URL kept in a constant of another class.
    let constant = try code([
      path: main.replacingOccurrences(of: loads, with: "webView.loadUrl(Urls.MANAGER);"),
      "android/app/src/main/java/fs/sovereign/mobile/Urls.java":
        "final class Urls {\n  static final String MANAGER = \"https://localhost/?manage=1\";\n}\n",
    ])
    #expect(constant?.androidBackLoadsManager?.value == true)
    // boot() testing another parameter than the one back carries: a cold start to boot().
    let boot = try sample("src/main.ts")
    let renamed = try code([
      "src/main.ts": boot.replacingOccurrences(
        of: "params.has('manage')", with: "params.has(MANAGER)")
        + "\nconst MANAGER = 'manager';\n"
    ])
    #expect(renamed?.bootManagerParameter?.value == "manager")
    #expect(renamed?.androidBackLoadsManager?.value == false)
    #expect(renamed?.androidBackLoadsPlainLocal?.value == "LOCAL_ORIGIN + \"?manage=1\"")
    #expect(read?.bootManagerParameter?.value == "manage")
    // A Set's has() in boot() is not a URL parameter.
    let set = try code([
      "src/main.ts": boot.replacingOccurrences(
        of: "  const params = new URLSearchParams(window.location.search);",
        with:
          "  const seen = new Set(['x']);\n  if (seen.has('onboarded')) return;\n  const params = new URLSearchParams(window.location.search);"
      )
    ])
    #expect(set?.bootManagerParameter?.value == "manage")
    // Terms joined in their order, constants in place, and a local of the handler.
    let ordered = try code([
      path: main.replacingOccurrences(
        of: loads, with: "webView.loadUrl(LOCAL_ORIGIN + \"?\" + MANAGE + \"=1\");"
      )
      .replacingOccurrences(
        of: "public class MainActivity", with: "public class MainActivity")
        + "\nfinal class Params {\n  static final String MANAGE = \"manage\";\n}\n"
    ])
    #expect(ordered?.androidBackLoadsManager?.value == true)
    let local = try code([
      path: main.replacingOccurrences(
        of: loads,
        with:
          "String target = LOCAL_ORIGIN + \"?manage=1\";\n                    webView.loadUrl(target);"
      )
    ])
    #expect(local?.androidBackLoadsManager?.value == true)
    // A `=` inside a string literal assigns nothing: the local keeps its one value.
    let query = try code([
      path: main.replacingOccurrences(
        of: loads,
        with:
          "String manage = \"?manage=1\";\n                    webView.loadUrl(LOCAL_ORIGIN + manage);"
      )
    ])
    #expect(query?.androidBackLoadsManager?.value == true)
    // A URL built by something qualify does not follow: unverified, neither passed nor failed.
    let built = try code([
      path: main.replacingOccurrences(
        of: loads, with: "webView.loadUrl(Uri.parse(LOCAL_ORIGIN).buildUpon().toString());")
    ])
    #expect(built?.androidBackLoadsManager == nil)
    #expect(built?.androidBackUnread?.value.contains("does not put together") == true)
    // A handler that loads nothing.
    let nothing = try code([path: main.replacingOccurrences(of: loads, with: "")])
    #expect(nothing?.androidBackLoadsManager?.value == false)
    #expect(nothing?.androidBackLoadsPlainLocal == nil)
  }

  /// The manager's open and remove, read as written: open saves the active instance before
  /// it navigates (awaited, or chained with .then on one line); remove clears it when the
  /// removed one is active — not when another is, not never.
  /// The remove button must show something to tap: text, a child, or content its class's
  /// stylesheet rule draws — an aria-label alone draws nothing.
  @Test func theRemoveButtonShowsALabel() throws {
    func labelled(_ files: [String: String]) throws -> Sourced<Bool>? {
      let directory = try overlay(files)
      defer { try? FileManager.default.removeItem(at: directory) }
      return try AppRepository(directory: directory.path).builds(for: .prod)[.ios]?
        .instanceShell?.code.managerRemoveLabelled
    }
    let path = "src/onboarding.ts"
    let onboarding = try sample(path)
    let text = "    remove.textContent = '✕';\n"
    #expect(onboarding.contains(text))
    #expect(try labelled([:])?.value == true)
    let ariaOnly = try labelled([
      path: onboarding.replacingOccurrences(
        of: text, with: "    remove.setAttribute('aria-label', 'Remove');\n")
    ])
    #expect(ariaOnly?.value == false)
    #expect(ariaOnly?.location?.line == 42)
    let empty = try labelled([
      path: onboarding.replacingOccurrences(of: text, with: "    remove.textContent = '';\n")
    ])
    #expect(empty?.value == false)
    let icon = try labelled([
      path: onboarding.replacingOccurrences(
        of: text, with: "    remove.append(document.createTextNode('×'));\n")
    ])
    #expect(icon?.value == true)
    for form in [
      "    remove.replaceChildren(document.createTextNode('×'));\n",
      "    Object.assign(remove, { type: 'button', textContent: '✕' });\n",
      "    remove.insertAdjacentHTML('beforeend', '<span aria-hidden=\"true\">✕</span>');\n",
    ] {
      #expect(
        try labelled([path: onboarding.replacingOccurrences(of: text, with: form)])?.value == true,
        "\(form)")
    }
    // Drawn by the stylesheet: the class's ::before content.
    let css = ".instance-remove::before {\n  content: '\\2715';\n}\n"
    let drawn = try labelled([
      path: onboarding.replacingOccurrences(of: text, with: ""), "src/styles.css": css,
    ])
    #expect(drawn?.value == true)
    let none = try labelled([
      path: onboarding.replacingOccurrences(of: text, with: ""),
      "src/styles.css": ".instance-remove::before {\n  content: none;\n}\n",
    ])
    #expect(none?.value == false)
  }

  @Test func theManagersOpenAndRemoveAreReadAsWritten() throws {
    func code(_ files: [String: String]) throws -> InstanceShellCode? {
      let directory = try overlay(files)
      defer { try? FileManager.default.removeItem(at: directory) }
      return try AppRepository(directory: directory.path).builds(for: .prod)[.ios]?
        .instanceShell?.code
    }
    let read = try code([:])
    #expect(read?.managerOpen?.value == .savesFirst)
    #expect(read?.managerRemove?.value == .whenRemoved)
    let onboarding = try sample("src/onboarding.ts")
    let open =
      "    open.onclick = async () => {\n      await setActiveUrl(instance.url);\n      loadInstance(instance.url);\n    };"
    #expect(onboarding.contains(open))
    let chained =
      "    open.addEventListener('click', () => {\n      void setActiveUrl(instance.url).then(() => loadInstance(instance.url));\n    });"
    #expect(
      try code(["src/onboarding.ts": onboarding.replacingOccurrences(of: open, with: chained)])?
        .managerOpen?.value == .savesFirst)
    let late = try code([
      "src/onboarding.ts": onboarding.replacingOccurrences(
        of: open,
        with:
          "    open.onclick = async () => {\n      loadInstance(instance.url);\n      await setActiveUrl(instance.url);\n    };"
      )
    ])
    #expect(late?.managerOpen?.value == .navigatesFirst)
    let never = try code([
      "src/onboarding.ts": onboarding.replacingOccurrences(
        of: open, with: "    open.onclick = () => loadInstance(instance.url);")
    ])
    #expect(never?.managerOpen?.value == .never)
    #expect(never?.managerOpen?.location?.line == 35)
    let store = try sample("src/store.ts")
    let clear = "if ((await getActiveUrl()) === url) await setActiveUrl(null);"
    #expect(store.contains(clear))
    let other = try code([
      "src/store.ts": store.replacingOccurrences(
        of: clear, with: "if ((await getActiveUrl()) !== url) await setActiveUrl(null);")
    ])
    #expect(other?.managerRemove?.value == .whenOther)
    let kept = try code(["src/store.ts": store.replacingOccurrences(of: clear, with: "")])
    #expect(kept?.managerRemove?.value == .never)
    let braced = try code([
      "src/store.ts": store.replacingOccurrences(
        of: clear, with: "if (url === (await getActiveUrl())) {\n    await setActiveUrl(null);\n  }"
      )
    ])
    #expect(braced?.managerRemove?.value == .whenRemoved)
    let guarded = try code([
      "src/store.ts": store.replacingOccurrences(
        of: clear,
        with: "if (url !== undefined && (await getActiveUrl()) === url) await setActiveUrl(null);")
    ])
    #expect(guarded?.managerRemove?.value == .whenRemoved)
    // A help link that navigates does not hide the open button that saves first.
    let help = try code([
      "src/onboarding.ts": onboarding.replacingOccurrences(
        of: open,
        with: "    help.onclick = () => location.assign('https://docs.example');\n" + open
      )
      .replacingOccurrences(
        of: "export async function renderOnboarding",
        with: "const help = document.createElement('a');\nexport async function renderOnboarding")
    ])
    #expect(help?.managerOpen?.value == .savesFirst)
    // Adding loads the instance added; a handler that only re-renders loads nothing.
    #expect(read?.addLoadsInstance?.value == true)
    let rerenders = try code([
      "src/onboarding.ts": onboarding.replacingOccurrences(
        of: "    loadInstance(origin + (options.pendingPath ?? ''));\n",
        with: "    await renderOnboarding(root);\n")
    ])
    #expect(rerenders?.addLoadsInstance?.value == false)
    #expect(rerenders?.addLoadsInstance?.location?.line == 53)
    // The instance check's path as the fetch writes it.
    #expect(read?.validationEndpoint?.value == "/api/instance")
    let typo = try code([
      "src/onboarding.ts": onboarding.replacingOccurrences(
        of: "/api/instance`", with: "/api/instances`")
    ])
    #expect(typo?.validationEndpoint?.value == "/api/instances")
  }

  /// boot() must not redirect when the URL carries the manager parameter: by its redirect's
  /// own condition, or by an earlier return — as the real repository's `!manage &&` does.
  @Test func bootHonoursTheManagerParameterAsWritten() throws {
    func honours(_ text: String) throws -> Sourced<Bool>? {
      let directory = try overlay(["src/main.ts": text])
      defer { try? FileManager.default.removeItem(at: directory) }
      return try AppRepository(directory: directory.path).builds(for: .prod)[.android]?
        .instanceShell?.code.bootHonoursManager
    }
    let main = try sample("src/main.ts")
    let test = "!params.has('manage') && "
    #expect(main.contains(test))
    #expect(try honours(main)?.value == true)
    let ignored = try honours(main.replacingOccurrences(of: test, with: ""))
    #expect(ignored?.value == false)
    #expect(ignored?.derivation.first?.contains("does not test ?manage") == true)
    #expect(ignored?.location?.line == 30)
    // Tested, but an `||` lets the redirect through with the parameter on.
    let either = try honours(
      main.replacingOccurrences(
        of: "!params.has('manage') && !isBackForward()",
        with: "(!params.has('manage') || !isBackForward())"))
    #expect(either?.value == false)
    // A local holding the test, and an earlier return on it, as real code writes them.
    let local = try honours(
      main.replacingOccurrences(of: test, with: "!manage && ").replacingOccurrences(
        of: "  const params = new URLSearchParams(window.location.search);\n",
        with:
          "  const params = new URLSearchParams(window.location.search);\n  const manage = params.has('manage');\n"
      ))
    #expect(local?.value == true)
    let early = try honours(
      main.replacingOccurrences(of: test, with: "").replacingOccurrences(
        of: "  const active = await getActiveUrl();\n",
        with:
          "  if (params.has('manage')) {\n    await renderOnboarding(root);\n    return;\n  }\n  const active = await getActiveUrl();\n"
      ))
    #expect(early?.value == true)
    // get() compared with '1', a negated local, and the redirect in an else-if.
    let viaGet = try honours(
      main.replacingOccurrences(of: test, with: "!manage && ").replacingOccurrences(
        of: "  const active = await getActiveUrl();\n",
        with:
          "  const manage = params.get('manage') === '1';\n  const active = await getActiveUrl();\n"
      ))
    #expect(viaGet?.value == true)
    let cold = try honours(
      main.replacingOccurrences(of: test, with: "coldStart && ").replacingOccurrences(
        of: "  const active = await getActiveUrl();\n",
        with: "  const coldStart = !params.has('manage');\n  const active = await getActiveUrl();\n"
      ))
    #expect(cold?.value == true)
    let elseIf = try honours(
      main.replacingOccurrences(
        of: "  if (active !== null && !params.has('manage') && !isBackForward()) {",
        with:
          "  if (params.has('manage')) {\n    await renderOnboarding(root);\n  } else if (active !== null && !isBackForward()) {"
      ))
    #expect(elseIf?.value == true)
    // Another parameter's early return does not stand for the manager's.
    let otherParameter = try honours(
      main.replacingOccurrences(of: test, with: "").replacingOccurrences(
        of: "  const active = await getActiveUrl();\n",
        with:
          "  const manage = params.has('manage');\n  if (params.has('debug')) {\n    console.log(manage);\n    return;\n  }\n  const active = await getActiveUrl();\n"
      ))
    #expect(otherParameter?.value == false)
    // A test of the parameter qualify does not read leaves the decision unverified.
    let unreadable = try honours(
      main.replacingOccurrences(of: test, with: "!params.get('manage')?.startsWith('1') && "))
    #expect(unreadable == nil)
  }

  /// The local page's entry is boot(), or the function its module calls at the top level:
  /// renamed, it is still read; not found at all, what a load does is unverified.
  @Test func theLocalPagesEntryIsFoundByItsTopLevelCall() throws {
    func code(_ files: [String: String]) throws -> InstanceShellCode? {
      let directory = try overlay(files)
      defer { try? FileManager.default.removeItem(at: directory) }
      return try AppRepository(directory: directory.path).builds(for: .prod)[.ios]?
        .instanceShell?.code
    }
    let main = try sample("src/main.ts")
    let renamed =
      main
      .replacingOccurrences(of: "async function boot()", with: "async function start()")
      .replacingOccurrences(of: "void boot();", with: "start().catch(console.error);")
    #expect(renamed != main && !renamed.contains("void boot();"))
    let read = try code(["src/main.ts": renamed])
    #expect(read?.bootUnfound == nil)
    #expect(read?.bootChecksBackForward?.value == true)
    let unchecked = try code([
      "src/main.ts": renamed.replacingOccurrences(of: " && !isBackForward()", with: "")
    ])
    #expect(unchecked?.bootChecksBackForward?.value == false)
    // No entry function at all: neither passed nor failed.
    let inline = renamed.replacingOccurrences(
      of: "start().catch(console.error);", with: "")
    let unfound = try code(["src/main.ts": inline])
    #expect(unfound?.bootChecksBackForward == nil)
    #expect(unfound?.bootUnfound?.value.contains("looked for function boot(") == true)
    #expect(unfound?.deepLinkHandlerUnread != nil)
    // One cause, said once: the deep link's handler is out of reach because boot() is.
    let directory = try overlay(["src/main.ts": inline])
    defer { try? FileManager.default.removeItem(at: directory) }
    let build = try #require(try AppRepository(directory: directory.path).builds(for: .prod)[.ios])
    let unverified = BuildGuards.findings(for: build).filter { $0.severity == .unverified }
    #expect(unverified.count == 1, "\(unverified.map(\.message))")
    #expect(unverified.first?.message.contains("whether a deep link opens its instance") == true)
    // Its fix is about reading the decision, not about a rule the app may well keep.
    #expect(unverified.first?.fix == BuildGuards.unverifiedFix)
  }

  @Test func theNormalisersHTTPRuleIsReadPerKindOfBuild() throws {
    let path = "src/validate.ts"
    let validate = try sample(path)
    func read(_ text: String) throws -> HTTPInstanceAcceptance? {
      let directory = try overlay([path: text])
      defer { try? FileManager.default.removeItem(at: directory) }
      return try AppRepository(directory: directory.path).builds(for: .prod)[.ios]?
        .instanceShell?.code.normalizerAcceptsHTTP?.value
    }
    // As the real normaliser: an explicit http:// is respected in every build.
    #expect(try read(validate) == HTTPInstanceAcceptance(dev: true, release: true))
    let refusal = "  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;"
    #expect(validate.contains(refusal))
    let devOnly = validate.replacingOccurrences(
      of: "normalizeInstanceUrl(input: string)",
      with: "normalizeInstanceUrl(input: string, allowHttp = import.meta.env.DEV)"
    ).replacingOccurrences(
      of: refusal,
      with:
        "  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) return null;")
    #expect(try read(devOnly) == HTTPInstanceAcceptance(dev: true, release: false))
    let httpsOnly = validate.replacingOccurrences(
      of: refusal, with: "  if (url.protocol !== 'https:') return null;")
    #expect(try read(httpsOnly) == HTTPInstanceAcceptance(dev: false, release: false))
  }

  @Test func whatAnInstanceReachesOfTheNativeSideIsRead() throws {
    func code(_ files: [String: String]) throws -> (
      ios: InstanceShellCode?, android: InstanceShellCode?
    ) {
      let directory = try overlay(files)
      defer { try? FileManager.default.removeItem(at: directory) }
      let builds = try AppRepository(directory: directory.path).builds(for: .prod)
      return (builds[.ios]?.instanceShell?.code, builds[.android]?.instanceShell?.code)
    }
    let sampleCode = try code([:])
    #expect(sampleCode.ios?.iosIsolatesRemoteContent?.value == true)
    #expect(
      sampleCode.ios?.iosDeviceBridge?.value
        == DeviceBridgeScope(name: "sovereignBridge", originScoped: false, mainFrameOnly: true))
    #expect(
      sampleCode.android?.androidDeviceBridge?.value
        == DeviceBridgeScope(name: "sovereignBridge", originScoped: true, mainFrameOnly: true))
    #expect(sampleCode.ios?.activeKeyMismatch(on: .ios) == nil)
    #expect(sampleCode.android?.activeKeyMismatch(on: .android) == nil)

    let controllerPath = "ios/App/App/MainViewController.swift"
    let controller = try sample(controllerPath)
    let removal = "    controller.removeScriptMessageHandler(forName: \"bridge\")\n"
    #expect(controller.contains(removal))
    let kept = try code([controllerPath: controller.replacingOccurrences(of: removal, with: "")])
    #expect(kept.ios?.iosIsolatesRemoteContent?.value == false)
    // Nothing isolated, nothing to put back.
    #expect(kept.ios?.iosRestoresLocalMode == nil)
    // Back on the local page, both pieces isolation removed go back in.
    #expect(sampleCode.ios?.iosRestoresLocalMode?.value == true)
    let handlerBack =
      "    if let handler = capacitorHandler { controller.add(handler, name: \"bridge\") }\n"
    #expect(controller.contains(handlerBack))
    let noHandler = try code([
      controllerPath: controller.replacingOccurrences(of: handlerBack, with: "")
    ])
    #expect(noHandler.ios?.iosRestoresLocalMode?.value == false)
    #expect(
      noHandler.ios?.iosRestoresLocalMode?.derivation.first?.hasPrefix(
        "restoreLocalScripts() does not put back Capacitor's \"bridge\" handler") == true)
    let noScripts = try code([
      controllerPath: controller.replacingOccurrences(
        of: "      controller.addUserScript(", with: "      _ = (")
    ])
    #expect(noScripts.ios?.iosRestoresLocalMode?.value == false)
    #expect(
      noScripts.ios?.iosRestoresLocalMode?.derivation.first?.contains("user scripts") == true)
    // Real shapes that restore: a forEach, a handler removed first (add throws on a name in
    // use), and the two pieces in helpers.
    let loop =
      "    for script in localScripts {\n      controller.addUserScript(\n        WKUserScript(\n          source: script.source, injectionTime: script.time, forMainFrameOnly: script.mainOnly))\n    }\n"
    #expect(controller.contains(loop))
    let forEach = try code([
      controllerPath: controller.replacingOccurrences(
        of: loop,
        with:
          "    localScripts.map { WKUserScript(source: $0.source, injectionTime: $0.time, forMainFrameOnly: $0.mainOnly) }\n      .forEach(controller.addUserScript)\n"
      )
    ])
    #expect(forEach.ios?.iosRestoresLocalMode?.value == true)
    let defensive = try code([
      controllerPath: controller.replacingOccurrences(
        of: handlerBack,
        with:
          "    controller.removeScriptMessageHandler(forName: \"bridge\")\n    if let handler = capacitorHandler { controller.add(handler, name: Self.capacitorBridge) }\n"
      ).replacingOccurrences(
        of: "  private static let activeKey",
        with: "  private static let capacitorBridge = \"bridge\"\n  private static let activeKey")
    ])
    #expect(defensive.ios?.iosRestoresLocalMode?.value == true)
    let split = try code([
      controllerPath: controller.replacingOccurrences(
        of: handlerBack, with: "    putBackCapacitorHandler(controller)\n"
      ).replacingOccurrences(
        of: "  private func restoreLocalScripts() {",
        with:
          "  private func putBackCapacitorHandler(_ controller: WKUserContentController) {\n    if let handler = capacitorHandler { controller.add(handler, name: \"bridge\") }\n  }\n\n  private func restoreLocalScripts() {"
      )
    ])
    #expect(split.ios?.iosRestoresLocalMode?.value == true)
    // A restore decidePolicyFor never calls does not run when the local page comes back.
    let uncalled = try code([
      controllerPath: controller.replacingOccurrences(
        of:
          "    guard let url = action.request.url, url.scheme == \"http\" || url.scheme == \"https\" else {\n      restoreLocalScripts()\n",
        with:
          "    guard let url = action.request.url, url.scheme == \"http\" || url.scheme == \"https\" else {\n"
      )
    ])
    #expect(uncalled.ios?.iosRestoresLocalMode?.value == false)
    let bridgePath = "ios/App/App/Bridge.swift"
    let anyFrame = try code([
      bridgePath: try sample(bridgePath).replacingOccurrences(
        of: "guard message.frameInfo.isMainFrame, let body", with: "guard let body")
    ])
    #expect(anyFrame.ios?.iosDeviceBridge?.value.reachableFromOtherOrigins == true)
    let renamed = try code([
      controllerPath: controller.replacingOccurrences(
        of: "\"CapacitorStorage.sovereign.activeUrl\"", with: "\"sovereign.activeUrl\"")
    ])
    #expect(renamed.ios?.activeKeyMismatch(on: .ios)?.reads.value == "sovereign.activeUrl")

    let policyPath =
      "android/app/src/main/java/fs/sovereign/mobile/NavigationPolicyWebViewClient.java"
    let policy = try sample(policyPath)
    #expect(policy.contains("Collections.singleton(origin)"))
    let everyOrigin = try code([
      policyPath: policy.replacingOccurrences(
        of: "Collections.singleton(origin)", with: "Collections.singleton(\"*\")"),
      "android/app/src/main/java/fs/sovereign/mobile/DeviceBridge.java": try sample(
        "android/app/src/main/java/fs/sovereign/mobile/DeviceBridge.java"
      ).replacingOccurrences(
        of: "if (!isMainFrame || message.getData() == null) return;", with: ""),
    ])
    #expect(everyOrigin.android?.androidDeviceBridge?.value.reachableFromOtherOrigins == true)
  }

  @Test func theLocalScriptsCopyIsARebuildNotTheLiveArray() throws {
    let path = "ios/App/App/MainViewController.swift"
    let controller = try sample(path)
    let rebuilt =
      "    localScripts = (webView?.configuration.userContentController.userScripts ?? []).map {\n"
      + "      ($0.source, $0.injectionTime, $0.isForMainFrameOnly)\n    }\n"
    #expect(controller.contains(rebuilt))
    let directory = try overlay([
      path: controller.replacingOccurrences(
        of: rebuilt,
        with: "    localScripts = webView?.configuration.userContentController.userScripts ?? []\n")
    ])
    defer { try? FileManager.default.removeItem(at: directory) }
    let read = try AppRepository(directory: directory.path).builds(for: .prod)[.ios]?
      .instanceShell?.code.iosSnapshotsLocalScripts
    #expect(read?.value == false)
    #expect(read?.location?.line == 22)
  }

  @Test func aGateThatStopsOnAGoodInstanceIsFound() throws {
    let onboarding = try sample("src/onboarding.ts").replacingOccurrences(
      of: "if (!origin || !info) return;", with: "if (!origin || info) return;")
    let directory = try overlay(["src/onboarding.ts": onboarding])
    defer { try? FileManager.default.removeItem(at: directory) }
    let build = try #require(try AppRepository(directory: directory.path).builds(for: .prod)[.ios])
    let gate = try #require(build.instanceShell?.code.addGate?.value.value)
    #expect(gate.adds(origin: "https://work.example", info: "Work") == false)
    // With the check failed, the handler goes on and throws on info.instanceName.
    #expect(gate.adds(origin: "https://work.example", info: nil) == false)
    #expect(BuildGuards.findings(for: build).map(\.rule) == ["instance-check"])
  }
}

/// A React Native bridge shell's decisions that two pieces of its code share (seed 001).
@Suite struct BridgeDecisionTests {
  func overlay(_ files: [String: String]) throws -> URL {
    try Fixtures.overlayApp("qualify-bridge-decisions", base: Fixtures.bridgeApp, files: files)
  }

  func findings(_ files: [String: String]) throws -> [Finding] {
    let directory = try overlay(files)
    defer { try? FileManager.default.removeItem(at: directory) }
    let build = try #require(try AppRepository(directory: directory.path).builds(for: .prod)[.ios])
    return BuildGuards.findings(for: build)
  }

  func sample(_ path: String) throws -> String {
    try String(contentsOfFile: Fixtures.bridgeApp + "/" + path, encoding: .utf8)
  }

  @Test func theSampleReadsEveryDecision() throws {
    let build = try #require(
      try AppRepository(directory: Fixtures.bridgeApp).builds(for: .prod)[.ios])
    let bridge = try #require(build.bridge)
    #expect(
      bridge.navigation.decisions?.value.sorted() == ["allow-in-webview", "open-system", "reject"])
    #expect(bridge.navigation.loadsOn?.value == "decision === \"allow-in-webview\"")
    #expect(bridge.navigation.opensOn?.value == "decision === \"open-system\"")
    #expect(bridge.vocabularies.map { $0.listed?.count } == [12, 6])
    #expect(bridge.vocabularies.map { $0.checked?.count } == [12, 6])
    #expect(bridge.handoff.acceptedStatuses?.value == ["ok", "cancelled", "failed"])
    #expect(Set(bridge.handoff.statuses.map(\.value)) == ["failed", "cancelled", "ok"])
    let hostCheck = try #require(bridge.publicHostCheck?.value.value)
    #expect(hostCheck.function.name == "isNonPublicHost" && hostCheck.negated)
    #expect(hostCheck.isPublic("openmapx.com") == true)
    #expect(hostCheck.isPublic("10.0.2.2") == false)
    #expect(
      bridge.navigation.credentialRefusal?.value.value?.description
        == "target.username || target.password")
    #expect(bridge.navigation.lengthLimit?.value == 8192)
    #expect(bridge.envelopeTag?.value == "type")
    #expect(bridge.vocabularies.map { $0.discriminator?.value } == ["type", "type"])
    #expect(BuildGuards.findings(for: build).isEmpty)
  }

  /// The real repository's idioms: a named handler (`useCallback`) that loads on
  /// `if (decision === "…") return true;` and opens through a helper wrapping
  /// `Linking.openURL`, and a policy whose parameters are written one per line.
  @Test func aNamedHandlerAndAMultiLineSignatureAreRead() throws {
    let app = try sample("apps/mobile/src/App.tsx").replacingOccurrences(
      of: """
                onShouldStartLoadWithRequest={(request) => {
                  const decision = classifyNavigation(request.url, config);
                  if (decision === "open-system") void Linking.openURL(request.url).catch(() => undefined);
                  return decision === "allow-in-webview";
                }}
        """,
      with: """
                onShouldStartLoadWithRequest={handleNavigationRequest}
        """
    ).replacingOccurrences(
      of: "  return (\n",
      with: """
          const openExternally = useCallback((url: string) => {
            // An unhandled scheme rejects; nothing happens rather than a crash.
            void Linking.openURL(url).catch(() => undefined);
          }, []);
          const handleNavigationRequest = useCallback(
            (request: { url: string }): boolean => {
              const decision = classifyNavigation(request.url, config);
              if (decision === "allow-in-webview") return true;
              if (decision === "open-system") openExternally(request.url);
              return false;
            },
            [config, openExternally],
          );
          return (

        """)
    #expect(app.contains("handleNavigationRequest}"), "the sample's handler was replaced")
    let policy = try sample("apps/mobile/src/shell/originPolicy.ts").replacingOccurrences(
      of: "classifyNavigation(rawUrl: string, config: NavigationPolicyConfig)",
      with: "classifyNavigation(\n  rawUrl: string,\n  config: NavigationPolicyConfig,\n)")
    let files = [
      "apps/mobile/src/App.tsx": app, "apps/mobile/src/shell/originPolicy.ts": policy,
    ]
    #expect(try findings(files).isEmpty)
    // The same code with the decision misspelt, and with the length bound made inclusive.
    let typo = app.replacingOccurrences(
      of: "decision === \"allow-in-webview\") return true",
      with: "decision === \"allow_in_webview\") return true")
    #expect(
      try findings(files.merging(["apps/mobile/src/App.tsx": typo]) { $1 }).map(\.rule)
        .contains("navigation-policy"))
    let inclusive = policy.replacingOccurrences(
      of: "rawUrl.length > MAX_NAVIGATION_URL_LENGTH",
      with: "rawUrl.length >= MAX_NAVIGATION_URL_LENGTH")
    let hits = try findings(
      files.merging(["apps/mobile/src/shell/originPolicy.ts": inclusive]) { $1 })
    #expect(hits.contains { $0.message.contains("exactly 8192") }, "\(hits.map(\.message))")
  }

  /// The receiver's checks are read from receive(): each refusal removed is found at the
  /// method, the others still read where they are.
  @Test func eachReceiverCheckIsReadFromReceive() throws {
    let path = "apps/mobile/src/bridge/nativeBridge.ts"
    let code = try sample(path)
    let build = try #require(
      try AppRepository(directory: Fixtures.bridgeApp).builds(for: .prod)[.ios])
    let read = try #require(build.bridge?.receiverChecks)
    #expect(
      Set(read.keys) == ["origin", "nonce", "duplicates", "protocol", "pollution", "clock"])
    let allRead = read.values.allSatisfy { $0.value }
    #expect(allRead)
    let removals = [
      "origin": "    if (!fromProduct) return { status: \"rejected\", code: \"wrong-origin\" };\n",
      "nonce": "      expectedNonce: channel.nonce,\n",
      "duplicates":
        "    if (!registry.rememberMessage(channel.nonce, command.messageId)) {\n      return { status: \"rejected\", code: \"duplicate-message\" };\n    }\n",
      "protocol": " && command.protocolVersion !== handshake?.protocolVersion",
    ]
    for (check, text) in removals {
      #expect(code.contains(text), "\(check): the sample's text")
      let directory = try overlay([path: code.replacingOccurrences(of: text, with: "")])
      defer { try? FileManager.default.removeItem(at: directory) }
      let changed = try #require(
        try AppRepository(directory: directory.path).builds(for: .prod)[.ios]?.bridge?
          .receiverChecks)
      #expect(changed[check]?.value == false, "\(check)")
      #expect(changed.filter { !$0.value.value }.count == 1, "\(check): \(changed)")
    }
    // A refusal that only tests the URL is there is no origin check.
    let presence = code.replacingOccurrences(
      of: removals["origin"] ?? "",
      with:
        "    if (typeof event.url !== \"string\") return { status: \"rejected\", code: \"no-url\" };\n"
    )
    let directory = try overlay([path: presence])
    defer { try? FileManager.default.removeItem(at: directory) }
    let weak = try #require(
      try AppRepository(directory: directory.path).builds(for: .prod)[.ios]?.bridge?
        .receiverChecks)
    #expect(weak["origin"]?.value == false)
  }

  @Test func aRefusalThatAWellFormedMessageMeetsIsNamed() throws {
    let path = "apps/mobile/src/bridge/nativeBridge.ts"
    let code = try sample(path)
    #expect(try findings([path: code]).filter { $0.rule == "receiver-code" }.isEmpty)
    // Each refusal negated, and the protocol refusal's && turned ||: every check is still
    // written, and no command reaches the dispatch.
    let breaks = [
      ("if (!fromProduct)", "if (fromProduct)", 47),
      ("if (!channel)", "if (channel)", 50),
      ("if (!parsed.ok)", "if (parsed.ok)", 55),
      ("if (!COMMANDS.has(", "if (COMMANDS.has(", 56),
      ("if (!registry.rememberMessage(", "if (registry.rememberMessage(", 59),
      (
        "!== \"web.hello\" && command.protocolVersion",
        "!== \"web.hello\" || command.protocolVersion", 63
      ),
    ]
    for (text, broken, line) in breaks {
      #expect(code.contains(text), "the sample's text: \(text)")
      let hits = try findings([path: code.replacingOccurrences(of: text, with: broken)])
        .filter { $0.rule == "receiver-code" }
      #expect(hits.map(\.value) == ["well-formed refused"], "\(broken)")
      #expect(hits.first?.location?.line == line, "\(broken)")
    }
  }

  @Test func whatThePageHearsOfARefusalIsReadFromTheMessageHandler() throws {
    let path = "apps/mobile/src/App.tsx"
    let code = try sample(path)
    func read(_ text: String) throws -> Sourced<RejectionReplies>? {
      let directory = try overlay([path: text])
      defer { try? FileManager.default.removeItem(at: directory) }
      return try AppRepository(directory: directory.path).builds(for: .prod)[.ios]?.bridge?
        .rejectionReplies
    }
    let discarded = "onMessage={(event) => void shell.bridge.receive(event.nativeEvent)}"
    #expect(code.contains(discarded))
    #expect(try read(code)?.value == .silent)
    let answering = """
      onMessage={async (event) => {
                const result = await shell.bridge.receive(event.nativeEvent);
                if (result.status === "rejected") shell.bridge.send("native.error", { code: result.code });
              }}
      """
    let every = try read(code.replacingOccurrences(of: discarded, with: answering))
    #expect(every?.value == .every)
    #expect(every?.location?.line == 48)
    #expect(
      try findings([path: code.replacingOccurrences(of: discarded, with: answering)])
        .filter { $0.rule == "receiver-code" }.map(\.value) == ["answers every refusal"])
    // Sparing the codes receive() refuses another origin and a missing channel with.
    let sparing = answering.replacingOccurrences(
      of: "result.status === \"rejected\"",
      with:
        "result.status === \"rejected\" && ![\"wrong-origin\", \"no-channel\"].includes(result.code)"
    )
    #expect(
      try read(code.replacingOccurrences(of: discarded, with: sparing))?.value == .authenticatedOnly
    )
    // Sparing the foreign origin but answering the missing channel still answers an
    // unauthenticated sender.
    let half = answering.replacingOccurrences(
      of: "result.status === \"rejected\"",
      with: "result.status === \"rejected\" && result.code !== \"wrong-origin\"")
    #expect(try read(code.replacingOccurrences(of: discarded, with: half))?.value == .every)
    // The answer kept but never sent back: nothing is heard.
    let kept =
      "onMessage={async (event) => { const result = await shell.bridge.receive(event.nativeEvent); log(result); }}"
    #expect(try read(code.replacingOccurrences(of: discarded, with: kept))?.value == .silent)
  }

  @Test func theHandoffRoutesAreReadAsRegistered() throws {
    let path = "apps/api/src/routes/mobileAuthRoutes.ts"
    let routes = try sample(path)
    let build = try #require(
      try AppRepository(directory: Fixtures.bridgeApp).builds(for: .prod)[.ios])
    let read = try #require(build.bridge?.handoffServer.routes)
    #expect(read.noStore?.value == true)
    #expect(read.checksOrigin?.value == true)
    #expect(read.throttles?.value == true)
    // An Origin check that lets a request without one through is no check.
    let lenient = routes.replacingOccurrences(
      of: "return typeof origin === \"string\" && WEB_ORIGINS.includes(origin);",
      with: "return !origin || WEB_ORIGINS.includes(origin);")
    #expect(lenient != routes)
    let directory = try overlay([path: lenient])
    defer { try? FileManager.default.removeItem(at: directory) }
    let changed = try AppRepository(directory: directory.path).builds(for: .prod)[.ios]?.bridge?
      .handoffServer.routes
    #expect(changed?.checksOrigin?.value == false)
    let hits = try findings([path: lenient]).filter { $0.rule == "handoff-server" }
    #expect(hits.map(\.value) == ["Origin"])
  }

  /// A refusal of receive() whose condition qualify cannot evaluate is listed as such (the
  /// run says so), never taken as passing or refusing a well-formed message.
  @Test func anUnreadRefusalOfReceiveIsListedNotJudged() throws {
    let path = "apps/mobile/src/bridge/nativeBridge.ts"
    let code = try sample(path)
    let sampleBuild = try #require(
      try AppRepository(directory: Fixtures.bridgeApp).builds(for: .prod)[.ios])
    #expect(sampleBuild.bridge?.receiverUnjudgedRefusals.isEmpty == true)
    let duplicate = try #require(
      code.range(of: #"if \(!\w+\.rememberMessage\("#, options: .regularExpression))
    let unread = code.replacingCharacters(
      in: duplicate, with: "if (!(await this.admits(command)) && !registry.rememberMessage(")
    let directory = try overlay([path: unread])
    defer { try? FileManager.default.removeItem(at: directory) }
    let build = try AppRepository(directory: directory.path).builds(for: .prod)[.ios]
    let unjudged = try #require(build?.bridge?.receiverUnjudgedRefusals.first)
    #expect(unjudged.value.contains("this.admits(command)"))
    #expect(build?.bridge?.receiverRefusesWellFormed == nil)
  }

  /// The throttle's bound as the code writes it: a route's rateLimit, or the issue's refusal
  /// of a user holding too many codes that the route answers with 429 (OpenMapX's idiom).
  @Test func theHandoffThrottleBoundIsReadInBothIdioms() throws {
    let build = try #require(
      try AppRepository(directory: Fixtures.bridgeApp).builds(for: .prod)[.ios])
    #expect(
      build.bridge?.handoffServer.routes?.throttle?.value == .redemptions(max: 10, seconds: 60))
    #expect(HandoffRoutesReader.windowSeconds("30 seconds") == 30)
    #expect(HandoffRoutesReader.windowSeconds("2h") == 7200)
    #expect(HandoffRoutesReader.windowSeconds("60000") == 60)
    #expect(HandoffRoutesReader.windowSeconds("soon") == nil)
    let routesPath = "apps/api/src/routes/mobileAuthRoutes.ts"
    let servicePath = "apps/api/src/services/mobileAuthHandoff.ts"
    let routes = try sample(routesPath).replacingOccurrences(
      of: "      config: { rateLimit: { max: 10, timeWindow: \"1 minute\" } },\n", with: ""
    ).replacingOccurrences(
      of: "if (!result.ok) return reply.code(400)",
      with: "if (!result.ok) return reply.code(result.reason === \"too-many-attempts\" ? 429 : 400)"
    )
    let service = try sample(servicePath).replacingOccurrences(
      of: "  async issue(userId: string, codeChallenge: string, state: string, nowMs: number) {",
      with: """
          async issue(userId: string, codeChallenge: string, state: string, nowMs: number) {
            const held = await this.outstanding(userId, nowMs);
            if (held >= MAX_OUTSTANDING_PER_USER) {
              return { ok: false, reason: "too-many-attempts" };
            }
        """
    ).replacingOccurrences(
      of: "export const HANDOFF_TTL_MS",
      with: "export const MAX_OUTSTANDING_PER_USER = 5;\nexport const HANDOFF_TTL_MS")
    #expect(
      routes.contains("429") && !routes.contains("rateLimit")
        && service.contains("MAX_OUTSTANDING_PER_USER = 5"))
    let directory = try overlay([routesPath: routes, servicePath: service])
    defer { try? FileManager.default.removeItem(at: directory) }
    let outstanding = try AppRepository(directory: directory.path).builds(for: .prod)[.ios]?
      .bridge?.handoffServer.routes?.throttle
    #expect(outstanding?.value == .outstandingCodes(max: 5))
    #expect(outstanding?.location?.file.hasSuffix("mobileAuthHandoff.ts") == true)
  }

  @Test func refusalConditionsAreJudgedOnAWellFormedMessage() {
    let never: (String) -> Bool = { _ in false }
    let cases: [(String, Bool?)] = [
      ("!result", nil),
      ("!parsed.ok", false),
      ("parsed.error", false),
      ("typeof event.url !== \"string\"", false),
      ("message.type === \"web.hello\"", true),
      ("message.type !== \"web.hello\" && message.protocolVersion !== negotiated", false),
      ("message.type !== \"web.hello\" || message.protocolVersion !== negotiated", true),
      ("seen.has(message.messageId)", false),
      ("!seen.has(message.messageId)", true),
      ("data.length > MAX_MESSAGE_BYTES", false),
      ("value === undefined", false),
      ("value !== null", true),
      ("lookup(x)", nil),
    ]
    for (condition, expected) in cases {
      #expect(
        RefusalCondition.refusesWellFormed(condition, required: never) == expected, "\(condition)")
    }
    #expect(RefusalCondition.refusesWellFormed("channel", required: { $0 == "channel" }) == true)
    #expect(RefusalCondition.refusesWellFormed("!channel", required: { $0 == "channel" }) == false)
  }

  @Test func theDiagnosticsAllowlistIsReadAndItsHandoffFieldsNamed() throws {
    let path = "apps/mobile/src/diagnostics/diagnosticLog.ts"
    let code = try sample(path)
    let build = try #require(
      try AppRepository(directory: Fixtures.bridgeApp).builds(for: .prod)[.ios])
    let allowed = try #require(build.bridge?.diagnosticsAllows)
    #expect(allowed.value.contains("status") && !allowed.value.contains("state"))
    #expect(build.bridge?.diagnosticsExcludes == nil)
    #expect(try findings([path: code]).filter { $0.rule == "handoff-diagnostics" }.isEmpty)
    let keeps = code.replacingOccurrences(
      of: "[\"code\", \"direction\"]", with: "[\"code\", \"direction\", \"codeVerifier\"]")
    #expect(keeps != code)
    let hits = try findings([path: keeps]).filter { $0.rule == "handoff-diagnostics" }
    #expect(hits.map(\.value) == ["codeVerifier"])
    #expect(hits.first?.location?.line == 10)
    // Declared and never applied is no allowlist: nothing is known to be kept out.
    let unapplied = code.replacingOccurrences(
      of: "if (!permitted.includes(name)) {", with: "if (false) {")
    let directory = try overlay([path: unapplied])
    defer { try? FileManager.default.removeItem(at: directory) }
    let unread = try #require(
      try AppRepository(directory: directory.path).builds(for: .prod)[.ios]?.bridge)
    #expect(unread.diagnosticsAllows == nil)
    #expect(unread.diagnosticsExcludes?.value == [])
  }

  @Test func credentialsAreRefusedInEveryFormOrTheGapIsNamed() throws {
    let policy = try sample("apps/mobile/src/shell/originPolicy.ts")
    // `!== ""` on each says the same as truthiness for the URL's string fields.
    let explicit = policy.replacingOccurrences(
      of: "if (target.username || target.password)",
      with: "if (target.username !== \"\" || target.password !== \"\")")
    #expect(try findings(["apps/mobile/src/shell/originPolicy.ts": explicit]).isEmpty)
    let both = policy.replacingOccurrences(
      of: "target.username || target.password", with: "target.username && target.password")
    let hits = try findings(["apps/mobile/src/shell/originPolicy.ts": both])
    #expect(hits.map(\.rule) == ["navigation-policy"])
    #expect(hits.first?.message.contains("a user name alone") == true)
    #expect(hits.first?.message.contains("a password alone") == true)
    #expect(hits.first?.location?.line == 35)
    let none = policy.replacingOccurrences(
      of: "  if (target.username || target.password) return \"reject\";\n", with: "")
    #expect(
      try findings(["apps/mobile/src/shell/originPolicy.ts": none]).map(\.value) == ["username"])
  }

  @Test func theLengthBoundKeepsTheLimitAndRefusesOneMore() throws {
    let policy = try sample("apps/mobile/src/shell/originPolicy.ts")
    let inclusive = policy.replacingOccurrences(
      of: "rawUrl.length > MAX_NAVIGATION_URL_LENGTH",
      with: "rawUrl.length >= MAX_NAVIGATION_URL_LENGTH")
    let hits = try findings(["apps/mobile/src/shell/originPolicy.ts": inclusive])
    #expect(hits.map(\.rule) == ["navigation-policy"])
    #expect(hits.first?.message.contains("refuses a URL of exactly 8192 characters") == true)
    // Written the other way round, the same bound.
    let flipped = policy.replacingOccurrences(
      of: "rawUrl.length > MAX_NAVIGATION_URL_LENGTH",
      with: "MAX_NAVIGATION_URL_LENGTH < rawUrl.length")
    #expect(try findings(["apps/mobile/src/shell/originPolicy.ts": flipped]).isEmpty)
    let directory = try overlay(["apps/mobile/src/shell/originPolicy.ts": flipped])
    defer { try? FileManager.default.removeItem(at: directory) }
    let build = try #require(try AppRepository(directory: directory.path).builds(for: .prod)[.ios])
    #expect(build.bridge?.navigation.lengthRefusal?.value.value != nil)
    #expect(build.bridge?.navigation.lengthLimit?.value == 8192)
    // A limit computed from something else is not taken as read.
    let computed = policy.replacingOccurrences(
      of: "MAX_NAVIGATION_URL_LENGTH = 8 * 1024;", with: "MAX_NAVIGATION_URL_LENGTH = limits.url;")
    let unread = try findings(["apps/mobile/src/shell/originPolicy.ts": computed])
    #expect(unread.map(\.severity) == [.unverified])
  }

  /// Correct policies in other idioms are never errors; a test on the wrong URL, or one that
  /// runs after the origin is allowed, is not taken as a refusal.
  @Test func earlyRefusalsInOtherIdiomsAndOnTheWrongURL() throws {
    let policy = try sample("apps/mobile/src/shell/originPolicy.ts")
    let file = "apps/mobile/src/shell/originPolicy.ts"
    let merged = policy.replacingOccurrences(
      of: "if (rawUrl.length > MAX_NAVIGATION_URL_LENGTH)",
      with:
        "if (typeof rawUrl !== \"string\" || !rawUrl || rawUrl.length > MAX_NAVIGATION_URL_LENGTH)")
    #expect(try findings([file: merged]).isEmpty)
    let product = policy.replacingOccurrences(
      of: "if (target.username || target.password)",
      with: "if (product.username || product.password)")
    // Run on URLs, the function shows what the piece could not: credentials pass.
    let productHits = try findings([file: product])
    #expect(productHits.map(\.severity) == [.error, .error])
    #expect(
      productHits.compactMap(\.value) == [
        "https://user@openmapx.com/", "https://:secret@openmapx.com/",
      ])
    let refusal = "  if (target.username || target.password) return \"reject\";\n"
    let allow = "  if (target.origin === product.origin) return \"allow-in-webview\";\n"
    let late = policy.replacingOccurrences(of: refusal, with: "")
      .replacingOccurrences(of: allow, with: allow + refusal)
    let hits = try findings([file: late])
    #expect(hits.map(\.severity) == [.error])
    #expect(hits.first?.message.contains("only after it answers allow-in-webview") == true)
    let module = try sample("packages/core/src/navigation/mobileProtocol.ts").replacingOccurrences(
      of: "      protocolVersion: z.number().int().min(1).max(64),",
      with: "      protocolVersion: z.literal(3),")
    #expect(try findings(["packages/core/src/navigation/mobileProtocol.ts": module]).isEmpty)
  }

  @Test func aSchemaDiscriminatingOnAnotherFieldDropsEveryMessage() throws {
    let module = try sample("packages/core/src/navigation/mobileProtocol.ts").replacingOccurrences(
      of: "export const nativeToWebSchema = z.discriminatedUnion(\"type\"",
      with: "export const nativeToWebSchema = z.discriminatedUnion(\"kind\"")
    let hits = try findings(["packages/core/src/navigation/mobileProtocol.ts": module])
    #expect(hits.map(\.rule) == ["protocol-vocabulary"])
    #expect(hits.first?.value == "kind")
  }

  @Test func aDecisionStringNeverReturnedIsFoundAtItsLine() throws {
    let app = try sample("apps/mobile/src/App.tsx").replacingOccurrences(
      of: "return decision === \"allow-in-webview\"", with: "return decision === \"allow\"")
    let hits = try findings(["apps/mobile/src/App.tsx": app])
    #expect(hits.map(\.rule) == ["navigation-policy"])
    #expect(hits.first?.location?.line == 41)
    #expect(hits.first?.severity == .error)
  }

  @Test func aPolicyFileThatIsMissingLeavesTheDecisionUnverified() throws {
    let app = try sample("apps/mobile/src/App.tsx").replacingOccurrences(
      of: "./shell/originPolicy", with: "@openmapx/core/navigation/originPolicy")
    let directory = try overlay(["apps/mobile/src/App.tsx": app])
    defer { try? FileManager.default.removeItem(at: directory) }
    // The overlay cannot delete a base file; a policy without classifyNavigation stands in.
    try Data("export const NOTHING = 1;\n".utf8).write(
      to: directory.appendingPathComponent("apps/mobile/src/shell/originPolicy.ts")
        .creatingDirectory())
    let build = try #require(try AppRepository(directory: directory.path).builds(for: .prod)[.ios])
    let hit = try #require(
      BuildGuards.findings(for: build).first { $0.rule == "navigation-policy" })
    #expect(hit.severity == .unverified)
    #expect(hit.location?.file.hasSuffix("App.tsx") == true)
  }

  @Test func aRenamedTypeAndAnUnacceptedStatusAreFoundOnBothSides() throws {
    let module = try sample("packages/core/src/navigation/mobileProtocol.ts").replacingOccurrences(
      of: "  \"settings.open\",", with: "  \"settings.show\",")
    let hits = try findings(["packages/core/src/navigation/mobileProtocol.ts": module])
    #expect(Set(hits.compactMap(\.value)) == ["settings.show", "settings.open"])
    let auth = try sample("apps/mobile/src/auth/SystemAuthSession.ts").replacingOccurrences(
      of: "if (!code) return { status: \"failed\" as const };",
      with: "if (!code) return { status: \"error\" as const };")
    let statusHits = try findings(["apps/mobile/src/auth/SystemAuthSession.ts": auth])
    #expect(statusHits.map(\.value) == ["error"])
  }

  /// classifyNavigation is run on look-alike URLs, so a regression in a shape no piece of the
  /// reader looks for — an early allow on a host suffix — is found all the same.
  @Test func theNavigationPolicyIsRunOnLookAlikeURLs() throws {
    let original = try sample("apps/mobile/src/shell/originPolicy.ts")
    #expect(try findings(["apps/mobile/src/shell/originPolicy.ts": original]).isEmpty)
    let suffix = original.replacingOccurrences(
      of: "  if (target.origin === product.origin) return \"allow-in-webview\";",
      with:
        "  const sameSite = target.hostname.endsWith(product.hostname);\n  if (sameSite && RENDERABLE.has(target.protocol)) return \"allow-in-webview\";"
    )
    #expect(suffix != original)
    let hits = try findings(["apps/mobile/src/shell/originPolicy.ts": suffix])
    #expect(Set(hits.map(\.rule)) == ["navigation-policy"])
    #expect(hits.allSatisfy { $0.severity == .error })
    // A host ending with the product's, and the product's host on another scheme or port.
    #expect(
      hits.compactMap(\.value) == [
        "https://evil-openmapx.com/", "http://openmapx.com/", "https://openmapx.com:8443/",
      ])
    #expect(hits.first?.location?.file.hasSuffix("originPolicy.ts") == true)
    // The control: a blob URL let through because the scheme test was dropped.
    let blob = original.replacingOccurrences(
      of: "  if (!RENDERABLE.has(target.protocol)) {",
      with: "  if (false) {")
    #expect(blob != original)
    let blobHits = try findings(["apps/mobile/src/shell/originPolicy.ts": blob])
    #expect(blobHits.compactMap(\.value).contains("blob:https://openmapx.com/0d9e"))
  }

  @Test func aPrivateRangeTheHostCheckMissesIsNamed() throws {
    let original = try sample("apps/mobile/config/mobileConfig.ts")
    let config = original.replacingOccurrences(
      of: "first === 127 || first === 10", with: "first === 127")
    #expect(config != original)
    let hits = try findings(["apps/mobile/config/mobileConfig.ts": config])
    #expect(hits.map(\.rule) == ["release-origin-check"])
    #expect(hits.first?.value == "10.0.2.2")
    // The seed's own name for the test, with the opposite sense, is read the same way.
    let positive = original.replacingOccurrences(
      of: "function isNonPublicHost(hostname: string): boolean {\n  const host",
      with:
        "function isPublicHost(hostname: string): boolean {\n  return !isLan(hostname);\n}\nfunction isLan(hostname: string): boolean {\n  const host"
    ).replacingOccurrences(of: "first === 127 || first === 10", with: "first === 127")
      .replacingOccurrences(
        of: "isNonPublicHost(url.hostname)", with: "!isPublicHost(url.hostname)")
    #expect(positive != original)
    let positiveHits = try findings(["apps/mobile/config/mobileConfig.ts": positive])
    #expect(positiveHits.map(\.value) == ["10.0.2.2"])
    // A test qualify cannot run is unverified at its line, never passed.
    let opaque = original.replacingOccurrences(
      of: "if (!octets) return false;",
      with: "if (isIP(host) === 6) return true;\n  if (!octets) return false;")
    let opaqueHits = try findings(["apps/mobile/config/mobileConfig.ts": opaque])
    #expect(opaqueHits.map(\.severity) == [.unverified, .unverified])
    let check = opaqueHits.first { $0.rule == "release-origin-check" }
    #expect(check?.location?.line == 36)
    // The config module, which calls the same test, is not run on the build env either.
    let run = opaqueHits.first { $0.rule == "config-accepts-env" }
    #expect(run?.message.contains("isIP(), which neither the module nor qualify defines") == true)
  }
}

extension URL {
  /// The URL, its folder created.
  fileprivate func creatingDirectory() throws -> URL {
    try FileManager.default.createDirectory(
      at: deletingLastPathComponent(), withIntermediateDirectories: true)
    return self
  }
}
