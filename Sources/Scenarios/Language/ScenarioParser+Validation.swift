import Artifacts
import Foundation
import QualifyCore

/// The checks that need the whole scenario: every step expects something, every control names a step that exists.
extension ParserState {
  /// An error found after parsing, shown with its line when it has one.
  func report(_ location: FileLocation, _ message: String, hint: String? = nil) {
    let text = sourceText[location.line]
    let length = text.map { max(1, $0.count - max(0, location.column - 1)) } ?? 1
    diagnostics.emit(.error(at: location, message, hint: hint, sourceLine: text, length: length))
  }

  mutating func validate(_ scenario: inout Scenario, lastLine: SourceLine?) {
    let fileStart = FileLocation(file: file, line: 1, column: 1)
    guard sawScenario else {
      report(fileStart, "empty scenario file", hint: "start it with: scenario \"TITLE\"")
      return
    }
    for (controlIndex, title, token, line) in failsAtTitles {
      if let step = scenario.steps.first(where: { $0.title == title }) {
        scenario.controls[controlIndex].failsAt = step.index
      } else {
        error(
          line, token, "no step is titled \"\(title)\"",
          hint: suggestion(title, scenario.steps.map(\.title)).map { "did you mean \"\($0)\"?" })
      }
    }
    checkStatementKinds(scenario)
    if scenario.steps.isEmpty {
      report(fileStart, "the scenario has no steps", hint: "add one: step \"TITLE\"")
    }
    if let given = scenario.given.first, !scenario.checklist.isEmpty {
      // Its world is not the app's: what it shows is about a mistake, not about the release.
      report(
        given.location,
        "a scenario with 'given' runs in a world the app does not have: it cannot prove checklist items",
        hint:
          "write 'supports \(scenario.checklist.map(String.init).joined(separator: ", "))' instead of 'checklist'"
      )
    }
    for step in scenario.steps where step.lines.isEmpty {
      report(
        step.location, "step \(step.index) \"\(step.title)\" is empty",
        hint: "give it an action and an expectation")
    }
    for step in scenario.steps
    where !step.lines.contains(where: {
      if case .expectation = $0.kind { return true } else { return false }
    }) && !step.lines.isEmpty {
      report(
        step.location, "step \(step.index) \"\(step.title)\" expects nothing",
        hint: "a step that cannot fail proves nothing: add an expect line")
    }
    if scenario.controls.isEmpty && !scenario.steps.isEmpty {
      report(
        lastLine.map { FileLocation(file: file, line: $0.number, column: 1) } ?? fileStart,
        "the scenario has no negative control",
        hint:
          "a check that cannot fail proves nothing: add a control block with a mutation and the step it must fail at"
      )
    }
    checkControls(scenario)
    if scenario.apps.filter({ $0.role == .underTest }).isEmpty && !scenario.apps.isEmpty {
      report(
        scenario.apps[0].location, "no app under qualification",
        hint: "declare one app without 'as companion'")
    }
  }

  /// A statement of another kind of shell would only fail at run time.
  func checkStatementKinds(_ scenario: Scenario) {
    for line in scenario.steps.flatMap(\.lines) {
      let pack: (any ScenarioPack.Type)?
      switch line.kind {
      case .action(let spec): pack = Vocabulary.pack(ofAction: spec.phrase)
      case .expectation(let spec, _): pack = Vocabulary.pack(ofExpectation: spec.phrase)
      }
      if let pack, !pack.shells.contains(scenario.shell) {
        report(
          line.location,
          "'\(line.text)' belongs to the \(pack.name) pack, for \(pack.shells.map(\.id).sorted().joined(separator: ", ")) shells; this scenario drives a \(scenario.shell.id) shell",
          hint: pack.shells.count == 1
            ? pack.shells.first.map {
              "the statement needs 'shell \($0.id)' in the scenario's header"
            } : nil)
      }
    }
  }

  /// Each control mutates something and says where the scenario must fail.
  func checkControls(_ scenario: Scenario) {
    for control in scenario.controls {
      if control.mutations.isEmpty {
        report(
          control.location, "control \"\(control.name)\" mutates nothing",
          hint: "add: mutate MUTATION")
      }
      if control.failsAt == 0
        && !failsAtTitles.contains(where: {
          scenario.controls[$0.controlIndex].name == control.name
        })
      {
        report(
          control.location,
          "control \"\(control.name)\" does not say where the scenario must fail",
          hint: "add: fails at step N")
      }
    }
  }
}
