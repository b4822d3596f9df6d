import Foundation
import QualifyCore
import ResultModel
import Results

/// `qualify diff [RUN_A] RUN_B`: what changed between two stored runs — new failures, fixed
/// ones, controls whose outcome changed, checks whose evidence changed. With one run, it is
/// compared with the last qualified run of its channel before it; with none, the latest run is.
struct DiffCommand {
  static let options: [OptionSpec] = [
    .value("db", "FILE", "The results database (default: Reports/qualify.sqlite)."),
    .flag("json", "Print JSON."),
    .flag("help", "Show this help."),
  ]

  let parsed: ParsedOptions

  init(arguments: [String]) throws {
    parsed = try ParsedOptions.parse(
      arguments, DiffCommand.options, command: "qualify diff", positionals: .max)
  }

  func execute() throws -> ExitCode {
    let out = Terminal.standardOutput
    if parsed.has("help") {
      out.write(
        helpText(
          usage: "qualify diff [[RUN_A] RUN_B] [--db FILE] [--json]",
          summary:
            "Compares two runs: new failures, fixed ones, controls that changed, evidence that changed. RUN_A defaults to the last qualified run of RUN_B's channel before it; RUN_B to the latest run. Exit code 1 when RUN_B has failures RUN_A did not.",
          options: DiffCommand.options))
      return .qualified
    }
    guard parsed.positionals.count <= 2 else {
      throw InputError("qualify diff takes at most two runs", hint: "see: qualify diff --help")
    }
    let store = try StoreAccess.open(parsed)
    let after = try StoreAccess.run(parsed.positionals.last, in: store)
    let before: RunRecord
    if parsed.positionals.count == 2 {
      before = try StoreAccess.run(parsed.positionals[0], in: store)
    } else {
      guard
        let last = try store.lastQualified(
          app: after.app, channel: after.channel, before: after.startedAt)
      else {
        throw InputError(
          "no qualified run of this app on channel \(after.channel.rawValue) before \(after.id) to compare with",
          hint: "name both runs: qualify diff RUN_A RUN_B")
      }
      before = last
    }
    let diff = RunDiff(
      before: try store.results(run: before.id), after: try store.results(run: after.id))
    if parsed.has("json") {
      out.line(try json(diff, before: before, after: after))
    } else {
      print(diff, before: before, after: after, out)
    }
    return diff.newFailures.isEmpty ? .qualified : .notQualified
  }

  private func print(_ diff: RunDiff, before: RunRecord, after: RunRecord, _ out: Terminal) {
    out.line(
      "\(before.id) (\(before.channel.rawValue), \(before.status.rawValue)) → \(after.id) (\(after.channel.rawValue), \(after.status.rawValue))"
    )
    if before.seed != after.seed {
      out.line(
        out.style(
          "note: the runs have different seeds (\(before.seed) and \(after.seed)): evidence is compared with the values the seed derives (tokens, ids, challenges) masked; pin --seed in CI for baselines",
          .dim))
    }
    if diff.isEmpty && diff.stillFailing.isEmpty {
      out.line("no change in verdicts, controls or evidence")
      return
    }
    func section(_ title: String, _ lines: [String], _ style: Terminal.Style) {
      guard !lines.isEmpty else { return }
      out.line(out.style("\(title) (\(lines.count)):", .bold))
      for line in lines { out.line("  " + out.style(line, style)) }
    }
    section(
      "new failures",
      diff.newFailures.map {
        "\($0.key) \($0.before?.rawValue ?? "absent") → \($0.after?.rawValue ?? "absent"): \($0.message)"
      }, .red)
    section(
      "fixed",
      diff.fixed.map { "\($0.key) \($0.before?.rawValue ?? "") → \($0.after?.rawValue ?? "")" },
      .green)
    section(
      "still failing", diff.stillFailing.map { "\($0.key): \($0.message)" }, .yellow)
    section(
      "controls that changed",
      diff.controls.map {
        "\($0.key) control \"\($0.control)\": \($0.before?.rawValue ?? "absent") → \($0.after?.rawValue ?? "absent")"
      }, .yellow)
    section(
      "evidence that changed",
      diff.evidence.map {
        "\($0.key): step\($0.steps.count == 1 ? "" : "s") \($0.steps.map(String.init).joined(separator: ", "))"
      }, .dim)
    section("only in \(after.id)", diff.added.map(\.description), .dim)
    section("only in \(before.id)", diff.removed.map(\.description), .dim)
  }

  private func json(_ diff: RunDiff, before: RunRecord, after: RunRecord) throws -> String {
    func change(_ c: RunDiff.Change) -> [String: String] {
      [
        "scenario": c.key.scenarioID, "platform": c.key.platform.rawValue,
        "before": c.before?.rawValue ?? "absent", "after": c.after?.rawValue ?? "absent",
        "message": c.message,
      ]
    }
    let object: [String: Any] = [
      "before": before.id, "after": after.id, "seeds": [String(before.seed), String(after.seed)],
      "seedsDiffer": before.seed != after.seed,
      "newFailures": diff.newFailures.map(change), "fixed": diff.fixed.map(change),
      "stillFailing": diff.stillFailing.map(change),
      "controls": diff.controls.map {
        [
          "scenario": $0.key.scenarioID, "platform": $0.key.platform.rawValue,
          "control": $0.control, "before": $0.before?.rawValue ?? "absent",
          "after": $0.after?.rawValue ?? "absent",
        ]
      },
      "evidence": diff.evidence.map {
        ["scenario": $0.key.scenarioID, "platform": $0.key.platform.rawValue, "steps": $0.steps]
          as [String: Any]
      },
      "added": diff.added.map(\.description), "removed": diff.removed.map(\.description),
    ]
    let data = try JSONSerialization.data(
      withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    return String(decoding: data, as: UTF8.self)
  }
}
