import Foundation
import QualifyCore
import ResultModel

/// The self-contained HTML report of one run (`Reports/runs/<id>/index.html`): the verdict,
/// the checklist matrix (item × platform), every scenario with its steps, evidence and
/// controls side by side, and the earlier runs. No script, no outside resource; every value
/// is HTML-escaped.
public enum HTMLReport {
  public static func render(run: RunRecord, results: [ScenarioResult], history: [RunRecord] = [])
    -> String
  {
    let scope = run.scope ?? RunScope()
    let summary = RunSummary(results, scope: scope)
    let headline = headline(run, summary)
    var out = """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta http-equiv="Content-Security-Policy" content="\(contentSecurityPolicy)">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>qualify \(h(run.channel.rawValue)) — \(h(headline))</title>
      <style>\(stylesheet)</style>
      </head>
      <body>

      """
    let coverage = ChecklistCoverage(results, catalogue: scope.catalogue)
    out += header(run, summary, headline, coverage)
    out += matrix(results, coverage)
    out += scenarioIndex(results)
    out += "<section id=\"scenarios\"><h2>Scenarios</h2>\n"
    for (index, result) in results.enumerated() { out += scenario(result, anchor: anchor(index)) }
    out += "</section>\n"
    if !history.isEmpty { out += historyTable(history, current: run.id) }
    out +=
      "<footer>qualify \(h(run.harnessVersion)) · run \(h(run.id)) · seed \(h(String(run.seed)))</footer>\n"
    out += "</body>\n</html>\n"
    return out
  }

  /// No script at all, nothing loaded from elsewhere, no form, no frame: a report is read,
  /// never run, whatever an app file or a server response put in it.
  public static let contentSecurityPolicy =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

  static func anchor(_ index: Int) -> String { "s\(index + 1)" }

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
    var notes: [String] = []
    if let warning = run.scope?.envWarning { notes.append(warning) }
    notes += run.scope?.caveats ?? []
    notes.append(coverage.summary)
    if run.channel.isRelease {
      notes.append(ReleaseChecklist.identityProviderCaveat)
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
      ("App", run.app), ("App version", run.appVersion ?? "not a git checkout"),
      ("Seed", String(run.seed)),
      ("Platforms", run.platforms.map(\.displayName).joined(separator: ", ")),
      ("Scenario runs", "\(summary.total): \(counts.joined(separator: ", "))"),
      ("Controls", "\(summary.controlsBitten) of \(summary.controlsRun) bit"),
    ]
    if let scope = run.scope {
      facts.append(
        ("Scope", scope.isFull ? "full run" : "partial: " + scope.limits.joined(separator: ", ")))
    }
    for (name, value) in facts { out += "<dt>\(h(name))</dt><dd>\(h(value))</dd>" }
    out += "</dl>\n</header>\n"
    return out
  }

  private static func matrix(_ results: [ScenarioResult], _ coverage: ChecklistCoverage) -> String {
    let platforms = Platform.allCases
    var out =
      "<section id=\"matrix\"><h2>Release checklist</h2>\n<p class=\"meta\">A cell is passed only when a check that proves the item on that platform passed; checks that only support an item are listed apart.</p>\n<table class=\"matrix\">\n<thead><tr><th>Item</th>"
    for platform in platforms { out += "<th>\(h(platform.displayName))</th>" }
    out += "</tr></thead>\n<tbody>\n"
    for (item, name) in ReleaseChecklist.items {
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
        case .error: cls = "warn"
        default: cls = "none"
        }
        out += "<td class=\"\(cls)\"><span class=\"badge \(cls)\">\(h(cell.state.rawValue))</span>"
        if !cell.proofs.isEmpty {
          out +=
            " <span class=\"sub\">\(h(cell.proofs.map(\.rawValue).joined(separator: " + ")))</span>"
        }
        if !cell.proving.isEmpty || !cell.supporting.isEmpty { out += "<ul>" }
        for index in cell.proving {
          let result = results[index]
          out +=
            "<li class=\"\(css(result.verdict))\"><a href=\"#\(anchor(index))\">\(h(result.scenarioID))</a> <span class=\"sub\">\(h(result.verdict.rawValue))</span></li>"
        }
        for index in cell.supporting {
          out +=
            "<li class=\"support\">supports: <a href=\"#\(anchor(index))\">\(h(results[index].scenarioID))</a> <span class=\"sub\">\(h(results[index].verdict.rawValue))</span></li>"
        }
        if !cell.proving.isEmpty || !cell.supporting.isEmpty { out += "</ul>" }
        out += "</td>"
      }
      out += "</tr>\n"
    }
    out += "</tbody>\n</table>\n</section>\n"
    return out
  }

  private static func scenarioIndex(_ results: [ScenarioResult]) -> String {
    var out =
      "<section id=\"index\"><h2>Results</h2>\n<table class=\"index\">\n<thead><tr><th>Verdict</th><th>Scenario</th><th>Platform</th><th>Why</th><th>Time</th></tr></thead>\n<tbody>\n"
    for (index, result) in results.enumerated() {
      out +=
        "<tr class=\"\(css(result.verdict))\"><td><span class=\"badge \(css(result.verdict))\">\(h(result.verdict.rawValue))</span></td>"
      out +=
        "<td><a href=\"#\(anchor(index))\">\(h(result.scenarioID))</a></td><td>\(h(result.platform.displayName))</td>"
      out += "<td>\(h(result.message))</td><td>\(h(Durations.format(result.duration)))</td></tr>\n"
    }
    out += "</tbody>\n</table>\n</section>\n"
    return out
  }

  private static func scenario(_ result: ScenarioResult, anchor: String) -> String {
    var out = "<article class=\"scenario \(css(result.verdict))\" id=\"\(anchor)\">\n"
    out +=
      "<h3><span class=\"badge \(css(result.verdict))\">\(h(result.verdict.rawValue))</span> \(h(result.title)) <span class=\"sub\">\(h(result.scenarioID)) · \(h(result.platform.displayName))</span></h3>\n"
    out += "<p class=\"message\">\(h(result.message))</p>\n"
    var meta = ["file \(result.file)"]
    if !result.checklist.isEmpty {
      meta.append("checklist \(result.checklist.map(String.init).joined(separator: ", "))")
    }
    if !result.tags.isEmpty { meta.append("tags \(result.tags.joined(separator: ", "))") }
    out += "<p class=\"meta\">\(h(meta.joined(separator: " · ")))</p>\n"
    out +=
      "<div class=\"sides\">\n<div class=\"side\"><h4>Check</h4>\n\(execution(result.check))</div>\n"
    out += "<div class=\"side\"><h4>Negative controls</h4>\n"
    if result.controls.isEmpty {
      out += "<p class=\"none\">No control ran.</p>\n"
    }
    for control in result.controls {
      let cls = control.outcome == .bit ? "ok" : control.outcome == .notRun ? "none" : "bad"
      out +=
        "<div class=\"control \(cls)\"><p><span class=\"badge \(cls)\">\(h(control.outcome.rawValue))</span> <strong>\(h(control.name))</strong></p>\n"
      out +=
        "<p class=\"meta\">mutate \(h(control.mutations.joined(separator: "; "))) · must fail at step \(control.expectedStep)\(control.because.map { " because “\(h($0))”" } ?? "")</p>\n"
      out += "<p class=\"message\">\(h(control.message))</p>\n"
      if let execution = control.execution {
        out +=
          "<details><summary>steps under the mutation</summary>\n\(self.execution(execution))</details>\n"
      }
      out += "</div>\n"
    }
    out += "</div>\n</div>\n</article>\n"
    return out
  }

  private static func execution(_ record: ExecutionRecord) -> String {
    var out = "<ol class=\"steps\">\n"
    for step in record.steps {
      let cls = step.status == .passed ? "ok" : step.status == .notRun ? "none" : "bad"
      out +=
        "<li class=\"\(cls)\"><span class=\"badge \(cls)\">\(h(step.status.rawValue))</span> \(h(step.title))"
      if let message = step.message { out += "<div class=\"why\">\(h(message))</div>" }
      if !step.evidence.isEmpty {
        out +=
          "<details><summary>\(step.evidence.count) evidence</summary>\n<ul class=\"evidence\">\n"
        for evidence in step.evidence {
          out +=
            "<li><span class=\"kind \(h(evidence.kind.rawValue))\">\(h(evidence.kind.rawValue))</span> <span class=\"source\">\(h(evidence.source))</span> \(h(evidence.summary))"
          if !evidence.detail.isEmpty { out += "<pre>\(h(evidence.detail))</pre>" }
          out += "</li>\n"
        }
        out += "</ul>\n</details>"
      }
      out += "</li>\n"
    }
    out += "</ol>\n"
    if record.isError, let message = record.message {
      out += "<p class=\"why bad\">\(h(message))</p>\n"
    }
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
    .steps{padding-left:20px}.steps li{margin:4px 0}.why{color:var(--bad);margin:2px 0}.control{border-top:1px dashed var(--line);padding-top:6px;margin-top:6px}
    .evidence{list-style:none;padding-left:0;font-size:12px}.evidence li{margin:4px 0}.kind{font-family:ui-monospace,monospace;color:var(--none)}.source{font-weight:600}
    pre{background:#f6f8fa;border:1px solid var(--line);padding:6px;overflow:auto;max-height:320px;white-space:pre-wrap;word-break:break-all;font-size:11px}
    tr.current td{font-weight:600}footer{margin-top:32px;color:var(--none);font-size:12px}
    """
}
