import Artifacts
import Foundation
import QualifyCore
import QualifyTestSupport
import Results
import Scenarios
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
    #expect(html.contains("&lt;b&gt;&amp;"))
    #expect(!html.contains("src=\"http"))
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
