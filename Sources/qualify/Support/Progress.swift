import Artifacts
import Foundation
import QualifyCore
import ResultModel
import Results
import Scenarios

/// Terminal output of a run: a live line and one line per finished scenario on a TTY, plain
/// lines otherwise, then the summary table.
final class Progress: Sendable {
  let terminal: Terminal
  let total: Int
  let verbose: Bool
  /// The waivers in force: a failure they cover prints as WAIVED, not FAIL.
  let waivers: [Waiver]
  private struct Counts {
    var done = 0
    var failed = 0
    var running: [String] = []
  }

  private let counts = Locked(Counts())
  private let started = Date()

  init(terminal: Terminal, total: Int, verbose: Bool, waivers: [Waiver] = []) {
    self.terminal = terminal
    self.total = total
    self.verbose = verbose
    self.waivers = waivers.filter { !$0.expired }
  }

  /// `[12/100] 2 failed · ETA 3s · running sso/cross-app [ios]…`
  private func status(_ counts: Counts) -> String {
    var text = "[\(counts.done)/\(total)]"
    if counts.failed > 0 { text += " \(counts.failed) failed ·" }
    if counts.done > 0 && counts.done < total {
      let elapsed = Date().timeIntervalSince(started)
      text +=
        " ETA \(Durations.format(elapsed / Double(counts.done) * Double(total - counts.done))) ·"
    }
    return text + " running \(counts.running.joined(separator: ", "))…"
  }

  func started(_ scenario: Scenario, _ platform: Platform) {
    let text = counts.withLock { counts in
      counts.running.append("\(scenario.id) [\(platform.rawValue)]")
      return status(counts)
    }
    terminal.live(text)
  }

  func finished(_ result: ScenarioResult) {
    let (live, still) = counts.withLock { counts in
      counts.done += 1
      if ![.passed, .notApplicable].contains(result.verdict)
        && result.waivers(among: waivers) == nil
      {
        counts.failed += 1
      }
      counts.running.removeAll { $0 == result.displayName }
      return (status(counts), counts.running)
    }
    let waived = result.waivers(among: waivers) != nil
    let mark =
      waived
      ? terminal.style("WAIVED", .yellow, .bold)
      : result.isFlaky
        ? terminal.style("FLAKY", .red, .bold) : Progress.mark(result.verdict, terminal)
    var line =
      "\(mark) \(result.displayName)  \(terminal.style(Durations.format(result.duration), .dim))"
    if result.verdict != .passed {
      let style: Terminal.Style =
        result.verdict == .error ? .yellow : result.verdict == .notApplicable ? .dim : .red
      line += "\n    " + terminal.style(result.message, style)
    }
    terminal.line(line)
    if !still.isEmpty { terminal.live(live) }
  }

  static func mark(_ verdict: Verdict, _ terminal: Terminal) -> String {
    switch verdict {
    case .passed: return terminal.style("PASS", .green, .bold)
    case .failed: return terminal.style("FAIL", .red, .bold)
    case .controlDidNotBite: return terminal.style("NOBITE", .red, .bold)
    case .error: return terminal.style("ERROR", .yellow, .bold)
    case .notApplicable: return terminal.style("N/A", .dim, .bold)
    }
  }

  func summary(
    _ results: [ScenarioResult], summary: RunSummary, run: RunRecord, report: String,
    outputs: [(String, String)]
  ) {
    terminal.line()
    let failures = FailureReport(run: run, results: results, summary: summary)
    if !failures.groups.isEmpty {
      terminal.line(terminal.style("What blocks the release, by root cause:", .bold))
      for group in failures.groups {
        terminal.line(
          terminal.style("● \(group.cause)", .red)
            + terminal.style(
              " (\(group.failures.count) failure\(group.failures.count == 1 ? "" : "s"))", .dim))
        if let fix = group.fix { terminal.line("  fix: " + fix) }
        for failure in group.failures {
          terminal.line(
            "    \(failure.scenarioID) [\(failure.platform.rawValue)]\(failure.control.map { " control \"\($0)\"" } ?? "")\(failure.flaky ? " (flaky)" : "")"
          )
          terminal.line("      " + terminal.style(failure.reproduce, .dim))
        }
      }
      terminal.line()
    }
    for failure in failures.waived {
      terminal.line(
        terminal.style(
          "waived: \(failure.scenarioID) [\(failure.platform.rawValue)] — \(failure.waivers.first?.reason ?? "") (owner \(failure.waivers.first?.owner ?? ""), until \(failure.waivers.first?.expires ?? ""))",
          .yellow))
    }
    for note in summary.waiverNotes { terminal.line(terminal.style("warning: " + note, .yellow)) }
    // Per pack × platform: how many passed.
    let packs = Array(Set(results.map { String($0.scenarioID.split(separator: "/").first ?? "") }))
      .sorted()
    let platforms = Platform.allCases.filter { p in results.contains { $0.platform == p } }
    let width = max(8, (packs.map(\.count).max() ?? 0) + 2)
    var header = "pack".padding(toLength: width, withPad: " ", startingAt: 0)
    for platform in platforms {
      header += platform.displayName.padding(toLength: 12, withPad: " ", startingAt: 0)
    }
    terminal.line(terminal.style(header, .bold))
    for pack in packs {
      var row = pack.padding(toLength: width, withPad: " ", startingAt: 0)
      for platform in platforms {
        let cell = results.filter {
          $0.platform == platform && $0.scenarioID.hasPrefix(pack + "/")
            && $0.verdict != .notApplicable
        }
        let skipped = results.filter {
          $0.platform == platform && $0.scenarioID.hasPrefix(pack + "/")
            && $0.verdict == .notApplicable
        }.count
        let passed = cell.filter { $0.verdict == .passed }.count
        let text =
          cell.isEmpty ? (skipped > 0 ? "n/a" : "—") : "\(passed)/\(cell.count)"
        let padded = text.padding(toLength: 12, withPad: " ", startingAt: 0)
        row += cell.isEmpty ? padded : terminal.style(padded, passed == cell.count ? .green : .red)
      }
      terminal.line(row)
    }
    terminal.line()
    let counts = Verdict.allCases.filter { summary.counts[$0, default: 0] > 0 }.map {
      "\(summary.counts[$0, default: 0]) \($0.rawValue)"
    }
    let waivedCount = summary.waived.count
    terminal.line(
      "\(summary.total) scenario runs: \(counts.joined(separator: ", "))\(waivedCount > 0 ? " (\(waivedCount) of them waived)" : ""); \(summary.controlsBitten)/\(summary.controlsRun) controls bit"
    )
    let coverage = ChecklistCoverage(
      results, catalogue: summary.scope.catalogue, waived: Set(summary.waived.keys),
      shell: summary.scope.shellKind)
    terminal.line(coverage.summary)
    if let repeats = summary.scope.repeats, repeats > 1, summary.flaky == 0 {
      terminal.line(
        "every scenario run was repeated \(repeats) times with different seeds, and every attempt agreed"
      )
    }
    if summary.flaky > 0 {
      terminal.line(
        terminal.style(
          "\(summary.flaky) flaky scenario run\(summary.flaky == 1 ? "" : "s"): attempts with different seeds disagreed",
          .red))
    }
    if let caveat = ReleaseChecklist.caveat(of: summary.scope, channel: run.channel) {
      terminal.line(terminal.style("note: " + caveat, .dim))
    }
    if let warning = summary.scope.envWarning {
      terminal.line(terminal.style("warning: " + warning, .yellow, .bold))
    }
    for caveat in summary.scope.caveats {
      terminal.line(terminal.style("note: " + caveat, .yellow))
    }
    let style: Terminal.Style =
      summary.status == .qualified
      ? .green
      : summary.status == .partial ? .cyan : summary.exitCode == .internalError ? .yellow : .red
    terminal.line(
      terminal.style(summary.headline, style, .bold)
        + " — channel \(run.channel.rawValue), run \(run.id), seed \(run.seed)")
    if summary.gateRefuses {
      terminal.line(
        terminal.style(
          "error: not a release gate pass (exit 1): the \(run.channel.rawValue) run is partial because of the app or the environment, not the command line: \(summary.unrequestedReductions.joined(separator: "; "))",
          .red, .bold))
      terminal.line(
        "hint: supply what is missing (the channel's env with --backend-env/--frontend-env, features.ota/features.push in qualify.json, the browser engines item 3 renders in), or pass --allow-partial for an exploratory run"
      )
    }
    terminal.line("report: \(report)")
    for (label, path) in outputs { terminal.line("\(label): \(DisplayPath.of(path))") }
  }
}

/// `--trace`: every evidence entry as it is recorded, labelled with its execution.
final class Tracer: Sendable {
  let terminal: Terminal
  /// The execution the last entry came from, held while printing so blocks stay together.
  private let lastLabel = Locked("")

  init(terminal: Terminal) {
    self.terminal = terminal
  }

  func print(_ label: String, _ evidence: Evidence) {
    lastLabel.withLock { lastLabel in
      if label != lastLabel {
        terminal.line(terminal.style("── \(label)", .cyan, .bold))
        lastLabel = label
      }
      printEntry(evidence)
    }
  }

  private func printEntry(_ evidence: Evidence) {
    if evidence.source == Runner.traceMark {
      let text = evidence.summary
      let style: Terminal.Style =
        text.hasPrefix("✗") || text.contains(" failed") || text.hasPrefix("verdict failed")
        ? .red : text.hasPrefix("✓") ? .green : .bold
      terminal.line("  " + terminal.style("▶ " + text, style))
      return
    }
    terminal.line(
      "  \(terminal.style(evidence.kind.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0), .dim)) \(terminal.style(evidence.source, .bold)) \(evidence.summary)"
    )
    if !evidence.detail.isEmpty {
      for line in evidence.detail.split(separator: "\n", omittingEmptySubsequences: false) {
        terminal.line("      " + terminal.style(String(line), .dim))
      }
    }
  }
}

/// Writes report files.
enum ReportFiles {
  /// Writes `DIR/runs/<id>/index.html` and its sibling `evidence.html`, and
  /// `DIR/latest.html` when `isLatest` (re-rendering an older run must not make it look like
  /// the latest); returns the run's report path.
  static func write(
    run: RunRecord, results: [ScenarioResult], history: [RunRecord],
    baseline: HTMLReport.Baseline? = nil, directory: String, isLatest: Bool = true
  ) throws -> String {
    let runDirectory = URL(fileURLWithPath: directory).appendingPathComponent("runs")
      .appendingPathComponent(run.id)
    let path = runDirectory.appendingPathComponent("index.html").path
    try writeText(
      HTMLReport.render(run: run, results: results, history: history, baseline: baseline),
      to: path)
    try writeText(
      HTMLReport.evidencePage(run: run, results: results),
      to: runDirectory.appendingPathComponent("evidence.html").path)
    for (name, png) in HTMLReport.screenshots(results) {
      let file = runDirectory.appendingPathComponent(name)
      try FileManager.default.createDirectory(
        at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      try png.write(to: file)
    }
    if isLatest {
      try writeText(
        HTMLReport.render(
          run: run, results: results, history: history, baseline: baseline,
          evidenceHref: "runs/\(run.id)/evidence.html"),
        to: URL(fileURLWithPath: directory).appendingPathComponent("latest.html").path)
    }
    return AppRepository.display(URL(fileURLWithPath: path))
  }

  /// The last qualified run of the run's channel before it, with its results: what the
  /// report's "new since the last qualified run" compares with.
  static func baseline(of run: RunRecord, in store: ResultStore) throws -> HTMLReport.Baseline? {
    guard
      let last = try store.lastQualified(app: run.app, channel: run.channel, before: run.startedAt)
    else {
      return nil
    }
    return HTMLReport.Baseline(run: last, results: try store.results(run: last.id))
  }

  /// `DIR/index.html`: the runs over time. A page qualify did not write is left alone
  /// (`--report-dir .` in a project with an index.html of its own).
  static func writeTrend(store: ResultStore, directory: String) throws {
    let path = URL(fileURLWithPath: directory).appendingPathComponent("index.html").path
    if let existing = FileManager.default.contents(atPath: path),
      !String(decoding: existing.prefix(2048), as: UTF8.self).contains(TrendPage.marker)
    {
      return
    }
    try writeText(TrendPage.render(runs: store.runs(limit: 200)), to: path)
  }

  /// Fails now, naming the folder, when reports cannot be written there.
  static func checkWritable(directory: String) throws {
    let url = URL(fileURLWithPath: directory.isEmpty ? "." : directory)
    let probe = url.appendingPathComponent(".qualify-write-test-\(getpid())")
    do {
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
      try Data().write(to: probe)
      try FileManager.default.removeItem(at: probe)
    } catch {
      throw EnvironmentError(
        "cannot write reports to \(directory): \(error.localizedDescription)",
        hint: "pass --report-dir DIR (or --junit FILE) in a folder you can write")
    }
  }

  /// Writes `text` to `path` the way a user expects of an output flag: a regular file (or a
  /// new one) is replaced atomically — written beside it, then renamed over it, so a reader
  /// never sees half a file; a symbolic link is followed to its target; anything else (a FIFO,
  /// `/dev/stdout`, a device) is written into, never replaced.
  /// Adds `text` at the end of the file at `path` (CI job summaries such as
  /// `$GITHUB_STEP_SUMMARY` are appended to by each command of a step); creates it when absent.
  static func appendText(_ text: String, to path: String) throws {
    let url = URL(fileURLWithPath: path).resolvingSymlinksInPath()
    guard FileManager.default.fileExists(atPath: url.path),
      let handle = FileHandle(forWritingAtPath: url.path)
    else { return try writeText(text, to: path) }
    defer { try? handle.close() }
    do {
      try handle.seekToEnd()
      try handle.write(contentsOf: Data(text.utf8))
    } catch {
      throw EnvironmentError("cannot write \(path): \(error.localizedDescription)")
    }
  }

  static func writeText(_ text: String, to path: String) throws {
    let url = URL(fileURLWithPath: path).resolvingSymlinksInPath()
    let manager = FileManager.default
    var isDirectory: ObjCBool = false
    if manager.fileExists(atPath: url.path, isDirectory: &isDirectory) {
      if isDirectory.boolValue {
        throw EnvironmentError("cannot write \(path): it is a directory")
      }
      let type = (try? manager.attributesOfItem(atPath: url.path)[.type] as? FileAttributeType)
      if type != .typeRegular {
        guard let handle = FileHandle(forWritingAtPath: url.path) else {
          throw EnvironmentError("cannot write \(path): it cannot be opened for writing")
        }
        defer { try? handle.close() }
        do {
          try handle.write(contentsOf: Data(text.utf8))
        } catch {
          throw EnvironmentError("cannot write \(path): \(error.localizedDescription)")
        }
        return
      }
    }
    do {
      try manager.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      // Data.write(.atomic) writes a temporary file in the same folder, then renames it.
      try Data(text.utf8).write(to: url, options: .atomic)
    } catch {
      throw EnvironmentError("cannot write \(path): \(error.localizedDescription)")
    }
  }
}
