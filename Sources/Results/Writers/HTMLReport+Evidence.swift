import Foundation
import QualifyCore
import ResultModel

/// Evidence: the steps of an execution on the main page, and the evidence page that holds
/// every step's.
extension HTMLReport {
  /// The steps of one execution. A step whose failure blocks the release (`inline`: the
  /// check, a control that did not bite) shows its evidence here; the evidence of the others
  /// (a control failing as it must) is one click away in the evidence page.
  static func execution(
    _ record: ExecutionRecord, inline: Bool = true, shots: ((StepRecord) -> String)? = nil,
    link: (Int) -> String
  ) -> String {
    var out = "<ol class=\"steps\">\n"
    for step in record.steps {
      let cls = step.status == .passed ? "ok" : step.status == .notRun ? "none" : "bad"
      out +=
        "<li class=\"\(cls)\"><span class=\"badge \(cls)\">\(h(step.status.rawValue))</span> \(h(step.title))"
      if let message = step.message { out += "<div class=\"why\">\(h(message))</div>" }
      if let shots { out += shots(step) }
      if !step.evidence.isEmpty {
        if inline && (step.status == .failed || step.status == .error) {
          out += "<details open><summary>\(step.evidence.count) evidence</summary>\n"
          out += evidenceList(step.evidence)
          out += "</details>"
        } else {
          out +=
            " <a class=\"evidence\" href=\"\(h(link(step.index)))\">\(step.evidence.count) evidence</a>"
        }
      }
      out += "</li>\n"
    }
    out += "</ol>\n"
    if record.isError, let message = record.message {
      out += "<p class=\"why bad\">\(h(message))</p>\n"
    }
    return out
  }

  private static func evidenceList(_ evidence: [Evidence]) -> String {
    var out = "<ul class=\"evidence\">\n"
    for entry in evidence {
      out +=
        "<li><span class=\"kind \(h(entry.kind.rawValue))\">\(h(entry.kind.rawValue))</span> <span class=\"source\">\(h(entry.source))</span> \(h(entry.summary))"
      // A screenshot is a file of the run's folder, shown beside its step, not text here.
      if !entry.detail.isEmpty && entry.kind != .screenshot {
        out += "<pre>\(h(entry.detail))</pre>"
      }
      out += "</li>\n"
    }
    out += "</ul>\n"
    return out
  }

  /// The evidence page: every step's evidence, anchored, each with a link back to its
  /// scenario in the report.
  public static func evidencePage(run: RunRecord, results: [ScenarioResult]) -> String {
    var out = page(title: "qualify \(run.channel.rawValue) — evidence of run \(run.id)")
    out +=
      "<header><h1>Evidence <span class=\"sub\">run \(h(run.id)) · channel \(h(run.channel.rawValue))</span></h1><p><a href=\"index.html\">back to the report</a></p></header>\n"
    for (index, result) in results.enumerated() {
      var executions: [(String, String, ExecutionRecord)] = [("c", "check", result.check)]
      for (number, control) in result.controls.enumerated() {
        if let execution = control.execution {
          executions.append(("k\(number + 1)", "control “\(control.name)”", execution))
        }
      }
      for (key, label, execution) in executions {
        for step in execution.steps where !step.evidence.isEmpty {
          out +=
            "<section class=\"evidence-step\" id=\"\(evidenceAnchor(index, key, step.index))\"><h3><a href=\"index.html#\(anchor(index))\">\(h(result.scenarioID))</a> <span class=\"sub\">\(h(result.platform.displayName)) · \(h(label)) · step \(step.index): \(h(step.title))</span></h3>\n"
          out += evidenceList(step.evidence)
          out += "</section>\n"
        }
      }
    }
    out += "</body>\n</html>\n"
    return out
  }
}
