import Foundation
import QualifyCore
import Results
import Scenarios

/// `qualify history`, `qualify show RUN [SCENARIO]` and `qualify report [RUN]`: reading the
/// store.
struct HistoryCommand {
  enum Mode { case history, show, report }

  static let options: [OptionSpec] = [
    .value("db", "FILE", "The results database (default: Reports/qualify.sqlite)."),
    .value("limit", "N", "How many runs (history; default 20)."),
    .value("report-dir", "DIR", "Where HTML reports go (report; default: Reports)."),
    .flag("json", "Print JSON."),
    .flag("help", "Show this help."),
  ]

  let mode: Mode
  let parsed: ParsedOptions

  init(_ mode: Mode, arguments: [String]) throws {
    self.mode = mode
    parsed = try ParsedOptions.parse(
      arguments, HistoryCommand.options, command: "qualify \(mode)",
      positionals: mode == .history ? 0 : mode == .report ? 1 : 2)
  }

  func execute() throws -> ExitCode {
    let out = Terminal.standardOutput
    if parsed.has("help") {
      switch mode {
      case .history:
        out.write(
          helpText(
            usage: "qualify history [--db FILE] [--limit N] [--json]",
            summary: "Lists earlier runs, newest first.",
            options: HistoryCommand.options.filter { $0.name != "report-dir" }))
      case .show:
        out.write(
          helpText(
            usage: "qualify show RUN|latest [SCENARIO] [--db FILE] [--json]",
            summary:
              "Shows one run's results, or one scenario of it with its steps, evidence and controls. RUN may be a unique prefix.",
            options: HistoryCommand.options.filter { ["db", "json", "help"].contains($0.name) }))
      case .report:
        out.write(
          helpText(
            usage: "qualify report [RUN|latest] [--db FILE] [--report-dir DIR]",
            summary: "Writes (again) the HTML report of a run from the store.",
            options: HistoryCommand.options.filter {
              ["db", "report-dir", "help"].contains($0.name)
            }))
      }
      return .qualified
    }
    // Reading the history needs no write: a store that cannot be written is read as it is.
    let store = try StoreAccess.open(parsed, preferWritable: true)
    try store.markAbandonedRuns()
    switch mode {
    case .history: return try history(store, out)
    case .show: return try show(store, out)
    case .report: return try report(store, out)
    }
  }

  private func history(_ store: ResultStore, _ out: Terminal) throws -> ExitCode {
    let limit =
      try parsed.value("limit").map { value -> Int in
        guard let n = Int(value), n > 0 else {
          throw InputError("--limit must be a positive number")
        }
        return n
      } ?? 20
    let runs = try store.runs(limit: limit)
    if parsed.has("json") {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      encoder.dateEncodingStrategy = .iso8601
      out.line(String(decoding: try encoder.encode(runs), as: UTF8.self))
      return .qualified
    }
    if runs.isEmpty {
      out.line("no runs yet")
      return .qualified
    }
    out.line(
      out.style(
        "run                   started               channel  status                            pass fail nobite error  n/a  app",
        .bold))
    for run in runs {
      let status = run.statusText.padding(
        toLength: max(33, run.statusText.count), withPad: " ", startingAt: 0)
      let styled = out.style(
        status,
        run.status == .qualified
          ? .green : run.status == .notQualified ? .red : run.status == .partial ? .cyan : .yellow)
      let c = run.counts
      out.line(
        "\(run.id.padding(toLength: 22, withPad: " ", startingAt: 0))\(ResultStore.format(run.startedAt).prefix(19).padding(toLength: 22, withPad: " ", startingAt: 0))\(run.channel.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0))\(styled) "
          + String(
            format: "%4d %4d %6d %5d %4d  ", c["passed", default: 0], c["failed", default: 0],
            c["control-did-not-bite", default: 0], c["error", default: 0],
            c["not-applicable", default: 0])
          + (run.appName ?? URL(fileURLWithPath: run.app).lastPathComponent)
          + (run.appVersion.map { " @ \($0)" } ?? "")
          + (run.scope.map { $0.isFull ? "" : " (partial: \($0.limits.joined(separator: ", ")))" }
            ?? ""))
    }
    return .qualified
  }

  private func findRun(_ store: ResultStore) throws -> RunRecord {
    try StoreAccess.run(parsed.positionals.first, in: store)
  }

  private func show(_ store: ResultStore, _ out: Terminal) throws -> ExitCode {
    guard !parsed.positionals.isEmpty else {
      throw InputError("qualify show needs a run id (or 'latest')", hint: "see: qualify history")
    }
    let run = try findRun(store)
    var results = try store.results(run: run.id)
    if parsed.positionals.count > 1 {
      let wanted = parsed.positionals[1]
      results = results.filter {
        $0.scenarioID == wanted || Glob.matches(wanted, $0.scenarioID) || $0.displayName == wanted
      }
      guard !results.isEmpty else { throw InputError("run \(run.id) has no scenario '\(wanted)'") }
    }
    if parsed.has("json") {
      out.line(try JSONWriter.render(run: run, results: results))
      return .qualified
    }
    out.line(
      out.style("run \(run.id)", .bold)
        + " · \(run.status.rawValue) · channel \(run.channel.rawValue) · seed \(run.seed) · \(run.appShown)\(run.appVersion.map { " @ \($0)" } ?? "")"
    )
    let detailed = parsed.positionals.count > 1
    for result in results {
      out.line("\(Progress.mark(result.verdict, out)) \(result.displayName)  \(result.title)")
      if result.verdict != .passed || detailed { out.line("    \(result.message)") }
      guard detailed else { continue }
      for step in result.check.steps {
        out.line(
          "    \(step.index). [\(step.status.rawValue)] \(step.title)\(step.message.map { " — \($0)" } ?? "")"
        )
        for evidence in step.evidence {
          out.line(
            "         \(out.style(evidence.kind.rawValue, .dim)) \(evidence.source): \(evidence.summary)"
          )
        }
      }
      for control in result.controls {
        out.line(
          "    control \"\(control.name)\" [\(control.outcome.rawValue)]: \(control.message)")
      }
    }
    return .qualified
  }

  private func report(_ store: ResultStore, _ out: Terminal) throws -> ExitCode {
    let run = try findRun(store)
    let results = try store.results(run: run.id)
    let history = try store.runs(limit: 15)
    let directory = parsed.value("report-dir") ?? Paths.defaultReportDirectory
    let path = try ReportFiles.write(
      run: run, results: results, history: history,
      baseline: try ReportFiles.baseline(of: run, in: store), directory: directory,
      isLatest: history.first?.id == run.id)
    try ReportFiles.writeTrend(store: store, directory: directory)
    out.line("report: \(path)")
    return .qualified
  }
}
