import Artifacts
import Foundation
import QualifyCore

/// Step lines: actions with their arguments, expectations, `on CHANNEL:` conditions.
extension ParserState {
  func parseStepLine(
    _ line: SourceLine, tokens: ArraySlice<Token>, scenario: Scenario, condition: Condition?
  ) -> StepLine? {
    guard let head = tokens.first else {
      missing(line, "expected a statement after the condition")
      return nil
    }
    if head.text == "on" && condition == nil {
      return parseConditional(line, tokens: tokens, scenario: scenario)
    }
    if head.text == "on" {
      error(
        line, head, "conditions do not nest",
        hint: "list every condition in one 'on': on release, ios: …")
      return nil
    }
    if head.text == "expect" {
      return parseExpectation(
        line, tokens: tokens.dropFirst(), scenario: scenario, condition: condition)
    }
    return parseAction(line, tokens: tokens, scenario: scenario, condition: condition)
  }

  func parseConditional(_ line: SourceLine, tokens: ArraySlice<Token>, scenario: Scenario)
    -> StepLine?
  {
    var condition = Condition()
    var rest = tokens.dropFirst()
    var sawColon = false
    var any = false
    while let token = rest.first {
      rest = rest.dropFirst()
      if token.kind == .colon {
        sawColon = true
        break
      }
      if token.kind == .comma { continue }
      any = true
      if token.text == "release" {
        condition.channels.formUnion(Channel.allCases.filter(\.isRelease))
      } else if let channel = Channel(rawValue: token.text) {
        condition.channels.insert(channel)
      } else if let platform = Platform(rawValue: token.text) {
        condition.platforms.insert(platform)
      } else {
        let known =
          Channel.allCases.map(\.rawValue) + ["release"] + Platform.allCases.map(\.rawValue)
        error(
          line, token, "unknown condition '\(token.text)'",
          hint: suggestion(token.text, known)
            ?? "conditions are channels (dev, staging, prod, release) and platforms (ios, android)")
        return nil
      }
    }
    guard sawColon else {
      missing(
        line, "expected ':' after the condition", hint: "for example: on release: expect refused")
      return nil
    }
    guard any else {
      error(line, tokens.first, "expected at least one condition before ':'")
      return nil
    }
    return parseStepLine(line, tokens: rest, scenario: scenario, condition: condition)
  }

  func parseAction(
    _ line: SourceLine, tokens: ArraySlice<Token>, scenario: Scenario, condition: Condition?
  ) -> StepLine? {
    guard let head = tokens.first else { return nil }
    let appNames = scenario.apps.map(\.name)
    var actor: String?
    var rest = tokens
    let table: PhraseTable<ActionSpec>
    if appNames.contains(head.text) {
      actor = head.text
      rest = tokens.dropFirst()
      table = PhraseTables.appActions
    } else {
      table = PhraseTables.worldActions
    }
    let candidates = table.specs
    guard let (spec, consumed) = table.match(rest) else {
      if actor == nil && rest.count >= 2, scenario.devices.contains(where: { $0.name == head.text })
      {
        error(
          line, head, "'\(head.text)' is a device; actions are performed by apps",
          hint: "declare an app on it (app NAME on \(head.text)) and write: NAME …")
        return nil
      }
      let phrases = candidates.map { $0.phrase.joined(separator: " ") }
      let written = rest.prefix(2).map(\.text).joined(separator: " ")
      let target = rest.first ?? head
      if actor == nil {
        let appHint = suggestion(head.text, appNames).map { "did you mean the app '\($0)'?" }
        error(
          line, target, "unknown statement '\(head.text)'",
          hint: appHint ?? suggestion(written, phrases) ?? suggestion(
            head.text, phrases + ["expect", "on"])
            ?? "a step line is an expectation (expect …), a world action (\(phrases.joined(separator: ", "))) or an app action (APP …)"
        )
      } else {
        error(
          line, target,
          rest.isEmpty ? "expected an action after '\(head.text)'" : "unknown action '\(written)'",
          hint: suggestion(written, phrases) ?? suggestion(rest.first?.text ?? "", phrases)
            ?? "app actions: \(phrases.joined(separator: "; "))")
      }
      return nil
    }
    guard
      let arguments = parseArguments(
        line, rest.dropFirst(consumed), spec.parameters, scenario: scenario, synopsis: spec.synopsis
      )
    else {
      return nil
    }
    return StepLine(
      kind: .action(spec), arguments: arguments, condition: condition, actor: actor,
      text: tokens.map(\.text).joined(separator: " "), location: location(line, tokens.first))
  }

  func parseExpectation(
    _ line: SourceLine, tokens: ArraySlice<Token>, scenario: Scenario, condition: Condition?
  ) -> StepLine? {
    var rest = tokens
    var negated = false
    if let first = rest.first, first.text == "no" || first.text == "not" {
      negated = true
      rest = rest.dropFirst()
    }
    guard let (spec, consumed) = PhraseTables.expectations.match(rest) else {
      let phrases = Vocabulary.expectations.map { $0.phrase.joined(separator: " ") }
      let written = rest.prefix(2).map(\.text).joined(separator: " ")
      if let target = rest.first {
        error(
          line, target, "unknown expectation '\(written)'",
          hint: suggestion(written, phrases) ?? suggestion(target.text, phrases)
            ?? "expectations: \(phrases.joined(separator: ", "))")
      } else {
        missing(line, "expected what to expect", hint: "for example: expect status 200")
      }
      return nil
    }
    if negated && !spec.negatable {
      error(
        line, tokens.first, "'expect \(spec.phrase.joined(separator: " "))' cannot be negated",
        hint: "write the positive expectation that should hold instead")
      return nil
    }
    guard
      let arguments = parseArguments(
        line, rest.dropFirst(consumed), spec.parameters, scenario: scenario, synopsis: spec.synopsis
      )
    else {
      return nil
    }
    return StepLine(
      kind: .expectation(spec, negated: negated), arguments: arguments, condition: condition,
      actor: nil, text: "expect " + tokens.map(\.text).joined(separator: " "),
      location: location(line, tokens.first))
  }

  /// The spec whose phrase the tokens start with (longest first), and the phrase's length.
  /// Fills `parameters` from `tokens`: flags and keyword parameters anywhere, positional ones
  /// in order.
  func parseArguments(
    _ line: SourceLine, _ tokens: ArraySlice<Token>, _ parameters: [Parameter], scenario: Scenario,
    synopsis: String
  ) -> Arguments? {
    var arguments = Arguments()
    var positional = parameters.filter { $0.keyword == nil && !$0.isFlag }[...]
    var rest = tokens
    var ok = true
    while let token = rest.first {
      rest = rest.dropFirst()
      if token.kind == .comma {
        continue
      }
      if token.kind == .word,
        let flag = parameters.first(where: { $0.isFlag && $0.name == token.text })
      {
        arguments.flags.insert(flag.name)
        continue
      }
      if token.kind == .word, let keyed = parameters.first(where: { $0.keyword == token.text }) {
        guard let value = rest.first else {
          missing(line, "expected a value after '\(token.text)'", hint: "usage: \(synopsis)")
          return nil
        }
        rest = rest.dropFirst()
        if validate(line, value, keyed, scenario: scenario) {
          arguments.values[keyed.name] = value.text
        } else {
          ok = false
        }
        continue
      }
      guard let parameter = positional.first else {
        let words = parameters.filter(\.isFlag).map(\.name) + parameters.compactMap(\.keyword)
        error(
          line, token, "unexpected '\(token.text)'",
          hint: suggestion(token.text, words).map { "did you mean '\($0)'? usage: \(synopsis)" }
            ?? "usage: \(synopsis)")
        return nil
      }
      positional = positional.dropFirst()
      if validate(line, token, parameter, scenario: scenario) {
        arguments.values[parameter.name] = token.text
      } else {
        ok = false
      }
    }
    if let missingParameter = positional.first(where: { !$0.isOptional }) {
      missing(line, "expected \(missingParameter.synopsis)", hint: "usage: \(synopsis)")
      return nil
    }
    return ok ? arguments : nil
  }

  func validate(_ line: SourceLine, _ token: Token, _ parameter: Parameter, scenario: Scenario)
    -> Bool
  {
    switch parameter.kind {
    case .choice(let words):
      if !words.contains(token.text) {
        error(
          line, token, "'\(token.text)' is not one of \(words.joined(separator: ", "))",
          hint: suggestion(token.text, words) ?? "use one of: \(words.joined(separator: ", "))")
        return false
      }
    case .integer:
      guard let n = Int(token.text), (-1_000_000...1_000_000).contains(n) else {
        error(
          line, token, "'\(token.text)' is not a whole number from -1000000 to 1000000")
        return false
      }
    case .duration:
      if Durations.parse(token.text) == nil {
        error(
          line, token, "'\(token.text)' is not a duration of at most ten years",
          hint: "write it like 500ms, 61s, 10m or 12h")
        return false
      }
    case .user:
      if !scenario.users.contains(token.text) {
        error(
          line, token, "unknown user '\(token.text)'",
          hint: suggestion(token.text, scenario.users)
            ?? "declare it before the first step: user \(token.text)")
        return false
      }
    case .app:
      if !scenario.apps.contains(where: { $0.name == token.text }) {
        error(
          line, token, "unknown app '\(token.text)'",
          hint: suggestion(token.text, scenario.apps.map(\.name))
            ?? "declare it before the first step: app \(token.text) on DEVICE")
        return false
      }
    case .location:
      if !(token.text.hasPrefix("/") || token.text.contains("://")) {
        error(
          line, token, "'\(token.text)' is neither a path nor a URL",
          hint: "paths start with '/': /api/v1.0/config/")
        return false
      }
    case .text:
      break
    }
    return true
  }
}

/// The vocabulary's phrases by their first word, built once: a line is matched against the
/// few phrases that start with its first word, not against every spec (parsing the catalogue
/// is most of a one-scenario run's work).
struct PhraseTable<Spec: Sendable>: Sendable {
  let specs: [Spec]
  private let byFirstWord: [String: [(index: Int, phrase: [String])]]

  init(_ specs: [Spec], phrase: (Spec) -> [String]) {
    self.specs = specs
    var table: [String: [(index: Int, phrase: [String])]] = [:]
    for (index, spec) in specs.enumerated() {
      let words = phrase(spec)
      guard let first = words.first else { continue }
      table[first, default: []].append((index, words))
    }
    byFirstWord = table
  }

  /// The spec whose phrase starts `tokens`, the longest when several do, and its length.
  func match(_ tokens: ArraySlice<Token>) -> (Spec, Int)? {
    guard let first = tokens.first?.text, let entries = byFirstWord[first] else { return nil }
    var best: (index: Int, length: Int)?
    for entry in entries where entry.phrase.count > (best?.length ?? 0) {
      guard tokens.count >= entry.phrase.count,
        zip(tokens, entry.phrase).allSatisfy({ $0.text == $1 })
      else { continue }
      best = (entry.index, entry.phrase.count)
    }
    return best.map { (specs[$0.index], $0.length) }
  }
}

/// The tables of the vocabulary, built on first use.
enum PhraseTables {
  static let appActions = PhraseTable(
    Vocabulary.actions.filter { $0.actor == .app }, phrase: \.phrase)
  static let worldActions = PhraseTable(
    Vocabulary.actions.filter { $0.actor == .world }, phrase: \.phrase)
  static let expectations = PhraseTable(Vocabulary.expectations, phrase: \.phrase)
}
