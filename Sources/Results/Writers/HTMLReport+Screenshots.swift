import Foundation
import QualifyCore
import ResultModel

/// What a real engine showed (checklist item 3): each screenshot of a check is a PNG file in
/// the run's folder (`shots/`), shown small beside its step, never inline data in a page.
extension HTMLReport {
  /// The run's screenshots: file name under the run's folder → PNG, from each check's steps.
  public static func screenshots(_ results: [ScenarioResult]) -> [String: Data] {
    var out: [String: Data] = [:]
    for (index, result) in results.enumerated() {
      for step in result.check.steps {
        for (number, entry) in step.evidence.filter({ $0.kind == .screenshot }).enumerated() {
          if let png = Data(base64Encoded: entry.detail) {
            out[shotName(index, step.index, number)] = png
          }
        }
      }
    }
    return out
  }

  /// `shots/s3-2-1.png`: the run's third result, its check's step 2, that step's first shot.
  static func shotName(_ result: Int, _ step: Int, _ number: Int) -> String {
    "shots/s\(result + 1)-\(step)-\(number + 1).png"
  }

  /// The step's screenshots as small images linking to the full ones; `base` is the run's
  /// folder as the page reaches it.
  static func shots(_ step: StepRecord, result: Int, base: String) -> String {
    step.evidence.filter { $0.kind == .screenshot }.enumerated().map { number, entry in
      let href = base + shotName(result, step.index, number)
      return
        "<a class=\"shot\" href=\"\(h(href))\"><img src=\"\(h(href))\" alt=\"\(h(entry.summary))\" title=\"\(h(entry.summary))\" loading=\"lazy\" width=\"240\"></a>"
    }.joined()
  }
}
