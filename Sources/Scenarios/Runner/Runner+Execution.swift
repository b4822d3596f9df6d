import Artifacts
import Devices
import Foundation
import MockStack
import QualifyCore
import ResultModel
import StackPorts

extension Runner {
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
    switch makeWorld(
      scenario, configuration: configuration, label: label, transport: transport,
      material: material, started: started)
    {
    case .built(let built): world = built
    case .failed(let record): return record
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
    return concluded(
      scenario, records: records, failedStep: failedStep, failure: failure,
      errorMessage: errorMessage, material: material, started: started)
  }

  /// A world built for one execution, or the record of why none could be.
  private enum BuiltWorld {
    case built(World)
    case failed(ExecutionRecord)
  }

  private func makeWorld(
    _ scenario: Scenario, configuration: WorldConfiguration, label: String,
    transport: TransportLease, material: StackMaterial, started: Date
  ) -> BuiltWorld {
    do {
      return .built(
        try World(
          scenario: scenario, configuration: configuration, material: material, seed: options.seed,
          label: label, redactor: redactor, transport: transport))
    } catch let unreachable as StackError where unreachable.isAppConfiguration {
      // The app names an origin nothing can serve: its own configuration fails the first step.
      let message = "the app cannot reach its backend: \(unreachable)"
      return .failed(
        ExecutionRecord(
          steps: scenario.steps.map {
            StepRecord(
              index: $0.index, title: $0.title, status: $0.index == 1 ? .failed : .notRun,
              message: $0.index == 1 ? message : nil, evidence: [], duration: 0)
          }, failedStep: 1, message: message, isError: false,
          duration: Date().timeIntervalSince(started)))
    } catch {
      return .failed(
        ExecutionRecord(
          steps: [], failedStep: nil, message: "the world could not be built: \(error)",
          isError: true,
          duration: Date().timeIntervalSince(started)))
    }
  }

  /// The execution's record once its steps ran: an outage of a real system is the
  /// environment's error, not the app's failure.
  private func concluded(
    _ scenario: Scenario, records: [StepRecord], failedStep: Int?, failure: Failure?,
    errorMessage: String?, material: StackMaterial, started: Date
  ) -> ExecutionRecord {
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
