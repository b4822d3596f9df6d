import Foundation
import QualifyTestSupport
import Testing

/// Checklist item 3 in real engines (issue 29): the sample's own thread view in WebKit and
/// Chromium over WebDriver, every control biting, screenshots in the report, and an honest
/// "not covered" where an engine or a thread view is missing.
@Suite(.serialized) struct RenderCLITests {
  let scratch: URL

  init() throws {
    scratch = try Fixtures.temporaryDirectory("qualify-render")
  }

  @Test func theSamplesThreadRendersInBothEnginesWithEveryControlBiting() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let run = try CLI.run(
      [
        "run", "render/thread-body", "--app", Fixtures.sampleApp, "--scenarios", CLI.scenarios,
        "--seed", "5", "--trace", "--report-dir", scratch.appendingPathComponent("Reports").path,
      ], in: scratch)
    #expect(run.status == 0, "\(run.stdout.suffix(3000))")
    #expect(run.stdout.contains("PASS render/thread-body [ios]"))
    #expect(run.stdout.contains("PASS render/thread-body [android]"))
    #expect(run.stdout.contains("2 scenario runs: 2 passed; 18/18 controls bit"))
    // The WebDriver exchange is in the trace, each engine's.
    #expect(run.stdout.contains("WebDriver exchange with WebKit"), "\(run.stdout.prefix(3000))")
    #expect(run.stdout.contains("WebDriver exchange with Chromium"))
    // Each platform's screenshot is a PNG file beside the report, shown small on its step.
    let runs = scratch.appendingPathComponent("Reports/runs")
    let id = try #require(try FileManager.default.contentsOfDirectory(atPath: runs.path).first)
    let shots = runs.appendingPathComponent(id).appendingPathComponent("shots")
    let files = try FileManager.default.contentsOfDirectory(atPath: shots.path).sorted()
    // Three threads (the plain and linking one, the hostile one, the huge one) per engine.
    #expect(files.count == 6, "\(files)")
    for file in files {
      let png = try Data(contentsOf: shots.appendingPathComponent(file))
      #expect(png.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]), "\(file)")
    }
    let html = try String(
      contentsOf: runs.appendingPathComponent(id).appendingPathComponent("index.html"),
      encoding: .utf8)
    #expect(html.contains("<img src=\"shots/\(files[0])\""))
    #expect(html.contains("WebKit screenshot of thread-7"))
    #expect(html.contains("Chromium screenshot of thread-7"))
    #expect(!html.contains("data:image/png"))
  }

  @Test func withoutTheEnginesItemThreeIsNotCoveredAndAProdGateRefuses() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    // No PATH: neither driver nor browser nor Xvfb is found.
    let run = try CLI.run(
      [
        "--app", Fixtures.sampleApp, "--channel", "prod", "--scenarios", CLI.scenarios, "--seed",
        "5", "--report-dir", scratch.appendingPathComponent("Reports").path,
      ], in: scratch, environment: ["PATH": "/nonexistent", "DISPLAY": ""])
    #expect(run.status == 1, "\(run.stdout.suffix(2000))")
    #expect(run.stdout.contains("7 of 8 checklist items covered (not covered: 3)"))
    #expect(
      run.stdout.contains(
        "not covered: engine not installed — WebKit, for iOS's WKWebView (WebKit)"))
    #expect(run.stdout.contains("(apt-get install chromium chromium-driver)"))
    #expect((run.stdout + run.stderr).contains("not a release gate pass"))
  }

  @Test func anAppWithoutAThreadViewLeavesItemThreeToAPersonAndStillQualifies() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let run = try CLI.run(
      [
        "--app", Fixtures.root + "/Scenarios/apps/messages-simple", "--channel", "prod",
        "--scenarios", CLI.scenarios, "--seed", "5", "--report-dir",
        scratch.appendingPathComponent("Reports").path,
      ], in: scratch)
    #expect(run.status == 0, "\(run.stdout.suffix(2000))")
    #expect(run.stdout.contains("7 of 8 checklist items covered (not covered: 3)"))
    #expect(run.stdout.contains("names no thread page (qualify.json render.threadPath)"))
  }
}
