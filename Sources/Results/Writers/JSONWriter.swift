import Foundation
import Scenarios

/// The run and its results as JSON (`--json`), for scripts.
public enum JSONWriter {
  public struct Document: Codable {
    public var run: RunRecord
    public var verdict: String
    public var exitCode: Int32
    public var results: [ScenarioResult]
  }

  public static func render(run: RunRecord, results: [ScenarioResult], includeEvidence: Bool = true)
    throws -> String
  {
    let summary = RunSummary(results)
    var results = results
    if !includeEvidence {
      for index in results.indices {
        results[index].check.steps = results[index].check.steps.map {
          var s = $0
          s.evidence = []
          return s
        }
      }
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    let data = try encoder.encode(
      Document(
        run: run, verdict: summary.headline.lowercased().replacingOccurrences(of: " ", with: "-"),
        exitCode: summary.exitCode.rawValue, results: results))
    return String(decoding: data, as: UTF8.self)
  }
}
