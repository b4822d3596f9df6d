import Foundation
import QualifyTestSupport
import Testing

/// A second kind of shell (seed 004): its own scenarios, its own checklist, its own guards.
@Suite struct InstanceShellCLITests {
  let scratch: URL

  init() throws {
    scratch = try Fixtures.temporaryDirectory("qualify-instance-shell")
  }

  @Test func theMultiInstanceSampleRunsItsOwnScenariosAgainstSeed004sChecklist() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let run = try CLI.run(
      [
        "--app", Fixtures.instanceShellApp, "--channel", "prod", "--scenarios", CLI.scenarios,
        "--seed", "2", "--json", "--report-dir", scratch.appendingPathComponent("Reports").path,
      ], in: scratch)
    #expect(run.status == 0, "\(run.stderr.suffix(1500))")
    let results = try StackCLITests.results(run)
    #expect(!results.isEmpty)
    // Only the scenarios that say `shell multi-instance` run on it.
    #expect(results.keys.allSatisfy { $0.hasPrefix("instances/") }, "\(results.keys.sorted())")
    for (id, result) in results {
      #expect(result["verdict"] as? String == "passed", "\(id): \(result["message"] ?? "")")
    }
    // The report's checklist is the seed's review checklist, not seed 000's.
    let reports = scratch.appendingPathComponent("Reports/runs")
    let run0 = try #require(try FileManager.default.contentsOfDirectory(atPath: reports.path).first)
    let html = try String(
      contentsOf: reports.appendingPathComponent(run0 + "/index.html"), encoding: .utf8)
    #expect(html.contains("Real physical device verification"))
    #expect(html.contains("The app&#39;s own test suite passes") || html.contains("own test suite"))
    #expect(!html.contains("iOS cross-app SSO"))
    #expect(!html.contains("ProConnect"))

    // And the messages app does not run them.
    let messages = try CLI.run(
      [
        "--app", Fixtures.sampleApp, "--channel", "prod", "--scenarios", CLI.scenarios,
        "--filter", "instances/*",
      ], in: scratch)
    #expect(messages.status == 2)
    #expect(messages.stderr.contains("no scenario applies"))
  }

  /// Issue 28: a release that does not ship deep links says so (`features.deepLinks = false`):
  /// no scheme is asked for, the deep-link items are "not in this release" in the verdict,
  /// and the run can qualify; the same run without the declaration proves them.
  @Test func aReleaseWithoutDeepLinksSaysSoAndQualifies() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    // The release as it would ship without deep links: no scheme registered on either side.
    let plistPath = "ios/App/App/Info.plist"
    let manifestPath = "android/app/src/main/AndroidManifest.xml"
    let plist = try String(
      contentsOfFile: Fixtures.instanceShellApp + "/" + plistPath, encoding: .utf8)
    let manifest = try String(
      contentsOfFile: Fixtures.instanceShellApp + "/" + manifestPath, encoding: .utf8)
    let urlTypes = try #require(
      plist.range(
        of: #"\t<key>CFBundleURLTypes</key>\n\t<array>[\s\S]*?\n\t</array>\n"#,
        options: .regularExpression))
    let filter = try #require(
      manifest.range(
        of: #"\s*<!-- sovereign:[\s\S]*?</intent-filter>"#, options: .regularExpression))
    let declaration = """
      {"base": "\(Fixtures.instanceShellApp)", "features": {"deepLinks": false}}
      """
    let app = try Fixtures.overlayApp(
      "qualify-no-deep-links", base: Fixtures.instanceShellApp,
      files: [
        "qualify.json": declaration,
        plistPath: plist.replacingCharacters(in: urlTypes, with: ""),
        manifestPath: manifest.replacingCharacters(in: filter, with: ""),
      ])
    defer { try? FileManager.default.removeItem(at: app) }
    // The declaration over a build that still registers the scheme: the release ships what
    // it says it does not.
    let shipping = try Fixtures.overlayApp(
      "qualify-deep-links-shipped", base: Fixtures.instanceShellApp,
      files: ["qualify.json": declaration])
    defer { try? FileManager.default.removeItem(at: shipping) }
    func run(_ directory: String, only filter: String? = nil) throws -> (
      ProcessResult, [String: Any]
    ) {
      let run = try CLI.run(
        [
          "--app", directory, "--channel", "prod", "--scenarios", CLI.scenarios, "--seed", "2",
          "--json",
        ] + (filter.map { ["--filter", $0, "--allow-partial"] } ?? []), in: scratch)
      let document = try #require(
        try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any],
        "\(run.stderr.suffix(800))")
      return (run, document)
    }
    func states(_ document: [String: Any]) -> [Int: Set<String>] {
      var out: [Int: Set<String>] = [:]
      for cell in document["checklist"] as? [[String: Any]] ?? [] {
        guard let item = cell["item"] as? Int, let state = cell["state"] as? String else {
          continue
        }
        out[item, default: []].insert(state)
      }
      return out
    }
    let (without, document) = try run(app.path)
    #expect(without.status == 0, "\(without.stdout.suffix(1500))")
    for item in [10, 11, 12] {
      #expect(states(document)[item] == ["not-in-this-release"], "item \(item)")
    }
    #expect(
      (document["checklistSummary"] as? String)?.contains("not in this release: 10, 11, 12") == true
    )
    for (id, result) in try StackCLITests.results(without) where id.contains("/deep-link-") {
      #expect(result["verdict"] as? String == "not-applicable", "\(id)")
      #expect(result["notApplicableCause"] as? String == "not-in-release", "\(id)")
    }
    let (declaredButShipped, _) = try run(shipping.path)
    #expect(declaredButShipped.status == 1)
    #expect(
      declaredButShipped.stdout.contains("release-features"),
      "\(declaredButShipped.stdout.suffix(600))")
    // The control: the sample ships deep links, and the same scenarios prove the items.
    let (with, shipped) = try run(Fixtures.instanceShellApp, only: "instances/deep-link-*")
    #expect(with.status == 0)
    for item in [10, 11, 12] { #expect(states(shipped)[item] == ["passed"], "item \(item)") }
  }

  /// A feature another kind has is bad input, not silently ignored.
  /// boot()'s redirect resting on a function the web code does not define: what a back_forward
  /// load does is unverified — the checks that rest on it are not applicable, the run is
  /// partial and the gate refuses it, never a pass on the simulation's assumption.
  @Test func anUnreadBootDecisionIsUnverifiedNotAssumed() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let main = try String(
      contentsOfFile: Fixtures.instanceShellApp + "/src/main.ts", encoding: .utf8)
    let redirect = "&& !isBackForward()) {"
    #expect(main.contains(redirect))
    let app = try Fixtures.overlayApp(
      "qualify-unread-boot", base: Fixtures.instanceShellApp,
      files: [
        "src/main.ts": main.replacingOccurrences(
          of: redirect, with: "&& shouldRedirect(performance)) {")
      ])
    defer { try? FileManager.default.removeItem(at: app) }
    let run = try CLI.run(
      ["--app", app.path, "--channel", "prod", "--scenarios", CLI.scenarios, "--seed", "3"],
      in: scratch)
    #expect(run.status == 1, "\(run.stdout.suffix(800))")
    #expect(run.stdout.contains("N/A instances/back-to-manager [ios]"), "\(run.stdout)")
    #expect(run.stdout.contains("boot()'s redirect is unverified at"), "\(run.stdout)")
    #expect(!run.stdout.contains("FAIL instances/"), "\(run.stdout)")
    #expect(
      run.stdout.contains("PASSED (partial: a decision in the app's code qualify cannot read"))
  }

  /// boot() handing the deeplink parameter to a function the web code does not define: what a
  /// link does is unverified, with where qualify looked — the deep-link checks are not
  /// applicable and the gate refuses the run, never a pass on the simulation's assumption.
  @Test func anUnfoundDeepLinkHandlerIsUnverifiedNotAssumed() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let main = try String(
      contentsOfFile: Fixtures.instanceShellApp + "/src/main.ts", encoding: .utf8)
    let call = "await handleDeepLink(deeplink)"
    #expect(main.contains(call))
    let app = try Fixtures.overlayApp(
      "qualify-unfound-deep-link", base: Fixtures.instanceShellApp,
      files: ["src/main.ts": main.replacingOccurrences(of: call, with: "await routeLink(deeplink)")]
    )
    defer { try? FileManager.default.removeItem(at: app) }
    let run = try CLI.run(
      [
        "--app", app.path, "--channel", "prod", "--scenarios", CLI.scenarios, "--seed", "3",
        "--filter", "instances/deep-link-*", "--filter", "instances/shell-code",
      ],
      in: scratch)
    #expect(run.status == 1, "\(run.stdout.suffix(800))")
    #expect(run.stdout.contains("N/A instances/deep-link-known [ios]"), "\(run.stdout)")
    #expect(run.stdout.contains("N/A instances/shell-code [android]"), "\(run.stdout)")
    #expect(
      run.stdout.contains("routeLink(), which the web code does not define"), "\(run.stdout)")
    #expect(!run.stdout.contains("PASS instances/deep-link-known"), "\(run.stdout)")
    let check = try CLI.run(["check-app", "--app", app.path, "--channel", "prod"], in: scratch)
    #expect(
      check.stdout.contains("2 rules unverified: a decision qualify cannot read, so a prod run"),
      "\(check.stdout)")
  }

  @Test func aFeatureTheKindDoesNotHaveIsBadInput() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let app = try Fixtures.overlayApp(
      "qualify-deep-links-elsewhere", base: Fixtures.sampleApp,
      files: [
        "qualify.json": """
        {"base": "\(Fixtures.sampleApp)", "features": {"deepLinks": false}}
        """
      ])
    defer { try? FileManager.default.removeItem(at: app) }
    let run = try CLI.run(["check-app", "--app", app.path, "--channel", "prod"], in: scratch)
    #expect(run.status == 2)
    #expect(run.stderr.contains("features.deepLinks"), "\(run.stderr)")
  }

  @Test func aScenarioOfAnotherShellKindIsBadInputForQualifyRun() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let run = try CLI.run(
      [
        "run", "instances/ios-sources-compiled", "--app", Fixtures.sampleApp, "--scenarios",
        CLI.scenarios,
      ], in: scratch)
    #expect(run.status == 2)
    #expect(
      run.stderr.contains(
        "instances/ios-sources-compiled drives a multi-instance shell, and Messages is a single-origin shell"
      ), "\(run.stderr)")
  }

  @Test func theShellLineIsCheckedAndNumbersTheChecklist() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let folder = scratch.appendingPathComponent("scenarios")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data(
      """
      scenario "Wrong shell kinds"
        checklist 12
        shell multi-instances

        device phone
        app sovereign on phone

        step "inspected"
          sovereign is inspected
          expect no finding launcher-activity

        control "no launcher"
          mutate app.no-launcher-activity
          fails at step 1
      """.utf8
    ).write(to: folder.appendingPathComponent("bad.scenario"))
    let run = try CLI.run(["list", "--scenarios", folder.path], in: scratch)
    #expect(run.status == 2)
    #expect(run.stderr.contains("bad.scenario:2:13: error: '12' is not a release checklist item"))
    #expect(run.stderr.contains("seed 000, Release checklist (manual) has items 1 to 8"))
    #expect(run.stderr.contains("bad.scenario:3:9: error: unknown shell kind 'multi-instances'"))
  }

  /// A Sovereign-style instance of its own (Tests/Fixtures/interop/sovereign_instance.py) on
  /// loopback over HTTPS, answering `product` at /api/instance.
  func instance(product: String = "sovereign") throws -> (peer: TestPeer, stack: String) {
    let port = try TestPeer.freePort()
    let peer = try TestPeer(
      python: "/usr/bin/python3", script: "interop/sovereign_instance.py",
      input: [
        "port": port, "host": "localhost", "name": "Team", "product": product,
        "ca_file": scratch.appendingPathComponent("instance-ca.pem").path,
      ])
    let stack = scratch.appendingPathComponent("stack.json")
    try Data(
      #"{"instances": {"work": "https://localhost:\#(port)"}, "caFile": "instance-ca.pem"}"#.utf8
    ).write(to: stack)
    return (peer, stack.path)
  }

  /// With `--stack`, the instance the scenarios call `work` is a real one: onboarding checks
  /// its /api/instance, the shell loads its pages, and the results say so.
  @Test func aRealInstanceIsCheckedAndLoaded() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let (peer, stack) = try instance()
    defer { peer.stop() }
    let run = try CLI.run(
      [
        "--app", Fixtures.instanceShellApp, "--channel", "prod", "--scenarios", CLI.scenarios,
        "--stack", stack, "--filter", "instances/first-launch", "--filter",
        "instances/navigation-policy", "--filter", "instances/deep-link-known", "--json",
      ], in: scratch)
    #expect(run.status == 0, "\(run.stderr.suffix(1500))")
    let results = try StackCLITests.results(run)
    #expect(results.count == 6)
    for (id, result) in results {
      #expect(result["verdict"] as? String == "passed", "\(id): \(result["message"] ?? "")")
      // A proof is real where its deciding steps talked to the instance: on iOS the deep
      // link's is the back gesture returning to the local manager, which no instance serves.
      let expected = id == "instances/deep-link-known [ios]" ? "simulated" : "real"
      #expect(result["proof"] as? String == expected, "\(id)")
    }
    #expect(run.stdout.contains("real instances: work at https://localhost:"))
  }

  @Test func aRealSiteThatIsNotAnInstanceIsBadInput() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let (peer, stack) = try instance(product: "wordpress")
    defer { peer.stop() }
    let run = try CLI.run(
      ["--app", Fixtures.instanceShellApp, "--channel", "prod", "--stack", stack], in: scratch)
    #expect(run.status == 2)
    #expect(
      run.stderr.contains("the real instance work at https://localhost:")
        && run.stderr.contains("does not answer as a Sovereign instance"), "\(run.stderr)")
  }

  @Test func stackFileMistakesForAMultiInstanceShellAreBadInput() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    for (text, words) in [
      (#"{"instances": {"work": "http://127.0.0.1:9"}}"#, "reaches instances over https only"),
      (
        #"{"instances": {"work": "https://one.example", "home": "https://one.example"}}"#,
        "are the same origin"
      ),
      (#"{"instances": {"blog": "https://one.example"}}"#, #"unknown key "blog" in instances"#),
      (
        #"{"ota": {"manifestURL": "https://127.0.0.1:9/m.json"}, "timeout": "1s"}"#,
        "\"ota\" is named by a single-origin app's stack file, and the app is a multi-instance shell: its stack file names instances only"
      ),
    ] {
      try Data(text.utf8).write(to: scratch.appendingPathComponent("stack.json"))
      let run = try CLI.run(
        ["--app", Fixtures.instanceShellApp, "--channel", "prod", "--stack", "stack.json"],
        in: scratch)
      #expect(run.status == 2, "\(text): \(run.stderr)")
      #expect(run.stderr.contains(words), "\(text): \(run.stderr)")
    }
    // And the other way round: instances are not the messages app's.
    try Data(#"{"instances": {"work": "https://one.example"}}"#.utf8).write(
      to: scratch.appendingPathComponent("stack.json"))
    let messages = try CLI.run(
      ["--app", Fixtures.sampleApp, "--channel", "prod", "--stack", "stack.json"], in: scratch)
    #expect(messages.status == 2)
    #expect(
      messages.stderr.contains(
        "\"instances\" is named by a multi-instance app's stack file, and the app is a single-origin shell: its stack file names identityProvider, backend and ota only"
      ), "\(messages.stderr)")
    // Each kind's refusal comes from its own schema: a bridge app is not told it is a hybrid one.
    try Data(#"{"timeout": "1s"}"#.utf8).write(to: scratch.appendingPathComponent("stack.json"))
    let bridge = try CLI.run(
      ["--app", Fixtures.root + "/Scenarios/apps/openmapx", "--stack", "stack.json"], in: scratch)
    #expect(bridge.status == 2)
    #expect(
      bridge.stderr.contains(
        "a react-native-bridge app's scenarios run against the embedded web app")
        && !bridge.stderr.contains("hybrid"),
      "\(bridge.stderr)")
    let hybrid = try CLI.run(
      ["--app", Fixtures.root + "/Scenarios/apps/appplatform", "--stack", "stack.json"],
      in: scratch)
    #expect(hybrid.status == 2)
    #expect(
      hybrid.stderr.contains("a hybrid-webview app's scenarios run against the embedded site only")
        && hybrid.stderr.contains("qualify links verify"), "\(hybrid.stderr)")
  }

  @Test func aStatementOfAnotherKindOfShellIsAParseError() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let folder = scratch.appendingPathComponent("scenarios")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data(
      """
      scenario "Mixed"
        device phone
        app mail on phone

        step "one"
          mail starts
          expect onboarding on mail

        control "none"
          mutate shell.no-pageshow-handler
          fails at step 1
      """.utf8
    ).write(to: folder.appendingPathComponent("mixed.scenario"))
    let run = try CLI.run(["list", "--scenarios", folder.path], in: scratch)
    #expect(run.status == 2)
    #expect(
      run.stderr.contains(
        "mixed.scenario:6:5: error: 'mail starts' belongs to the instances pack, for multi-instance shells; this scenario drives a single-origin shell"
      ), "\(run.stderr)")
    #expect(
      run.stderr.contains("the statement needs 'shell multi-instance' in the scenario's header"))
    // The hint names the statement's own kind, whichever it is.
    try FileManager.default.removeItem(at: folder.appendingPathComponent("mixed.scenario"))
    try Data(
      """
      scenario "Mixed"
        device phone
        app site on phone

        step "one"
          site is opened
          expect onboarding on site

        control "none"
          mutate shell.no-pageshow-handler
          fails at step 1
      """.utf8
    ).write(to: folder.appendingPathComponent("hybrid.scenario"))
    let hybrid = try CLI.run(["list", "--scenarios", folder.path], in: scratch)
    #expect(hybrid.status == 2)
    #expect(
      hybrid.stderr.contains("the statement needs 'shell hybrid-webview' in the scenario's header"),
      "\(hybrid.stderr)")
  }
}

/// Issue 23, A: the navigation policy's same-origin decision is read from the code; a bug in
/// it fails, and a condition qualify cannot evaluate is unverified with its location and
/// keeps a prod run from passing.
@Suite struct SameOriginDecisionCLITests {
  func copy(replacing old: String, with new: String, in file: String) throws -> URL {
    let app = try Fixtures.temporaryApp("qualify-same-origin")
    try FileManager.default.removeItem(at: app)
    try FileManager.default.copyItem(
      at: URL(fileURLWithPath: Fixtures.instanceShellApp), to: app)
    let url = app.appendingPathComponent(file)
    let text = try String(contentsOf: url, encoding: .utf8)
    #expect(text.contains(old))
    try text.replacingOccurrences(of: old, with: new).write(
      to: url, atomically: true, encoding: .utf8)
    return app
  }

  static let iosPolicy = "ios/App/App/MainViewController.swift"
  static let iosCondition =
    "url.scheme == active.scheme && url.host == active.host && url.port == active.port"

  @Test func aPortLeftOutOfTheConditionFailsStaticallyAndAtRunTime() throws {
    let app = try copy(
      replacing: Self.iosCondition, with: "url.scheme == active.scheme && url.host == active.host",
      in: Self.iosPolicy)
    defer { try? FileManager.default.removeItem(at: app) }
    let check = try CLI.run(["check-app", "--app", app.path, "--platform", "ios"], in: app)
    #expect(check.status == 1, "\(check.stdout)")
    #expect(check.stdout.contains("MainViewController.swift:55"), "\(check.stdout)")
    #expect(check.stdout.contains("the same host on another port"), "\(check.stdout)")
    let run = try CLI.run(
      [
        "--app", app.path, "--scenarios", CLI.scenarios, "--platform", "ios", "--filter",
        "instances/navigation-policy", "--seed", "3",
      ], in: app)
    #expect(run.status == 1, "\(run.stdout)")
    #expect(run.stdout.contains("FAIL instances/navigation-policy [ios]"), "\(run.stdout)")
  }

  @Test func aConditionQualifyCannotEvaluateIsUnverifiedAndBlocksTheGate() throws {
    let app = try copy(
      replacing: Self.iosCondition,
      with: "url.host?.caseInsensitiveCompare(active.host ?? \"\") == .orderedSame",
      in: Self.iosPolicy)
    defer { try? FileManager.default.removeItem(at: app) }
    let check = try CLI.run(
      ["check-app", "--app", app.path, "--platform", "ios", "--explain"], in: app)
    #expect(check.stdout.contains("unverif"), "\(check.stdout)")
    #expect(check.stdout.contains("MainViewController.swift:55"), "\(check.stdout)")
    #expect(check.stdout.contains("same-origin decision (stays in the WebView when): unverified"))
    let run = try CLI.run(
      ["--app", app.path, "--scenarios", CLI.scenarios, "--platform", "ios", "--seed", "3"],
      in: app)
    // --platform is the command line's own reduction; the unverified decision is the app's.
    #expect(run.status == 1, "\(run.stdout)")
    #expect(!run.stdout.contains("\nQUALIFIED"), "\(run.stdout)")
    #expect(run.stdout.contains("MainViewController.swift:55"), "\(run.stdout)")
  }
}

/// ios-store-bundle reads the Info.plist the build ships, generated parts included.
@Suite struct StoreBundleCLITests {
  func check(_ edits: [(file: String, old: String, new: String)]) throws -> ProcessResult {
    let app = try Fixtures.temporaryApp("qualify-store-bundle")
    try FileManager.default.removeItem(at: app)
    try FileManager.default.copyItem(at: URL(fileURLWithPath: Fixtures.sampleApp), to: app)
    defer { try? FileManager.default.removeItem(at: app) }
    for edit in edits {
      let url = app.appendingPathComponent(edit.file)
      let text = try String(contentsOf: url, encoding: .utf8)
      #expect(text.contains(edit.old), "\(edit.file)")
      try text.replacingOccurrences(of: edit.old, with: edit.new).write(
        to: url, atomically: true, encoding: .utf8)
    }
    return try CLI.run(["check-app", "--app", app.path, "--platform", "ios"], in: app)
  }

  static let plist = "src/frontend/ios/App/App/Info.plist"
  static let project = "src/frontend/ios/App/App.xcodeproj/project.pbxproj"
  static let version =
    "\t<key>CFBundleShortVersionString</key>\n\t<string>$(MARKETING_VERSION)</string>\n"

  @Test func aMissingVersionKeyIsCaughtUnlessXcodeGeneratesIt() throws {
    let missing = try check([(Self.plist, Self.version, "")])
    #expect(missing.status == 1, "\(missing.stdout)")
    #expect(missing.stdout.contains("has no CFBundleShortVersionString"))
    let generated = try check([
      (Self.plist, Self.version, ""),
      (
        Self.project, "MARKETING_VERSION = \"$(MOBILE_VERSION_NAME:default=0.0.0)\";",
        "MARKETING_VERSION = \"$(MOBILE_VERSION_NAME:default=0.0.0)\";\n\t\t\t\tGENERATE_INFOPLIST_FILE = YES;"
      ),
    ])
    #expect(generated.status == 0, "\(generated.stdout)")
  }

  @Test func aLaunchScreenDictionaryStandsInForTheStoryboard() throws {
    let storyboard = "\t<key>UILaunchStoryboardName</key>\n\t<string>LaunchScreen</string>\n"
    let missing = try check([(Self.plist, storyboard, "")])
    #expect(missing.stdout.contains("has no UILaunchStoryboardName"), "\(missing.stdout)")
    let dictionary = try check([
      (Self.plist, storyboard, "\t<key>UILaunchScreen</key>\n\t<dict/>\n")
    ])
    #expect(dictionary.status == 0, "\(dictionary.stdout)")
  }
}
