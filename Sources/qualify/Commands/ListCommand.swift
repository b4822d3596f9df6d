import Artifacts
import Foundation
import QualifyCore
import Scenarios

/// `qualify list [--json] [--vocabulary]`.
struct ListCommand {
  static let options: [OptionSpec] = [
    .flag("json", "Print JSON."),
    .flag(
      "vocabulary",
      "List the scenario language's actions, expectations, mutations and failure reasons instead."),
    .flag("markdown", "With --vocabulary: the reference section of docs/scenario-language.md."),
    .value("scenarios", "DIR", "Where the .scenario files are (default: Scenarios)."),
    .value(
      "filter", "GLOB", "Only scenarios whose id (or pack) matches (repeatable).", repeatable: true),
    .value("tag", "T", "Only scenarios with this tag (repeatable).", repeatable: true),
    .value(
      "app", "DIR",
      "List the scenarios of this app's shell kind (default: the bundled sample app)."),
    .flag("all", "List the scenarios of every shell kind, with a shell column."),
    .flag("help", "Show this help."),
  ]

  let parsed: ParsedOptions

  init(arguments: [String]) throws {
    parsed = try ParsedOptions.parse(arguments, ListCommand.options, command: "qualify list")
  }

  func execute() throws -> ExitCode {
    let out = Terminal.standardOutput
    if parsed.has("help") {
      out.write(
        helpText(
          usage: "qualify list [--app DIR | --all] [--json] [--vocabulary]",
          summary:
            "Lists the scenarios a run of the app would choose from: those of its shell kind (--all: every kind, with their kind), or the scenario language's vocabulary.",
          options: ListCommand.options))
      return .qualified
    }
    if parsed.has("vocabulary") {
      if parsed.has("markdown") {
        out.write(VocabularyReference.markdown())
        return .qualified
      }
      return try vocabulary(json: parsed.has("json"))
    }
    let all = try ScenarioCatalogue.load(
      directory: parsed.value("scenarios") ?? Paths.scenariosDirectory)
    let every = parsed.has("all")
    if every && parsed.value("app") != nil {
      throw InputError("--all lists every shell kind; --app lists one app's: give one of them")
    }
    let app = parsed.value("app") ?? Paths.sampleApp
    let shell = every ? nil : try AppRepository(directory: app).profile.shell
    let scenarios = ScenarioCatalogue.filter(
      all, globs: parsed.all("filter"), tags: parsed.all("tag")
    ).filter { shell == nil || $0.shell == shell }.sorted { $0.id < $1.id }
    if parsed.has("json") {
      let items: [[String: Any]] = scenarios.map { scenario in
        [
          "id": scenario.id, "title": scenario.title, "pack": scenario.pack, "file": scenario.file,
          "shell": scenario.shell.id,
          "checklist": scenario.checklist, "platforms": scenario.platforms.map(\.rawValue),
          "channels": scenario.channels.map(\.rawValue), "tags": scenario.tags,
          "steps": scenario.steps.map(\.title), "controls": scenario.controls.map(\.name),
          // What only a mock gives: against a real part (`--stack`) these do not run there.
          "needs": scenario.needs.sorted().map(\.rawValue),
          "controlNeeds": Dictionary(
            scenario.controls.map { ($0.name, $0.needs.sorted().map(\.rawValue)) },
            uniquingKeysWith: { a, _ in a }),
        ]
      }
      let data = try JSONSerialization.data(
        withJSONObject: items, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
      out.line(String(decoding: data, as: UTF8.self))
      return .qualified
    }
    let width = (scenarios.map(\.id.count).max() ?? 10) + 2
    let kindWidth = (scenarios.map(\.shell.id.count).max() ?? 12) + 2
    if let shell {
      out.line(
        out.style(
          "the \(shell.id) shell's scenarios (\(AppRepository.display(URL(fileURLWithPath: app)))); --all lists every kind",
          .dim))
    }
    for scenario in scenarios {
      let kind =
        every ? scenario.shell.id.padding(toLength: kindWidth, withPad: " ", startingAt: 0) : ""
      let applies =
        "\(scenario.platforms.map(\.rawValue).joined(separator: ","))/\(scenario.channels.count == 3 ? "all" : scenario.channels.map(\.rawValue).joined(separator: ","))"
      out.line(
        "\(scenario.id.padding(toLength: width, withPad: " ", startingAt: 0))\(kind)\(out.style((applies + " ").padding(toLength: max(25, applies.count + 1), withPad: " ", startingAt: 0), .dim))\(scenario.title)"
      )
    }
    out.line(
      out.style(
        "\(scenarios.count) scenarios, \(scenarios.reduce(0) { $0 + $1.controls.count }) controls",
        .dim))
    return .qualified
  }

  private func vocabulary(json: Bool) throws -> ExitCode {
    let out = Terminal.standardOutput
    if json {
      let document: [String: Any] = [
        "keywords": Vocabulary.keywords.map { ["keyword": $0.0, "usage": $0.1] },
        "actions": Vocabulary.actions.map {
          [
            "synopsis": $0.synopsis, "summary": $0.summary, "example": $0.example,
            "mockOnly": $0.powers.sorted().map(\.rawValue),
          ] as [String: Any]
        },
        "expectations": Vocabulary.expectations.map {
          ["synopsis": $0.synopsis, "summary": $0.summary, "example": $0.example]
        },
        "mutations": Vocabulary.mutations.map {
          [
            "synopsis": $0.synopsis, "summary": $0.summary, "breaks": $0.breaks,
            "mockOnly": $0.powers.sorted().map(\.rawValue),
          ] as [String: Any]
        },
        "failureReasons": FailureReason.all.map {
          ["reason": $0.name, "detail": $0.detail ?? "", "summary": $0.summary]
        },
      ]
      let data = try JSONSerialization.data(
        withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
      out.line(String(decoding: data, as: UTF8.self))
      return .qualified
    }
    out.line(out.style("Keywords", .bold))
    for (_, usage) in Vocabulary.keywords { out.line("  \(usage)") }
    out.line(out.style("\nActions", .bold))
    for action in Vocabulary.actions {
      out.line(
        "  \(action.synopsis)\n      \(action.summary)\(VocabularyReference.mockOnly(action.powers))"
      )
    }
    out.line(out.style("\nExpectations", .bold))
    for expectation in Vocabulary.expectations {
      out.line("  \(expectation.synopsis)\n      \(expectation.summary)")
    }
    out.line(out.style("\nMutations", .bold))
    for mutation in Vocabulary.mutations {
      out.line(
        "  \(mutation.synopsis)\n      \(mutation.summary)\(VocabularyReference.mockOnly(mutation.powers)) Breaks: \(mutation.breaks)."
      )
    }
    out.line(out.style("\nFailure reasons (because REASON [DETAIL])", .bold))
    for reason in FailureReason.all {
      out.line(
        "  \(reason.name)\(reason.detail.map { " DETAIL (\($0))" } ?? "")\n      \(reason.summary)")
    }
    return .qualified
  }
}
