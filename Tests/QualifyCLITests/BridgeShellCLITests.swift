import Foundation
import QualifyTestSupport
import Testing

/// A fourth kind of shell (seed 001): the React Native bridge, its pack, its checklist, and
/// a report that says what the shell does not compose.
@Suite struct BridgeShellCLITests {
  let scratch: URL

  init() throws {
    scratch = try Fixtures.temporaryDirectory("qualify-bridge")
  }

  @Test func theBridgeSampleQualifiesAndTheReportListsWhatIsUnavailable() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let run = try CLI.run(
      [
        "--app", Fixtures.bridgeApp, "--channel", "prod", "--scenarios", CLI.scenarios, "--seed",
        "3", "--report-dir", scratch.appendingPathComponent("Reports").path,
      ], in: scratch)
    #expect(run.status == 0, "\(run.stdout.suffix(2000))")
    #expect(run.stdout.contains("QUALIFIED — channel prod"))
    let verdicts = run.stdout.split(separator: "\n").filter {
      $0.hasPrefix("PASS ") || $0.hasPrefix("FAIL ")
    }
    #expect(verdicts.count == 30)
    #expect(verdicts.allSatisfy { $0.hasPrefix("PASS bridge/") }, "\(verdicts)")
    let controls = try #require(
      run.stdout.split(separator: "\n").first { $0.contains("controls bit") })
    let counts = controls.split(separator: ";").last?.split(separator: " ").first?.split(
      separator: "/")
    #expect(counts?.count == 2 && counts?.first == counts?.last, "\(controls)")
    // Item 11 is a human handoff: never shown as covered.
    #expect(run.stdout.contains("10 of 11 checklist items covered (not covered: 11)"))
    let unavailable =
      "the shell reports groundNavigation, transitNavigation, backgroundLocation, localNotifications, speech unavailable"
    #expect(run.stdout.contains(unavailable))
    let reports = scratch.appendingPathComponent("Reports/runs")
    let id = try #require(try FileManager.default.contentsOfDirectory(atPath: reports.path).first)
    let html = try String(
      contentsOf: reports.appendingPathComponent(id + "/index.html"), encoding: .utf8)
    #expect(html.contains(unavailable))
    #expect(html.contains("not a working navigation release"))
    #expect(html.contains("The capability report is honest"))
  }

  @Test func theOtherSampleAppsDoNotRunTheBridgePack() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    for app in [Fixtures.sampleApp, Fixtures.hybridApp] {
      let run = try CLI.run(
        ["--app", app, "--channel", "prod", "--scenarios", CLI.scenarios, "--filter", "bridge/*"],
        in: scratch)
      #expect(run.status == 2, "\(app): \(run.stdout)")
    }
  }

  /// A dev build: its own suffixed id and scheme, a local HTTP origin, the release-only
  /// checks not applicable.
  @Test func theDevelopmentBuildQualifiesOnItsOwnTerms() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let run = try CLI.run(
      ["--app", Fixtures.bridgeApp, "--channel", "dev", "--scenarios", CLI.scenarios],
      in: scratch)
    #expect(run.status == 0, "\(run.stdout.suffix(1500))")
    #expect(!run.stdout.contains("bridge/fixed-origin"))
  }

  /// `qualify serve` serves what it can serve, and says so for the other kinds.
  @Test func serveRefusesAKindWhoseWorldOnlyItsScenariosStart() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    for (app, kind) in [
      (Fixtures.bridgeApp, "react-native-bridge"), (Fixtures.instanceShellApp, "multi-instance"),
    ] {
      let run = try CLI.run(["serve", "--app", app], in: scratch)
      #expect(run.status == 2, "\(app): \(run.stdout)\(run.stderr)")
      #expect(run.stderr.contains("is a \(kind) app"), "\(run.stderr)")
    }
  }
}
