import Foundation
import QualifyTestSupport
import Testing

/// The verdict never claims more than was checked, and a release env can come from the
/// pipeline: the built binary, as CI runs it.
@Suite struct HonestVerdictCLITests {
  let scratch: URL

  init() throws {
    scratch = try Fixtures.temporaryDirectory("qualify-verdicts")
  }

  private func qualify(_ arguments: [String], environment: [String: String] = [:]) throws
    -> ProcessResult
  {
    try CLI.run(
      arguments + ["--scenarios", CLI.scenarios, "--seed", "3"], in: scratch,
      environment: environment)
  }

  /// The gate (issue 25): what the environment left out is not the user's selection, so a
  /// prod run without its env exits 1 however much passed; `--allow-partial` is the
  /// exploratory run's way out.
  @Test func aReleaseChannelWithoutItsEnvSaysSoAndNeverQualifies() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let result = try qualify(["--app", Fixtures.file("apps/no-release-env")])
    #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
    #expect(
      result.stdout.contains(
        "error: not a release gate pass (exit 1): the prod run is partial because of the app or the environment, not the command line: channel env not supplied"
      ))
    #expect(result.stdout.contains("or pass --allow-partial for an exploratory run"))
    // The machine-readable outputs carry the gate too.
    let outputs = try qualify([
      "--app", Fixtures.file("apps/no-release-env"), "--junit", "gate.xml", "--json",
    ])
    #expect(outputs.stdout.contains(#""exitCode" : 1"#), "\(outputs.stdout.suffix(300))")
    #expect(outputs.stdout.contains(#""unrequestedReductions" : ["#))
    let junit = try String(
      contentsOf: scratch.appendingPathComponent("gate.xml"), encoding: .utf8)
    #expect(
      junit.contains(
        #"name="gate" value="refused: partial because of the app or the environment: channel env not supplied""#
      ))
    let exploratory = try qualify([
      "--app", Fixtures.file("apps/no-release-env"), "--allow-partial",
    ])
    #expect(exploratory.status == 0, "\(exploratory.stdout)\(exploratory.stderr)")
    #expect(!exploratory.stdout.contains("not a release gate pass"))
    // On dev, the dev env is the channel's own: nothing is missing.
    let dev = try qualify(["--app", Fixtures.file("apps/no-release-env"), "--channel", "dev"])
    #expect(dev.status == 0, "\(dev.stdout)\(dev.stderr)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    // Loudly, at the top of the run and again at the end.
    #expect(lines.prefix(3).contains { $0.hasPrefix("warning: no prod env was supplied") })
    #expect(result.stdout.contains("PASSED (partial: channel env not supplied)"))
    #expect(!result.stdout.contains("QUALIFIED —"))
    #expect(!result.stdout.contains("FAIL "))
  }

  @Test func aPipelineEnvOnTheCommandLineMakesTheChannelWhole() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let sample = Fixtures.sampleApp
    let result = try qualify([
      "--app", Fixtures.file("apps/no-release-env"), "--backend-env",
      sample + "/ci/env/prod/backend.env", "--frontend-env", sample + "/ci/env/prod/frontend.local",
      "--frontend-env", sample + "/deploy/env/ota-signing.test",
    ])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(!result.stdout.contains("warning:"))
    #expect(result.stdout.contains("QUALIFIED — channel prod"))
  }

  @Test func aFeatureTheProfileDeclaresUnusedIsNotApplicableAndTheRunQualifies() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let result = try qualify(["--app", Fixtures.file("apps/ota-unused")])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout.contains("N/A ota/update-applies [ios]"))
    #expect(
      result.stdout.contains("not in this release: qualify.json declares features.ota = false"))
    #expect(result.stdout.contains("MOBILE_OTA_MANIFEST_URL is unset"))
    // The item only OTA proves is said to be absent from the release, not "not applicable".
    #expect(result.stdout.contains("not in this release: 4"))
    #expect(result.stdout.contains("QUALIFIED — channel prod"))
  }

  /// Issue 26: the sample app released as the real repository does today (a builtin stamped
  /// with a bare commit id, `ota.ordering: sequence`) qualifies; seed 000's count checks are
  /// not applicable to it, the sequence checks run, and the count-ordered sample skips those.
  @Test func anAppOrderingReleasesBySequenceQualifies() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let result = try qualify(["--app", Fixtures.file("apps/ota-sequence")])
    #expect(result.status == 0, "\(result.stdout.suffix(800))")
    #expect(result.stdout.contains("QUALIFIED — channel prod"))
    #expect(result.stdout.contains("PASS ota/rollback-followed [ios]"))
    #expect(result.stdout.contains("PASS ota/stale-manifest-refused [android]"))
    #expect(result.stdout.contains("N/A ota/downgrade-refused [ios]"))
    #expect(result.stdout.contains("this app orders them by sequence (qualify.json ota.ordering)"))
    #expect(result.stdout.contains("OTA builtin 5e1f0c2a on channel prod"))
    let sample = try qualify(["--filter", "ota/rollback-followed"])
    #expect(sample.stdout.contains("N/A ota/rollback-followed [ios]"), "\(sample.stdout)")
  }

  /// The same app whose ota.ts is the sample's count-ordered client: its code holds no
  /// manifest's sequence against a floor, so a stale manifest applies, and the guard names
  /// the file. The sequence scenarios pass on the app's code, not on an assumed client.
  @Test func aSequenceOrderedAppWhoseClientIgnoresTheSequenceFails() throws {
    let countClient = try String(
      contentsOfFile: Fixtures.sampleApp + "/src/frontend/src/features/native/ota.ts",
      encoding: .utf8)
    let app = try Fixtures.overlayApp(
      "qualify-ota-count-client", base: Fixtures.file("apps/ota-sequence"),
      files: ["src/frontend/src/features/native/ota.ts": countClient])
    defer {
      try? FileManager.default.removeItem(at: app)
      try? FileManager.default.removeItem(at: scratch)
    }
    let result = try qualify(["--app", app.path, "--no-engines", "--filter", "*ota*"])
    #expect(result.status == 1, "\(result.stdout.suffix(800))")
    #expect(result.stdout.contains("FAIL guards/ota-client [ios]"))
    #expect(
      result.stdout.contains("ota.ts holds no manifest's sequence against the applied sequence"))
    #expect(result.stdout.contains("FAIL ota/stale-manifest-refused [android]"))
  }

  /// A store build of the hybrid era (builtin 1200-5e1f0c2) on a sequence-ordered channel:
  /// ota.ts's native floor refuses a count-prefixed bundle older than the binary whatever its
  /// sequence, and its control bites; on a bare-stamped builtin the scenario has nothing to
  /// test and says so, as the app's own build (declared), not as a missing env.
  @Test func theNativeFloorHoldsForAHybridEraBuiltin() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let hybrid = try qualify([
      "--app", Fixtures.file("apps/ota-sequence-hybrid-builtin"), "--filter", "ota/native-floor",
    ])
    #expect(hybrid.stdout.contains("PASS ota/native-floor [ios]"), "\(hybrid.stdout.suffix(800))")
    #expect(hybrid.stdout.contains("PASS ota/native-floor [android]"))
    #expect(hybrid.stdout.contains("2/2 controls bit"))
    let bare = try qualify([
      "--app", Fixtures.file("apps/ota-sequence"), "--filter", "ota/native-floor",
    ])
    #expect(bare.stdout.contains("N/A ota/native-floor [ios]"))
    #expect(bare.stdout.contains("no release is ordered below it"))
    #expect(!bare.stdout.contains("channel env not supplied"), "\(bare.stdout.suffix(600))")
  }

  @Test func aFeatureOffThatNobodyDeclaredMakesTheRunPartial() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let result = try qualify(["--app", Fixtures.file("apps/ota-undeclared")])
    #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout.contains("PASSED (partial: OTA not enabled in this build"))
    #expect(result.stdout.contains("not a release gate pass (exit 1)"))
  }

  @Test func aFeatureTheProfileSaysIsUsedMustBeOnInARelease() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let app = try Fixtures.temporaryApp("qualify-verdicts")
    defer { try? FileManager.default.removeItem(at: app) }
    try FileManager.default.createDirectory(
      at: app.appendingPathComponent("ci/env/prod"), withIntermediateDirectories: true)
    try Data(
      #"{ "base": "\#(Fixtures.file("apps/ota-unused"))", "features": { "ota": true } }"#.utf8
    )
    .write(to: app.appendingPathComponent("qualify.json"))
    let result = try qualify(["--app", app.path, "--filter", "ota/update-applies"])
    #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout.contains("declares features.ota = true"))
  }

  @Test func partialRunsAreRecordedAsPartialInHistory() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let run = try qualify(["run", "sso/cross-app", "--platform", "ios"])
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    #expect(run.stdout.contains("PASSED (partial: scenario sso/cross-app, ios only, 1 of"))
    #expect(!run.stdout.contains("QUALIFIED"))
    let history = try CLI.run(["history"], in: scratch)
    #expect(history.stdout.contains("passed-partial"), "\(history.stdout)")
    #expect(history.stdout.contains("(partial: scenario sso/cross-app, ios only"))
  }

  @Test func checkAppExplainsWhereEachValueCameFrom() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let result = try CLI.run(
      ["check-app", "--explain", "--channel", "prod", "--app", Fixtures.sampleApp], in: scratch)
    #expect(result.status == 0, "\(result.stdout)")
    #expect(result.stdout.contains("registered scheme: stmessages"))
    #expect(
      result.stdout.contains("MOBILE_AUTH_SCHEME is unset: its default \"stmessages\" applies"))
    #expect(result.stdout.contains("ci/env/prod/frontend.local:3"))
  }

  @Test func profilePathsThatLeaveTheAppAreRefused() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let app = try Fixtures.temporaryApp("qualify-verdicts")
    defer { try? FileManager.default.removeItem(at: app) }
    try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
    try Data(
      """
      {
        "base": "\(Fixtures.sampleApp)",
        "paths": {
          "ios.infoPlist": "../../../../etc/passwd"
        }
      }
      """.utf8
    ).write(to: app.appendingPathComponent("qualify.json"))
    let result = try CLI.run(["check-app", "--app", app.path], in: scratch)
    #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
    #expect(result.stderr.contains("qualify.json:4:"), "\(result.stderr)")
    #expect(result.stderr.contains("leaves the app directory"))
    #expect(!result.stderr.contains("root:"))
  }

  @Test func aListedEnvFileThatDoesNotExistIsNamed() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let app = try Fixtures.temporaryApp("qualify-verdicts")
    defer { try? FileManager.default.removeItem(at: app) }
    try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
    try Data(
      #"{ "base": "\#(Fixtures.sampleApp)", "channels": { "prod": { "backendEnv": ["ci/env/prod/backend.envv"] } } }"#
        .utf8
    ).write(to: app.appendingPathComponent("qualify.json"))
    let result = try CLI.run(["check-app", "--app", app.path], in: scratch)
    #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
    #expect(result.stderr.contains("ci/env/prod/backend.envv"), "\(result.stderr)")
    #expect(result.stderr.contains("does not exist"))
  }
}
