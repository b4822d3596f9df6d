import Artifacts
import Foundation
import QualifyCore
import ResultModel
import Results

/// The files a finished run is written to besides the store: the HTML report and trend page,
/// and what `--junit`, `--summary`, `--sarif` and `--json` ask for. `qualify` and
/// `qualify merge` write the same outputs from the same options.
struct RunOutputs {
  static let options: [OptionSpec] = [
    .value("db", "FILE", "The results database (default: Reports/qualify.sqlite)."),
    .value("report-dir", "DIR", "Where HTML reports go (default: Reports)."),
    .value("junit", "FILE", "Also write JUnit XML to FILE."),
    .value(
      "summary", "FILE",
      "Also write a Markdown summary to FILE (a CI job page, e.g. $GITHUB_STEP_SUMMARY)."),
    .value(
      "sarif", "FILE",
      "Also write SARIF 2.1.0 to FILE: each failure located in the app's files, with its rule, file, line and fix, for code-scanning annotations."
    ),
    .flag("json", "Print the results as JSON on stdout (progress goes to stderr)."),
  ]

  let reportDirectory: String
  let junit: String?
  let summary: String?
  let sarif: String?
  let json: Bool

  init(_ parsed: ParsedOptions) {
    reportDirectory = parsed.value("report-dir") ?? Paths.defaultReportDirectory
    junit = parsed.value("junit")
    summary = parsed.value("summary")
    sarif = parsed.value("sarif")
    json = parsed.has("json")
  }

  /// Fails now, naming the path, when an output cannot be written: before anything runs.
  func checkWritable() throws {
    try ReportFiles.checkWritable(directory: reportDirectory)
    for path in [junit, summary, sarif].compactMap({ $0 }) {
      let target = URL(fileURLWithPath: path).resolvingSymlinksInPath()
      let type =
        try? FileManager.default.attributesOfItem(atPath: target.path)[.type]
        as? FileAttributeType
      // A FIFO or a device is written into; only a file needs a writable folder.
      if type == nil || type == .typeRegular {
        try ReportFiles.checkWritable(directory: target.deletingLastPathComponent().path)
      }
    }
  }

  /// Ends a run whose results are all recorded: its status and waiver counts go to the store,
  /// then every output is written and the console summary printed. Returns the exit code the
  /// verdict gives.
  func conclude(
    _ run: RunRecord, results: [ScenarioResult], store: ResultStore, progress: Progress
  ) throws -> ExitCode {
    let summary = RunSummary(results, scope: run.scope ?? RunScope())
    try store.finish(
      run: run.id, status: summary.status, waived: summary.waived.count,
      waivers: summary.appliedWaivers.count)
    let finished = try store.run(run.id) ?? run
    let written = try write(run: finished, results: results, store: store)
    progress.summary(
      results, summary: summary, run: finished, report: written.report, outputs: written.files)
    try printJSON(run: finished, results: results)
    return summary.exitCode
  }

  /// Writes every output of the finished `run`; returns the report's path and the other
  /// files written, labelled, for the console.
  func write(run: RunRecord, results: [ScenarioResult], store: ResultStore) throws -> (
    report: String, files: [(String, String)]
  ) {
    let report = try ReportFiles.write(
      run: run, results: results, history: store.runs(limit: 15),
      baseline: try ReportFiles.baseline(of: run, in: store), directory: reportDirectory)
    try ReportFiles.writeTrend(store: store, directory: reportDirectory)
    var files: [(String, String)] = []
    if let junit {
      try ReportFiles.writeText(JUnitWriter.render(run: run, results: results), to: junit)
      files.append(("junit", junit))
    }
    if let summary {
      try ReportFiles.appendText(MarkdownSummary.render(run: run, results: results), to: summary)
      files.append(("summary", summary))
    }
    if let sarif {
      try ReportFiles.writeText(
        SARIFWriter.render(
          findings: SARIFWriter.findings(run: run, results: results),
          rules: RunOutputs.guardRules + SARIFWriter.rules(for: results),
          version: run.harnessVersion,
          properties: ["run": run.id, "channel": run.channel.rawValue]),
        to: sarif)
      files.append(("sarif", sarif))
    }
    return (report, files)
  }

  /// Prints the run as JSON on stdout when `--json` asked for it.
  func printJSON(run: RunRecord, results: [ScenarioResult]) throws {
    guard json else { return }
    Terminal.standardOutput.write(try JSONWriter.render(run: run, results: results) + "\n")
  }

  /// Every static guard rule, as SARIF names them.
  static var guardRules: [SARIFWriter.Rule] {
    BuildGuards.rules.map {
      SARIFWriter.Rule(id: $0.id, title: $0.title, source: $0.source, fix: $0.fix)
    }
  }
}
