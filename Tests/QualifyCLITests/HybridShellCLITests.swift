import Foundation
import QualifyTestSupport
import Testing

/// A third kind of shell (seed 003): the hybrid WebView containers, their pack, their checklist
/// and `qualify links verify`.
@Suite struct HybridShellCLITests {
  let scratch: URL

  init() throws {
    scratch = try Fixtures.temporaryDirectory("qualify-hybrid")
  }

  @Test func theHybridSampleQualifiesOnItsOwnChecklistWithEveryControlBiting() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let run = try CLI.run(
      [
        "--app", Fixtures.hybridApp, "--channel", "prod", "--scenarios", CLI.scenarios, "--seed",
        "4", "--report-dir", scratch.appendingPathComponent("Reports").path,
      ], in: scratch)
    #expect(run.status == 0, "\(run.stdout.suffix(2000))")
    #expect(run.stdout.contains("QUALIFIED — channel prod"))
    #expect(run.stdout.contains("9 of 9 checklist items covered"))
    // Every scenario run is a hybrid one, on both platforms, and every control bit.
    let verdicts = run.stdout.split(separator: "\n").filter {
      $0.hasPrefix("PASS ") || $0.hasPrefix("FAIL ")
    }
    #expect(verdicts.count == 25)
    #expect(verdicts.allSatisfy { $0.hasPrefix("PASS hybrid/") }, "\(verdicts)")
    #expect(verdicts.contains { $0.contains("hybrid/app-link [android]") })
    #expect(verdicts.contains { $0.contains("hybrid/universal-link [ios]") })
    #expect(verdicts.contains { $0.contains("hybrid/running-link [android]") })
    let controls = try #require(
      run.stdout.split(separator: "\n").first { $0.contains("controls bit") })
    let counts = controls.split(separator: ";").last?.split(separator: " ").first?.split(
      separator: "/")
    #expect(counts?.count == 2 && counts?.first == counts?.last, "\(controls)")
    // The report's checklist is seed 003's.
    let reports = scratch.appendingPathComponent("Reports/runs")
    let id = try #require(try FileManager.default.contentsOfDirectory(atPath: reports.path).first)
    let html = try String(
      contentsOf: reports.appendingPathComponent(id + "/index.html"), encoding: .utf8)
    #expect(html.contains("A push tap opens its targetUrl, not the home page"))
    #expect(!html.contains("iOS cross-app SSO"))
  }

  @Test func theOtherSampleAppsDoNotRunTheHybridPack() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    for app in [Fixtures.sampleApp, Fixtures.instanceShellApp] {
      let run = try CLI.run(
        ["--app", app, "--channel", "prod", "--scenarios", CLI.scenarios, "--filter", "hybrid/*"],
        in: scratch)
      #expect(run.status == 2, "\(app): \(run.stdout)")
      #expect(run.stderr.contains("no scenario applies"), "\(run.stderr)")
    }
  }

  /// `qualify links verify` fetches the files a served site really serves: the sample's pass,
  /// a copy serving the debug certificate's fingerprint fails naming the field.
  @Test func linksVerifyPassesAgainstTheServedSiteAndFailsAgainstABrokenCopy() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    func verify(serving app: String) throws -> ProcessResult {
      let (process, document) = try CLI.serve(in: scratch, app: app)
      defer { process.terminate() }
      let site = try #require((document["components"] as? [[String: Any]])?.first)
      #expect(site["name"] as? String == "site")
      let connectTo = try #require(site["connectTo"] as? String)
      return try CLI.run(
        [
          "links", "verify", "--domain", "https://appplatform.example", "--app",
          Fixtures.hybridApp, "--channel", "prod", "--cacert", "ca.pem", "--connect-to",
          connectTo,
        ], in: scratch)
    }
    let good = try verify(serving: Fixtures.hybridApp)
    #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
    #expect(good.stdout.contains("the site certifies the app on iOS and Android"))

    let broken = try verify(
      serving: Fixtures.regressionsDirectory + "/appplatform-assetlinks-debug-certificate")
    #expect(broken.status == 1, "\(broken.stdout)\(broken.stderr)")
    #expect(broken.stdout.contains("FAIL  Android"))
    #expect(broken.stdout.contains("[0].target.sha256_cert_fingerprints: lists FA:C6:17:45"))
    #expect(broken.stdout.contains("ok    iOS"))

    let wrongTeam = try verify(
      serving: Fixtures.regressionsDirectory + "/appplatform-aasa-wrong-team")
    #expect(wrongTeam.status == 1)
    #expect(wrongTeam.stdout.contains("applinks.details[0].appIDs: lists 8XK2M4QZ7Q"))
  }

  /// `qualify serve` and `qualify links` ask the kind's own data which apps they serve: an
  /// app of another kind is bad input naming the kinds they do serve.
  @Test func serveAndLinksRefuseTheKindsTheyDoNotServe() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let serve = try CLI.run(["serve", "--app", Fixtures.instanceShellApp], in: scratch)
    #expect(serve.status == 2, "\(serve.stdout)\(serve.stderr)")
    #expect(
      serve.stderr.contains(
        "single-origin or hybrid-webview app; sovereign is a multi-instance app"))
    let links = try CLI.run(
      ["links", "verify", "--domain", "https://openmapx.com", "--app", Fixtures.bridgeApp],
      in: scratch)
    #expect(links.status == 2, "\(links.stdout)\(links.stderr)")
    #expect(links.stderr.contains("is a react-native-bridge app: only a hybrid-webview app"))
  }

  @Test func linksVerifyRefusesBadInputWithExit2() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let cases: [([String], String)] = [
      (["links", "verify"], "needs --domain"),
      (["links", "verify", "--domain", "http://appplatform.example"], "https origin"),
      (["links", "check"], "subcommand: verify"),
      (
        [
          "links", "verify", "--domain", "https://appplatform.example", "--app", Fixtures.sampleApp,
        ],
        "single-origin app"
      ),
      (
        [
          "links", "verify", "--domain", "https://appplatform.example", "--connect-to",
          "appplatform.example:443:10.0.0.1:443",
        ], "loopback only"
      ),
      // Nothing answers on this loopback port: the domain cannot be reached.
      (
        [
          "links", "verify", "--domain", "https://appplatform.example", "--connect-to",
          "appplatform.example:443:127.0.0.1:9", "--timeout", "2s",
        ], "cannot be reached"
      ),
    ]
    for (arguments, message) in cases {
      let run = try CLI.run(arguments, in: scratch)
      #expect(run.status == 2, "\(arguments): \(run.stdout)\(run.stderr)")
      #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
    }
  }

  /// An outside site (Tests/Fixtures/interop/wellknown_site.py) in the shapes production
  /// sites take: the files as committed pass; a redirect, an HTML content type and a file over
  /// Apple's limit each fail, naming why the OS would not read it.
  @Test func linksVerifyJudgesAnOutsideSiteAsTheOSWould() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let cases: [(mode: String, status: Int32, message: String)] = [
      ("files", 0, "the site certifies the app on iOS and Android"),
      ("redirect", 1, "answers 301 to https://www.appplatform.example/.well-known/"),
      ("html", 1, "is served as text/html; charset=utf-8, not application/json"),
      ("huge", 1, "apple-app-site-association is larger than 128 KiB"),
    ]
    for (mode, status, message) in cases {
      let port = try TestPeer.freePort()
      let ca = scratch.appendingPathComponent("site-\(mode).pem").path
      let peer = try TestPeer(
        python: "/usr/bin/python3", script: "interop/wellknown_site.py",
        input: [
          "port": port, "host": "appplatform.example", "ca_file": ca, "mode": mode,
          "folder": Fixtures.hybridApp + "/backend/public/.well-known",
        ])
      defer { peer.stop() }
      let run = try CLI.run(
        [
          "links", "verify", "--domain", "https://appplatform.example", "--app",
          Fixtures.hybridApp, "--cacert", ca, "--connect-to",
          "appplatform.example:443:127.0.0.1:\(port)",
        ], in: scratch)
      #expect(run.status == status, "\(mode): \(run.stdout)\(run.stderr)")
      #expect(run.stdout.contains(message), "\(mode): \(run.stdout)")
    }
  }

  @Test func aStackFileIsRefusedForAHybridAppPointingAtLinksVerify() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let stack = scratch.appendingPathComponent("stack.json")
    try Data(#"{"backend": {"baseURL": "https://appplatform.example"}}"#.utf8).write(to: stack)
    let run = try CLI.run(
      ["--app", Fixtures.hybridApp, "--scenarios", CLI.scenarios, "--stack", stack.path],
      in: scratch)
    #expect(run.status == 2)
    #expect(run.stderr.contains("stack.json:1:1: error: a hybrid-webview app's scenarios"))
    #expect(run.stderr.contains("qualify links verify"))
  }
}

/// Issue 23, A: an event relayed through NotificationCenter is followed by its name, from the
/// delegate that posts it to the observer that acts on it.
@Suite struct NotificationRelayCLITests {
  func findings(replacing old: String, with new: String) throws -> ProcessResult {
    let app = try Fixtures.temporaryApp("qualify-relay")
    try FileManager.default.removeItem(at: app)
    try FileManager.default.copyItem(at: URL(fileURLWithPath: Fixtures.hybridApp), to: app)
    defer { try? FileManager.default.removeItem(at: app) }
    let url = app.appendingPathComponent("ios/App/App/ViewController.swift")
    let text = try String(contentsOf: url, encoding: .utf8)
    #expect(text.contains(old))
    try text.replacingOccurrences(of: old, with: new).write(
      to: url, atomically: true, encoding: .utf8)
    return try CLI.run(["check-app", "--app", app.path, "--platform", "ios"], in: app)
  }

  @Test func aDelegateThatNeitherLoadsNorRelaysTheLinkIsCaught() throws {
    let app = try Fixtures.temporaryApp("qualify-relay")
    try FileManager.default.removeItem(at: app)
    try FileManager.default.copyItem(at: URL(fileURLWithPath: Fixtures.hybridApp), to: app)
    defer { try? FileManager.default.removeItem(at: app) }
    let url = app.appendingPathComponent("ios/App/App/AppDelegate.swift")
    let text = try String(contentsOf: url, encoding: .utf8)
    let post =
      "NotificationCenter.default.post(name: Notification.Name(\"UniversalLinkOpened\"), object: url)"
    #expect(text.contains(post))
    try text.replacingOccurrences(of: post, with: "").write(
      to: url, atomically: true, encoding: .utf8)
    let result = try CLI.run(["check-app", "--app", app.path, "--platform", "ios"], in: app)
    #expect(result.status == 1, "\(result.stdout)")
    #expect(result.stdout.contains("the handler neither loads webpageURL nor passes it on"))
  }

  @Test func anObserverUnderAnotherNameDropsTheUniversalLink() throws {
    let result = try findings(
      replacing: "forName: Notification.Name(\"UniversalLinkOpened\")",
      with: "forName: Notification.Name(\"UniversalLinkOpen\")")
    #expect(result.status == 1, "\(result.stdout)")
    #expect(result.stdout.contains("AppDelegate.swift:43"), "\(result.stdout)")
    #expect(result.stdout.contains("UniversalLinkOpened is posted here and observed nowhere"))
  }

  @Test func anObserverThatNoLongerKeepsTheTokenIsCaught() throws {
    let result = try findings(
      replacing: "self?.fcmToken = note.object as? String", with: "")
    #expect(result.status == 1, "\(result.stdout)")
    #expect(result.stdout.contains("the observer of FCMTokenReceived does nothing with it"))
  }
}
