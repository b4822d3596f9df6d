import Foundation
import QualifyTestSupport
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Issue 25 item 4: static findings as CI annotations. The SARIF files qualify writes are
/// validated by Python's jsonschema against the OASIS 2.1.0 schema (not qualify's reading of
/// it), and name the rule, the file, the line and the fix; JUnit points at the same place.
@Suite struct SARIFCLITests {
  let scratch: URL

  init() throws {
    scratch = try Fixtures.temporaryApp("qualify-sarif")
  }

  /// The schema's errors for each file, by Tests/Fixtures/interop/sarif_validate.py.
  func validate(_ files: [URL]) throws -> [String: [String]] {
    let result = try Programs.run(
      "/usr/bin/python3",
      [Fixtures.file("interop/sarif_validate.py"), Fixtures.root + "/.build/sarif-schema"]
        + files.map(\.path))
    try #require(result.status == 0, "sarif_validate.py: \(result.stderr)")
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    #expect((report["schema"] as? String)?.contains("SARIF") == true)
    return try #require(report["files"] as? [String: [String]])
  }

  func results(_ file: URL) throws -> [[String: Any]] {
    let log = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
    let run = try #require((log["runs"] as? [[String: Any]])?.first)
    return try #require(run["results"] as? [[String: Any]])
  }

  @Test func aFindingIsAnnotatedAtItsFileAndLineWithItsFix() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let app = Fixtures.root + "/Scenarios/apps/regressions/ios-dev-server-url"
    let checkApp = scratch.appendingPathComponent("check-app.sarif")
    let check = try CLI.run(
      ["check-app", "--app", app, "--sarif", checkApp.path], in: scratch)
    #expect(check.status == 1, "\(check.stdout)\(check.stderr)")
    let runSARIF = scratch.appendingPathComponent("run.sarif")
    let junit = scratch.appendingPathComponent("junit.xml")
    let run = try CLI.run(
      [
        "--channel", "prod", "--app", app, "--seed", "2", "--sarif", runSARIF.path, "--junit",
        junit.path, "--filter", "guards/*",
      ], in: scratch)
    #expect(run.status == 1, "\(run.stdout.suffix(600))")
    // A clean app's log is valid too, with no result.
    let cleanSARIF = scratch.appendingPathComponent("clean.sarif")
    let clean = try CLI.run(
      ["check-app", "--app", Fixtures.sampleApp, "--sarif", cleanSARIF.path], in: scratch)
    #expect(clean.status == 0, "\(clean.stdout)")
    // What the validator refuses: a driver without its name (the check can fail).
    let broken = scratch.appendingPathComponent("broken.sarif")
    try Data(#"{"version": "2.1.0", "runs": [{"tool": {"driver": {}}, "results": []}]}"#.utf8)
      .write(to: broken)

    let errors = try validate([checkApp, runSARIF, cleanSARIF, broken])
    #expect(errors[checkApp.path] == [], "\(errors)")
    #expect(errors[runSARIF.path] == [], "\(errors)")
    #expect(errors[cleanSARIF.path] == [], "\(errors)")
    #expect(errors[broken.path]?.contains { $0.contains("'name' is a required property") } == true)
    #expect(try results(cleanSARIF).isEmpty)

    // The working directory is scratch: paths are relative to it, never absolute.
    let shown = "../../../Scenarios/apps/regressions/ios-dev-server-url"
    let config = "\(shown)/src/frontend/ios/App/App/capacitor.config.json"
    for file in [checkApp, runSARIF] {
      let found = try results(file)
      let finding = try #require(
        found.first { $0["ruleId"] as? String == "dev-server-url" }, "\(found)")
      #expect(finding["level"] as? String == "error")
      let physical = try #require(
        ((finding["locations"] as? [[String: Any]])?.first)?["physicalLocation"]
          as? [String: Any])
      #expect((physical["artifactLocation"] as? [String: Any])?["uri"] as? String == config)
      #expect((physical["region"] as? [String: Any])?["startLine"] as? Int == 7)
      let message = try #require((finding["message"] as? [String: Any])?["text"] as? String)
      #expect(message.contains("server.url = \"http://localhost:8900\""), "\(message)")
      #expect(message.contains("Fix: set MOBILE_DEV_SERVER_URL empty"), "\(message)")
      #expect(!message.hasPrefix(config))
    }
    let runFinding = try #require(
      try results(runSARIF).first { $0["ruleId"] as? String == "dev-server-url" })
    let properties = try #require(runFinding["properties"] as? [String: Any])
    #expect((properties["reproduce"] as? String)?.contains("run guards/no-dev-server") == true)

    // JUnit: the finding's testcase at the app file and line; a scenario failure at the line
    // of the scenario file that did not hold.
    let document = try XMLDocument(contentsOf: junit)
    let cases = try document.nodes(forXPath: "//testcase").compactMap { $0 as? XMLElement }
    let guardCase = try #require(
      cases.first {
        $0.attribute(forName: "classname")?.stringValue == "qualify.guards.no-dev-server.ios"
          && $0.elements(forName: "failure").count == 1
      })
    #expect(guardCase.attribute(forName: "file")?.stringValue == config)
    #expect(guardCase.attribute(forName: "line")?.stringValue == "7")
  }

  /// A scenario that fails on the simulated behaviour (not a finding) points at its own line.
  @Test func aScenarioFailureCarriesTheScenarioLineThatDidNotHold() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let scenarios = scratch.appendingPathComponent("scenarios")
    try FileManager.default.createDirectory(
      at: scenarios.appendingPathComponent("sso"), withIntermediateDirectories: true)
    let source = try String(
      contentsOfFile: Fixtures.root + "/Scenarios/sso/cross-app.scenario", encoding: .utf8)
    // An expectation the world never meets, on a line of its own.
    var lines = source.components(separatedBy: "\n")
    let index = try #require(
      lines.firstIndex { $0.trimmingCharacters(in: .whitespaces).hasPrefix("expect") })
    let indent = String(lines[index].prefix { $0 == " " })
    lines.insert(indent + "expect no login form", at: index + 1)
    try Data(lines.joined(separator: "\n").utf8).write(
      to: scenarios.appendingPathComponent("sso/cross-app.scenario"))
    let junit = scratch.appendingPathComponent("junit.xml")
    let run = try CLI.run(
      [
        "--channel", "prod", "--app", Fixtures.sampleApp, "--seed", "2", "--scenarios",
        scenarios.path, "--junit", junit.path, "--platform", "ios", "--no-controls",
      ], in: scratch)
    #expect(run.status == 1, "\(run.stdout.suffix(600))")
    let document = try XMLDocument(contentsOf: junit)
    let failing = try document.nodes(forXPath: "//testcase[failure]").compactMap {
      $0 as? XMLElement
    }
    let testcase = try #require(failing.first, "\(run.stdout.suffix(600))")
    #expect(testcase.attribute(forName: "file")?.stringValue == "scenarios/sso/cross-app.scenario")
    #expect(testcase.attribute(forName: "line")?.stringValue == String(index + 2))
  }
}
