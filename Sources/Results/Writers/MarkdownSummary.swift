import Foundation
import QualifyCore
import ResultModel

/// `--summary FILE`: the run in Markdown, for a CI job page (GitHub's `$GITHUB_STEP_SUMMARY`,
/// GitLab's and Forgejo's job summaries): the verdict, the checklist, what blocks the release
/// with its reproduce commands, waivers and flaky runs.
public enum MarkdownSummary {
  public static func render(run: RunRecord, results: [ScenarioResult]) -> String {
    let scope = run.scope ?? RunScope()
    let summary = RunSummary(results, scope: scope)
    let coverage = ChecklistCoverage(
      results, catalogue: scope.catalogue, waived: Set(summary.waived.keys),
      shell: scope.shellKind)
    let failures = FailureReport(run: run, results: results, summary: summary)
    var out = "## qualify: \(text(summary.headline)) — channel \(run.channel.rawValue)\n\n"
    let counts = Verdict.allCases.filter { summary.counts[$0, default: 0] > 0 }.map {
      "\(summary.counts[$0, default: 0]) \($0.rawValue)"
    }
    out +=
      "Run `\(code(run.id))` · seed \(run.seed) · app \(text(run.appName ?? run.appShown))\(run.appVersion.map { " \(text($0))" } ?? "") · \(summary.total) scenario runs: \(counts.joined(separator: ", "))\(summary.waived.isEmpty ? "" : " (\(summary.waived.count) of them waived)") · \(summary.controlsBitten)/\(summary.controlsRun) controls bit\n\n"
    if let release = scope.release { out += "Release: \(text(release.text))\n\n" }
    out += "\(text(coverage.summary))\n\n"
    for note in summary.waiverNotes { out += "> ⚠️ \(text(note))\n\n" }
    for caveat in summary.caveats(channel: run.channel) { out += "> note: \(text(caveat))\n\n" }
    out += "| Item | iOS | Android |\n|---|---|---|\n"
    for item in coverage.shell.checklist {
      let (item, name) = (item.number, item.title)
      out += "| \(item). \(text(name)) |"
      for platform in Platform.allCases {
        guard let cell = coverage.cells.first(where: { $0.item == item && $0.platform == platform })
        else {
          out += " — |"
          continue
        }
        let failing =
          cell.failing.isEmpty ? "" : ": " + cell.failing.map(text).joined(separator: ", ")
        out += " \(cell.state.rawValue)\(failing) |"
      }
      out += "\n"
    }
    if !failures.groups.isEmpty {
      out += "\n### What blocks the release\n\n"
      for group in failures.groups {
        out += "**\(text(group.cause))** (\(group.failures.count))\n\n"
        if let fix = group.fix { out += "Fix: \(text(fix))\n\n" }
        for failure in group.failures {
          out +=
            "- `\(code(failure.scenarioID))` \(failure.platform.displayName)\(failure.control.map { " control “\(text($0))”" } ?? "")\(failure.flaky ? " (flaky)" : ""): \(text(failure.reason))\n"
          out += "  ```\n  \(code(failure.reproduce))\n  ```\n"
        }
        out += "\n"
      }
    }
    if !failures.waived.isEmpty {
      out += "\n### Waived\n\n"
      for failure in failures.waived {
        out +=
          "- `\(code(failure.scenarioID))` \(failure.platform.displayName): \(text(failure.waivers.first?.reason ?? "")) (owner \(text(failure.waivers.first?.owner ?? "")), until \(failure.waivers.first?.expires ?? ""))\n"
      }
    }
    return out
  }

  /// App-controlled text made inert in Markdown: no HTML, no line breaks, no table cells, no
  /// emphasis, link, image, heading or list syntax (CommonMark backslash escapes), no bidi
  /// controls.
  static func text(_ value: String) -> String {
    var out = ""
    for scalar in value.unicodeScalars {
      switch scalar {
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "&": out += "&amp;"
      case "`": out += "'"
      case "|", "[", "]", "(", ")", "*", "_", "\\", "#", "!", "~", "{", "}", "+":
        out += "\\" + String(scalar)
      case "\n", "\r", "\t": out += " "
      default:
        if BidiControls.contains(scalar) {
          out += BidiControls.visible(scalar)
        } else if scalar.value >= 0x20 && scalar.value != 0x7F {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out
  }

  /// Text inside a code span or a fenced block: nothing can close it (no backtick, no line
  /// break) and no bidi control reorders it. A scenario id comes from a file name.
  static func code(_ value: String) -> String {
    var out = ""
    for scalar in value.unicodeScalars {
      if scalar == "`" {
        out += "'"
      } else if BidiControls.contains(scalar) {
        out += BidiControls.visible(scalar)
      } else if scalar.value >= 0x20 && scalar.value != 0x7F {
        out.unicodeScalars.append(scalar)
      } else {
        out += " "
      }
    }
    return out
  }
}
