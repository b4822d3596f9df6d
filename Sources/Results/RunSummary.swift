import Artifacts
import QualifyCore
import Scenarios

/// The verdict of a whole run, from its scenario results.
public struct RunSummary: Sendable {
  public var counts: [Verdict: Int]
  public var total: Int
  /// Controls that bit, out of those that ran.
  public var controlsBitten: Int
  public var controlsRun: Int

  public init(_ results: [ScenarioResult]) {
    var counts: [Verdict: Int] = [:]
    for result in results { counts[result.verdict, default: 0] += 1 }
    self.counts = counts
    total = results.count
    let ran = results.flatMap(\.controls).filter { $0.outcome != .notRun }
    controlsRun = ran.count
    controlsBitten = ran.filter { $0.outcome == .bit }.count
  }

  /// Qualified: something ran, and every result passed.
  public var qualified: Bool { total > 0 && counts[.passed, default: 0] == total }

  /// `0` qualified, `1` not qualified, `3` when only harness errors stand in the way.
  public var exitCode: ExitCode {
    if qualified { return .qualified }
    let failures = counts[.failed, default: 0] + counts[.controlDidNotBite, default: 0]
    if failures == 0 && counts[.error, default: 0] > 0 { return .internalError }
    return .notQualified
  }

  public var status: RunRecord.Status {
    switch exitCode {
    case .qualified: return .qualified
    case .internalError: return .error
    default: return .notQualified
    }
  }

  /// `QUALIFIED` / `NOT QUALIFIED` / `ERROR`.
  public var headline: String {
    switch exitCode {
    case .qualified: return "QUALIFIED"
    case .internalError: return "ERROR"
    default: return "NOT QUALIFIED"
    }
  }
}

/// Seed 000's *Release checklist (manual)*, the rows of the report's matrix.
public enum ReleaseChecklist {
  public static let items: [(Int, String)] = [
    (1, "iOS cross-app SSO"),
    (2, "Android cross-app SSO"),
    (3, "Thread rendering"),
    (4, "OTA chain on the release channel"),
    (5, "Native file paths"),
    (6, "Logout → re-login"),
    (7, "No dev server baked in"),
    (8, "Push environment pairing"),
  ]
}
