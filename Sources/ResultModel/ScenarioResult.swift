import Foundation
import QualifyCore

/// The verdict of one scenario on one platform (DESIGN.md, *Negative controls*).
public enum Verdict: String, Sendable, Codable, CaseIterable {
  /// Every step held and every control made it fail where it said.
  case passed
  /// A step did not hold: the app is not qualified.
  case failed
  /// The check passed, but a control did not make it fail at its step: the check proves
  /// nothing, so the run is not qualified either.
  case controlDidNotBite = "control-did-not-bite"
  /// The harness could not run it (a timeout, a stack that did not start).
  case error
  /// It does not apply to this build: a feature the build does not enable (OTA, push), or an
  /// env the channel did not supply. Its message names the setting that decides it.
  case notApplicable = "not-applicable"

  public var isSuccess: Bool { self == .passed }
}

/// What happened to one step.
public struct StepRecord: Sendable, Codable {
  public enum Status: String, Sendable, Codable {
    case passed, failed, error
    /// Not reached because an earlier step failed.
    case notRun = "not-run"
  }

  public var index: Int
  public var title: String
  public var status: Status
  public var message: String?
  public var evidence: [Evidence]
  public var duration: TimeInterval

  public init(
    index: Int, title: String, status: Status, message: String?, evidence: [Evidence],
    duration: TimeInterval
  ) {
    self.index = index
    self.title = title
    self.status = status
    self.message = message
    self.evidence = evidence
    self.duration = duration
  }
}

/// One execution of a scenario's steps: the check itself or one control.
public struct ExecutionRecord: Sendable, Codable {
  public var steps: [StepRecord]
  /// The step that failed (1-based), if one did.
  public var failedStep: Int?
  public var message: String?
  /// The execution could not run to a verdict (harness error or timeout).
  public var isError: Bool
  public var duration: TimeInterval
  /// A step found that what it checks does not apply to this build (`message` says why).
  public var notApplicable: Bool = false
  /// Why it does not apply, when the step that found it said.
  public var notApplicableCause: NotApplicableCause?
  /// Why the failed step failed, as a reason name (`status`) and its detail (`200`): what a
  /// control's `because` is compared with.
  public var failureReason: String?
  public var failureDetail: String?
  /// What to change so that the failed step holds (a guard's fix), when the check knows.
  public var fix: String?
  /// The scenario file's line that did not hold (the expectation, else its step's heading):
  /// where JUnit points a scenario failure.
  public var failedLine: Int?

  public var passed: Bool { failedStep == nil && !isError && !notApplicable }

  /// The `failureReason` of an execution stopped by its timeout.
  public static let timeoutReason = "timeout"

  /// The execution ran out of time: an error of the run, not of qualify.
  public var timedOut: Bool { isError && failureReason == ExecutionRecord.timeoutReason }

  /// The `failureReason` of an execution a real system's outage stopped (`--stack`).
  public static let outageReason = "real-system-outage"

  /// A real system failed under it: the environment's error, not qualify's nor the app's.
  public var stoppedByOutage: Bool { isError && failureReason == ExecutionRecord.outageReason }

  /// `status 200`, for messages.
  public var failureLabel: String? {
    failureReason.map { reason in failureDetail.map { "\(reason) \($0)" } ?? reason }
  }

  public init(
    steps: [StepRecord], failedStep: Int?, message: String?, isError: Bool, duration: TimeInterval,
    notApplicable: Bool = false, failureReason: String? = nil, failureDetail: String? = nil,
    fix: String? = nil, failedLine: Int? = nil
  ) {
    self.steps = steps
    self.failedStep = failedStep
    self.message = message
    self.isError = isError
    self.duration = duration
    self.notApplicable = notApplicable
    self.failureReason = failureReason
    self.failureDetail = failureDetail
    self.fix = fix
    self.failedLine = failedLine
  }
}

/// How a control fared.
public struct ControlRecord: Sendable, Codable {
  public enum Outcome: String, Sendable, Codable {
    /// The scenario failed at the stated step (for the stated reason).
    case bit
    /// The scenario still passed under the mutation.
    case didNotBite = "did-not-bite"
    /// It failed, but at another step or for another reason than stated.
    case bitElsewhere = "bit-elsewhere"
    /// Not run: the check itself did not pass.
    case notRun = "not-run"
    case error
  }

  public var name: String
  public var mutations: [String]
  public var expectedStep: Int
  public var because: String?
  public var outcome: Outcome
  public var message: String
  public var execution: ExecutionRecord?

  public init(
    name: String, mutations: [String], expectedStep: Int, because: String?, outcome: Outcome,
    message: String, execution: ExecutionRecord?
  ) {
    self.name = name
    self.mutations = mutations
    self.expectedStep = expectedStep
    self.because = because
    self.outcome = outcome
    self.message = message
    self.execution = execution
  }
}

/// How a result proves what it checks (DESIGN.md, *Decisions*: each item says how it was
/// proven).
public enum Proof: String, Sendable, Codable {
  /// From the app's files alone.
  case `static`
  /// In the simulated world (mock stack, simulated shells).
  case simulated
  /// Against a real system (`--stack`).
  case real
}

/// Why a result is not applicable.
public enum NotApplicableCause: String, Sendable, Codable {
  /// Not applicable as the profile declares it: the app does not use the feature, or uses it
  /// only on release channels and this is a dev build. The run can still qualify.
  case declared
  /// The profile declares that this release does not ship the feature (`features.X = false`):
  /// its checklist items are "not in this release". The run can still qualify.
  case notInRelease = "not-in-release"
  /// The build does not enable the feature and the profile does not say it is unused.
  case featureOff = "feature-off"
  /// The channel's env was not supplied (only dev defaults were found).
  case envNotSupplied = "env-not-supplied"
  /// A decision the app's code holds that qualify could not read or found nowhere it looked
  /// (an unverified finding): the scenario resting on it is not proven, and a release run is
  /// partial because of the app, not of the environment.
  case unverified
  /// It needs what only a mock can be made to do, and that part of the stack is a real system
  /// (`--stack`).
  case realSystem = "real-system"
  /// What a real engine must show could not be shown here: the engine is not installed, or
  /// the app's web bundle is not built. The item is not covered; a release run is partial.
  case renderUnavailable = "render-unavailable"
  /// The app names no thread view for a real engine to show (`render.threadPath`): the item
  /// stays not covered, as a person checks it by hand; the run can still qualify.
  case noThreadView = "no-thread-view"
  /// The user turned the real engines off (`--no-engines`): the item is not covered, and the
  /// run is partial by the command line's own selection.
  case enginesOff = "engines-off"
}

/// The result of one scenario on one platform.
public struct ScenarioResult: Sendable, Codable {
  public var scenarioID: String
  public var title: String
  public var file: String
  public var platform: Platform
  public var channel: Channel
  /// Checklist items it proves.
  public var checklist: [Int]
  /// Checklist items it supports without proving them.
  public var supports: [Int] = []
  public var proof: Proof = .simulated
  /// Set when `verdict` is `notApplicable`.
  public var notApplicableCause: NotApplicableCause?
  public var tags: [String]
  public var verdict: Verdict
  /// Why, in one sentence.
  public var message: String
  public var check: ExecutionRecord
  public var controls: [ControlRecord]
  public var duration: TimeInterval
  /// With `--repeat N`: the seed and verdict of each attempt (empty for a single attempt).
  /// The result itself is the first attempt that did not pass, or the first.
  public var attempts: [Attempt] = []

  /// One of the attempts of `--repeat`.
  public struct Attempt: Sendable, Codable, Equatable {
    public var seed: UInt64
    public var verdict: Verdict

    public init(seed: UInt64, verdict: Verdict) {
      self.seed = seed
      self.verdict = verdict
    }
  }

  /// Attempts with the same app and world disagreed: the check depends on chance (timing,
  /// random values), so one passing attempt proves nothing.
  public var isFlaky: Bool { Set(attempts.map(\.verdict)).count > 1 }

  /// `sso/cross-app [ios]`.
  public var displayName: String { "\(scenarioID) [\(platform.rawValue)]" }

  public init(
    scenarioID: String, title: String, file: String, platform: Platform, channel: Channel,
    checklist: [Int], tags: [String], verdict: Verdict, message: String, check: ExecutionRecord,
    controls: [ControlRecord], duration: TimeInterval
  ) {
    self.scenarioID = scenarioID
    self.title = title
    self.file = file
    self.platform = platform
    self.channel = channel
    self.checklist = checklist
    self.tags = tags
    self.verdict = verdict
    self.message = message
    self.check = check
    self.controls = controls
    self.duration = duration
  }
}
