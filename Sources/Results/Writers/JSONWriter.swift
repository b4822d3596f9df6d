import Foundation
import QualifyCore
import ResultModel

/// The run and its results as JSON (`--json`), for scripts.
public enum JSONWriter {
  public struct Document: Codable {
    /// The run, its app directory shown relative to the working directory.
    public var run: RunRecord
    /// What was qualified (`ReleaseRecord`): also in `scope.release`, here at the top.
    public var release: ReleaseRecord?
    /// `qualified`, `passed-partial`, `not-qualified`, `error`.
    public var verdict: String
    public var headline: String
    public var exitCode: Int32
    /// What the app or the environment left out of the run (a channel env not supplied, a
    /// feature neither enabled nor declared unused): on a release channel these make a
    /// passed run exit 1 unless `--allow-partial`.
    public var unrequestedReductions: [String]
    public var scope: RunScope
    /// The checklist matrix: each item on each platform it concerns.
    public var checklist: [ChecklistCell]
    public var checklistSummary: String
    /// What blocks the release, grouped by root cause, each with its reproduce command; and
    /// the failures waivers cover.
    public var failures: FailureReport
    /// Notes on expired and unused waivers.
    public var waiverNotes: [String]
    public var results: [ScenarioResult]
  }

  public static func render(run: RunRecord, results: [ScenarioResult], includeEvidence: Bool = true)
    throws -> String
  {
    let scope = run.scope ?? RunScope()
    let summary = RunSummary(results, scope: scope)
    let coverage = ChecklistCoverage(
      results, catalogue: scope.catalogue, waived: Set(summary.waived.keys),
      shell: scope.shellKind)
    let failures = FailureReport(run: run, results: results, summary: summary)
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
    var shown = run
    shown.app = run.appShown
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    let data = try encoder.encode(
      Document(
        run: shown, release: scope.release, verdict: summary.status.rawValue,
        headline: summary.headline,
        exitCode: summary.exitCode.rawValue,
        unrequestedReductions: summary.unrequestedReductions, scope: scope,
        checklist: coverage.cells,
        checklistSummary: coverage.summary, failures: failures,
        waiverNotes: summary.waiverNotes, results: results))
    return String(decoding: data, as: UTF8.self)
  }
}
