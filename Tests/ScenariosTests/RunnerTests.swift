import Artifacts
import Foundation
import MockStack
import QualifyCore
import QualifyCrypto
import QualifyTestSupport
import Testing

@testable import Scenarios

/// The sample app's prod builds and one run's material, shared by the runner tests.
enum SampleRun {
  static let builds: [Platform: AppBuild] = {
    do { return try AppRepository(directory: Fixtures.sampleApp).builds(for: .prod) } catch {
      fatalError("\(error)")
    }
  }()

  static let devBuilds: [Platform: AppBuild] = {
    do { return try AppRepository(directory: Fixtures.sampleApp).builds(for: .dev) } catch {
      fatalError("\(error)")
    }
  }()

  static let material: StackMaterial = {
    do {
      let hosts = try (Array(builds.values) + Array(devBuilds.values)).map {
        try StackTopology(build: $0).secureHosts
      }
      return try StackMaterial(hosts: hosts.reduce(Set<String>()) { $0.union($1) }, seed: 7)
    } catch { fatalError("\(error)") }
  }()

  static func runner(_ builds: [Platform: AppBuild] = builds, timeout: TimeInterval? = nil)
    -> Runner
  {
    Runner(
      builds: builds, material: material, options: .init(seed: 1, jobs: 2, timeoutOverride: timeout)
    )
  }

  static func scenario(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws
    -> Scenario
  {
    let engine = DiagnosticsEngine()
    let scenario = ScenarioParser().parse(
      text: text, file: "t.scenario", id: "test/t", diagnostics: engine)
    #expect(
      !engine.hasErrors, "\(engine.diagnostics.map(\.message))", sourceLocation: sourceLocation)
    return try #require(scenario, sourceLocation: sourceLocation)
  }
}

@Suite struct RunnerTests {
  @Test func aHoldingScenarioWithBitingControlsPasses() throws {
    let scenario = try SampleRun.scenario(
      """
      scenario "config"
        device phone
        app mail on phone
        step "fetch"
          mail fetches config
          expect status 200
        control "untrusted"
          mutate tls.untrusted-ca
          fails at step 1
          because transport-error
      """)
    let result = SampleRun.runner().run(scenario, platform: .ios, channel: .prod)
    #expect(result.verdict == .passed, "\(result.message)")
    #expect(result.controls.map(\.outcome) == [.bit])
    #expect(result.check.steps.first?.evidence.contains { $0.kind == .http } == true)
  }

  /// `given` sets the check's world up (here: a backend that sends to the APNs sandbox), and
  /// the controls run on top of it.
  @Test func givenMutationsApplyToTheCheckAndItsControls() throws {
    let text = """
      scenario "sandbox"
        GIVEN
        device phone
        app mail on phone
        user first
        step "enable"
          mail logs in as first
          mail enables notifications
          expect notifications registered
        step "push"
          a message arrives for first
          expect sender log BadDeviceToken
        control "apns accepts any environment"
          mutate apns.accepts-any-environment
          fails at step 2
          because sender-log delivered
      """
    let given = try SampleRun.scenario(
      text.replacingOccurrences(of: "GIVEN", with: "given backend.env PUSH_APNS_USE_SANDBOX True"))
    let result = SampleRun.runner().run(given, platform: .ios, channel: .prod)
    #expect(result.verdict == .passed, "\(result.message)")
    #expect(result.controls.map(\.outcome) == [.bit])
    // The evidence says which world the check ran in.
    #expect(
      result.check.steps.first?.evidence.contains {
        $0.kind == .note && $0.summary.hasPrefix("given backend.env PUSH_APNS_USE_SANDBOX True")
      } == true)
    // Without the given mutation, the sample app's pairing is right and the push is delivered.
    let plain = try SampleRun.scenario(text.replacingOccurrences(of: "GIVEN", with: ""))
    let failed = SampleRun.runner().run(plain, platform: .ios, channel: .prod)
    #expect(failed.verdict == .failed)
    #expect(failed.check.failureReason == "sender-log")
    #expect(failed.check.failureDetail == "delivered")
  }

  /// The backend's push env as the sender reads it: a service account of another project
  /// than PUSH_FCM_PROJECT_ID is refused by FCM, and a transport whose secrets are only
  /// partly set sends nothing.
  @Test func theSenderFollowsItsEnvAsTheRealBackendDoes() throws {
    let scenario = try SampleRun.scenario(
      """
      scenario "push"
        device phone
        app mail on phone
        user first
        step "enable"
          mail logs in as first
          mail enables notifications
          expect notifications registered
        step "push"
          a message arrives for first
          expect sender log delivered
        control "c"
          mutate apns.accepts-any-environment
          fails at step 2
      """)
    func failure(_ platform: Platform, _ env: [String: String]) throws -> (String?, String?) {
      var builds = SampleRun.builds
      for (key, value) in env { builds[platform]?.backend?.env.set(key, value) }
      let result = SampleRun.runner(builds).run(scenario, platform: platform, channel: .prod)
      return (result.check.failureReason, result.check.failureDetail)
    }
    let key = try Key.generateRSA()
    let account: [String: Any] = [
      "type": "service_account", "project_id": "messages-staging", "private_key_id": "k1",
      "private_key": try key.pkcs8PrivatePEM(),
      "client_email": "push@messages-staging.iam.gserviceaccount.com",
    ]
    let json = String(
      decoding: try JSONSerialization.data(withJSONObject: account), as: UTF8.self)
    #expect(
      try failure(.android, ["PUSH_FCM_CREDENTIALS": json]) == ("sender-log", "PERMISSION_DENIED"))
    #expect(
      try failure(.ios, ["PUSH_APNS_KEY_ID": "ABC123DEFG"]) == ("sender-log", "not-configured"))
    #expect(try failure(.ios, [:]) == (nil, nil))
  }

  /// A service account's JSON in the env: its key is secret, its project and address are not
  /// (a SENDER_ID_MISMATCH message must stay readable); an escaped one-line PEM is its lines.
  @Test func pushCredentialsAreRedactedByTheirKeyNotTheirNames() throws {
    let line = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"
    let json =
      #"{"type":"service_account","project_id":"messages-prod","private_key_id":"0123456789abcdef","private_key":"-----BEGIN PRIVATE KEY-----\n"#
      + line
      + #"\n-----END PRIVATE KEY-----\n","client_email":"push@messages-prod.iam.gserviceaccount.com"}"#
    let redactor = Redactor()
    for part in Runner.secretParts(of: json) { redactor.register(part) }
    for part in Runner.secretParts(
      of:
        "-----BEGIN PRIVATE KEY-----\\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49\\n-----END PRIVATE KEY-----"
    ) {
      redactor.register(part)
    }
    let text = redactor.redact(
      "PUSH_FCM_PROJECT_ID=messages-prod key \(line) id 0123456789abcdef apns MIGHAgEAMBMGByqGSM49AgEGCCqGSM49 by push@messages-prod.iam.gserviceaccount.com"
    )
    #expect(text.contains("PUSH_FCM_PROJECT_ID=messages-prod"))
    #expect(text.contains("push@messages-prod.iam.gserviceaccount.com"))
    #expect(!text.contains(line))
    #expect(!text.contains("0123456789abcdef"))
    #expect(!text.contains("MIGHAgEAMBMGByqGSM49AgEGCCqGSM49"))
  }

  @Test func aControlThatDoesNotBiteFailsTheScenario() throws {
    let scenario = try SampleRun.scenario(
      """
      scenario "config"
        device phone
        app mail on phone
        step "fetch"
          mail fetches config
          expect status 200
        control "irrelevant"
          mutate backend.unhealthy
          fails at step 1
      """)
    let result = SampleRun.runner().run(scenario, platform: .android, channel: .prod)
    #expect(result.verdict == .controlDidNotBite)
    #expect(result.controls.first?.outcome == .didNotBite)
    #expect(result.message.contains("irrelevant"))
  }

  @Test func aControlThatBitesAtAnotherStepDoesNotCount() throws {
    let scenario = try SampleRun.scenario(
      """
      scenario "two steps"
        device phone
        app mail on phone
        step "fetch"
          mail fetches config
          expect status 200
        step "heartbeat"
          mail gets /__heartbeat__/
          expect status 200
        control "wrong step"
          mutate tls.untrusted-ca
          fails at step 2
      """)
    let result = SampleRun.runner().run(scenario, platform: .ios, channel: .prod)
    #expect(result.verdict == .controlDidNotBite)
    #expect(result.controls.first?.outcome == .bitElsewhere)
    #expect(result.controls.first?.message.contains("step 1 instead of step 2") == true)
  }

  /// A control bites only for the reason it names: an untrusted CA fails the step with a
  /// transport error, not with a refusal.
  @Test func aControlThatFailsForAnotherReasonDoesNotCount() throws {
    let scenario = try SampleRun.scenario(
      """
      scenario "config"
        device phone
        app mail on phone
        step "fetch"
          mail fetches config
          expect status 200
        control "untrusted, said to be refused"
          mutate tls.untrusted-ca
          fails at step 1
          because refused
      """)
    let result = SampleRun.runner().run(scenario, platform: .ios, channel: .prod)
    #expect(result.verdict == .controlDidNotBite)
    let control = try #require(result.controls.first)
    #expect(control.outcome == .bitElsewhere)
    #expect(control.message.contains("because of transport-error, not refused"))
    #expect(control.execution?.failureReason == "transport-error")
  }

  @Test func aFailingStepFailsTheScenarioAndSkipsTheControls() throws {
    let scenario = try SampleRun.scenario(
      """
      scenario "wrong status"
        device phone
        app mail on phone
        step "fetch"
          mail fetches config
          expect status 500
        step "never reached"
          mail fetches config
          expect status 200
        control "c"
          mutate tls.untrusted-ca
          fails at step 1
      """)
    let result = SampleRun.runner().run(scenario, platform: .ios, channel: .prod)
    #expect(result.verdict == .failed)
    #expect(result.check.failedStep == 1)
    #expect(result.message.contains("expected status 500, got 200"))
    #expect(result.check.steps.map(\.status) == [.failed, .notRun])
    #expect(result.controls.map(\.outcome) == [.notRun])
  }

  @Test func anUnexaminedRefusalFailsTheStep() throws {
    let scenario = try SampleRun.scenario(
      """
      scenario "cleartext unexamined"
        device phone
        app mail on phone
        step "cleartext"
          mail gets /__heartbeat__/ over http
          expect no json status present
        control "c"
          mutate tls.untrusted-ca
          fails at step 1
      """)
    let result = SampleRun.runner().run(scenario, platform: .android, channel: .prod)
    #expect(result.verdict == .failed)
    #expect(result.message.contains("refused") || result.message.contains("CLEARTEXT"))
  }

  @Test func conditionalLinesFollowTheChannel() throws {
    let scenario = try SampleRun.scenario(
      """
      scenario "channel aware"
        device phone
        app mail on phone
        step "cleartext"
          mail gets /__heartbeat__/ over http
          on release: expect refused "cleartext"
          on dev: expect status 200
        control "c"
          mutate app.no-cleartext-exception
          channels dev
          fails at step 1
      """)
    let dev = SampleRun.runner(SampleRun.devBuilds).run(scenario, platform: .ios, channel: .dev)
    #expect(dev.verdict == .passed, "\(dev.message)")
    let prod = SampleRun.runner().run(scenario, platform: .ios, channel: .prod)
    // No control applies on prod: the run says so rather than passing unproven.
    #expect(prod.verdict == .controlDidNotBite, "\(prod.message)")
    #expect(prod.message.contains("no negative control"))
  }

  @Test func aHungExecutionBecomesAnErrorNotAHungRun() throws {
    let scenario = try SampleRun.scenario(
      """
      scenario "timeout"
        device phone
        app mail on phone
        step "fetch"
          mail fetches config
          expect status 200
        control "c"
          mutate tls.untrusted-ca
          fails at step 1
      """)
    let result = SampleRun.runner(timeout: 0.000_001).run(scenario, platform: .ios, channel: .prod)
    #expect(result.verdict == .error)
    #expect(result.message.contains("timed out"))
  }

  @Test func withTimeoutCancelsAndJoinsASlowBody() {
    let cancelled = Locked(false)
    let ended = Locked(0)
    for round in 1...50 {
      cancelled.withLock { $0 = false }
      let outcome = Runner.withTimeout(0.001) {
        // A body that stops only when told, as the step loop does.
        while !cancelled.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.001) }
        ended.withLock { $0 += 1 }
        return 1
      } onTimeout: {
        cancelled.withLock { $0 = true }
      }
      guard case .timedOut(let joined) = outcome else {
        Issue.record("round \(round) did not time out")
        continue
      }
      #expect(joined)
      // Joined: the worker is over before the next round starts.
      #expect(ended.withLock { $0 } == round)
    }
    guard case .finished(2) = Runner.withTimeout(1, { 2 }, onTimeout: {}) else {
      Issue.record("a fast body is not finished")
      return
    }
  }

  @Test func fiftyTimedOutExecutionsInARowEachSayWhereTheyStopped() throws {
    let scenario = try SampleRun.scenario(
      """
      scenario "timeout"
        device phone
        app mail on phone
        step "fetch"
          mail fetches config
          expect status 200
        step "again"
          mail fetches config
          expect status 200
        control "c"
          mutate tls.untrusted-ca
          fails at step 1
      """)
    let runner = SampleRun.runner(timeout: 0.000_001)
    for _ in 1...50 {
      let result = runner.run(scenario, platform: .android, channel: .prod)
      #expect(result.verdict == .error)
      #expect(result.check.timedOut)
      #expect(result.message.contains("timed out after"), "\(result.message)")
      // One record per step, in order: the stopped one, then what did not run.
      #expect(result.check.steps.map(\.index) == [1, 2])
      #expect(result.check.steps.filter { $0.status == .error }.count <= 1)
    }
  }

  @Test func sameSeedGivesTheSameEvidence() throws {
    let scenario = try SampleRun.scenario(
      """
      scenario "config"
        device phone
        app mail on phone
        step "fetch"
          mail fetches config
          expect status 200
        control "c"
          mutate tls.untrusted-ca
          fails at step 1
      """)
    func summaries() -> [String] {
      SampleRun.runner().run(scenario, platform: .ios, channel: .prod).check.steps.flatMap(
        \.evidence
      )
      .map {
        $0.summary.replacingOccurrences(of: #"\(\S+\)$"#, with: "", options: .regularExpression)
      }
    }
    #expect(summaries() == summaries())
  }

  @Test func jobsRunInParallelAndComeBackInOrder() throws {
    let scenarios = try ["a", "b", "c"].map { name in
      var s = try SampleRun.scenario(
        """
        scenario "\(name)"
          device phone
          app mail on phone
          step "fetch"
            mail fetches config
            expect status 200
          control "c"
            mutate tls.untrusted-ca
            fails at step 1
        """)
      s.id = "test/\(name)"
      return s
    }
    let results = SampleRun.runner().run(scenarios, platforms: [.ios, .android], channel: .prod)
    #expect(
      results.map(\.displayName) == [
        "test/a [ios]", "test/a [android]", "test/b [ios]", "test/b [android]", "test/c [ios]",
        "test/c [android]",
      ])
    #expect(results.allSatisfy { $0.verdict == .passed })
  }
}

@Suite struct BrowserEndsTests {
  /// A web login that broke on the way (here the backend reads the IdP's keys from a URL that
  /// serves none, so the callback refuses the id_token with a 401) ends on the web app's
  /// origin but not on the web app: `expect browser ends in web` must not take the error page
  /// for a landing.
  @Test func anErrorPageOfTheWebAppIsNotTheWebApp() throws {
    let text = """
      scenario "web"
        GIVEN
        device phone
        app mail on phone
        user first
        step "a web login"
          web login on phone as first
          expect browser ends in web
        control "no keys to check the id_token with"
          mutate backend.env OIDC_OP_JWKS_ENDPOINT https://auth.proconnect.example/api/v2/nowhere
          fails at step 1
          because browser-ends web-error
      """
    let broken = try SampleRun.scenario(
      text.replacingOccurrences(
        of: "GIVEN",
        with:
          "given backend.env OIDC_OP_JWKS_ENDPOINT https://auth.proconnect.example/api/v2/nowhere"))
    let result = SampleRun.runner().run(broken, platform: .android, channel: .prod)
    #expect(result.verdict == .failed, "\(result.message)")
    #expect(result.check.failureDetail == "web-error")
    #expect(result.message.contains("ended on an error page"))
    // Without the broken secret the same login lands on the web app.
    let working = try SampleRun.scenario(text.replacingOccurrences(of: "GIVEN", with: ""))
    let landed = SampleRun.runner().run(working, platform: .android, channel: .prod)
    #expect(landed.verdict == .passed, "\(landed.message)")
  }
}

@Suite struct RunnerScheduleTests {
  /// Each engine takes one scenario at a time and each of its steps a good part of a second:
  /// a run whose engine scenarios came last, by id, waited for them after everything else.
  @Test func scenariosThatDriveAnEngineStartFirst() throws {
    var fetch = try SampleRun.scenario(
      """
      scenario "fetch"
        device phone
        app mail on phone
        step "fetch"
          mail fetches config
          expect status 200
        control "untrusted"
          mutate tls.untrusted-ca
          fails at step 1
          because transport-error
      """)
    fetch.id = "auth/fetch"
    var render = try SampleRun.scenario(
      """
      scenario "render"
        device phone
        app mail on phone
        step "show"
          mail renders thread thread-7
          expect message bodies shown on mail
        control "no body"
          mutate app.message-body renderer-broken
          fails at step 1
          because body-not-shown
      """)
    render.id = "render/thread"
    #expect(render.drivesEngine && !fetch.drivesEngine)
    let jobs = Runner.jobs([render, fetch], platforms: [.ios, .android], channel: .prod)
    // Job order (the results' order) is by id; the start order puts the engines' jobs first.
    #expect(jobs.map(\.0.id) == ["auth/fetch", "auth/fetch", "render/thread", "render/thread"])
    #expect(Runner.schedule(jobs) == [2, 3, 0, 1])
    #expect(Runner.schedule(Array(jobs.prefix(2))) == [0, 1])
  }
}
