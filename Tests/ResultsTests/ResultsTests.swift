import Foundation
import QualifyCore
import QualifyTestSupport
import ResultModel
import Results
import Testing

/// A fixed run and results, so writers can be compared with snapshots.
enum SampleResults {
  static let start = Date(timeIntervalSince1970: 1_800_000_000)

  static var run: RunRecord {
    var run = RunRecord(
      id: "20270115-080000-abcd", startedAt: start, channel: .prod, app: "/apps/messages",
      appVersion: "v1.2-3-gabc",
      seed: 42, filter: nil, platforms: [.ios, .android], harnessVersion: "0.1.0")
    run.host = "ci"
    run.finishedAt = start.addingTimeInterval(1.5)
    run.status = .notQualified
    run.scope = RunScope()
    return run
  }

  static let evidence = Evidence(
    kind: .http, source: "ios/mail",
    summary: "GET https://messages.example/api/v1.0/config/ → 200 (1.0ms)",
    detail: "< 200\n<\n{\"a\": \"<b>&\"}", time: VirtualClock.epoch)

  static var results: [ScenarioResult] {
    let passedStep = StepRecord(
      index: 1, title: "fetch <config>", status: .passed, message: nil, evidence: [evidence],
      duration: 0.001)
    let check = ExecutionRecord(
      steps: [passedStep], failedStep: nil, message: nil, isError: false, duration: 0.002)
    let failedStep = StepRecord(
      index: 1, title: "refuse", status: .failed,
      message: "expected the shell to refuse, but the request went out & got 301",
      evidence: [], duration: 0.001)
    let failing = ExecutionRecord(
      steps: [failedStep], failedStep: 1, message: failedStep.message, isError: false,
      duration: 0.003)
    let bit = ControlRecord(
      name: "untrusted CA", mutations: ["tls.untrusted-ca"], expectedStep: 1,
      because: "certificate", outcome: .bit,
      message: "failed at step 1 as stated", execution: failing)
    let missed = ControlRecord(
      name: "ignores policy", mutations: ["shell.ignores-transport-policy"], expectedStep: 1,
      because: nil,
      outcome: .didNotBite, message: "every step still held", execution: check)
    return [
      ScenarioResult(
        scenarioID: "guards/config", title: "Config <script>alert(1)</script>",
        file: "Scenarios/guards/config.scenario",
        platform: .ios, channel: .prod, checklist: [7], tags: ["guards"], verdict: .passed,
        message: "all 1 steps held; 1 control bit",
        check: check, controls: [bit], duration: 0.01),
      ScenarioResult(
        scenarioID: "guards/cleartext", title: "Cleartext",
        file: "Scenarios/guards/cleartext.scenario", platform: .android,
        channel: .prod, checklist: [7], tags: [], verdict: .controlDidNotBite,
        message: "control \"ignores policy\" did not bite",
        check: check, controls: [missed], duration: 0.02),
      ScenarioResult(
        scenarioID: "guards/failing", title: "Failing", file: "Scenarios/guards/failing.scenario",
        platform: .android,
        channel: .prod, checklist: [4], tags: [], verdict: .failed,
        message: "step 1 \"refuse\": went out",
        check: failing, controls: [], duration: 0.03),
    ]
  }
}

@Suite struct ResultStoreTests {
  /// A store written by the previous qualify (schema 3) opens, gains the waiver counts, and
  /// keeps its runs.
  @Test func aVersion3StoreIsUpgradedInPlace() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("q.sqlite").path
    do {
      let store = try ResultStore(path: path)
      try store.begin(SampleResults.run)
    }
    // Back to version 3's shape: no waiver counts, no failure reasons or fixes.
    let database = try Database(path: path)
    try database.execute(
      """
      ALTER TABLE runs DROP COLUMN waived; ALTER TABLE runs DROP COLUMN waivers;
      ALTER TABLE executions DROP COLUMN failure_reason;
      ALTER TABLE executions DROP COLUMN failure_detail; ALTER TABLE executions DROP COLUMN fix;
      ALTER TABLE executions DROP COLUMN failed_line;
      PRAGMA user_version = 3;
      """)
    let upgraded = try ResultStore(path: path)
    #expect(try database.query("PRAGMA user_version").first?.first?.integer == 5)
    try upgraded.finish(run: SampleResults.run.id, status: .qualified, waived: 3, waivers: 2)
    let run = try #require(try upgraded.run(SampleResults.run.id))
    #expect(run.statusText == "qualified (3 waived by 2 waivers)")
  }

  /// A store of schema 4 gains the failed scenario line and keeps what it recorded.
  @Test func aVersion4StoreGainsTheFailedLine() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("q.sqlite").path
    do {
      let store = try ResultStore(path: path)
      try store.begin(SampleResults.run)
      for result in SampleResults.results { try store.record(result, run: SampleResults.run.id) }
    }
    let database = try Database(path: path)
    try database.execute(
      "ALTER TABLE executions DROP COLUMN failed_line; PRAGMA user_version = 4;")
    let upgraded = try ResultStore(path: path)
    #expect(try database.query("PRAGMA user_version").first?.first?.integer == 5)
    let read = try upgraded.results(run: SampleResults.run.id)
    #expect(read.count == SampleResults.results.count)
    #expect(read.allSatisfy { $0.check.failedLine == nil })
    var failing = SampleResults.results[2]
    failing.check.failedLine = 12
    try upgraded.record(failing, run: SampleResults.run.id)
    #expect(
      try upgraded.results(run: SampleResults.run.id).contains { $0.check.failedLine == 12 })
  }

  /// Rows are read by column name: a value of another type than its column's, as a damaged or
  /// foreign database holds, is an error naming the column, not a default read silently.
  @Test func aValueOfTheWrongTypeIsAnErrorNamingItsColumn() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("q.sqlite").path
    do {
      let store = try ResultStore(path: path)
      try store.begin(SampleResults.run)
      for result in SampleResults.results { try store.record(result, run: SampleResults.run.id) }
      #expect(try store.results(run: SampleResults.run.id).count == SampleResults.results.count)
    }
    let database = try Database(path: path)
    try database.execute("UPDATE scenario_results SET duration = 'slow'")
    let store = try ResultStore(path: path)
    #expect {
      try store.results(run: SampleResults.run.id)
    } throws: { error in
      guard let error = error as? SQLiteError else { return false }
      return error.message == "column duration holds text where a number belongs"
        && error.isEnvironment && error.hint.contains("damaged")
    }
    try database.execute("UPDATE runs SET pid = 'one'")
    #expect(throws: SQLiteError.self) { try store.run(SampleResults.run.id) }
  }

  /// A guard that found no code to read makes the run partial as unverified, not as an env
  /// left out: the gate names what the user must look at.
  @Test func codeFoundNowhereIsUnverifiedNotAnEnvLeftOut() {
    var result = SampleResults.results[0]
    result.verdict = .notApplicable
    result.message =
      "container-code is no source file of the Android container at android/app/src/main/java/**/*.{kt,java}: its code was not read, so seed 003's rules in it are unverified"
    #expect(RunSummary([result]).partialReasons == [RunSummary.unverifiedReason])
    result.message = "backend-env is the channel's env, which was not supplied"
    #expect(RunSummary([result]).partialReasons == ["channel env not supplied"])
    // The cause an unverified guard gives decides, whatever its sentence says (OpenMapX's
    // message handler calling no receive( named no line, and read as an env left out).
    result.message = "receiver-code is no call of receive( found in App.tsx"
    result.notApplicableCause = .unverified
    #expect(RunSummary([result]).partialReasons == [RunSummary.unverifiedReason])
  }

  @Test func aColumnTheQueryDidNotSelectIsAnError() throws {
    let database = try Database(path: ":memory:")
    let rows = try database.rows("SELECT 1 AS one, NULL AS none, 2.5 AS half")
    let row = try #require(rows.first)
    #expect(try row.integer("one") == 1)
    #expect(try row.text("none") == nil)
    #expect(try row.real("half") == 2.5)
    #expect(try row.real("one") == 1)
    #expect(throws: SQLiteError.self) { try row.text("two") }
    #expect(throws: SQLiteError.self) { try row.integer("half") }
  }

  @Test func resultsRoundTripThroughTheStore() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try ResultStore(path: directory.appendingPathComponent("q.sqlite").path)
    let run = SampleResults.run
    try store.begin(run)
    for result in SampleResults.results { try store.record(result, run: run.id) }
    try store.finish(run: run.id, status: .notQualified)
    let read = try store.results(run: run.id)
    #expect(read.count == 3)
    let config = try #require(read.first { $0.scenarioID == "guards/config" })
    #expect(config.title == "Config <script>alert(1)</script>")
    #expect(config.check.steps.first?.evidence.first?.summary == SampleResults.evidence.summary)
    #expect(config.controls.first?.outcome == .bit)
    #expect(config.controls.first?.execution?.failedStep == 1)
    let stored = try #require(try store.run(run.id))
    #expect(stored.status == .notQualified)
    #expect(
      stored.counts["passed"] == 1 && stored.counts["failed"] == 1
        && stored.counts["control-did-not-bite"] == 1)
    #expect(try store.run("20270115")?.id == run.id)
    #expect(try store.run("latest")?.id == run.id)
  }

  @Test func aRunLeftRunningByADeadProcessIsMarkedAborted() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try ResultStore(path: directory.appendingPathComponent("q.sqlite").path)
    var dead = SampleResults.run
    dead.id = "dead"
    // A pid that cannot be alive: beyond the kernel's pid limit.
    dead.pid = 4_194_304 + 17
    dead.host = ProcessInfo.processInfo.hostName
    var alive = SampleResults.run
    alive.id = "alive"
    alive.pid = getppid()
    alive.host = ProcessInfo.processInfo.hostName
    try store.begin(dead)
    try store.begin(alive)
    #expect(try store.markAbandonedRuns() == ["dead"])
    #expect(try store.run("dead")?.status == .aborted)
    #expect(try store.run("alive")?.status == .running)
  }
}

@Suite struct WriterTests {
  @Test func junitIsWellFormedWithATestcasePerScenarioAndControl() throws {
    let xml = JUnitWriter.render(run: SampleResults.run, results: SampleResults.results)
    let document = try XMLDocumentProbe(xml)
    #expect(document.elements("testcase").count == 5)
    #expect(document.elements("failure").count == 2)
    #expect(document.attribute("testsuites", "tests") == "5")
    #expect(document.attribute("testsuites", "failures") == "2")
    #expect(xml.contains("control: ignores policy [android]"))
    #expect(!xml.contains("<script>"))
  }

  @Test func jsonCarriesTheVerdictAndResults() throws {
    let text = try JSONWriter.render(run: SampleResults.run, results: SampleResults.results)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    #expect(object["verdict"] as? String == "not-qualified")
    #expect(object["exitCode"] as? Int == 1)
    #expect((object["results"] as? [Any])?.count == 3)
  }

  @Test func htmlReportSnapshot() throws {
    let html = HTMLReport.render(
      run: SampleResults.run, results: SampleResults.results, history: [SampleResults.run])
    try Snapshot.assertMatches(html, named: "report.html", in: "ResultsTests")
  }

  @Test func htmlEscapesEveryValue() {
    let html = HTMLReport.render(run: SampleResults.run, results: SampleResults.results)
    #expect(!html.contains("<script>alert(1)"))
    #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
    #expect(!html.contains("src=\"http"))
    // The evidence of steps that held is in the sibling page, escaped the same way.
    let evidence = HTMLReport.evidencePage(run: SampleResults.run, results: SampleResults.results)
    #expect(evidence.contains("&lt;b&gt;&amp;"))
    #expect(!evidence.contains("<b>&"))
    #expect(evidence.contains(HTMLReport.contentSecurityPolicy))
    #expect(html.contains("href=\"evidence.html#e1-c-1\""))
    #expect(evidence.contains("id=\"e1-c-1\""))
  }

  /// What only a browser shows: Chromium parses the page into the DOM we meant, with the
  /// hostile title as text and no script element anywhere.
  @Test func chromiumRendersTheReportAsIntended() throws {
    let chromium = try #require(
      Programs.find(["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]),
      "Chromium is a test dependency: `make test` installs Debian's chromium package")
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("index.html")
    try Data(HTMLReport.render(run: SampleResults.run, results: SampleResults.results).utf8).write(
      to: file)
    let result = try Programs.run(
      chromium,
      [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
        "--user-data-dir=\(directory.path)/profile", "--dump-dom", file.absoluteString,
      ])
    #expect(result.status == 0, "\(result.stderr.suffix(400))")
    let dom = result.stdout
    #expect(dom.contains("NOT QUALIFIED"))
    #expect(!dom.lowercased().contains("<script"))
    #expect(dom.contains("Config &lt;script&gt;alert(1)&lt;/script&gt;"))
    // The checklist matrix: one row per item of seed 000's release checklist.
    #expect(dom.components(separatedBy: "<th scope=\"row\">").count - 1 == 8)
    #expect(dom.contains("href=\"#s1\""))
  }
}

/// A tiny DOM over Foundation's XMLParser, to check that XML output parses.
struct XMLDocumentProbe {
  private final class Collector: NSObject, XMLParserDelegate {
    var elements: [(String, [String: String])] = []
    func parser(
      _ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
      qualifiedName: String?,
      attributes: [String: String] = [:]
    ) {
      elements.append((name, attributes))
    }
  }

  private let collected: [(String, [String: String])]

  init(_ text: String) throws {
    let parser = XMLParser(data: Data(text.utf8))
    let collector = Collector()
    parser.delegate = collector
    guard parser.parse() else { throw CocoaError(.propertyListReadCorrupt) }
    collected = collector.elements
  }

  func elements(_ name: String) -> [[String: String]] { collected.filter { $0.0 == name }.map(\.1) }
  func attribute(_ element: String, _ name: String) -> String? { elements(element).first?[name] }
}

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// The verdict never claims more than was checked (DESIGN.md, *Decisions of 2026-11-30*).
@Suite struct HonestVerdictTests {
  static func result(
    _ id: String, _ platform: Platform, _ verdict: Verdict, checklist: [Int] = [],
    supports: [Int] = [], proof: Proof = .simulated, cause: NotApplicableCause? = nil
  ) -> ScenarioResult {
    var result = ScenarioResult(
      scenarioID: id, title: id, file: "\(id).scenario", platform: platform, channel: .prod,
      checklist: checklist, tags: [], verdict: verdict, message: verdict.rawValue,
      check: ExecutionRecord(steps: [], failedStep: nil, message: nil, isError: false, duration: 0),
      controls: [], duration: 0)
    result.supports = supports
    result.proof = proof
    result.notApplicableCause = cause
    return result
  }

  @Test func aFullCleanRunQualifies() {
    var scope = RunScope()
    scope.selectedRuns = 2
    scope.catalogueRuns = 2
    let summary = RunSummary(
      [
        Self.result("sso/a", .ios, .passed, checklist: [1]),
        Self.result("sso/a", .android, .passed),
      ],
      scope: scope)
    #expect(summary.status == .qualified)
    #expect(summary.headline == "QUALIFIED")
    #expect(summary.exitCode == .qualified)
  }

  /// Each limit of a run makes it partial, never QUALIFIED; exit stays 0 so shards gate CI.
  static let limits: [(String, @Sendable (inout RunScope) -> Void, String)] = [
    ("filter", { $0.filters = ["sso/*"] }, "filter sso/*"),
    ("platform", { $0.platforms = [.ios] }, "ios only"),
    ("tag", { $0.tags = ["sso"] }, "tag sso"),
    ("shard", { $0.shard = "1/3" }, "shard 1/3"),
    ("controls", { $0.controls = false }, "controls off"),
    ("scenario", { $0.scenario = "sso/cross-app" }, "scenario sso/cross-app"),
    ("env", { $0.envWarning = "no prod env" }, "channel env not supplied"),
  ]

  @Test(arguments: limits.indices)
  func aNarrowerRunIsLabelledPartial(index: Int) {
    let (_, apply, phrase) = Self.limits[index]
    var scope = RunScope()
    apply(&scope)
    scope.selectedRuns = 1
    scope.catalogueRuns = 74
    let summary = RunSummary([Self.result("sso/a", .ios, .passed, checklist: [1])], scope: scope)
    #expect(summary.status == .partial)
    #expect(summary.headline.hasPrefix("PASSED (partial: "))
    #expect(summary.headline.contains(phrase))
    #expect(summary.headline.contains("1 of 74 runs"))
    #expect(summary.exitCode == .qualified)
  }

  /// The gate (issue 25): on a release channel a partial run exits 0 only when every
  /// reduction is the user's own selection.
  @Test(arguments: limits.indices)
  func onAReleaseChannelOnlyTheUsersOwnSelectionExits0(index: Int) {
    let (label, apply, _) = Self.limits[index]
    var scope = RunScope()
    apply(&scope)
    scope.releaseChannel = true
    scope.selectedRuns = 1
    scope.catalogueRuns = 74
    let results = [Self.result("sso/a", .ios, .passed, checklist: [1])]
    let summary = RunSummary(results, scope: scope)
    #expect(summary.status == .partial)
    let fromEnvironment = label == "env"
    #expect(summary.gateRefuses == fromEnvironment, "\(label)")
    #expect(summary.exitCode == (fromEnvironment ? .notQualified : .qualified), "\(label)")
    scope.allowPartial = true
    #expect(RunSummary(results, scope: scope).exitCode == .qualified, "\(label)")
  }

  /// Issue 25, item 7: a waiver cannot hide a store-build guard on a release channel unless it
  /// says `allowOnRelease`; the headline then names what it waives.
  @Test func aStoreBuildGuardIsWaivedOnReleaseOnlyWithAllowOnRelease() {
    let results = [
      Self.result("guards/no-dev-server", .ios, .failed, checklist: [7]),
      Self.result("sso/a", .ios, .passed, checklist: [1]),
    ]
    var waiver = Waiver(
      check: "guards/no-dev-server", reason: "staging build", owner: "ops@example.org",
      expires: "2099-01-01", location: "qualify-waivers.json:3")
    var scope = RunScope()
    scope.releaseChannel = true
    scope.waivers = [waiver]
    let refused = RunSummary(results, scope: scope)
    #expect(refused.waived.isEmpty)
    #expect(refused.exitCode == .notQualified)
    #expect(refused.waiverNotes.contains { $0.contains("add \"allowOnRelease\": true") })
    // A check that guards nothing a store build ships is waived as before.
    var other = results
    other[0].checklist = [5]
    #expect(RunSummary(other, scope: scope).waived.count == 1)
    // On dev the waiver applies.
    scope.releaseChannel = nil
    #expect(RunSummary(results, scope: scope).waived.count == 1)
    waiver.allowOnRelease = true
    scope.waivers = [waiver]
    scope.releaseChannel = true
    let allowed = RunSummary(results, scope: scope)
    #expect(allowed.waived.count == 1)
    #expect(allowed.headline.contains("waiving store-build guards: guards/no-dev-server"))
  }

  @Test func runsMissingFromARunThatSelectedEverythingAreNotTheUsers() {
    var scope = RunScope()
    scope.releaseChannel = true
    scope.selectedRuns = 102
    scope.catalogueRuns = 102
    let results = [Self.result("sso/a", .ios, .passed, checklist: [1])]
    let summary = RunSummary(results, scope: scope)
    #expect(summary.unrequestedReductions == ["1 of 102 runs"])
    #expect(summary.exitCode == .notQualified)
    scope.releaseChannel = nil
    #expect(RunSummary(results, scope: scope).exitCode == .qualified, "dev keeps 0")
  }

  @Test func aFeatureTheProfileDoesNotDeclareUnusedMakesTheRunPartial() {
    let off = RunSummary(
      [
        Self.result("sso/a", .ios, .passed),
        {
          var r = Self.result("ota/a", .ios, .notApplicable, cause: .featureOff)
          r.message = "OTA is not enabled in this build: MOBILE_OTA_MANIFEST_URL is unset"
          return r
        }(),
      ])
    #expect(off.status == .partial)
    #expect(off.headline.contains("OTA not enabled"))
    let declared = RunSummary(
      [
        Self.result("sso/a", .ios, .passed),
        Self.result("ota/a", .ios, .notApplicable, cause: .declared),
      ])
    #expect(declared.status == .qualified)
  }

  @Test func aFailureIsNotQualifiedWhateverTheScope() {
    var scope = RunScope()
    scope.filters = ["sso/*"]
    let summary = RunSummary([Self.result("sso/a", .ios, .failed, checklist: [1])], scope: scope)
    #expect(summary.status == .notQualified)
    #expect(summary.exitCode == .notQualified)
  }

  @Test func theMatrixCountsOnlyChecksThatProveTheItemOnThatPlatform() {
    let results = [
      Self.result("sso/cross-app", .ios, .passed, checklist: [1, 2]),
      Self.result("guards/banner", .ios, .passed, supports: [8], proof: .static),
      Self.result("guards/banner", .android, .passed, supports: [8], proof: .static),
      Self.result("files/download", .android, .failed, checklist: [5]),
    ]
    let coverage = ChecklistCoverage(results)
    // Item 1 is iOS's, item 2 Android's: an iOS pass says nothing about Android.
    #expect(coverage.cells(of: 1).map(\.platform) == [.ios])
    #expect(coverage.cells(of: 1).first?.state == .passed)
    #expect(coverage.cells(of: 2).first?.state == .notCovered)
    // A supporting check never makes an item passed.
    #expect(
      coverage.cells(of: 8).allSatisfy { $0.state == .notCovered && $0.supporting.count == 1 })
    #expect(coverage.cells(of: 5).first { $0.platform == .android }?.state == .failed)
    #expect(
      coverage.cells(of: 5).first { $0.platform == .android }?.failing == [
        "files/download [android]"
      ])
    #expect(coverage.coveredItems == [1])
    #expect(coverage.summary.hasPrefix("1 of 8 checklist items covered"))
  }

  /// A check that ended in a harness error (a real system down) judged nothing: its item is
  /// "not judged", not "failed", unless another check of it failed.
  /// A real system's outage is the environment's error (exit 4); a harness error among them
  /// is qualify's (3); a failure is the app's (1), whatever else errored.
  @Test func onlyOutagesStandingInTheWayExitFour() {
    var outage = Self.result("sso/cross-app", .ios, .error, checklist: [1])
    outage.check = ExecutionRecord(
      steps: [], failedStep: nil, message: "the real identity provider answered HTTP 503",
      isError: true, duration: 0, failureReason: ExecutionRecord.outageReason)
    #expect(RunSummary([outage]).exitCode == .environment)
    #expect(RunSummary([outage]).status == .error)
    let harness = Self.result("sso/ephemeral", .ios, .error)
    #expect(RunSummary([outage, harness]).exitCode == .internalError)
    let failed = Self.result("logout/a", .ios, .failed)
    #expect(RunSummary([outage, failed]).exitCode == .notQualified)
  }

  @Test func anErroredItemIsNotJudgedRatherThanFailed() {
    let errored = ChecklistCoverage([Self.result("sso/cross-app", .ios, .error, checklist: [1])])
    #expect(errored.cells(of: 1).first?.state == .error)
    #expect(errored.summary.contains("not judged (harness error): 1"))
    #expect(!errored.summary.contains("failed"))
    let both = ChecklistCoverage([
      Self.result("sso/cross-app", .ios, .error, checklist: [1]),
      Self.result("sso/ephemeral", .ios, .failed, checklist: [1]),
    ])
    #expect(both.summary.contains("failed: 1"))
    #expect(!both.summary.contains("not judged"))
  }

  @Test func aPartialRunsCellSaysNotRunWhereTheCatalogueHasAProof() {
    let coverage = ChecklistCoverage(
      [Self.result("sso/a", .ios, .passed, checklist: [1])], catalogue: [2: [.android]])
    #expect(coverage.cells(of: 2).first?.state == .notRun)
    #expect(coverage.cells(of: 3).first?.state == .notCovered)
  }

  @Test func theReportOfARunInProgressSaysSo() {
    var run = SampleResults.run
    run.status = .running
    run.scope?.selectedRuns = 74
    let html = HTMLReport.render(run: run, results: SampleResults.results)
    #expect(html.contains("IN PROGRESS (3 of 74 runs done)"))
    #expect(!html.contains("QUALIFIED"))
  }

  @Test func theStoreKeepsTheScopeAndHowEachResultProves() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try ResultStore(path: directory.appendingPathComponent("q.sqlite").path)
    var run = SampleResults.run
    var scope = RunScope()
    scope.filters = ["sso/*"]
    scope.platforms = [.ios]
    scope.controls = false
    run.scope = scope
    run.appName = "Messages"
    try store.begin(run)
    try store.record(
      Self.result("guards/banner", .ios, .passed, supports: [8], proof: .static), run: run.id)
    try store.record(Self.result("ota/a", .ios, .notApplicable, cause: .featureOff), run: run.id)
    try store.finish(run: run.id, status: .partial)
    let stored = try #require(try store.run(run.id))
    #expect(stored.scope == scope)
    #expect(stored.status == .partial)
    #expect(stored.appName == "Messages")
    #expect(stored.counts["not-applicable"] == 1)
    let results = try store.results(run: run.id)
    #expect(results.first { $0.scenarioID == "guards/banner" }?.supports == [8])
    #expect(results.first { $0.scenarioID == "guards/banner" }?.proof == .static)
    #expect(results.first { $0.scenarioID == "ota/a" }?.notApplicableCause == .featureOff)
  }

  @Test func junitAndJSONCarryTheScope() throws {
    var run = SampleResults.run
    run.scope?.filters = ["sso/*"]
    let xml = JUnitWriter.render(run: run, results: [Self.result("sso/a", .ios, .passed)])
    #expect(xml.contains("<property name=\"scope\" value=\"partial\"/>"))
    #expect(xml.contains("<property name=\"verdict\" value=\"passed-partial\"/>"))
    let json = try JSONWriter.render(run: run, results: [Self.result("sso/a", .ios, .passed)])
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    #expect(object["verdict"] as? String == "passed-partial")
    #expect((object["scope"] as? [String: Any])?["filters"] as? [String] == ["sso/*"])
    #expect((object["checklist"] as? [Any])?.count == 14)
  }
}
