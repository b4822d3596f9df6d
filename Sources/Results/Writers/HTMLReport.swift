import Foundation
import QualifyCore
import ResultModel

/// The self-contained HTML report of one run (`Reports/runs/<id>/index.html`): the verdict,
/// the checklist matrix (item × platform), every scenario with its steps, evidence and
/// controls side by side, and the earlier runs. No script, no outside resource; every value
/// is HTML-escaped.
public enum HTMLReport {
  /// The pages of one run's report: the report itself, and the evidence of every step that
  /// held, a sibling file the report links to so that it opens quickly (a full run records
  /// thousands of exchanges; what failed keeps its evidence inline).
  public struct Pages: Sendable {
    public var index: String
    public var evidence: String
  }

  /// What a run is compared with: the last qualified run of its channel and its results.
  public struct Baseline: Sendable {
    public var run: RunRecord
    public var results: [ScenarioResult]

    public init(run: RunRecord, results: [ScenarioResult]) {
      self.run = run
      self.results = results
    }
  }

  /// The report page; its evidence links point at `evidenceHref` (the sibling
  /// `evidence.html` of the run's folder by default).
  public static func render(
    run: RunRecord, results: [ScenarioResult], history: [RunRecord] = [],
    baseline: Baseline? = nil, evidenceHref: String = "evidence.html"
  ) -> String {
    let scope = run.scope ?? RunScope()
    let summary = RunSummary(results, scope: scope)
    let headline = headline(run, summary)
    var out = page(title: "qualify \(run.channel.rawValue) — \(headline)")
    let coverage = ChecklistCoverage(
      results, catalogue: scope.catalogue, waived: Set(summary.waived.keys),
      shell: scope.shellKind)
    let failures = FailureReport(run: run, results: results, summary: summary)
    let diff = baseline.map { RunDiff(before: $0.results, after: results) }
    out += header(run, summary, headline, coverage)
    out += blockers(failures, results: results, baseline: baseline, diff: diff)
    out += waivers(summary, failures)
    out += matrix(results, coverage, summary)
    out += scenarioIndex(results, summary)
    out += "<section id=\"scenarios\"><h2>Scenarios</h2>\n"
    for (index, result) in results.enumerated() {
      out += scenario(
        result, index: index, run: run, waivers: summary.waived[index] ?? [],
        evidenceHref: evidenceHref)
    }
    out += "</section>\n"
    if !history.isEmpty { out += historyTable(history, current: run.id) }
    out +=
      "<footer>qualify \(h(run.harnessVersion)) · run \(h(run.id)) · seed \(h(String(run.seed)))</footer>\n"
    out += "</body>\n</html>\n"
    return out
  }

  /// Both pages of the run's folder.
  public static func pages(
    run: RunRecord, results: [ScenarioResult], history: [RunRecord] = [],
    baseline: Baseline? = nil
  ) -> Pages {
    Pages(
      index: render(run: run, results: results, history: history, baseline: baseline),
      evidence: evidencePage(run: run, results: results))
  }

  static func page(title: String) -> String {
    """
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta http-equiv="Content-Security-Policy" content="\(contentSecurityPolicy)">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>\(h(title))</title>
    <style>\(stylesheet)</style>
    </head>
    <body>

    """
  }

  /// No script at all, nothing loaded from elsewhere, no form, no frame: a report is read,
  /// never run, whatever an app file or a server response put in it.
  public static let contentSecurityPolicy =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

  static func anchor(_ index: Int) -> String { "s\(index + 1)" }

  /// The anchor of one step's evidence in the evidence page: result, execution (`c` for the
  /// check, `k1`… for controls), step.
  static func evidenceAnchor(_ index: Int, _ execution: String, _ step: Int) -> String {
    "e\(index + 1)-\(execution)-\(step)"
  }

  /// The run's headline: from the stored status once finished; while it runs, what is known
  /// so far.
  static func headline(_ run: RunRecord, _ summary: RunSummary) -> String {
    switch run.status {
    case .running:
      let total = run.scope?.selectedRuns ?? 0
      return "IN PROGRESS (\(summary.total)\(total > 0 ? " of \(total)" : "") runs done)"
    case .aborted: return "ABORTED (\(summary.total) runs recorded)"
    default: return summary.headline
    }
  }

  private static func header(
    _ run: RunRecord, _ summary: RunSummary, _ headline: String, _ coverage: ChecklistCoverage
  ) -> String {
    let css =
      run.status == .qualified ? "ok" : run.status == .notQualified ? "bad" : "warn"
    var out = "<header class=\"verdict \(css)\">\n"
    out +=
      "<h1><span class=\"headline\">\(h(headline))</span> <span class=\"sub\">\(h(run.appName ?? URL(fileURLWithPath: run.app).lastPathComponent)) · channel \(h(run.channel.rawValue))</span></h1>\n"
    var notes = summary.caveats(channel: run.channel)
    notes.append(coverage.summary)
    notes += summary.waiverNotes
    let flaky = summary.flaky
    if flaky > 0 {
      notes.append(
        "\(flaky) flaky scenario run\(flaky == 1 ? "" : "s"): attempts with different seeds disagreed, so the failing attempt stands"
      )
    }
    out += "<ul class=\"notes\">"
    for note in notes { out += "<li>\(h(note))</li>" }
    out += "</ul>\n<dl class=\"facts\">"
    let counts = Verdict.allCases.filter { summary.counts[$0, default: 0] > 0 }.map {
      "\(summary.counts[$0, default: 0]) \($0.rawValue)"
    }
    var facts: [(String, String)] = [
      ("Run", run.id), ("Started", ResultStore.format(run.startedAt)),
      (
        "Duration",
        run.finishedAt.map { Durations.format($0.timeIntervalSince(run.startedAt)) } ?? "—"
      ),
      ("App", run.appShown), ("App version", run.appVersion ?? "not a git checkout"),
      ("Seed", String(run.seed)),
      ("Platforms", run.platforms.map(\.displayName).joined(separator: ", ")),
      ("Scenario runs", "\(summary.total): \(counts.joined(separator: ", "))"),
      ("Controls", "\(summary.controlsBitten) of \(summary.controlsRun) bit"),
    ]
    if let shards = run.scope?.mergedFrom {
      facts.append(("Merged from", "shards " + shards.joined(separator: ", ")))
    }
    if let release = run.scope?.release {
      for build in release.builds {
        facts.append(
          (
            "\(build.platform.displayName) release",
            "\(build.appId) · \(build.displayName) · version \(build.version ?? "not evaluated") · build \(build.buildNumber ?? "not evaluated")"
          ))
      }
      if let ota = release.ota { facts.append(("OTA bundle", ota.text)) }
      facts.append(("Commit", release.commit ?? "not a git checkout"))
    }
    if let scope = run.scope {
      facts.append(
        ("Scope", scope.isFull ? "full run" : "partial: " + scope.limits.joined(separator: ", ")))
    }
    for (name, value) in facts { out += "<dt>\(h(name))</dt><dd>\(h(value))</dd>" }
    out += "</dl>\n</header>\n"
    return out
  }

  /// What blocks the release, before anything else: each root cause with the failures it
  /// explains, their one-line reasons and the commands that reproduce them.
  private static func blockers(
    _ failures: FailureReport, results: [ScenarioResult], baseline: Baseline?, diff: RunDiff?
  ) -> String {
    guard !failures.groups.isEmpty else { return "" }
    let count = failures.blocking.count
    var out = "<section id=\"failures\"><h2>What blocks the release</h2>\n"
    out +=
      "<p class=\"meta\">\(count) failure\(count == 1 ? "" : "s") from \(failures.groups.count) root cause\(failures.groups.count == 1 ? "" : "s")"
    if let baseline, let diff {
      out +=
        " · compared with the last qualified run <strong>\(h(baseline.run.id))</strong>: \(diff.newFailures.count) new, \(diff.fixed.count) fixed"
    }
    out += "</p>\n"
    for group in failures.groups {
      out += "<div class=\"group\">\n<h3>\(h(group.cause))"
      out +=
        " <span class=\"sub\">\(group.failures.count) failure\(group.failures.count == 1 ? "" : "s")\(group.location.map { " · " + h($0) } ?? "")</span></h3>\n"
      if let fix = group.fix { out += "<p class=\"fix\"><strong>Fix:</strong> \(h(fix))</p>\n" }
      out += "<ul class=\"failures\">\n"
      for failure in group.failures {
        out +=
          "<li><span class=\"badge bad\">\(h(failure.kind))</span> <a href=\"#\(anchor(failure.result))\">\(h(failure.scenarioID))</a> <span class=\"sub\">\(h(failure.platform.displayName))</span>"
        if let control = failure.control { out += " control “\(h(control))”" }
        if failure.flaky { out += " <span class=\"badge warn\">flaky</span>" }
        if let diff {
          let key = RunDiff.Key(failure.scenarioID, failure.platform)
          if diff.newFailures.contains(where: { $0.key == key }) {
            out += " <span class=\"badge new\">new since the last qualified run</span>"
          }
        }
        out += "<div class=\"why\">\(h(failure.reason))</div>"
        out += "<pre class=\"cmd\">\(h(failure.reproduce))</pre></li>\n"
      }
      out += "</ul>\n</div>\n"
    }
    out += "</section>\n"
    return out
  }

  /// The waivers in force, those that covered a failure of this run, and those that are
  /// expired or covered nothing (both need their owner's attention).
  private static func waivers(_ summary: RunSummary, _ failures: FailureReport) -> String {
    guard let waivers = summary.scope.waivers, !waivers.isEmpty else { return "" }
    var out =
      "<section id=\"waivers\"><h2>Waivers</h2>\n<p class=\"meta\">Expected failures the app repository accepts (qualify-waivers.json): a waived failure does not block; an expired waiver covers nothing.</p>\n<table class=\"index\">\n<thead><tr><th>State</th><th>Check</th><th>Reason</th><th>Owner</th><th>Expires</th><th>Covers in this run</th></tr></thead>\n<tbody>\n"
    for waiver in waivers {
      let covered = failures.waived.filter { $0.waivers.contains(waiver) }
      let state: (String, String) =
        waiver.expired
        ? ("bad", "expired") : covered.isEmpty ? ("warn", "unused") : ("none", "in force")
      out +=
        "<tr><td><span class=\"badge \(state.0)\">\(state.1)</span></td><td>\(h(waiver.label))<div class=\"sub\">\(h(waiver.location ?? ""))</div></td><td>\(h(waiver.reason))\(waiver.reference.map { "<div class=\"sub\">\(h($0))</div>" } ?? "")</td><td>\(h(waiver.owner))</td><td>\(h(waiver.expires))</td><td>"
      out += covered.map {
        "<a href=\"#\(anchor($0.result))\">\(h($0.scenarioID)) [\(h($0.platform.rawValue))]</a>"
      }.joined(separator: ", ")
      out += "</td></tr>\n"
    }
    out += "</tbody>\n</table>\n</section>\n"
    return out
  }

  private static func matrix(
    _ results: [ScenarioResult], _ coverage: ChecklistCoverage, _ summary: RunSummary
  ) -> String {
    let platforms = Platform.allCases
    var out =
      "<section id=\"matrix\"><h2>Release checklist</h2>\n<p class=\"meta\">A cell is passed only when a check that proves the item on that platform passed; ✗ marks each scenario that failed; checks that only support an item are listed apart.</p>\n<table class=\"matrix\">\n<thead><tr><th>Item</th>"
    for platform in platforms { out += "<th>\(h(platform.displayName))</th>" }
    out += "</tr></thead>\n<tbody>\n"
    for entry in coverage.shell.checklist {
      let (item, name) = (entry.number, entry.title)
      out += "<tr><th scope=\"row\">\(item). \(h(name))</th>"
      for platform in platforms {
        guard let cell = coverage.cells.first(where: { $0.item == item && $0.platform == platform })
        else {
          out += "<td class=\"none\">—</td>"
          continue
        }
        let cls: String
        switch cell.state {
        case .passed: cls = "ok"
        case .failed: cls = "bad"
        case .error, .waived: cls = "warn"
        default: cls = "none"
        }
        out += "<td class=\"\(cls)\"><span class=\"badge \(cls)\">\(h(cell.state.rawValue))</span>"
        let failing = cell.proving.filter {
          !results[$0].verdict.isSuccess && results[$0].verdict != .notApplicable
        }
        if !failing.isEmpty {
          out += " <span class=\"sub\">\(failing.count) of \(cell.proving.count) failed</span>"
        }
        // How a passed cell was proven; a failed cell's label is its failures, not the proof
        // of the checks that still held.
        if cell.state == .passed && !cell.proofs.isEmpty {
          out +=
            " <span class=\"sub\">\(h(cell.proofs.map(\.rawValue).joined(separator: " + ")))</span>"
        }
        if !cell.proving.isEmpty || !cell.supporting.isEmpty { out += "<ul>" }
        // Failed scenarios first, each marked, so the cell says which one failed.
        for index in failing + cell.proving.filter({ !failing.contains($0) }) {
          let result = results[index]
          let waived = summary.waived[index] != nil
          let mark = failing.contains(index) ? (waived ? "⚑ " : "✗ ") : ""
          out +=
            "<li class=\"\(waived ? "warn" : css(result.verdict))\">\(mark)<a href=\"#\(anchor(index))\">\(h(result.scenarioID))</a> <span class=\"sub\">\(h(waived ? "waived" : result.verdict.rawValue))\(result.isFlaky ? ", flaky" : "")</span></li>"
        }
        for index in cell.supporting {
          out +=
            "<li class=\"support\">supports: <a href=\"#\(anchor(index))\">\(h(results[index].scenarioID))</a> <span class=\"sub\">\(h(results[index].verdict.rawValue))</span></li>"
        }
        if !cell.proving.isEmpty || !cell.supporting.isEmpty { out += "</ul>" }
        if cell.state == .notCovered, let manual = entry.manualCheck {
          out += "<p class=\"manual\">A person must check it: \(h(manual)).</p>"
        }
        out += "</td>"
      }
      out += "</tr>\n"
    }
    out += "</tbody>\n</table>\n</section>\n"
    return out
  }

  /// Every result, what blocks first (failed, control did not bite, error), then waived,
  /// passed and not applicable.
  private static func scenarioIndex(_ results: [ScenarioResult], _ summary: RunSummary) -> String {
    var out =
      "<section id=\"index\"><h2>Results</h2>\n<table class=\"index\">\n<thead><tr><th>Verdict</th><th>Scenario</th><th>Platform</th><th>Why</th><th>Time</th></tr></thead>\n<tbody>\n"
    let sorted = results.indices.sorted { a, b in
      let ra = order(results[a], waived: summary.waived[a] != nil)
      let rb = order(results[b], waived: summary.waived[b] != nil)
      return ra != rb ? ra < rb : a < b
    }
    for index in sorted {
      let result = results[index]
      let waived = summary.waived[index] != nil
      let cls = waived ? "warn" : css(result.verdict)
      out +=
        "<tr class=\"\(cls)\"><td><span class=\"badge \(cls)\">\(h(waived ? "waived" : result.verdict.rawValue))</span>\(result.isFlaky ? " <span class=\"badge warn\">flaky</span>" : "")</td>"
      out +=
        "<td><a href=\"#\(anchor(index))\">\(h(result.scenarioID))</a></td><td>\(h(result.platform.displayName))</td>"
      out += "<td>\(h(result.message))</td><td>\(h(Durations.format(result.duration)))</td></tr>\n"
    }
    out += "</tbody>\n</table>\n</section>\n"
    return out
  }

  private static func order(_ result: ScenarioResult, waived: Bool) -> Int {
    if waived { return 3 }
    switch result.verdict {
    case .failed: return 0
    case .controlDidNotBite: return 1
    case .error: return 2
    case .passed: return 4
    case .notApplicable: return 5
    }
  }

  private static func scenario(
    _ result: ScenarioResult, index: Int, run: RunRecord, waivers: [Waiver], evidenceHref: String
  ) -> String {
    let cls = !waivers.isEmpty ? "warn" : css(result.verdict)
    var out = "<article class=\"scenario \(cls)\" id=\"\(anchor(index))\">\n"
    out +=
      "<h3><span class=\"badge \(cls)\">\(h(!waivers.isEmpty ? "waived" : result.verdict.rawValue))</span> \(h(result.title)) <span class=\"sub\">\(h(result.scenarioID)) · \(h(result.platform.displayName))</span></h3>\n"
    out += "<p class=\"message\">\(h(result.message))</p>\n"
    for waiver in waivers {
      out +=
        "<p class=\"waiver\">Waived\(waiver.control.map { " (control “\(h($0))”)" } ?? "") by \(h(waiver.owner)) until \(h(waiver.expires)): \(h(waiver.reason))\(waiver.location.map { " (\(h($0)))" } ?? "")</p>\n"
    }
    if !result.attempts.isEmpty {
      out +=
        "<p class=\"meta\">\(result.isFlaky ? "<span class=\"badge warn\">flaky</span> " : "")\(result.attempts.count) attempts: \(h(result.attempts.map { "seed \($0.seed) \($0.verdict.rawValue)" }.joined(separator: ", ")))</p>\n"
    }
    if ![.passed, .notApplicable].contains(result.verdict) {
      out +=
        "<p class=\"meta\">reproduce:</p><pre class=\"cmd\">\(h(FailureReport.reproduce(result, run: run)))</pre>\n"
    }
    var meta = ["file \(result.file)"]
    if !result.checklist.isEmpty {
      meta.append("checklist \(result.checklist.map(String.init).joined(separator: ", "))")
    }
    if !result.tags.isEmpty { meta.append("tags \(result.tags.joined(separator: ", "))") }
    out += "<p class=\"meta\">\(h(meta.joined(separator: " · ")))</p>\n"
    let link = { (execution: String, step: Int) in
      "\(evidenceHref)#\(evidenceAnchor(index, execution, step))"
    }
    // The run's folder as this page reaches it: the evidence page is in it.
    let base = String(evidenceHref.dropLast("evidence.html".count))
    let check = execution(
      result.check, shots: { shots($0, result: index, base: base) }, link: { link("c", $0) })
    out += "<div class=\"sides\">\n<div class=\"side\"><h4>Check</h4>\n\(check)</div>\n"
    out += "<div class=\"side\"><h4>Negative controls</h4>\n"
    if result.controls.isEmpty {
      out += "<p class=\"none\">No control ran.</p>\n"
    }
    for (number, control) in result.controls.enumerated() {
      let cls = control.outcome == .bit ? "ok" : control.outcome == .notRun ? "none" : "bad"
      out +=
        "<div class=\"control \(cls)\"><p><span class=\"badge \(cls)\">\(h(control.outcome.rawValue))</span> <strong>\(h(control.name))</strong></p>\n"
      out +=
        "<p class=\"meta\">mutate \(h(control.mutations.joined(separator: "; "))) · must fail at step \(control.expectedStep)\(control.because.map { " because “\(h($0))”" } ?? "")</p>\n"
      out += "<p class=\"message\">\(h(control.message))</p>\n"
      if let execution = control.execution {
        out +=
          "<details><summary>steps under the mutation</summary>\n\(self.execution(execution, inline: control.outcome != .bit) { link("k\(number + 1)", $0) })</details>\n"
      }
      out += "</div>\n"
    }
    out += "</div>\n</div>\n</article>\n"
    return out
  }

  private static func historyTable(_ history: [RunRecord], current: String) -> String {
    var out =
      "<section id=\"history\"><h2>Earlier runs</h2>\n<table class=\"index\">\n<thead><tr><th>Run</th><th>Started</th><th>Channel</th><th>Status</th><th>Passed</th><th>Failed</th><th>Control did not bite</th><th>Error</th></tr></thead>\n<tbody>\n"
    for run in history {
      let cls =
        run.status == .qualified
        ? "ok" : run.status == .notQualified ? "bad" : run.status == .partial ? "none" : "warn"
      out +=
        "<tr\(run.id == current ? " class=\"current\"" : "")><td>\(h(run.id))</td><td>\(h(ResultStore.format(run.startedAt)))</td><td>\(h(run.channel.rawValue))</td>"
      out += "<td><span class=\"badge \(cls)\">\(h(run.status.rawValue))</span></td>"
      for key in ["passed", "failed", "control-did-not-bite", "error"] {
        out += "<td>\(run.counts[key, default: 0])</td>"
      }
      out += "</tr>\n"
    }
    out += "</tbody>\n</table>\n</section>\n"
    return out
  }

  static func rank(_ verdict: Verdict) -> Int {
    switch verdict {
    case .passed: return 0
    case .error: return 1
    case .controlDidNotBite: return 2
    case .failed: return 3
    case .notApplicable: return -1
    }
  }

  static func css(_ verdict: Verdict) -> String {
    switch verdict {
    case .passed: return "ok"
    case .failed, .controlDidNotBite: return "bad"
    case .error: return "warn"
    case .notApplicable: return "none"
    }
  }

  /// HTML-escapes text for element content and attribute values.
  public static func h(_ text: String) -> String { HTMLText.escape(text) }

  static let stylesheet = """
    :root{--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--none:#6e7781;--bg:#fff;--fg:#1f2328;--line:#d0d7de}
    *{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;color:var(--fg);background:var(--bg);margin:0;padding:0 24px 40px;max-width:1400px}
    h1{margin:0;font-size:24px}h2{margin:28px 0 8px;font-size:18px;border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:15px;margin:0 0 4px}h4{margin:4px 0;font-size:13px;text-transform:uppercase;color:var(--none)}
    .verdict{padding:16px 20px;margin:16px 0;border-radius:8px;border:2px solid}.verdict.ok{border-color:var(--ok)}.verdict.bad{border-color:var(--bad)}.verdict.warn{border-color:var(--warn)}
    .verdict.ok .headline{color:var(--ok)}.verdict.bad .headline{color:var(--bad)}.verdict.warn .headline{color:var(--warn)}
    .sub{color:var(--none);font-weight:normal;font-size:.8em}.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:10px 0 0}.facts dt{color:var(--none)}.facts dd{margin:0}
    table{border-collapse:collapse;width:100%}th,td{border:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top}thead th{background:#f6f8fa}
    .matrix td ul{margin:4px 0 0;padding-left:16px;font-size:12px}td.none{color:var(--none);font-style:italic}.matrix li.bad a{color:var(--bad);font-weight:600}.matrix li.support{color:var(--none)}.notes{margin:8px 0 0;padding-left:18px}
    .badge{display:inline-block;padding:0 6px;border-radius:10px;font-size:12px;font-weight:600;color:#fff;background:var(--none);white-space:nowrap}.badge.ok{background:var(--ok)}.badge.bad{background:var(--bad)}.badge.warn{background:var(--warn)}
    .scenario{border:1px solid var(--line);border-left:5px solid var(--none);border-radius:6px;padding:10px 14px;margin:12px 0}.scenario.ok{border-left-color:var(--ok)}.scenario.bad{border-left-color:var(--bad)}.scenario.warn{border-left-color:var(--warn)}
    .message{margin:4px 0}.meta{color:var(--none);font-size:12px;margin:2px 0}.sides{display:grid;grid-template-columns:1fr 1fr;gap:16px}@media(max-width:900px){.sides{grid-template-columns:1fr}}
    .steps{padding-left:20px}.steps li{margin:4px 0}.shot{display:inline-block;margin:4px 8px 4px 0}.shot img{border:1px solid var(--line)}.why{color:var(--bad);margin:2px 0}.fix{margin:4px 0 8px;padding:6px 10px;border-left:3px solid var(--ok)}.manual{margin:4px 0 0;font-size:.9em;color:var(--none)}.control{border-top:1px dashed var(--line);padding-top:6px;margin-top:6px}
    .evidence{list-style:none;padding-left:0;font-size:12px}.evidence li{margin:4px 0}.kind{font-family:ui-monospace,monospace;color:var(--none)}.source{font-weight:600}
    pre{background:#f6f8fa;border:1px solid var(--line);padding:6px;overflow:auto;max-height:320px;white-space:pre-wrap;word-break:break-all;font-size:11px}
    tr.current td{font-weight:600}footer{margin-top:32px;color:var(--none);font-size:12px}
    .group{border:1px solid var(--line);border-left:5px solid var(--bad);border-radius:6px;padding:8px 14px;margin:10px 0}.failures{list-style:none;padding-left:0}.failures li{margin:8px 0}
    pre.cmd{background:#1f2328;color:#f6f8fa;border:0;padding:4px 8px;margin:4px 0;max-height:none;font-size:12px}.badge.new{background:#8250df}.waiver{background:#fff8c5;border:1px solid #d4a72c;padding:4px 8px;border-radius:4px}
    a.evidence{font-size:12px;margin-left:6px}.evidence-step{border-top:1px solid var(--line);padding-top:4px}
    """
}
