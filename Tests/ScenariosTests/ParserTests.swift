import Foundation
import QualifyCore
import QualifyTestSupport
import Scenarios
import Testing

@Suite struct ParserTests {
  func parse(_ text: String) -> (Scenario?, [Diagnostic]) {
    let engine = DiagnosticsEngine()
    let scenario = ScenarioParser().parse(
      text: text, file: "t.scenario", id: "pack/t", diagnostics: engine)
    return (scenario, engine.diagnostics)
  }

  /// Expects exactly one error at `marker`, whose message contains `message`.
  func expectError(
    _ marked: String, _ message: String, hint: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let source = MarkedText(marked)
    let (scenario, diagnostics) = parse(source.text)
    #expect(scenario == nil, sourceLocation: sourceLocation)
    guard let position = source.markers["1️⃣"] else {
      Issue.record("no 1️⃣ marker", sourceLocation: sourceLocation)
      return
    }
    let match = diagnostics.first {
      $0.location?.line == position.line && $0.location?.column == position.column
    }
    #expect(
      match != nil,
      "no diagnostic at \(position) among \(diagnostics.map { "\($0.location?.description ?? "?") \($0.message)" })",
      sourceLocation: sourceLocation)
    #expect(
      match?.message.contains(message) == true, "message: \(match?.message ?? "none")",
      sourceLocation: sourceLocation)
    if let hint {
      #expect(
        match?.hint?.contains(hint) == true, "hint: \(match?.hint ?? "none")",
        sourceLocation: sourceLocation)
    }
  }

  static let valid = """
    scenario "A valid scenario"
      about "why"
      checklist 7
      platforms ios
      channels release
      tags guards transport
      timeout 5s

      device phone
      app mail on phone

      step "fetch"
        mail fetches config
        expect status 200
        on dev: expect status 200
        on release, ios: expect json MOBILE_OTA_MANIFEST_URL starts-with "https://"

      step "cleartext"
        mail gets /x over http
        expect refused "cleartext"
        advance 61s

      control "untrusted"
        mutate tls.untrusted-ca
        fails at step 1
        because transport-error

      control "by title"
        platforms ios
        mutate shell.ignores-transport-policy
        fails at "cleartext"
    """

  @Test func parsesAValidScenario() throws {
    let (scenario, diagnostics) = parse(ParserTests.valid)
    #expect(diagnostics.isEmpty, "\(diagnostics.map(\.message))")
    let s = try #require(scenario)
    #expect(s.title == "A valid scenario")
    #expect(s.checklist == [7])
    #expect(s.platforms == [.ios])
    #expect(s.channels == [.staging, .prod])
    #expect(s.tags == ["guards", "transport"])
    #expect(s.timeout == 5)
    #expect(s.steps.count == 2)
    #expect(s.steps[0].lines.count == 4)
    #expect(s.steps[0].lines[2].condition?.channels == [.dev])
    #expect(s.steps[0].lines[3].condition?.platforms == [.ios])
    #expect(s.steps[1].lines[0].arguments["scheme"] == "http")
    #expect(s.steps[1].lines[0].arguments["location"] == "/x")
    #expect(s.controls.map(\.failsAt) == [1, 2])
    #expect(s.controls[0].because == Because(reason: "transport-error"))
    #expect(s.controls[1].platforms == [.ios])
  }

  /// A file saved with Windows line endings reads as the same scenario, line for line.
  @Test func crlfLineEndingsReadAsTheirLines() throws {
    let (scenario, diagnostics) = parse(
      ParserTests.valid.replacingOccurrences(of: "\n", with: "\r\n"))
    #expect(diagnostics.isEmpty, "\(diagnostics.map(\.message))")
    let s = try #require(scenario)
    let lf = try #require(parse(ParserTests.valid).0)
    #expect(s.steps.count == lf.steps.count && s.controls.map(\.failsAt) == [1, 2])
    #expect(s.steps[1].lines[0].location == lf.steps[1].lines[0].location)
  }

  @Test func unknownStatementSuggestsTheKeyword() {
    expectError(
      """
      scenario "x"
        device phone
        app mail on phone
        step "s"
          1️⃣expcet status 200
      """, "unknown statement 'expcet'", hint: "expect")
  }

  @Test func twoControlsRunTogetherAreAnError() {
    // A lost `control` line leaves one control with two mutations and two steps.
    expectError(
      """
      scenario "x"
        device phone
        app mail on phone
        step "s"
          mail fetches config
          expect status 200
        step "t"
          mail fetches config
          expect status 200
        control "c"
          mutate tls.untrusted-ca
          fails at step 1
          because transport-error
          mutate shell.ignores-transport-policy
          1️⃣fails at step 2
      """, "already says where it fails", hint: "control \"TITLE\"")
    expectError(
      """
      scenario "x"
        device phone
        app mail on phone
        step "s"
          mail fetches config
          expect status 200
        control "c"
          mutate tls.untrusted-ca
          fails at step 1
          because transport-error
          1️⃣because transport-error
      """, "already says why it fails")
  }

  @Test func unknownActionSuggestsTheClosestPhrase() {
    expectError(
      """
      scenario "x"
        device phone
        app mail on phone
        step "s"
          mail 1️⃣fetchs config
          expect status 200
      """, "unknown action", hint: "fetches config")
  }

  static func control(_ because: String) -> String {
    """
    scenario "x"
      device phone
      app mail on phone
      step "s"
        mail fetches config
        expect status 200
      control "c"
        mutate tls.untrusted-ca
        fails at step 1
        because \(because)
    """
  }

  @Test func becauseNamesAReasonNotWordsOfTheMessage() {
    expectError(
      Self.control("1️⃣\"certificate\""), "names a failure reason, not words of the message")
    expectError(Self.control("1️⃣transport-eror"), "unknown failure reason", hint: "transport-error")
    expectError(Self.control("refused 1️⃣cleartext"), "takes no detail")
    let (scenario, diagnostics) = parse(Self.control("status 200"))
    #expect(diagnostics.isEmpty)
    #expect(scenario?.controls.first?.because == Because(reason: "status", detail: "200"))
  }

  @Test func unknownMutationIsReported() {
    expectError(
      """
      scenario "x"
        device phone
        app mail on phone
        step "s"
          mail fetches config
          expect status 200
        control "c"
          mutate 1️⃣tls.untrusted
          fails at step 1
      """, "unknown mutation", hint: "tls.untrusted-ca")
  }

  @Test func givenTakesAMutationOfTheVocabulary() {
    expectError(
      """
      scenario "x"
        given 1️⃣backend.envv PUSH_ENABLED False
        device phone
        app mail on phone
        step "s"
          mail fetches config
          expect status 200
        control "c"
          mutate tls.untrusted-ca
          fails at step 1
      """, "unknown mutation", hint: "backend.env")
    let (scenario, diagnostics) = parse(
      """
      scenario "x"
        given backend.env PUSH_APNS_USE_SANDBOX True
        device phone
        app mail on phone
        step "s"
          mail fetches config
          expect status 200
        control "c"
          mutate tls.untrusted-ca
          fails at step 1
      """)
    #expect(diagnostics.isEmpty)
    #expect(scenario?.given.map(\.text) == ["backend.env PUSH_APNS_USE_SANDBOX True"])
    // A world with a mistake set up proves nothing about the release.
    expectError(
      """
      scenario "x"
        checklist 8
        given 1️⃣backend.env PUSH_APNS_USE_SANDBOX True
        device phone
        app mail on phone
        step "s"
          mail fetches config
          expect status 200
        control "c"
          mutate tls.untrusted-ca
          fails at step 1
      """, "cannot prove checklist items", hint: "supports 8")
  }

  @Test func badArgumentTypesAreReported() {
    expectError(
      """
      scenario "x"
        device phone
        app mail on phone
        step "s"
          mail fetches config
          expect status 1️⃣ok
      """, "not a whole number")
    expectError(
      """
      scenario "x"
        device phone
        app mail on phone
        step "s"
          advance 1️⃣soon
          expect status 200
      """, "not a duration")
  }

  @Test func missingArgumentPointsAtTheEndOfTheLine() {
    expectError(
      """
      scenario "x"
        device phone
        app mail on phone
        step "s"
          mail fetches config
          expect status1️⃣
      """, "expected CODE")
  }

  @Test func aScenarioWithoutControlIsRejected() {
    let (scenario, diagnostics) = parse(
      """
      scenario "x"
        device phone
        app mail on phone
        step "s"
          mail fetches config
          expect status 200
      """)
    #expect(scenario == nil)
    #expect(diagnostics.contains { $0.message.contains("no negative control") })
  }

  @Test func aStepWithoutExpectationIsRejected() {
    let (_, diagnostics) = parse(
      """
      scenario "x"
        device phone
        app mail on phone
        step "s"
          mail fetches config
        control "c"
          mutate tls.untrusted-ca
          fails at step 1
      """)
    #expect(diagnostics.contains { $0.message.contains("expects nothing") })
  }

  @Test func controlMustNameAnExistingStep() {
    expectError(
      """
      scenario "x"
        device phone
        app mail on phone
        step "s"
          mail fetches config
          expect status 200
        control "c"
          mutate tls.untrusted-ca
          fails at step 1️⃣3
      """, "there is no step 3")
  }

  @Test func declarationsAfterTheFirstStepAreRejected() {
    expectError(
      """
      scenario "x"
        device phone
        app mail on phone
        step "s"
          mail fetches config
          expect status 200
        1️⃣device tablet
        control "c"
          mutate tls.untrusted-ca
          fails at step 1
      """, "belongs before the first step")
  }

  @Test func everyErrorOfTheBrokenFixtureIsReported() throws {
    let path = Fixtures.file("broken.scenario")
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let (_, diagnostics) = parse(text)
    let lines = Set(diagnostics.compactMap { $0.location?.line })
    // checklist 9, windows, chrome, tablet, fetchs, expcet, two-hundred, the unterminated
    // string, 61x, step 7: ten problems on ten different lines.
    #expect(
      lines.isSuperset(of: [4, 5, 7, 8, 11, 12, 13, 15, 16, 19]),
      "\(diagnostics.map { "\($0.location?.line ?? 0): \($0.message)" })")
    #expect(diagnostics.allSatisfy { $0.sourceLine != nil })
  }
}

/// Numbers a scenario may hold are bounded where they are read, so that `check` refuses what
/// `run` could not hold.
@Suite struct ParserBoundsTests {
  func errors(_ text: String) -> [String] {
    let engine = DiagnosticsEngine()
    _ = ScenarioParser().parse(text: text, file: "t.scenario", id: "p/t", diagnostics: engine)
    return engine.diagnostics.map(\.message)
  }

  func scenario(_ step: String, timeout: String = "5s") -> String {
    """
    scenario "bounds"
      timeout \(timeout)
      device phone
      app mail on phone
      step "s"
        \(step)
        expect status 200
      control "c"
        mutate tls.untrusted-ca
        fails at step 1
    """
  }

  @Test(arguments: ["9999999999999999999999d", "1e400s", "3651d", "99999999999999h"])
  func aDurationBeyondTenYearsIsRejected(duration: String) {
    #expect(errors(scenario("advance \(duration)")).contains { $0.contains("is not a duration") })
    #expect(errors(scenario("advance 1s", timeout: duration)).contains { $0.contains("duration") })
  }

  @Test func tenYearsIsAccepted() {
    #expect(!errors(scenario("advance 3650d")).contains { $0.contains("duration") })
  }

  @Test(arguments: ["1 + 1", "999999999999999999999"])
  func durationParsingNeverTraps(text: String) {
    #expect(Durations.parse(text) == nil)
  }
}
