import Foundation
import QualifyCrypto
import QualifyTestSupport
import Testing

/// The release manager's commands end to end (issue 13): reproduce commands, waivers, diff,
/// flaky runs, CI outputs and the signed verdict, on the real binary.
@Suite struct ReleaseReportCLITests {
  let scratch: URL

  init() throws {
    scratch = try Fixtures.temporaryApp("qualify-release")
  }

  /// A copy of `source` at `scratch/name`; a regression overlay's `base` is made absolute.
  func copy(_ source: String, as name: String) throws -> URL {
    let target = scratch.appendingPathComponent(name)
    try FileManager.default.copyItem(at: URL(fileURLWithPath: source), to: target)
    let profile = target.appendingPathComponent("qualify.json")
    let text = try String(contentsOf: profile, encoding: .utf8)
    try Data(
      text.replacingOccurrences(
        of: "\"base\": \"../../messages\"", with: "\"base\": \"\(Fixtures.sampleApp)\""
      ).utf8
    ).write(to: profile)
    return target
  }

  func qualify(_ app: URL, _ extra: [String] = []) throws -> ProcessResult {
    try CLI.run(
      ["--channel", "prod", "--app", app.path, "--scenarios", CLI.scenarios, "--seed", "7"]
        + extra, in: scratch)
  }

  @Test func aQualifiedRunIsAttestedAndTheAttestationCatchesAChangedByte() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let app = try copy(Fixtures.sampleApp, as: "app")
    let run = try qualify(app)
    #expect(run.status == 0, "\(run.stdout.suffix(600))")
    let key = scratch.appendingPathComponent("signing.pem")
    try Data(try Key.generateP256().pkcs8PrivatePEM().utf8).write(to: key)
    let publicKey = scratch.appendingPathComponent("signing.pub.pem")
    try Data(try Key.privateKey(pem: String(contentsOf: key, encoding: .utf8)).spkiPublicPEM().utf8)
      .write(to: publicKey)
    let attest = try CLI.run(
      ["attest", "--key", key.path, "--out", "verdict.dsse.json"], in: scratch)
    #expect(attest.status == 0, "\(attest.stdout)\(attest.stderr)")
    #expect(attest.stdout.contains("QUALIFIED"))
    let verify = try CLI.run(
      ["verify-attestation", "verdict.dsse.json", "--key", publicKey.path, "--app", app.path],
      in: scratch)
    #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    #expect(verify.stdout.contains("verified"))
    // One byte more in an app file the run read (still valid JSON).
    let config = app.appendingPathComponent("src/frontend/ios/App/App/capacitor.config.json")
    let original = try Data(contentsOf: config)
    try (original + Data(" ".utf8)).write(to: config)
    let changed = try CLI.run(
      ["verify-attestation", "verdict.dsse.json", "--key", publicKey.path, "--app", app.path],
      in: scratch)
    #expect(changed.status == 1)
    #expect(changed.stderr.contains("src/frontend/ios/App/App/capacitor.config.json: differs"))
    try original.write(to: config)
    // A waiver file added after the attestation is a file the build now reads: refused.
    try Data(#"{"waivers": []}"#.utf8).write(to: app.appendingPathComponent("qualify-waivers.json"))
    let waived = try CLI.run(
      ["verify-attestation", "verdict.dsse.json", "--key", publicKey.path, "--app", app.path],
      in: scratch)
    #expect(waived.status == 1)
    #expect(
      waived.stderr.contains(
        "qualify-waivers.json: read by the build of this checkout, but not attested"))
    try FileManager.default.removeItem(at: app.appendingPathComponent("qualify-waivers.json"))
    // The attestation is of prod: a staging release does not accept it.
    let staging = try CLI.run(
      [
        "verify-attestation", "verdict.dsse.json", "--key", publicKey.path, "--app", app.path,
        "--channel", "staging",
      ], in: scratch)
    #expect(staging.status == 1)
    #expect(
      staging.stderr.contains("the attestation is of channel prod, the release is for staging"))
    try (original + Data(" ".utf8)).write(to: config)
    // Nor is a run attested once its app changed.
    let refused = try CLI.run(["attest", "--key", key.path, "--out", "again.json"], in: scratch)
    #expect(refused.status == 1)
    #expect(refused.stderr.contains("the app changed since run"))
  }

  @Test func aNewFailureIsNamedByDiffAndInTheReport() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let app = try copy(Fixtures.sampleApp, as: "app")
    let good = try qualify(app)
    #expect(good.status == 0)
    // The next commit of the same app drops the release guard.
    let gradle = "src/frontend/android/app/build.gradle"
    try FileManager.default.removeItem(at: app.appendingPathComponent(gradle))
    try FileManager.default.copyItem(
      at: URL(
        fileURLWithPath: Fixtures.regressionsDirectory + "/android-release-guard-missing/" + gradle),
      to: app.appendingPathComponent(gradle))
    let bad = try qualify(app)
    #expect(bad.status == 1)
    let diff = try CLI.run(["diff"], in: scratch)
    #expect(diff.status == 1, "\(diff.stdout)\(diff.stderr)")
    #expect(diff.stdout.contains("new failures (1):"))
    #expect(diff.stdout.contains("guards/android-release-guard [android] passed → failed"))
    let runs = try CLI.run(["history", "--json"], in: scratch)
    let ids = try #require(
      (try JSONSerialization.jsonObject(with: Data(runs.stdout.utf8)) as? [[String: Any]])?
        .compactMap { $0["id"] as? String })
    let back = try CLI.run(["diff", ids[0], ids[1], "--json"], in: scratch)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(back.stdout.utf8)) as? [String: Any])
    #expect(
      (object["fixed"] as? [[String: String]])?.first?["scenario"] == "guards/android-release-guard"
    )
    #expect(back.status == 0)
    let report = try String(
      contentsOf: scratch.appendingPathComponent("Reports/latest.html"), encoding: .utf8)
    #expect(report.contains("new since the last qualified run"))
    #expect(
      report.contains(
        "qualify run guards/android-release-guard --platform android --channel prod --seed 7 --app "
      ))
    let trend = try String(
      contentsOf: scratch.appendingPathComponent("Reports/index.html"), encoding: .utf8)
    #expect(trend.components(separatedBy: "<rect class=\"run").count - 1 == 2)
  }

  /// Issue 25, item 6: two qualified runs that differ only by their seeds show no change, and
  /// the diff says once that the seeds differ.
  @Test func runsThatDifferOnlyBySeedShowNoChange() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    for seed in ["1", "2"] {
      let run = try CLI.run(["--scenarios", CLI.scenarios, "--seed", seed], in: scratch)
      #expect(run.status == 0, "\(run.stdout.suffix(400))")
    }
    let diff = try CLI.run(["diff"], in: scratch)
    #expect(diff.status == 0, "\(diff.stdout)")
    #expect(diff.stdout.contains("no change in verdicts, controls or evidence"), "\(diff.stdout)")
    #expect(diff.stdout.components(separatedBy: "different seeds (1 and 2)").count == 2)
  }

  /// Issue 25, item 3: a finding's fix stands where people read — the console, the report's
  /// blocker card (re-rendered from the store too), JUnit's failure text, JSON's groups and the
  /// Markdown summary.
  @Test func theFixOfAFindingIsWhereEveryReaderLooks() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let app = try copy(
      Fixtures.regressionsDirectory + "/android-release-guard-missing", as: "app")
    let run = try qualify(app, ["--junit", "junit.xml", "--summary", "summary.md"])
    #expect(run.status == 1)
    let fix = "fix: "
    #expect(run.stdout.contains("\n  " + fix), "\(run.stdout.suffix(1500))")
    let junit = try String(contentsOf: scratch.appendingPathComponent("junit.xml"), encoding: .utf8)
    #expect(junit.contains("&#10;" + fix) || junit.contains("\n" + fix), "\(junit.prefix(400))")
    let summary = try String(
      contentsOf: scratch.appendingPathComponent("summary.md"), encoding: .utf8)
    #expect(summary.contains("\nFix: "))
    // The caveats the console prints travel with the summary and JUnit.
    #expect(run.stdout.contains("note: the push credentials were not verified"))
    #expect(summary.contains("> note: the push credentials were not verified"), "\(summary)")
    #expect(
      junit.contains(#"<property name="caveats" value="the push credentials were not verified"#))
    let json = try qualify(app, ["--json"])
    let document = try #require(
      try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    let groups = (document["failures"] as? [String: Any])?["groups"] as? [[String: Any]] ?? []
    #expect(groups.contains { ($0["fix"] as? String)?.isEmpty == false })
    let again = try CLI.run(["report", "--report-dir", "again"], in: scratch)
    #expect(again.status == 0, "\(again.stderr)")
    let html = try String(
      contentsOf: scratch.appendingPathComponent("again/latest.html"), encoding: .utf8)
    #expect(html.contains("<p class=\"fix\"><strong>Fix:</strong>"))
  }

  @Test func aWaiverInForceQualifiesAnExpiredOneDoesNotABrokenOneIsBadInput() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let app = try copy(
      Fixtures.regressionsDirectory + "/android-release-guard-missing", as: "app")
    let file = app.appendingPathComponent("qualify-waivers.json")
    func waive(
      expires: String, check: String = "guards/android-release-guard", onRelease: Bool = true
    ) throws {
      try Data(
        """
        {
          "waivers": [
            {
              "check": "\(check)",
              "platform": "android",
              "reason": "the release build type is signed by the store pipeline (MSG-12)",
              "owner": "release@example.org",
              "expires": "\(expires)"\(onRelease ? ",\n      \"allowOnRelease\": true" : "")
            }
          ]
        }
        """.utf8
      ).write(to: file)
    }
    // The release guard guards a store build (item 7): on prod only allowOnRelease waives it.
    try waive(expires: "2099-12-31", onRelease: false)
    let refused = try qualify(app)
    #expect(refused.status == 1, "\(refused.stdout.suffix(800))")
    #expect(
      refused.stdout.contains("add \"allowOnRelease\": true if its owner accepts shipping that"))
    try waive(expires: "2099-12-31")
    let waived = try qualify(app, ["--junit", "junit.xml", "--summary", "summary.md"])
    #expect(waived.status == 0, "\(waived.stdout.suffix(800))")
    let headline =
      "QUALIFIED with 1 waiver (waiving store-build guards: guards/android-release-guard [android]) — channel prod"
    #expect(waived.stdout.contains(headline))
    #expect(waived.stdout.contains("waived: guards/android-release-guard [android]"))
    let junit = try String(contentsOf: scratch.appendingPathComponent("junit.xml"), encoding: .utf8)
    #expect(junit.contains("<skipped message=\"waived by release@example.org until 2099-12-31"))
    let summary = try String(
      contentsOf: scratch.appendingPathComponent("summary.md"), encoding: .utf8)
    // Markdown: the headline's brackets are escaped, as all app-derived text is.
    #expect(
      summary.hasPrefix("## qualify: QUALIFIED with 1 waiver \\(waiving store-build guards"),
      "\(summary.prefix(200))")
    #expect(summary.contains("### Waived"))
    let history = try CLI.run(["history"], in: scratch)
    #expect(history.stdout.contains("qualified (1 waived by 1 waiver)"), "\(history.stdout)")

    try waive(expires: "2020-01-01")
    let expired = try qualify(app)
    #expect(expired.status == 1)
    #expect(
      expired.stdout.contains("warning: expired waiver guards/android-release-guard [android]"))
    #expect(expired.stdout.contains("NOT QUALIFIED"))

    try waive(expires: "2099-12-31", check: "guards/android-release-gaurd")
    let broken = try qualify(app)
    #expect(broken.status == 2)
    #expect(
      broken.stderr.contains(
        "qualify-waivers.json:4:1: error: no scenario \"guards/android-release-gaurd\""))
  }

  @Test func repeatMarksADeliberatelyFlakyScenarioFlaky() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let result = try CLI.run(
      [
        "run", "flaky/update-after-random-fault", "--platform", "ios", "--seed", "1", "--repeat",
        "3", "--scenarios", Fixtures.file("scenarios"), "--junit", "junit.xml",
      ], in: scratch)
    #expect(result.status == 1, "\(result.stdout)")
    #expect(result.stdout.contains("FLAKY flaky/update-after-random-fault [ios]"))
    #expect(result.stdout.contains("flaky: seed 1 passed, seed 2 passed, seed 3 failed"))
    // The reproduce command takes the seed that failed.
    #expect(
      result.stdout.contains(
        "qualify run flaky/update-after-random-fault --platform ios --channel prod --seed 3 "))
    let junit = try String(contentsOf: scratch.appendingPathComponent("junit.xml"), encoding: .utf8)
    #expect(junit.contains("<failure type=\"flaky\""))
    let show = try CLI.run(["show", "latest", "--json"], in: scratch)
    #expect(show.stdout.contains("\"attempts\""))
    // Without --repeat the same seed passes: only repeating shows it.
    let once = try CLI.run(
      [
        "run", "flaky/update-after-random-fault", "--platform", "ios", "--seed", "1",
        "--scenarios", Fixtures.file("scenarios"),
      ], in: scratch)
    #expect(once.status == 0)
  }

  /// A run that fail-fast stopped on a waived failure would have run almost nothing: a waived
  /// failure does not stop it, and a stopped run is never QUALIFIED.
  @Test func failFastDoesNotStopOnAWaivedFailureAndAStoppedRunIsPartial() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let app = try copy(
      Fixtures.regressionsDirectory + "/android-release-guard-missing", as: "app")
    try Data(
      #"{"waivers": [{"check": "guards/android-release-guard", "platform": "android", "reason": "r", "owner": "o", "expires": "2099-01-01", "allowOnRelease": true}]}"#
        .utf8
    ).write(to: app.appendingPathComponent("qualify-waivers.json"))
    let waived = try qualify(app, ["--fail-fast", "--jobs", "1"])
    #expect(waived.status == 0)
    #expect(waived.stdout.contains("QUALIFIED with 1 waiver (waiving store-build guards:"))
    // Every scenario ran: the run was not stopped.
    #expect(!waived.stdout.contains("partial"))
    let broken = try copy(
      Fixtures.regressionsDirectory + "/ios-scheme-not-registered", as: "broken")
    try Data(
      #"{"waivers": [{"check": "auth/expired-token", "platform": "ios", "reason": "r", "owner": "o", "expires": "2099-01-01"}]}"#
        .utf8
    ).write(to: broken.appendingPathComponent("qualify-waivers.json"))
    let stopped = try qualify(broken, ["--fail-fast", "--jobs", "1"])
    #expect(stopped.status == 1)
    #expect(!stopped.stdout.contains("QUALIFIED with"))
  }

  @Test func aScenarioFileIsReproducedByItsPath() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let file = Fixtures.file("scenarios/flaky/update-after-random-fault.scenario")
    let result = try CLI.run(
      ["run", file, "--platform", "ios", "--seed", "3", "--scenarios", CLI.scenarios],
      in: scratch)
    #expect(result.status == 1)
    #expect(result.stdout.contains("qualify run \(file) --platform ios --channel prod --seed 3 "))
  }

  @Test func failFastStartsNothingAfterTheFirstFailure() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let broken = try copy(
      Fixtures.regressionsDirectory + "/ios-scheme-not-registered", as: "broken")
    let result = try qualify(broken, ["--fail-fast", "--jobs", "1", "--junit", "junit.xml"])
    #expect(result.status == 1)
    // A run that stopped early says so wherever its scope is shown.
    let junit = try String(contentsOf: scratch.appendingPathComponent("junit.xml"), encoding: .utf8)
    #expect(junit.contains("<property name=\"scope\" value=\"partial\"/>"))
    #expect(junit.contains("stopped by --fail-fast after"))
    let lines = result.stdout.split(separator: "\n")
    #expect(lines.filter { $0.hasPrefix("FAIL ") }.count == 1)
    let ran = lines.filter {
      $0.hasPrefix("PASS ") || $0.hasPrefix("FAIL ") || $0.hasPrefix("N/A ")
    }
    #expect(ran.count < 100)
    #expect(result.stdout.contains("NOT QUALIFIED"))
  }

  @Test func traceMarksStepsExpectationsAndControlVerdicts() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let result = try CLI.run(
      [
        "run", "ota/update-applies", "--platform", "android", "--seed", "1", "--trace",
        "--scenarios", CLI.scenarios,
      ], in: scratch)
    #expect(result.status == 0)
    let text = result.stdout
    let step = try #require(
      text.range(of: "▶ step 2 \"the app launches, verifies the bundle and switches to it\""))
    let held = try #require(text.range(of: "▶ ✓ expect update applied"))
    let control = try #require(text.range(of: "▶ control \"the build embeds no public key\" bit"))
    let verdict = try #require(text.range(of: "▶ verdict passed"))
    #expect(step.lowerBound < held.lowerBound)
    #expect(control.lowerBound < verdict.lowerBound)
  }
}
