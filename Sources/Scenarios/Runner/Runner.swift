import Artifacts
import Devices
import Foundation
import MockStack
import QualifyCore
import ResultModel
import StackPorts

/// Runs scenarios: each (scenario, platform) gets a fresh world for its check and for each
/// control, steps run in order, controls after the check.
public final class Runner: Sendable {
  public struct Options: Sendable {
    public var seed: UInt64
    /// Scenario jobs run concurrently.
    public var jobs: Int
    /// Whether to run the negative controls (`--no-controls` turns them off).
    public var runControls: Bool
    /// Overrides every scenario's timeout.
    public var timeoutOverride: TimeInterval?
    /// `--repeat N`: each scenario runs N times, attempt n with the seed + n; attempts that
    /// disagree make the result flaky.
    public var repeats: Int
    /// `--fail-fast`: no new scenario starts once a result this says blocks the release
    /// came in (a waived failure does not).
    public var stopsAfter: (@Sendable (ScenarioResult) -> Bool)?

    public init(
      seed: UInt64, jobs: Int = 1, runControls: Bool = true, timeoutOverride: TimeInterval? = nil,
      repeats: Int = 1, stopsAfter: (@Sendable (ScenarioResult) -> Bool)? = nil
    ) {
      self.seed = seed
      self.jobs = max(1, jobs)
      self.runControls = runControls
      self.timeoutOverride = timeoutOverride
      self.repeats = max(1, repeats)
      self.stopsAfter = stopsAfter
    }
  }

  public let builds: [Platform: AppBuild]
  public let material: StackMaterial
  /// Against a real backend, the material of the worlds that run the controls changing the
  /// backend: the embedded backend at the real backend's address, everything else as real.
  let embeddedBackendMaterial: StackMaterial?
  public let options: Options
  public let redactor: Redactor
  /// Called with each evidence entry as it is recorded (for `--trace`), with the execution's
  /// label.
  public var trace: (@Sendable (String, Evidence) -> Void)? {
    get { traceHook.withLock { $0 } }
    set { traceHook.withLock { $0 = newValue } }
  }
  private let traceHook = Locked<(@Sendable (String, Evidence) -> Void)?>(nil)

  /// Says on the trace where a reader is (a step begins, an expectation held or not, a
  /// control's verdict), so a trace reads top to bottom; never recorded as evidence.
  func mark(_ label: String, _ text: String) {
    trace?(label, Evidence(kind: .note, source: Runner.traceMark, summary: text, time: Date()))
  }

  /// The source of the trace's own marks.
  public static let traceMark = "qualify"

  public init(
    builds: [Platform: AppBuild], material: StackMaterial, options: Options,
    redactor: Redactor = Redactor()
  ) {
    self.builds = builds
    self.material = material
    if var real = material.real, real.backend != nil {
      real.backend = nil
      embeddedBackendMaterial = material.with(real: real)
    } else {
      embeddedBackendMaterial = nil
    }
    self.options = options
    self.redactor = redactor
    for build in builds.values { Runner.registerSecrets(of: build, with: redactor) }
    for user in material.real?.contractTestUsers ?? [] {
      if let password = user.password { redactor.registerLiteral(password) }
    }
    if let idp = material.real?.identityProvider {
      // Chosen by people, not minted: any length, any characters, in any encoding.
      for secret in [idp.app.secret, idp.companion.secret]
        + idp.testUsers.compactMap(\.password) + [idp.admin?.password].compactMap({ $0 })
      {
        redactor.registerLiteral(secret)
      }
    }
  }

  /// The (scenario, platform) pairs that apply to the channel, in a stable order.
  /// Only the scenarios of the app's shell kind apply.
  public static func jobs(
    _ scenarios: [Scenario], platforms: [Platform], channel: Channel,
    shell: ShellKind = .default
  ) -> [(Scenario, Platform)] {
    scenarios.filter { $0.shell == shell }.sorted { $0.id < $1.id }.flatMap { scenario in
      platforms.sorted().filter { scenario.applies(to: $0, channel: channel) }.map {
        (scenario, $0)
      }
    }
  }

  /// The order jobs start in: those that drive an engine first, so that the engines, each
  /// one scenario at a time, work while the other workers run the rest beside them instead
  /// of after. Results keep the jobs' own order.
  static func schedule(_ jobs: [(Scenario, Platform)]) -> [Int] {
    let engine = jobs.indices.filter { jobs[$0].0.drivesEngine }
    return engine + jobs.indices.filter { !jobs[$0].0.drivesEngine }
  }

  /// Runs every job; `onResult` is called as each finishes (from a worker thread, serially).
  /// - Returns: the results in job order.
  public func run(
    _ scenarios: [Scenario], platforms: [Platform], channel: Channel,
    onStart: (@Sendable (Scenario, Platform) -> Void)? = nil,
    onResult: (@Sendable (ScenarioResult) -> Void)? = nil
  ) -> [ScenarioResult] {
    let jobs = Runner.jobs(
      scenarios, platforms: platforms, channel: channel,
      shell: builds.values.first?.shell ?? .default)
    let results = ResultSlots(count: jobs.count)
    let order = Runner.schedule(jobs)
    let next = Counter()
    let stopped = Locked(false)
    let callbackLock = NSLock()
    let group = DispatchGroup()
    let attempts = (0..<options.repeats).map { attempt -> Runner in
      guard attempt > 0 else { return self }
      var options = self.options
      options.seed = self.options.seed &+ UInt64(attempt)
      options.repeats = 1
      let runner = Runner(builds: builds, material: material, options: options, redactor: redactor)
      runner.trace = trace
      return runner
    }
    for _ in 0..<min(options.jobs, max(1, jobs.count)) {
      group.enter()
      Thread.detachNewThread { [self] in
        defer { group.leave() }
        let transport = WorkerTransport()
        while !stopped.withLock({ $0 }), let taken = next.take(below: jobs.count) {
          let index = order[taken]
          let (scenario, platform) = jobs[index]
          if let onStart {
            callbackLock.lock()
            onStart(scenario, platform)
            callbackLock.unlock()
          }
          let result = Runner.merge(
            attempts.map {
              $0.run(scenario, platform: platform, channel: channel, transport: transport)
            }, seeds: attempts.map(\.options.seed))
          self.mark(
            "\(scenario.id)/\(platform.rawValue)",
            "verdict \(result.verdict.rawValue): \(result.message)")
          if options.stopsAfter?(result) == true {
            stopped.withLock { $0 = true }
          }
          results.set(index, result)
          if let onResult {
            callbackLock.lock()
            onResult(result)
            callbackLock.unlock()
          }
        }
      }
    }
    group.wait()
    return results.all
  }

  /// One result from the attempts of `--repeat`: the first that failed stands (a check that
  /// passes only sometimes proves nothing), else the first whose control did not bite, else
  /// the first harness error, with every attempt's verdict recorded.
  static func merge(_ attempts: [ScenarioResult], seeds: [UInt64]) -> ScenarioResult {
    let order: [Verdict] = [.failed, .controlDidNotBite, .error]
    guard
      var result = order.lazy.compactMap({ verdict in
        attempts.first { $0.verdict == verdict }
      }).first ?? attempts.first
    else { preconditionFailure("a scenario runs at least once") }
    guard attempts.count > 1 else { return result }
    result.attempts = zip(seeds, attempts).map {
      ScenarioResult.Attempt(seed: $0, verdict: $1.verdict)
    }
    if result.isFlaky {
      result.message =
        "flaky: "
        + result.attempts.map { "seed \($0.seed) \($0.verdict.rawValue)" }.joined(separator: ", ")
        + " — " + result.message
    }
    return result
  }

  /// Runs one scenario on one platform: the check, then each applicable control.
  public func run(_ scenario: Scenario, platform: Platform, channel: Channel) -> ScenarioResult {
    run(scenario, platform: platform, channel: channel, transport: WorkerTransport())
  }

  func run(_ scenario: Scenario, platform: Platform, channel: Channel, transport: WorkerTransport)
    -> ScenarioResult
  {
    let started = Date()
    guard let build = builds[platform] else {
      let record = ExecutionRecord(
        steps: [], failedStep: nil, message: "no \(platform.rawValue) build", isError: true,
        duration: 0)
      return result(
        scenario, platform, channel, .error, "the app has no \(platform.displayName) build", record,
        [], started)
    }
    if let (verdict, why, cause) = applicability(scenario, build: build) {
      let record = ExecutionRecord(
        steps: [], failedStep: nil, message: why, isError: false, duration: 0)
      var outcome = result(scenario, platform, channel, verdict, why, record, [], started)
      outcome.notApplicableCause = cause
      return outcome
    }
    var base = WorldConfiguration(build: build)
    base.identityProvider = scenario.identityProvider
    for mutation in scenario.given { mutation.spec.apply(&base, mutation.arguments) }
    let label = "\(scenario.id)/\(platform.rawValue)"
    let check = execute(scenario, configuration: base, label: label, transport: transport)
    if check.notApplicable, let why = check.message {
      var outcome = result(scenario, platform, channel, .notApplicable, why, check, [], started)
      outcome.notApplicableCause =
        check.notApplicableCause
        ?? (material.real != nil && why.contains("real identity provider")
          ? .realSystem : .envNotSupplied)
      return outcome
    }
    if check.isError {
      return result(
        scenario, platform, channel, .error, check.message ?? "error", check,
        notRun(scenario, platform, channel, "the check did not run to a verdict"), started)
    }
    if let failed = check.failedStep {
      let title = scenario.steps[failed - 1].title
      return result(
        scenario, platform, channel, .failed,
        "step \(failed) \"\(title)\": \(check.message ?? "failed")", check,
        notRun(scenario, platform, channel, "the check itself failed"), started)
    }
    guard options.runControls else {
      return result(
        scenario, platform, channel, .passed,
        "all \(scenario.steps.count) steps held (controls not run)", check, [], started)
    }
    let plan = controlPlan(scenario, platform: platform, channel: channel)
    if plan.applicable.isEmpty && !plan.skipped.isEmpty {
      var outcome = result(
        scenario, platform, channel, .notApplicable,
        "every negative control of this scenario needs a mock-only power over a part that is a real system here: the check ran and held, but nothing shows it could fail here",
        check, plan.skipped, started)
      outcome.notApplicableCause = .realSystem
      return outcome
    }
    guard !plan.applicable.isEmpty else {
      return result(
        scenario, platform, channel, .controlDidNotBite,
        "no negative control applies on \(platform.rawValue)/\(channel.rawValue): a check that cannot fail proves nothing",
        check, [], started)
    }
    let controls = runControls(plan, of: scenario, over: base, label: label, transport: transport)
    return conclude(scenario, platform, channel, check: check, controls, plan.skipped, started)
  }

  /// The controls of one (scenario, platform, channel), sorted by where they can run.
  struct ControlPlan {
    /// The controls that run.
    var applicable: [Control]
    /// Those that change the backend, run against the embedded one at the real backend's
    /// address: the expectations read the same answers, so they show the check could fail;
    /// what the check proves of the real backend is the check's own run.
    var inEmbeddedBackend: Set<String>
    /// Those that would mutate a real system: reported as not applicable, never dropped.
    var skipped: [ControlRecord]
  }

  func controlPlan(_ scenario: Scenario, platform: Platform, channel: Channel) -> ControlPlan {
    let applies = scenario.controls.filter { $0.applies(to: platform, channel: channel) }
    let inEmbeddedBackend = Set(
      applies.filter { control in
        embeddedBackendMaterial != nil && !control.needs.isEmpty
          && Runner.forbidden(control.needs, by: embeddedBackendMaterial?.real).isEmpty
          && !Runner.forbidden(control.needs, by: material.real).isEmpty
      }.map(\.name))
    var plan = ControlPlan(applicable: [], inEmbeddedBackend: inEmbeddedBackend, skipped: [])
    for control in applies {
      guard !inEmbeddedBackend.contains(control.name),
        let power = Runner.forbidden(control.needs, by: material.real).first
      else {
        plan.applicable.append(control)
        continue
      }
      plan.skipped.append(
        ControlRecord(
          name: control.name, mutations: control.mutations.map(\.text),
          expectedStep: control.failsAt, because: control.because?.description,
          outcome: .notRun,
          message:
            "not applicable: it needs a mock-only power over the \(power.part) (\(power.rawValue)), and the \(power.part) is a real system here",
          execution: nil))
    }
    return plan
  }

  /// Runs each applicable control in a fresh world over the check's configuration and judges
  /// it against the step and reason it names.
  private func runControls(
    _ plan: ControlPlan, of scenario: Scenario, over base: WorldConfiguration, label: String,
    transport: WorkerTransport
  ) -> [ControlRecord] {
    plan.applicable.map { control in
      var configuration = base
      for mutation in control.mutations { mutation.spec.apply(&configuration, mutation.arguments) }
      let embedded = plan.inEmbeddedBackend.contains(control.name)
      let execution = execute(
        scenario, configuration: configuration, label: "\(label)/control:\(control.name)",
        transport: transport, material: embedded ? embeddedBackendMaterial : nil)
      var judged = judge(control, execution, scenario)
      if embedded {
        judged.message += " (against the embedded backend at the real backend's address)"
      }
      mark(
        "\(label)/control:\(control.name)",
        "control \"\(control.name)\" \(judged.outcome.rawValue): \(judged.message)")
      return judged
    }
  }

  /// The verdict of a check that held, from its controls: an error first, then a control that
  /// missed, else passed.
  private func conclude(
    _ scenario: Scenario, _ platform: Platform, _ channel: Channel, check: ExecutionRecord,
    _ ran: [ControlRecord], _ skipped: [ControlRecord], _ started: Date
  ) -> ScenarioResult {
    let controls = ran + skipped
    let misses = controls.filter { $0.outcome == .didNotBite || $0.outcome == .bitElsewhere }
    if let error = ran.first(where: { $0.outcome == .error }) {
      return result(
        scenario, platform, channel, .error, "control \"\(error.name)\": \(error.message)", check,
        controls, started)
    }
    if !misses.isEmpty {
      let names = misses.map { "\"\($0.name)\"" }.joined(separator: ", ")
      return result(
        scenario, platform, channel, .controlDidNotBite,
        "control \(names) did not make the scenario fail as stated: \(misses[0].message)", check,
        controls, started)
    }
    return result(
      scenario, platform, channel, .passed,
      "all \(scenario.steps.count) steps held; \(ran.count) control\(ran.count == 1 ? "" : "s") bit"
        + (skipped.isEmpty
          ? "" : "; \(skipped.count) not applicable against the real systems"),
      check, controls, started)
  }

  private func result(
    _ scenario: Scenario, _ platform: Platform, _ channel: Channel, _ verdict: Verdict,
    _ message: String,
    _ check: ExecutionRecord, _ controls: [ControlRecord], _ started: Date
  ) -> ScenarioResult {
    var out = ScenarioResult(
      scenarioID: scenario.id, title: scenario.title, file: scenario.file, platform: platform,
      channel: channel,
      checklist: scenario.checklist, tags: scenario.tags, verdict: verdict,
      message: redactor.redact(message),
      check: check, controls: controls, duration: Date().timeIntervalSince(started))
    out.supports = scenario.supports
    out.proof = scenario.isStatic ? .static : .simulated
    if let real = material.real, !scenario.isStatic,
      Runner.provesAgainst(real, scenario, platform, channel, check)
    {
      out.proof = .real
    }
    return out
  }

  private func notRun(_ scenario: Scenario, _ platform: Platform, _ channel: Channel, _ why: String)
    -> [ControlRecord]
  {
    guard options.runControls else { return [] }
    return scenario.controls.filter { $0.applies(to: platform, channel: channel) }.map {
      ControlRecord(
        name: $0.name, mutations: $0.mutations.map(\.text), expectedStep: $0.failsAt,
        because: $0.because?.description,
        outcome: .notRun, message: why, execution: nil)
    }
  }

  private func judge(_ control: Control, _ execution: ExecutionRecord, _ scenario: Scenario)
    -> ControlRecord
  {
    let outcome: ControlRecord.Outcome
    let message: String
    let expected = "step \(control.failsAt) \"\(scenario.steps[control.failsAt - 1].title)\""
    if execution.isError {
      outcome = .error
      message = execution.message ?? "error"
    } else if let failed = execution.failedStep {
      let reasonHolds =
        control.because?.names(reason: execution.failureReason, detail: execution.failureDetail)
        ?? true
      let why = execution.failureLabel.map { " [\($0)]" } ?? ""
      if failed == control.failsAt && reasonHolds {
        outcome = .bit
        message = "failed at \(expected) as stated\(why): \(execution.message ?? "")"
      } else if failed != control.failsAt {
        outcome = .bitElsewhere
        message =
          "failed at step \(failed) instead of \(expected)\(why): \(execution.message ?? "")"
      } else {
        outcome = .bitElsewhere
        message =
          "failed at \(expected), but because of \(execution.failureLabel ?? "no reason"), not \(control.because?.description ?? ""): \(execution.message ?? "")"
      }
    } else {
      outcome = .didNotBite
      message =
        "every step still held under \(control.mutations.map(\.text).joined(separator: ", ")); expected a failure at \(expected)"
    }
    return ControlRecord(
      name: control.name, mutations: control.mutations.map(\.text), expectedStep: control.failsAt,
      because: control.because?.description, outcome: outcome, message: redactor.redact(message),
      execution: execution)
  }

}

private final class Counter: Sendable {
  private let value = Locked(0)

  func take(below limit: Int) -> Int? {
    value.withLock { value in
      guard value < limit else { return nil }
      value += 1
      return value - 1
    }
  }
}

private final class ResultSlots: Sendable {
  private let slots: Locked<[ScenarioResult?]>

  init(count: Int) {
    slots = Locked(Array(repeating: nil, count: count))
  }

  func set(_ index: Int, _ result: ScenarioResult) {
    slots.withLock { $0[index] = result }
  }

  var all: [ScenarioResult] { slots.withLock { $0.compactMap { $0 } } }
}
