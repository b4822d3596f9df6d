import Foundation
import QualifyCore
import QualifyCrypto
import QualifyTestSupport
import ResultModel
import Results
import Testing

/// What the release manager reads: failures first and grouped, reproduce commands, waivers,
/// diffs, flaky runs, CI outputs and the signed verdict (issue 13).
@Suite struct ReleaseReportTests {
  static let plist = "apps/x/ios/App/App/Info.plist:32"

  static func result(
    _ id: String, _ platform: Platform, _ verdict: Verdict, message: String? = nil,
    checklist: [Int] = [1], proof: Proof = .simulated, controls: [ControlRecord] = []
  ) -> ScenarioResult {
    var result = ScenarioResult(
      scenarioID: id, title: id, file: "Scenarios/\(id).scenario", platform: platform,
      channel: .prod, checklist: checklist, tags: [], verdict: verdict,
      message: message ?? verdict.rawValue,
      check: ExecutionRecord(steps: [], failedStep: nil, message: nil, isError: false, duration: 0),
      controls: controls, duration: 0)
    result.proof = proof
    return result
  }

  static func control(_ name: String, _ outcome: ControlRecord.Outcome, _ message: String)
    -> ControlRecord
  {
    ControlRecord(
      name: name, mutations: ["m"], expectedStep: 1, because: nil, outcome: outcome,
      message: message, execution: nil)
  }

  /// Six failures from one bad line of Info.plist, named in the guard's finding and in the
  /// simulated refusals, one unrelated failure, and a control that failed elsewhere because
  /// of the same line.
  static var brokenRun: [ScenarioResult] {
    let refusal =
      "ASWebAuthenticationSession only delivers a registered scheme; stmessages is not (the app's URL schemes: \(plist))"
    var results = [
      result(
        "guards/sso-invariants", .ios, .failed,
        message:
          "step 1 \"in place\": expect no finding callback-scheme-registered: \(plist): the callback scheme \"stmessages\" is not in CFBundleURLTypes",
        proof: .static)
    ]
    for id in ["sso/cross-app", "sso/handoff-page", "auth/login", "files/download", "push/receive"]
    {
      results.append(
        result(
          id, .ios, .failed,
          message:
            "step 1 \"signs in\": expect session: no session (GET https://messages.example:443/api/v1.0/users/me/ → 401) — after mail logs in: could not deliver: \(refusal)"
        ))
    }
    results.append(
      result(
        "ota/update-applies", .android, .failed,
        message: "step 2 \"applies\": expect update applied: it was refused: checksum-mismatch",
        checklist: [4]))
    results.append(
      result(
        "auth/stale-flag", .ios, .controlDidNotBite, message: "control did not bite",
        controls: [
          control(
            "the backend consumes flags whatever their age", .bitElsewhere,
            "failed at step 2, but because of browser-ends nowhere: could not deliver: \(refusal)")
        ]))
    results.append(result("logout/relogin", .android, .passed))
    return results
  }

  static var run: RunRecord {
    var run = SampleResults.run
    var scope = RunScope()
    scope.reproduceOptions = ["--channel", "prod", "--seed", "42", "--app", "apps/my app"]
    run.scope = scope
    return run
  }

  @Test func oneBadLineIsOneGroupNamingThatLine() {
    let results = Self.brokenRun
    let report = FailureReport(
      run: Self.run, results: results, summary: RunSummary(results, scope: Self.run.scope!))
    #expect(report.groups.count == 2)
    let first = report.groups[0]
    #expect(first.location == Self.plist)
    // The static finding says the cause in the app's own terms.
    #expect(first.cause.hasPrefix(Self.plist + ": the callback scheme \"stmessages\""))
    #expect(first.failures.count == 7)
    #expect(
      first.failures.contains { $0.control == "the backend consumes flags whatever their age" })
    #expect(report.groups[1].failures.map(\.scenarioID) == ["ota/update-applies"])
    #expect(report.groups[1].cause.contains("checksum-mismatch"))
  }

  /// A control that cannot bite because the app already breaks the rule it switches (the
  /// manifest allows cleartext, so making the API origin cleartext changes nothing) is grouped
  /// under that finding, after it; a control that did not bite on its own still heads its own
  /// group as "the check proves nothing".
  @Test func aControlThatCannotBiteIsGroupedUnderTheFailureThatKeepsIt() {
    let manifest = "apps/x/android/app/src/main/AndroidManifest.xml:10"
    let results = [
      Self.result(
        "guards/config-over-https", .android, .controlDidNotBite, checklist: [7],
        controls: [
          Self.control(
            "the build calls a cleartext API origin", .didNotBite,
            "every step still held under app.api-origin-cleartext")
        ]),
      Self.result(
        "guards/no-cleartext", .android, .failed,
        message:
          "step 1 \"none\": expect no finding uses-cleartext-traffic: \(manifest): android:usesCleartextTraffic=\"true\"",
        checklist: [7], proof: .static),
      // Another item, where only a harness error happened: a timeout explains no control.
      Self.result(
        "sso/cross-app", .android, .controlDidNotBite, checklist: [1],
        controls: [Self.control("the browser forgets", .didNotBite, "every step still held")]),
      Self.result(
        "sso/handoff-page", .android, .error, message: "timed out after 30s", checklist: [1]),
      // The same item on the other platform: the Android finding does not explain it.
      Self.result(
        "guards/config-over-https", .ios, .controlDidNotBite, checklist: [7],
        controls: [Self.control("ios control", .didNotBite, "every step still held")]),
    ]
    let report = FailureReport(
      run: Self.run, results: results, summary: RunSummary(results, scope: Self.run.scope!))
    #expect(report.groups.count == 4)
    let first = report.groups[0]
    #expect(first.location == manifest)
    #expect(
      first.failures.map(\.scenarioID) == ["guards/no-cleartext", "guards/config-over-https"])
    let consequence = first.failures[1]
    #expect(consequence.control == "the build calls a cleartext API origin")
    #expect(
      consequence.reason.hasPrefix(
        "cannot bite while the app already fails guards/no-cleartext (checklist item 7)"))
    let controls = report.groups.dropFirst().filter { $0.failures.contains { $0.control != nil } }
    #expect(controls.count == 2)
    #expect(controls.allSatisfy { $0.cause.contains("the check proves nothing") })
  }

  @Test func everyFailureHasTheCommandThatReproducesIt() {
    let results = Self.brokenRun
    let report = FailureReport(
      run: Self.run, results: results, summary: RunSummary(results, scope: Self.run.scope!))
    let cross = report.blocking.first { $0.scenarioID == "sso/cross-app" }
    #expect(
      cross?.reproduce
        == "qualify run sso/cross-app --platform ios --channel prod --seed 42 --app 'apps/my app'")
    #expect(report.blocking.allSatisfy { $0.reproduce.hasPrefix("qualify run \($0.scenarioID) ") })
  }

  @Test func aFlakyFailureReproducesWithTheSeedOfTheAttemptThatFailed() {
    var flaky = Self.result("ota/transient", .ios, .failed)
    flaky.attempts = [.init(seed: 42, verdict: .passed), .init(seed: 43, verdict: .failed)]
    #expect(flaky.isFlaky)
    #expect(FailureReport.reproduce(flaky, run: Self.run).contains("--seed 43 "))
  }

  @Test(
    arguments: [
      ("see https://messages.example:443/a/b.json:12 then", nil),
      ("at src/ios/App/Info.plist:32: the scheme", "src/ios/App/Info.plist:32"),
      ("(the app's entitlements: /a/App/App.entitlements)", "/a/App/App.entitlements"),
      ("no file here: status 401", nil),
    ] as [(String, String?)])
  func aLocationIsAFileAndLineNeverAURL(text: String, location: String?) {
    #expect(FailureReport.location(in: text) == location)
  }

  static func waiver(_ check: String, expires: String = "2099-01-01", expired: Bool = false)
    -> Waiver
  {
    var waiver = Waiver(
      check: check, platform: .android, reason: "tracked in MSG-12", owner: "ops@example.org",
      expires: expires, location: "qualify-waivers.json:3")
    waiver.expired = expired
    return waiver
  }

  @Test func aWaivedFailureDoesNotBlockAndTheHeadlineSaysSo() {
    let results = [
      Self.result("sso/cross-app", .ios, .passed),
      Self.result("ota/update-applies", .android, .failed, checklist: [4]),
    ]
    var scope = RunScope()
    scope.selectedRuns = 2
    scope.catalogueRuns = 2
    scope.waivers = [Self.waiver("ota/update-applies")]
    let summary = RunSummary(results, scope: scope)
    #expect(summary.qualified)
    #expect(summary.headline == "QUALIFIED with 1 waiver")
    #expect(summary.exitCode == .qualified)
    #expect(summary.waiverNotes.isEmpty)
    let coverage = ChecklistCoverage(results, waived: Set(summary.waived.keys))
    #expect(coverage.cells.first { $0.item == 4 && $0.platform == .android }?.state == .waived)
    #expect(coverage.summary.contains("waived: 4"))
  }

  @Test func anExpiredWaiverCoversNothingAndAnUnusedOneIsReported() {
    let results = [
      Self.result("sso/cross-app", .ios, .passed),
      Self.result("ota/update-applies", .android, .failed),
      Self.result("push/receive", .android, .passed),
    ]
    var scope = RunScope()
    scope.waivers = [
      Self.waiver("ota/update-applies", expires: "2020-01-01", expired: true),
      Self.waiver("push/receive"),
    ]
    let summary = RunSummary(results, scope: scope)
    #expect(!summary.qualified)
    #expect(summary.headline == "NOT QUALIFIED")
    #expect(summary.waiverNotes.count == 2)
    #expect(summary.waiverNotes[0].hasPrefix("expired waiver ota/update-applies [android]"))
    #expect(summary.waiverNotes[1].hasPrefix("unused waiver push/receive [android]"))
  }

  @Test func aControlThatDidNotBiteNeedsAWaiverOfItsOwn() {
    let missed = Self.result(
      "auth/stale-flag", .android, .controlDidNotBite,
      controls: [Self.control("age", .didNotBite, "held"), Self.control("state", .bit, "bit")])
    var other = Self.waiver("auth/stale-flag")
    other.control = "another"
    #expect(missed.waivers(among: [other]) == nil)
    var own = Self.waiver("auth/stale-flag")
    own.control = "age"
    #expect(missed.waivers(among: [own]) == [own])
    // A harness error is never waived.
    #expect(Self.result("auth/x", .android, .error).waivers(among: [Self.waiver("auth/x")]) == nil)
  }

  /// Two controls that did not bite, each waived by its own waiver: both waivers apply, both
  /// are listed, neither is reported unused, and JUnit skips both controls.
  @Test func everyControlWaiverOfAResultCounts() throws {
    let missed = Self.result(
      "auth/stale-flag", .android, .controlDidNotBite,
      controls: [
        Self.control("age", .didNotBite, "held"), Self.control("state", .didNotBite, "held"),
      ])
    var age = Self.waiver("auth/stale-flag")
    age.control = "age"
    var state = Self.waiver("auth/stale-flag")
    state.control = "state"
    var scope = RunScope()
    scope.waivers = [age, state]
    let summary = RunSummary([missed, Self.result("sso/x", .ios, .passed)], scope: scope)
    #expect(summary.appliedWaivers == [age, state])
    #expect(summary.headline == "QUALIFIED with 2 waivers")
    #expect(summary.unusedWaivers.isEmpty)
    var run = Self.run
    run.scope = scope
    let xml = JUnitWriter.render(run: run, results: [missed])
    #expect(try XMLDocumentProbe(xml).elements("failure").isEmpty)
    #expect(xml.components(separatedBy: "<skipped").count - 1 == 2)
  }

  /// A run that stopped early — `--fail-fast`, or anything that left runs out — or that ran
  /// another catalogue is never QUALIFIED, whatever passed.
  @Test func aRunThatDidNotRunTheWholeCatalogueIsPartial() {
    let results = [Self.result("sso/a", .ios, .passed), Self.result("sso/b", .android, .passed)]
    var scope = RunScope()
    scope.selectedRuns = 3
    scope.catalogueRuns = 3
    scope.failFast = true
    let stopped = RunSummary(results, scope: scope)
    #expect(!stopped.qualified)
    #expect(stopped.headline == "PASSED (partial: 2 of 3 runs)")
    scope.selectedRuns = 2
    scope.catalogueRuns = 2
    scope.scenarioFolder = "my-scenarios"
    let elsewhere = RunSummary(results, scope: scope)
    #expect(!elsewhere.qualified)
    #expect(elsewhere.headline.contains("scenarios from my-scenarios, not the bundled catalogue"))
  }

  /// A waiver of a check this run did not run is not "unused": a partial run says nothing
  /// about it.
  @Test func aPartialRunDoesNotCallWaiversOfChecksItDidNotRunUnused() {
    var scope = RunScope()
    scope.waivers = [Self.waiver("push/receive")]
    let summary = RunSummary([Self.result("sso/a", .ios, .passed)], scope: scope)
    #expect(summary.unusedWaivers.isEmpty)
  }

  @Test func theWaiverFileIsCheckedAndEveryMistakeIsLocated() throws {
    let text = """
      {
        "waivers": [
          {
            "check": "ota/update-aplies",
            "platform": "android",
            "reason": "tracked in MSG-12",
            "owner": "ops@example.org",
            "expires": "2027-02-30"
          },
          {
            "check": "ota/update-applies",
            "control": "nope",
            "reason": "x",
            "expire": "2027-01-01"
          }
        ]
      }
      """
    let controls: [String: Set<String>] = ["ota/update-applies": ["the build embeds no key"]]
    do {
      _ = try WaiverFile.parse(
        text, file: "qualify-waivers.json", day: "2026-11-30", controls: controls)
      Issue.record("a broken waiver file was accepted")
    } catch let error as InputError {
      let lines = error.diagnostics.map { "\($0.location?.line ?? 0): \($0.message)" }
      #expect(lines.contains("4: no scenario \"ota/update-aplies\""))
      #expect(
        error.diagnostics.first { $0.location?.line == 4 }?.hint?.contains("ota/update-applies")
          == true)
      #expect(lines.contains("8: \"expires\" must be a date YYYY-MM-DD, got \"2027-02-30\""))
      #expect(lines.contains("12: ota/update-applies has no control \"nope\""))
      #expect(lines.contains("14: unknown key \"expire\""))
      #expect(lines.contains { $0.hasSuffix("a waiver needs \"owner\"") })
    }
    let good = try WaiverFile.parse(
      """
      {"waivers": [{"check": "ota/update-applies", "reason": "r", "owner": "o", "expires": "2026-11-29"},
                   {"check": "ota/update-applies", "reason": "r", "owner": "o", "expires": "2026-11-30"}]}
      """, file: "w.json", day: "2026-11-30", controls: controls)
    #expect(good.map(\.expired) == [true, false])
    #expect(good[0].location == "w.json:1")
    let release = try WaiverFile.parse(
      #"{"waivers": [{"check": "ota/update-applies", "reason": "r", "owner": "o", "expires": "2099-01-01", "allowOnRelease": true}]}"#,
      file: "w.json", day: "2026-11-30", controls: controls)
    #expect(release.first?.allowOnRelease == true)
    #expect(throws: InputError.self) {
      try WaiverFile.parse(
        #"{"waivers": [{"check": "ota/update-applies", "reason": "r", "owner": "o", "expires": "2099-01-01", "allowOnRelease": "yes"}]}"#,
        file: "w.json", day: "2026-11-30", controls: controls)
    }
  }

  @Test func aDiffSaysWhatIsNewWhatIsFixedAndWhatChanged() {
    var before = [
      Self.result("sso/cross-app", .ios, .passed, controls: [Self.control("c", .bit, "")]),
      Self.result("ota/update-applies", .android, .failed),
      Self.result("guards/gone", .ios, .passed),
    ]
    before[0].check.steps = [
      StepRecord(
        index: 1, title: "t", status: .passed, message: nil,
        evidence: [
          Evidence(
            kind: .http, source: "ios/mail",
            summary: "GET /api/v1.0/config/ → 200 (1.2ms) token AbCdEf0123456789xyz", time: Date())
        ], duration: 0)
    ]
    var after = [
      Self.result("sso/cross-app", .ios, .failed, controls: [Self.control("c", .notRun, "")]),
      Self.result("ota/update-applies", .android, .passed),
      Self.result("guards/new", .ios, .passed),
    ]
    after[0].check.steps = before[0].check.steps
    // Another seed's token and timing are the same evidence; another status is not.
    after[0].check.steps[0].evidence[0].summary =
      "GET /api/v1.0/config/ → 200 (3.4ms) token ZzYyXx9876543210abc"
    var diff = RunDiff(before: before, after: after)
    #expect(diff.newFailures.map(\.key.description) == ["sso/cross-app [ios]"])
    #expect(diff.fixed.map(\.key.description) == ["ota/update-applies [android]"])
    #expect(diff.controls.map(\.control) == ["c"])
    #expect(diff.evidence.isEmpty)
    #expect(diff.added.map(\.description) == ["guards/new [ios]"])
    #expect(diff.removed.map(\.description) == ["guards/gone [ios]"])
    after[0].check.steps[0].evidence[0].summary = "GET /api/v1.0/config/ → 401 (3.4ms)"
    diff = RunDiff(before: before, after: after)
    #expect(diff.evidence.map(\.steps) == [[1]])
  }

  @Test func junitCarriesReproduceCommandsWaiversAndTheRunsProperties() throws {
    var run = Self.run
    run.scope?.waivers = [Self.waiver("ota/update-applies")]
    let results = Self.brokenRun
    let xml = JUnitWriter.render(run: run, results: results)
    let document = try XMLDocumentProbe(xml)
    #expect(document.elements("skipped").count == 1)
    #expect(xml.contains("waived by ops@example.org until 2099-01-01"))
    #expect(
      xml.contains(
        "reproduce: qualify run sso/cross-app --platform ios --channel prod --seed 42 --app &apos;apps/my app&apos;"
      ))
    for name in [
      "channel", "seed", "app-version", "scope", "verdict", "waivers", "flaky", "repeat",
    ] {
      #expect(xml.contains("<property name=\"\(name)\""), "property \(name)")
    }
  }

  @Test func theMarkdownSummaryLeadsWithTheVerdictAndKeepsAppTextInert() {
    var results = Self.brokenRun
    results[1].message = "<img src=x onerror=alert(1)> | `x` " + results[1].message
    let text = MarkdownSummary.render(run: Self.run, results: results)
    #expect(text.hasPrefix("## qualify: NOT QUALIFIED — channel prod"))
    #expect(text.contains("| 1. iOS cross-app SSO | failed: "))
    #expect(text.contains("qualify run sso/cross-app --platform ios"))
    #expect(!text.contains("<img"))
    #expect(text.contains("&lt;img src=x onerror=alert\\(1\\)&gt; \\| 'x'"))
  }

  @Test func theTrendPageDrawsEveryRunAndLinksItsReport() {
    var runs: [RunRecord] = []
    for (index, status) in [RunRecord.Status.qualified, .notQualified, .qualified].enumerated() {
      var run = SampleResults.run
      run.id = "run-\(index)"
      run.status = status
      run.startedAt = SampleResults.start.addingTimeInterval(Double(index) * 3600)
      run.finishedAt = run.startedAt.addingTimeInterval(Double(index + 1))
      runs.append(run)
    }
    var hostile = runs[0]
    hostile.id = "<script>alert(1)</script>"
    hostile.channel = .staging
    runs.append(hostile)
    let html = TrendPage.render(runs: runs)
    #expect(html.components(separatedBy: "<rect class=\"run").count - 1 == 4)
    #expect(html.contains("<a href=\"runs/run-1/index.html\">run-1</a>"))
    #expect(html.contains("<section id=\"prod\">") && html.contains("<section id=\"staging\">"))
    #expect(!html.contains("<script>"))
    #expect(html.contains(HTMLReport.contentSecurityPolicy))
  }
}

@Suite struct AttestationTests {
  static var qualifiedRun: RunRecord {
    var run = SampleResults.run
    run.status = .qualified
    run.appFiles = [
      AppFileDigest(path: "qualify.json", sha256: Attestation.hex(Data("{}".utf8))),
      AppFileDigest(path: "src/config.json", sha256: Attestation.hex(Data("abc".utf8))),
    ]
    return run
  }

  static func keys() throws -> [(String, Key)] {
    // Each as a pipeline hands it over: a PKCS#8 PEM file.
    return [
      ("p256", try Key.privateKey(pem: try Key.generateP256().pkcs8PrivatePEM())),
      ("ed25519", try Key.privateKey(pem: try Key.generateEd25519().pkcs8PrivatePEM())),
    ]
  }

  static let files = [
    "qualify.json": Attestation.hex(Data("{}".utf8)),
    "src/config.json": Attestation.hex(Data("abc".utf8)),
  ]

  @Test func aSignedVerdictVerifiesAndNamesTheFileThatChanged() throws {
    for (name, key) in try Self.keys() {
      let statement = try Attestation.statement(
        run: Self.qualifiedRun, results: [ReleaseReportTests.result("a/b", .ios, .passed)])
      #expect(statement.subject.map(\.name) == ["qualify.json", "src/config.json"])
      let envelope = try Attestation.sign(statement, key: key)
      let verified = try Attestation.verify(
        envelope: envelope, key: try key.publicKey(), files: Self.files)
      #expect(verified.mismatches.isEmpty, "\(name)")
      #expect(verified.checked == 2)
      #expect(verified.statement.predicate.verdict == "qualified")
      var changed = Self.files
      changed["src/config.json"] = Attestation.hex(Data("abd".utf8))
      let differs = try Attestation.verify(
        envelope: envelope, key: try key.publicKey(), files: changed)
      #expect(differs.mismatches.count == 1)
      #expect(differs.mismatches.first?.hasPrefix("src/config.json: differs") == true)
      // A file the build now reads that was not attested (it shadows one, or is new).
      var shadowed = Self.files
      shadowed["qualify-waivers.json"] = Attestation.hex(Data("{}".utf8))
      let extra = try Attestation.verify(
        envelope: envelope, key: try key.publicKey(), files: shadowed)
      #expect(
        extra.mismatches == [
          "qualify-waivers.json: read by the build of this checkout, but not attested"
        ])
      // Another key, or a payload changed after signing, does not verify.
      #expect(throws: AttestationError.self) {
        try Attestation.verify(envelope: envelope, key: try Key.generateP256(), files: Self.files)
      }
      var object = try #require(
        try JSONSerialization.jsonObject(with: Data(envelope.utf8)) as? [String: Any])
      let payload = try #require(Data(base64Encoded: object["payload"] as? String ?? ""))
      let forged = String(decoding: payload, as: UTF8.self).replacingOccurrences(
        of: "\"seed\":42", with: "\"seed\":43")
      #expect(forged != String(decoding: payload, as: UTF8.self))
      object["payload"] = Data(forged.utf8).base64EncodedString()
      let tampered = String(
        decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
      #expect(throws: AttestationError.self) {
        try Attestation.verify(envelope: tampered, key: try key.publicKey(), files: Self.files)
      }
    }
  }

  /// A statement that names nothing checkable verifies nothing; an OTA bundle it names must
  /// be given.
  @Test func aStatementWithoutAppFilesOrWithAnUncheckedBundleDoesNotVerify() throws {
    let key = try Key.generateEd25519()
    var run = Self.qualifiedRun
    run.appFiles = []
    var statement = try Attestation.statement(
      run: Self.qualifiedRun, results: [ReleaseReportTests.result("a/b", .ios, .passed)],
      bundle: Attestation.Subject(name: "ota-bundle/1300-abc.zip", sha256: "00"))
    let withBundle = try Attestation.sign(statement, key: key)
    let unchecked = try Attestation.verify(envelope: withBundle, key: key, files: Self.files)
    #expect(unchecked.mismatches.contains { $0.contains("pass --bundle FILE") })
    statement.subject = []
    let empty = try Attestation.verify(
      envelope: try Attestation.sign(statement, key: key), key: key, files: [:])
    #expect(empty.mismatches == ["the statement names no app file"])
    #expect(throws: AttestationError.self) { try Attestation.statement(run: run, results: []) }
  }

  /// Only P-256 among the EC curves: a secp256k1 key is 256 bits too, and not what the
  /// attestation says it is.
  @Test func anAttestationKeyIsP256OrEd25519() throws {
    let pem = try Programs.run(
      "/usr/bin/python3",
      [
        "-c",
        "from cryptography.hazmat.primitives.asymmetric import ec; from cryptography.hazmat.primitives import serialization as s; print(ec.generate_private_key(ec.SECP256K1()).private_bytes(s.Encoding.PEM, s.PrivateFormat.PKCS8, s.NoEncryption()).decode())",
      ])
    #expect(pem.status == 0, "\(pem.stderr)")
    let k1 = try Key.privateKey(pem: pem.stdout)
    #expect(k1.signatureAlgorithm == nil)
    #expect(throws: Error.self) { try k1.signMessage([1, 2, 3]) }
    #expect(try Key.generateP256().signatureAlgorithm == "ecdsa-p256-sha256")
    #expect(try Key.generateEd25519().signatureAlgorithm == "ed25519")
  }

  @Test func onlyAQualifiedRunIsAttested() throws {
    var run = Self.qualifiedRun
    run.status = .partial
    #expect(throws: AttestationError.self) {
      try Attestation.statement(run: run, results: [])
    }
  }

  /// DSSE's pre-authentication encoding, as the DSSE specification's own example writes it.
  @Test func thePreAuthenticationEncodingIsDSSEs() {
    let pae = Attestation.pae(
      type: "http://example.com/HelloWorld", body: Array("hello world".utf8))
    #expect(
      String(decoding: pae, as: UTF8.self)
        == "DSSEv1 29 http://example.com/HelloWorld 11 hello world")
  }
}

/// The report as a release manager opens it, in the real browser.
@Suite struct ReleaseReportBrowserTests {
  static func render(_ directory: URL) throws -> URL {
    var run = ReleaseReportTests.run
    run.scope?.waivers = [ReleaseReportTests.waiver("ota/update-applies")]
    var results = ReleaseReportTests.brokenRun
    results[1].check.steps = [
      StepRecord(
        index: 1, title: "signs in", status: .failed, message: "no session",
        evidence: [SampleResults.evidence], duration: 0)
    ]
    let file = directory.appendingPathComponent("index.html")
    try Data(HTMLReport.render(run: run, results: results).utf8).write(to: file)
    try Data(HTMLReport.evidencePage(run: run, results: results).utf8).write(
      to: directory.appendingPathComponent("evidence.html"))
    return file
  }

  @Test func failuresComeFirstGroupedWithTheirReproduceCommands() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let dom = try Chromium.dumpDOM(try Self.render(directory))
    #expect(dom.status == 0, "\(dom.stderr.suffix(300))")
    let page = dom.stdout
    let failures = try #require(page.range(of: "<section id=\"failures\">"))
    let matrix = try #require(page.range(of: "<section id=\"matrix\">"))
    let index = try #require(page.range(of: "<section id=\"index\">"))
    let waivers = try #require(page.range(of: "<section id=\"waivers\">"))
    #expect(failures.lowerBound < waivers.lowerBound && waivers.lowerBound < matrix.lowerBound)
    #expect(matrix.lowerBound < index.lowerBound)
    let blocking = String(page[failures.lowerBound..<waivers.lowerBound])
    #expect(blocking.contains("What blocks the release"))
    #expect(blocking.contains("7 failures from 1 root cause"))
    #expect(blocking.components(separatedBy: "<div class=\"group\">").count - 1 == 1)
    #expect(blocking.contains(ReleaseReportTests.plist))
    #expect(
      blocking.contains(
        "qualify run sso/cross-app --platform ios --channel prod --seed 42 --app 'apps/my app'"))
    // The waived failure is listed with its waiver, not among what blocks.
    #expect(!blocking.contains("ota/update-applies"))
    #expect(page.contains("tracked in MSG-12"))
    // Matrix cells mark which scenario failed.
    let cells = String(page[matrix.lowerBound..<index.lowerBound])
    #expect(cells.contains("✗ <a href=\"#s2\">sso/cross-app</a>"))
    #expect(cells.contains("⚑ <a href=\"#s7\">ota/update-applies</a>"))
    // A failing step's evidence is inline; the report links the rest.
    #expect(page.contains("<details open=\"\"><summary>1 evidence</summary>"))
    #expect(page.contains("NOT QUALIFIED"))
  }

  @Test func aScreenshotOfAFailingRunIsReadable() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let png = directory.appendingPathComponent("report.png")
    let result = try Chromium.screenshot(try Self.render(directory), to: png)
    #expect(result.status == 0, "\(result.stderr.suffix(300))")
    let data = try Data(contentsOf: png)
    #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    // IHDR: the width and height, big-endian, at bytes 16 and 20.
    let width = data[16..<20].reduce(0) { $0 << 8 | Int($1) }
    #expect(width == 1280)
    // A page of text and colour, not a blank one: a blank PNG of this size is a few KB.
    #expect(data.count > 60_000)
  }
}
