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
    shell: ShellKind = .singleOrigin
  ) -> [(Scenario, Platform)] {
    scenarios.filter { $0.shell == shell }.sorted { $0.id < $1.id }.flatMap { scenario in
      platforms.sorted().filter { scenario.applies(to: $0, channel: channel) }.map {
        (scenario, $0)
      }
    }
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
      shell: builds.values.first?.shell ?? .singleOrigin)
    let results = ResultSlots(count: jobs.count)
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
        while !stopped.withLock({ $0 }), let index = next.take(below: jobs.count) {
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
    var applicable = scenario.controls.filter { $0.applies(to: platform, channel: channel) }
    // A control that would mutate a real IdP is reported as not applicable there, never
    // dropped silently.
    var skipped: [ControlRecord] = []
    // Against a real backend, a control that changes the backend runs against the embedded
    // one at the real backend's address: the expectations read the same answers, so it shows
    // the check could fail; what it checks in the real backend is the check's own run.
    let inEmbeddedBackend = Set(
      applicable.filter { control in
        embeddedBackendMaterial != nil && !control.needs.isEmpty
          && Runner.forbidden(control.needs, by: embeddedBackendMaterial?.real).isEmpty
          && !Runner.forbidden(control.needs, by: material.real).isEmpty
      }.map(\.name))
    for control in applicable where !inEmbeddedBackend.contains(control.name) {
      guard let power = Runner.forbidden(control.needs, by: material.real).first else { continue }
      skipped.append(
        ControlRecord(
          name: control.name, mutations: control.mutations.map(\.text),
          expectedStep: control.failsAt, because: control.because?.description,
          outcome: .notRun,
          message:
            "not applicable: it needs a mock-only power over the \(power.part) (\(power.rawValue)), and the \(power.part) is a real system here",
          execution: nil))
    }
    applicable.removeAll {
      !inEmbeddedBackend.contains($0.name)
        && Runner.forbidden($0.needs, by: material.real).first != nil
    }
    if applicable.isEmpty && !skipped.isEmpty {
      var outcome = result(
        scenario, platform, channel, .notApplicable,
        "every negative control of this scenario needs a mock-only power over a part that is a real system here: the check ran and held, but nothing shows it could fail here",
        check, skipped, started)
      outcome.notApplicableCause = .realSystem
      return outcome
    }
    guard !applicable.isEmpty else {
      return result(
        scenario, platform, channel, .controlDidNotBite,
        "no negative control applies on \(platform.rawValue)/\(channel.rawValue): a check that cannot fail proves nothing",
        check, [], started)
    }
    var controls: [ControlRecord] = []
    for control in applicable {
      var configuration = base
      for mutation in control.mutations { mutation.spec.apply(&configuration, mutation.arguments) }
      let embedded = inEmbeddedBackend.contains(control.name)
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
      controls.append(judged)
    }
    let errors = controls.filter { $0.outcome == .error }
    controls += skipped
    let misses = controls.filter { $0.outcome == .didNotBite || $0.outcome == .bitElsewhere }
    if let error = errors.first {
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
    let bitten = controls.count - skipped.count
    return result(
      scenario, platform, channel, .passed,
      "all \(scenario.steps.count) steps held; \(bitten) control\(bitten == 1 ? "" : "s") bit"
        + (skipped.isEmpty
          ? "" : "; \(skipped.count) not applicable against the real systems"),
      check, controls, started)
  }

  /// Why the scenario does not run on this build, nil when it does: a feature it needs that
  /// the build does not enable (a failure when the profile says the app uses it), or a
  /// simulation over a release env the channel did not supply.
  func applicability(_ scenario: Scenario, build: AppBuild) -> (
    Verdict, String, NotApplicableCause?
  )? {
    // Over dev defaults, neither a simulation nor a feature's state says anything about a
    // release channel.
    if build.channel.isRelease && (!scenario.isStatic || !scenario.requires.isEmpty),
      let warning = build.environment.fallbackWarning(channel: build.channel)
    {
      return (.notApplicable, "not run: \(warning)", .envNotSupplied)
    }
    // Against a real IdP (`--stack`), what only a mock can be made to do does not run: a
    // scenario that sets the IdP's profile or breaks the IdP on purpose.
    if let real = material.real?.identityProvider {
      // A scenario about one IdP's behaviour runs against a real IdP of that kind only.
      if let profile = scenario.identityProvider,
        !(profile == real.profile || profile == real.profile + "-dev")
      {
        return (
          .notApplicable,
          "not run against the real identity provider at \(real.issuer): the scenario sets the mock IdP's profile (idp \(profile))",
          .realSystem
        )
      }
    }
    if let power = Runner.forbidden(scenario.needs, by: material.real).first {
      return (
        .notApplicable,
        "not run: it needs a mock-only power over the \(power.part) (\(power.rawValue)), and the \(power.part) is a real system here",
        .realSystem
      )
    }
    if let ordering = scenario.otaOrdering, ordering != build.otaOrdering {
      return (
        .notApplicable,
        "it checks OTA releases ordered by \(ordering), and this app orders them by \(build.otaOrdering) (qualify.json ota.ordering)",
        .declared
      )
    }
    for feature in scenario.requires {
      let state = build.features[feature]
      guard !state.enabled else { continue }
      let name = feature == .ota ? "OTA" : "push"
      switch (state.use, build.channel.isRelease) {
      case (.used, true):
        return (
          .failed,
          "qualify.json declares features.\(feature.rawValue) = true, but this \(build.channel.rawValue) build does not enable \(name): \(state.decidedBy)",
          nil
        )
      case (.used, false):
        return (
          .notApplicable,
          "\(name) is off in this dev build (\(state.decidedBy)); the app uses it on release channels (qualify.json features.\(feature.rawValue) = true)",
          .declared
        )
      case (.unused, _):
        return (
          .notApplicable,
          "\(name) is not enabled in this build (qualify.json: features.\(feature.rawValue) = false): \(state.decidedBy)",
          .declared
        )
      case (.auto, _):
        return (
          .notApplicable, "\(name) is not enabled in this build: \(state.decidedBy)", .featureOff
        )
      }
    }
    return nil
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
        control.because.map { because in
          execution.failureReason == because.reason
            && (because.detail.map { $0.lowercased() == execution.failureDetail?.lowercased() }
              ?? true)
        } ?? true
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

  // MARK: Executions

  /// Runs the steps once in a fresh world, bounded by the scenario's timeout.
  func execute(
    _ scenario: Scenario, configuration: WorldConfiguration, label: String,
    transport: WorkerTransport, material: StackMaterial? = nil
  ) -> ExecutionRecord {
    let timeout = options.timeoutOverride ?? scenario.timeout
    let progress = ExecutionProgress()
    let started = Date()
    let lease = transport.lease
    var snapshot: (step: Int, records: [StepRecord])?
    let outcome = Runner.withTimeout(timeout) { [self] in
      self.executeSteps(
        scenario, configuration: configuration, label: label, progress: progress,
        transport: lease, material: material ?? self.material)
    } onTimeout: {
      // What had finished when time ran out: a step the worker completes after the
      // deadline does not count.
      snapshot = (progress.currentStep, progress.records)
      progress.cancel()
    }
    switch outcome {
    case .finished(let record):
      return record
    case .timedOut(let joined):
      // A worker that did not stop in its grace period still holds the lease's listeners.
      if !joined { transport.reset() }
      // Steps that finished in time keep their records; the first that did not is the one
      // that timed out (none while the world was still being built), the rest did not run.
      let begun = snapshot?.step ?? 0
      let finished = Dictionary(
        (snapshot?.records ?? []).map { ($0.index, $0) }, uniquingKeysWith: { first, _ in first })
      var step = 0
      var steps: [StepRecord] = []
      for each in scenario.steps {
        if let record = finished[each.index] {
          steps.append(record)
        } else if begun > 0 && step == 0 {
          step = each.index
          steps.append(
            StepRecord(
              index: each.index, title: each.title, status: .error, message: "timed out",
              evidence: [], duration: timeout))
        } else {
          steps.append(
            StepRecord(
              index: each.index, title: each.title, status: .notRun, message: nil, evidence: [],
              duration: 0))
        }
      }
      return ExecutionRecord(
        steps: steps, failedStep: nil,
        message:
          "timed out after \(Durations.format(timeout))\(step > 0 ? ", at step \(step)" : " before the first step")",
        isError: true, duration: Date().timeIntervalSince(started),
        failureReason: ExecutionRecord.timeoutReason)
    }
  }

  private func executeSteps(
    _ scenario: Scenario, configuration: WorldConfiguration, label: String,
    progress: ExecutionProgress, transport: TransportLease, material: StackMaterial
  ) -> ExecutionRecord {
    let started = Date()
    let world: World
    do {
      world = try World(
        scenario: scenario, configuration: configuration, material: material, seed: options.seed,
        label: label, redactor: redactor, transport: transport)
    } catch let unreachable as StackError where unreachable.isAppConfiguration {
      // The app names an origin nothing can serve: its own configuration fails the first step.
      let message = "the app cannot reach its backend: \(unreachable)"
      return ExecutionRecord(
        steps: scenario.steps.map {
          StepRecord(
            index: $0.index, title: $0.title, status: $0.index == 1 ? .failed : .notRun,
            message: $0.index == 1 ? message : nil, evidence: [], duration: 0)
        }, failedStep: 1, message: message, isError: false,
        duration: Date().timeIntervalSince(started))
    } catch {
      return ExecutionRecord(
        steps: [], failedStep: nil, message: "the world could not be built: \(error)",
        isError: true,
        duration: Date().timeIntervalSince(started))
    }
    defer { world.tearDown() }
    if let trace {
      world.evidence.observe { trace(label, $0) }
    }
    var records: [StepRecord] = []
    var failedStep: Int?
    var failure: Failure?
    var errorMessage: String?
    for step in scenario.steps {
      // Timed out: the caller has what finished in time and is waiting for this worker.
      if progress.isCancelled && errorMessage == nil && failedStep == nil {
        errorMessage = "cancelled"
      }
      if failedStep != nil || errorMessage != nil {
        records.append(
          StepRecord(
            index: step.index, title: step.title, status: .notRun, message: nil, evidence: [],
            duration: 0))
        continue
      }
      progress.begin(step.index)
      mark(label, "step \(step.index) \"\(step.title)\"")
      let stepStarted = Date()
      // The first step also carries what the world noted while it was built (a `given`
      // mutation, a harness key standing in for the app's).
      let evidenceStart = step.index == 1 ? 0 : world.evidence.count
      var stepFailure: Failure?
      do {
        try world.beginStep(
          readsEvents: step.lines.contains {
            if case .expectation(let spec, _) = $0.kind { return spec.observesIdentityEvents }
            return false
          })
        stepFailure = try run(step, in: world, configuration: configuration) {
          self.mark(label, $0)
        }
      } catch let notApplicable as ScenarioNotApplicable {
        var record = ExecutionRecord(
          steps: records, failedStep: nil, message: notApplicable.reason, isError: false,
          duration: Date().timeIntervalSince(started), notApplicable: true)
        record.notApplicableCause = notApplicable.cause
        return record
      } catch {
        errorMessage = "\(error)"
      }
      let status: StepRecord.Status =
        errorMessage != nil ? .error : stepFailure == nil ? .passed : .failed
      if let stepFailure {
        failedStep = step.index
        failure = stepFailure
      }
      let message = errorMessage ?? stepFailure?.message
      let record = StepRecord(
        index: step.index, title: step.title, status: status, message: message.map(redactor.redact),
        evidence: world.evidence.since(evidenceStart),
        duration: Date().timeIntervalSince(stepStarted))
      records.append(record)
      mark(
        label,
        "step \(step.index) \(status.rawValue)" + (message.map { ": " + redactor.redact($0) } ?? "")
      )
      progress.finish(record)
    }
    if let real = material.real, failedStep != nil || errorMessage != nil,
      let outage = Runner.outage(of: real, in: records)
    {
      return ExecutionRecord(
        steps: records, failedStep: nil, message: redactor.redact(outage), isError: true,
        duration: Date().timeIntervalSince(started), failureReason: ExecutionRecord.outageReason)
    }
    return ExecutionRecord(
      steps: records, failedStep: failedStep,
      message: (errorMessage ?? failure?.message).map(redactor.redact),
      isError: errorMessage != nil,
      duration: Date().timeIntervalSince(started), failureReason: failure?.reason.name,
      failureDetail: failure?.detail.map(redactor.redact),
      fix: failure?.fix.map(redactor.redact),
      failedLine: failure?.line
        ?? failedStep.flatMap { index in
          scenario.steps.first { $0.index == index }?.location.line
        })
  }

  /// Runs one step's lines; nil when the step held, else why it did not.
  private func run(
    _ step: Step, in world: World, configuration: WorldConfiguration,
    mark: (String) -> Void
  ) throws -> Failure? {
    var problemStep = false
    for line in step.lines {
      if let condition = line.condition,
        !condition.holds(platform: configuration.platform, channel: configuration.channel)
      {
        continue
      }
      switch line.kind {
      case .action(let spec):
        if problemStep, let unexamined = world.unexaminedProblem {
          return unexamined
        }
        let app = line.actor.flatMap { world.apps[$0] }
        let outcome = try spec.perform(
          ActionContext(world: world, app: app, arguments: line.arguments))
        world.lastOutcome = outcome
        world.problemExamined = false
        problemStep = outcome.problem != nil
      case .expectation(let spec, let negated):
        let context = ExpectationContext(
          world: world, outcome: world.lastOutcome, arguments: line.arguments, negated: negated)
        if var failure = try spec.check(context) {
          // The action's own problem is usually the root cause: say it.
          if let problem = world.unexaminedProblem,
            !(world.lastOutcome?.problem.map(spec.examines.matches) ?? false)
          {
            failure.message = "\(line.text): \(failure.message) — after \(problem.message)"
          } else {
            failure.message = "\(line.text): \(failure.message)"
          }
          mark("✗ " + redactor.redact(failure.message))
          failure.line = line.location.line
          return failure
        }
        mark("✓ " + line.text)
        if let problem = world.lastOutcome?.problem, spec.examines.matches(problem) {
          world.problemExamined = true
        }
      }
    }
    if problemStep, var unexamined = world.unexaminedProblem {
      unexamined.line = unexamined.line ?? step.location.line
      return unexamined
    }
    return nil
  }

  /// Runs `body` on its own thread and waits at most `seconds` for it.
  /// How a bounded execution ended.
  enum Bounded<T> {
    case finished(T)
    /// The deadline passed; `joined` says whether the worker then stopped within its grace
    /// period (it always should: it checks for cancellation between steps).
    case timedOut(joined: Bool)
  }

  /// How long a cancelled worker gets to reach its next step boundary before it is left
  /// behind; only a step that never returns (a harness bug) needs it.
  static let cancellationGrace: TimeInterval = 30

  /// Runs `body` on a worker thread with a deadline. When it passes, `onTimeout` runs (it
  /// cancels the body cooperatively), then the worker is joined, so that no worker is still
  /// inside OpenSSL or libcurl when the next execution, or the process's exit, tears down
  /// what it uses.
  static func withTimeout<T: Sendable>(
    _ seconds: TimeInterval, _ body: @escaping @Sendable () -> T, onTimeout: () -> Void
  ) -> Bounded<T> {
    let box = Locked<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
      let value = body()
      box.withLock { $0 = value }
      done.signal()
    }
    thread.stackSize = 8 << 20
    thread.start()
    if done.wait(timeout: .now() + seconds) == .success, let value = box.withLock({ $0 }) {
      return .finished(value)
    }
    onTimeout()
    let joined = done.wait(timeout: .now() + cancellationGrace) == .success
    return .timedOut(joined: joined)
  }

  /// Checks, before anything runs, that the app has the test users the scenarios name: the
  /// profile's `testUsers` exist at the realm export, and there are as many as the roles the
  /// scenarios use.
  /// - Throws: `InputError` naming `qualify.json` or the realm export.
  public static func checkTestUsers(_ scenarios: [Scenario], builds: [Platform: AppBuild]) throws {
    let needed =
      scenarios.flatMap(\.users).compactMap { AppProfile.userRoles.firstIndex(of: $0) }.max()
      .map { $0 + 1 } ?? 0
    guard needed > 0, let build = builds.values.first, let realm = build.realm,
      !realm.users.isEmpty
    else { return }
    let names = realm.users.map(\.username)
    for user in build.testUsers
    where !realm.users.contains(where: { $0.username == user || $0.email == user }) {
      throw InputError(
        "qualify.json testUsers names \(user), who is not a user of the realm export \(realm.file)",
        hint: "its users who can sign in: \(names.joined(separator: ", "))")
    }
    let available = build.testUsers.isEmpty ? realm.users.count : build.testUsers.count
    if available < needed {
      let roles = AppProfile.userRoles.prefix(needed).joined(separator: ", ")
      throw InputError(
        "the scenarios need \(needed) test users (\(roles)), but \(build.testUsers.isEmpty ? "the realm export \(realm.file) has \(available) who can sign in" : "qualify.json testUsers names \(available)") (\(names.joined(separator: ", ")))",
        hint:
          "add users to the realm export (service accounts, disabled users and users without a password credential do not count), or name them in qualify.json testUsers"
      )
    }
  }

  /// Secrets of the app's configuration that must never be shown.
  static func registerSecrets(of build: AppBuild, with redactor: Redactor) {
    for file in build.backend.env.files {
      for entry in file.entries where SecretShape.isSecretName(entry.key) {
        for secret in secretParts(of: entry.value) { redactor.register(secret) }
      }
    }
    if let key = build.frontend.otaPrivateKey { redactor.register(key.value) }
    for client in build.realm?.clients ?? [] {
      if let secret = client.secret { redactor.register(secret) }
    }
    for user in build.realm?.users ?? [] {
      if let password = user.password { redactor.register(password) }
    }
  }

  /// What of an env value is secret: a service account's JSON holds its key and key id among
  /// public names (its project, its address), which stay readable; a PEM written on one line
  /// with `\n` escapes is its lines.
  static func secretParts(of value: String) -> [String] {
    if let data = value.data(using: .utf8),
      let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    {
      return object.filter { $0.key.lowercased().contains("private_key") }.values
        .compactMap { $0 as? String }.flatMap(secretParts)
    }
    return [value.replacingOccurrences(of: "\\n", with: "\n")]
  }

}

extension World {
  /// The last outcome's problem as a failure, when no expectation has looked at it.
  var unexaminedProblem: Failure? {
    guard let outcome = lastOutcome, let problem = outcome.problem, !problemExamined else {
      return nil
    }
    return Failure(problem.reason, nil, "\(outcome.description): \(problem.message)")
  }
}

/// Where an execution got to, readable when it times out.
private final class ExecutionProgress: Sendable {
  private struct State {
    var step = 0
    var finished: [StepRecord] = []
  }

  private let state = Locked(State())
  private let cancelled = Locked(false)

  /// Asks the worker to stop at its next step boundary.
  func cancel() { cancelled.withLock { $0 = true } }

  var isCancelled: Bool { cancelled.withLock { $0 } }

  func begin(_ index: Int) {
    state.withLock { $0.step = index }
  }

  func finish(_ record: StepRecord) {
    state.withLock { $0.finished.append(record) }
  }

  var currentStep: Int { state.withLock { $0.step } }

  var records: [StepRecord] { state.withLock { $0.finished } }
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
