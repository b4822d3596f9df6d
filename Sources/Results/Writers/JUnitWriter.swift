import Foundation
import QualifyCore
import ResultModel

/// JUnit XML as CI systems read it: one testcase per scenario × platform, and one per control
/// of it, so that a control that did not bite shows up as its own failure.
public enum JUnitWriter {
  public static func render(run: RunRecord, results: [ScenarioResult]) -> String {
    var cases: [String] = []
    var failures = 0
    var errors = 0
    var skipped = 0
    let scope = run.scope ?? RunScope()
    let summary = RunSummary(results, scope: scope)
    for (index, result) in results.enumerated() {
      let reproduce = "reproduce: " + FailureReport.reproduce(result, run: run)
      let waivers = summary.waived[index] ?? []
      let className =
        "qualify.\(result.scenarioID.replacingOccurrences(of: "/", with: ".")).\(result.platform.rawValue)"
      var body = ""
      switch result.verdict {
      case .failed where !waivers.isEmpty:
        skipped += 1
        body = "<skipped message=\"\(xml(waived(waivers.first, result.message)))\"/>"
      case .failed:
        failures += 1
        let fix = result.check.fix.map { "\nfix: " + $0 } ?? ""
        body =
          "<failure type=\"\(result.isFlaky ? "flaky" : "failed")\" message=\"\(xml(result.message + " — " + reproduce))\">\(xml(details(result.check) + fix + "\n" + reproduce))</failure>"
      case .error:
        errors += 1
        body =
          "<error type=\"error\" message=\"\(xml(result.message + " — " + reproduce))\">\(xml(details(result.check) + "\n" + reproduce))</error>"
      case .notApplicable:
        skipped += 1
        body = "<skipped message=\"\(xml("not applicable: " + result.message))\"/>"
      case .controlDidNotBite, .passed:
        break
      }
      let place = JUnitWriter.place(of: result)
      cases.append(
        testcase(
          className, "\(result.title) [\(result.platform.rawValue)]", result.check.duration, body,
          place.file, line: place.line))
      for control in result.controls {
        var controlBody = ""
        switch control.outcome {
        case .bit: break
        case .didNotBite, .bitElsewhere:
          if let waiver = result.waiver(forControl: control.name, among: waivers) {
            skipped += 1
            controlBody = "<skipped message=\"\(xml(waived(waiver, control.message)))\"/>"
            break
          }
          failures += 1
          controlBody =
            "<failure type=\"\(control.outcome.rawValue)\" message=\"\(xml(control.message + " — " + reproduce))\">\(xml(control.mutations.joined(separator: "\n") + "\n" + reproduce))</failure>"
        case .error:
          errors += 1
          controlBody = "<error type=\"error\" message=\"\(xml(control.message))\"/>"
        case .notRun:
          skipped += 1
          controlBody = "<skipped message=\"\(xml(control.message))\"/>"
        }
        cases.append(
          testcase(
            className, "control: \(control.name) [\(result.platform.rawValue)]",
            control.execution?.duration ?? 0, controlBody, result.file))
      }
    }
    let time = results.reduce(0) { $0 + $1.duration }
    var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    out +=
      "<testsuites name=\"qualify\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"\(skipped)\" time=\"\(seconds(time))\">\n"
    out +=
      "  <testsuite name=\"qualify.\(run.channel.rawValue)\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"\(skipped)\" time=\"\(seconds(time))\" timestamp=\"\(xml(ResultStore.format(run.startedAt)))\" hostname=\"\(xml(run.host))\">\n"
    out += "    <properties>\n"
    let properties = Self.properties(run: run, results: results, summary: summary, scope: scope)
    for (name, value) in properties {
      out += "      <property name=\"\(name)\" value=\"\(xml(value))\"/>\n"
    }
    out += "    </properties>\n"
    out += cases.joined()
    out += "  </testsuite>\n</testsuites>\n"
    return out
  }

  /// The suite's properties: the run, its verdict and scope, the gate's decision, the
  /// checklist, waivers, flaky scenarios and the release.
  static func properties(
    run: RunRecord, results: [ScenarioResult], summary: RunSummary, scope: RunScope
  ) -> [(String, String)] {
    let gate =
      summary.gateRefuses
      ? "refused: partial because of the app or the environment: \(summary.unrequestedReductions.joined(separator: "; "))"
      : summary.exitCode == .qualified ? "passed" : "failed"
    let properties: [(String, String)] = [
      ("run", run.id), ("channel", run.channel.rawValue), ("app", run.appShown),
      ("app-version", run.appVersion ?? ""), ("seed", String(run.seed)),
      ("verdict", summary.status.rawValue), ("headline", summary.headline),
      ("scope", summary.status == .partial || !scope.isFull ? "partial" : "full"),
      ("scope-limits", scope.limits.joined(separator: "; ")),
      ("caveats", summary.caveats(channel: run.channel).joined(separator: "; ")),
      ("gate", gate),
      (
        "checklist",
        ChecklistCoverage(
          results, catalogue: scope.catalogue, waived: Set(summary.waived.keys),
          shell: scope.shellKind
        )
        .summary
      ),
      ("waivers", summary.appliedWaivers.map(\.label).joined(separator: "; ")),
      ("flaky", results.filter(\.isFlaky).map(\.displayName).joined(separator: "; ")),
      ("repeat", String(scope.repeats ?? 1)),
      ("merged-from", (scope.mergedFrom ?? []).joined(separator: "; ")),
    ]
    return properties + (scope.release?.properties ?? [])
  }

  private static func waived(_ waiver: Waiver?, _ message: String) -> String {
    guard let waiver else { return message }
    return
      "waived by \(waiver.owner) until \(waiver.expires) (\(waiver.reason)): \(message)"
  }

  /// Where a review tool points a result: a static finding at the app's file and line, a
  /// scenario failure at the scenario file's line that did not hold.
  static func place(of result: ScenarioResult) -> (file: String, line: Int?) {
    guard result.verdict == .failed || result.verdict == .error else { return (result.file, nil) }
    if result.check.failureReason == "finding",
      let location = RootCause(result.message).location, let split = SourcePlace(location)
    {
      return (split.file, split.line)
    }
    return (result.file, result.check.failedLine)
  }

  private static func testcase(
    _ className: String, _ name: String, _ time: TimeInterval, _ body: String, _ file: String,
    line: Int? = nil
  ) -> String {
    let open =
      "    <testcase classname=\"\(xml(className))\" name=\"\(xml(name))\" time=\"\(seconds(time))\" file=\"\(xml(file))\""
      + (line.map { " line=\"\($0)\"" } ?? "")
    return body.isEmpty ? open + "/>\n" : open + ">\n      \(body)\n    </testcase>\n"
  }

  private static func details(_ execution: ExecutionRecord) -> String {
    execution.steps.map {
      "step \($0.index) \($0.title): \($0.status.rawValue)\($0.message.map { " — \($0)" } ?? "")"
    }
    .joined(separator: "\n")
  }

  static func seconds(_ time: TimeInterval) -> String { String(format: "%.3f", time) }

  /// Escapes text for XML attributes and content; drops characters XML 1.0 forbids.
  static func xml(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&apos;"
      case "\n": out += "&#10;"
      case "\t", "\r": out.unicodeScalars.append(scalar)
      default:
        if BidiControls.contains(scalar) {
          out += BidiControls.visible(scalar)
        } else if scalar.value >= 0x20 && !(0xFFFE...0xFFFF).contains(scalar.value) {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out
  }
}
