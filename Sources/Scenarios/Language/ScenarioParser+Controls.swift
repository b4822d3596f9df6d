import Artifacts
import Foundation
import QualifyCore

/// Control lines: `mutate`, `fails at`, `because`, and their platform and channel limits.
extension ParserState {
  mutating func parseControlLine(_ line: SourceLine, keyword: String, scenario: inout Scenario) {
    let head = line.tokens[0]
    let index = scenario.controls.count - 1
    switch keyword {
    case "mutate":
      if let use = parseMutation(line, scenario: scenario) {
        scenario.controls[index].mutations.append(use)
      }
    case "fails":
      // Two `fails at` in one control is two controls run together (a `control` line lost):
      // taking either would judge the other's mutation against the wrong step.
      guard scenario.controls[index].failsAt == 0,
        !failsAtTitles.contains(where: { $0.controlIndex == index })
      else {
        error(
          line, head, "this control already says where it fails",
          hint: "start another control with: control \"TITLE\"")
        return
      }
      let rest = Array(line.tokens.dropFirst())
      guard rest.count >= 2, rest[0].text == "at" else {
        missing(line, "expected 'fails at step N' or 'fails at \"STEP TITLE\"'")
        return
      }
      if rest[1].kind == .string {
        failsAtTitles.append((index, rest[1].text, rest[1], line))
        expectEnd(line, after: 3)
        return
      }
      guard rest[1].text == "step", rest.count >= 3 else {
        error(line, rest[1], "expected 'step N' or a quoted step title")
        return
      }
      guard let n = Int(rest[2].text) else {
        error(line, rest[2], "'\(rest[2].text)' is not a step number")
        return
      }
      guard (1...max(1, scenario.steps.count)).contains(n) else {
        error(
          line, rest[2], "there is no step \(n)",
          hint:
            "this scenario has \(scenario.steps.count) step\(scenario.steps.count == 1 ? "" : "s")")
        return
      }
      scenario.controls[index].failsAt = n
      expectEnd(line, after: 4)
    case "because":
      guard scenario.controls[index].because == nil else {
        error(
          line, head, "this control already says why it fails",
          hint: "start another control with: control \"TITLE\"")
        return
      }
      if let because = parseBecause(line) { scenario.controls[index].because = because }
    case "platforms":
      if let platforms = parsePlatforms(line) { scenario.controls[index].platforms = platforms }
    case "channels":
      if let channels = parseChannels(line) { scenario.controls[index].channels = channels }
    case "expect", "on":
      error(
        line, head, "'\(keyword)' belongs inside a step, not a control",
        hint: "controls hold mutate, fails at, because, platforms and channels")
    default:
      error(
        line, head, "unknown statement '\(head.text)' in a control",
        hint: suggestion(head.text, ParserState.controlKeywords + ["control"])
          ?? "controls hold: \(ParserState.controlKeywords.joined(separator: ", "))")
    }
  }

  /// `because REASON [DETAIL]`: a failure reason of the vocabulary, and the detail it pins.
  func parseBecause(_ line: SourceLine) -> Because? {
    var names: [String] { FailureReason.all.map(\.name) }
    guard line.tokens.count >= 2 else {
      missing(
        line, "because needs a failure reason",
        hint: "e.g. because status 200; qualify list --vocabulary lists every reason")
      return nil
    }
    let word = line.tokens[1]
    guard word.kind == .word else {
      error(
        line, word, "because names a failure reason, not words of the message",
        hint: suggestion(word.text.replacingOccurrences(of: " ", with: "-"), names)
          ?? "e.g. because status 200, because update applied, because finding dev-server-url")
      return nil
    }
    guard let reason = FailureReason.named(word.text) else {
      error(
        line, word, "unknown failure reason '\(word.text)'",
        hint: suggestion(word.text, names) ?? "qualify list --vocabulary lists every reason")
      return nil
    }
    guard line.tokens.count >= 3 else { return Because(reason: reason.name) }
    let detail = line.tokens[2]
    guard reason.detail != nil else {
      error(line, detail, "the failure reason \(reason.name) takes no detail")
      return nil
    }
    expectEnd(line, after: 3)
    return Because(reason: reason.name, detail: detail.text)
  }

  /// `mutate NAME [ARGS]` (a control) or `given NAME [ARGS]` (the header): the mutation and
  /// its typed arguments.
  mutating func parseMutation(_ line: SourceLine, scenario: Scenario) -> MutationUse? {
    guard let nameToken = line.tokens.dropFirst().first else {
      missing(
        line, "expected a mutation name",
        hint: "for example: \(line.tokens[0].text) shell.ignores-transport-policy")
      return nil
    }
    guard let spec = Vocabulary.mutationsByName[nameToken.text] else {
      error(
        line, nameToken, "unknown mutation '\(nameToken.text)'",
        hint: suggestion(nameToken.text, Vocabulary.mutations.map(\.name))
          ?? "`qualify list --vocabulary` lists the mutations")
      return nil
    }
    guard
      let arguments = parseArguments(
        line, line.tokens.dropFirst(2), spec.parameters, scenario: scenario,
        synopsis: spec.synopsis)
    else {
      return nil
    }
    return MutationUse(
      spec: spec, arguments: arguments,
      text: line.tokens.dropFirst().map(\.text).joined(separator: " "),
      location: location(line, nameToken))
  }
}
