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
      #expect(result["proof"] as? String == "real", "\(id)")
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
        "the app is a multi-instance shell, with no identity provider, backend or OTA channel"
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
        "\"instances\" are a multi-instance shell's, and the app is a single-origin shell"),
      "\(messages.stderr)")
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
  }
}
