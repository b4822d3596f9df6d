import Devices
import Foundation
import HTTP
import QualifyCore
import ResultModel
import StackPorts

/// How a run against real systems (`--stack`) is judged: which mock-only powers a real part
/// forbids, which results proved what they prove against a real system, and which failures
/// are the environment's rather than the app's. All of it reads the evidence's summaries
/// (`POST https://… → 503 (4ms)`), as a person reading the report would.
extension Runner {
  /// The powers of `needs` over parts of the stack that are real systems, sorted.
  static func forbidden(_ needs: Set<MockPower>, by real: RealSystems?) -> [MockPower] {
    guard let real else { return [] }
    return needs.filter { real.parts.contains($0.part) }.sorted()
  }

  /// Whether a check proved against a real system what it proves: its deciding steps (those
  /// its controls make fail: where the proof is) talked to that system. A login through the
  /// real IdP before a push check does not make the push proof real. The controls of this
  /// platform and channel say where the proof is; when none applies here, those of the
  /// others (the same steps prove the same thing); without controls, every step.
  static func provesAgainst(
    _ real: RealSystems, _ scenario: Scenario, _ platform: Platform, _ channel: Channel,
    _ check: ExecutionRecord
  ) -> Bool {
    let applicable = scenario.controls.filter { $0.applies(to: platform, channel: channel) }
    let controlled = Set((applicable.isEmpty ? scenario.controls : applicable).map(\.failsAt))
    let deciding = check.steps.filter { controlled.isEmpty || controlled.contains($0.index) }
    return deciding.contains { step in
      step.evidence.contains {
        // A request the device made without a network never reached the real system.
        ($0.kind == .http || $0.kind == .navigation)
          && Runner.requestURL($0.summary).map(real.isReal) == true
          && !$0.summary.contains(HTTPExchange.offlineMessage)
      }
    }
  }

  /// Why a failed execution is the environment's failure, nil when it is not: a real system
  /// that did not answer, or answered with its own failure (5xx), in the step that failed.
  /// Only a failed step is judged so (an app that rides out a 503 passes), and a real
  /// backend's 5xx stays the app's failure: the backend is the product's own server.
  static func outage(of real: RealSystems, in records: [StepRecord]) -> String? {
    guard let failing = records.last(where: { $0.status == .failed || $0.status == .error })
    else { return nil }
    for evidence in failing.evidence where evidence.kind == .http || evidence.kind == .navigation {
      guard let url = requestURL(evidence.summary), let system = real.system(at: url),
        !evidence.summary.contains(HTTPExchange.offlineMessage)
      else { continue }
      let status = serverError(evidence.summary)
      guard evidence.summary.contains(" ✗ ") || (status != nil && !real.isBackend(url)) else {
        continue
      }
      let what = status.map { "answered HTTP \($0)" } ?? "did not answer"
      return
        "\(system) \(what) (\(evidence.summary)): the environment failed, and the run cannot judge the app against it"
    }
    return nil
  }

  /// The 5xx status an exchange's or a navigation's summary records (`POST https://… → 503
  /// (4ms)`), nil for any other answer.
  static func serverError(_ summary: String) -> Int? {
    guard let arrow = summary.range(of: " → ") else { return nil }
    let status = summary[arrow.upperBound...].prefix { $0.isNumber }
    return Int(status).flatMap { (500...599).contains($0) ? $0 : nil }
  }

  /// The URL an exchange's or a navigation's summary was for (`GET https://idp.example/… →
  /// 200`): its second word, never a `Location` it was redirected to.
  static func requestURL(_ summary: String) -> String? {
    let words = summary.split(separator: " ", maxSplits: 2)
    return words.count >= 2 ? String(words[1]) : nil
  }
}
