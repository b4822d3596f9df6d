import Artifacts
import Foundation
import QualifyCore

/// Parses `.scenario` files into `Scenario`s, reporting every error of a file with its line,
/// column, a caret and a hint (docs/scenario-language.md).
public struct ScenarioParser {
  public init() {}

  /// Parses `text` read from `file`; `id` defaults to the file's `<pack>/<name>`.
  /// - Returns: the scenario, or nil when `diagnostics` received errors for this file.
  public func parse(text: String, file: String, id: String? = nil, diagnostics: DiagnosticsEngine)
    -> Scenario?
  {
    var state = State(file: file, diagnostics: diagnostics)
    let lines = Lexer.lines(of: text, file: file, diagnostics: diagnostics)
    let errorsBefore = diagnostics.errorCount
    var scenario = Scenario(id: id ?? ScenarioParser.identifier(for: file), title: "", file: file)
    state.parse(lines, into: &scenario)
    state.validate(&scenario, lastLine: lines.last)
    return diagnostics.errorCount > errorsBefore ? nil : scenario
  }

  /// `<pack>/<name>` of a file: its directory's name and its base name.
  public static func identifier(for file: String) -> String {
    let url = URL(fileURLWithPath: file)
    let name = url.deletingPathExtension().lastPathComponent
    let pack = url.deletingLastPathComponent().lastPathComponent
    return "\(pack)/\(name)"
  }
}

private enum Section {
  case start, header, steps, controls
}

private struct State {
  let file: String
  let diagnostics: DiagnosticsEngine
  var section = Section.start
  var sawScenario = false
  var failsAtTitles: [(controlIndex: Int, title: String, token: Token, line: SourceLine)] = []
  /// Every line's text by number, so diagnostics found after parsing can still show it.
  var sourceText: [Int: String] = [:]

  init(file: String, diagnostics: DiagnosticsEngine) {
    self.file = file
    self.diagnostics = diagnostics
  }

  func location(_ line: SourceLine, _ token: Token?) -> FileLocation {
    FileLocation(file: file, line: line.number, column: token?.column ?? (line.indent + 1))
  }

  func error(_ line: SourceLine, _ token: Token?, _ message: String, hint: String? = nil) {
    diagnostics.emit(
      .error(
        at: location(line, token), message, hint: hint, sourceLine: line.text,
        length: token?.length ?? max(1, line.text.count - line.indent)))
  }

  /// The error at the end of a line, where something is missing.
  func missing(_ line: SourceLine, _ message: String, hint: String? = nil) {
    let last = line.tokens.last
    let column = (last.map { $0.column + $0.length }) ?? (line.indent + 1)
    diagnostics.emit(
      .error(
        at: FileLocation(file: file, line: line.number, column: column), message, hint: hint,
        sourceLine: line.text))
  }

  static let headerKeywords = [
    "about", "checklist", "supports", "requires", "platforms", "channels", "tags", "timeout",
    "idp",
  ]
  static let setupKeywords = ["device", "app", "user"]
  static let controlKeywords = ["mutate", "fails", "because", "platforms", "channels"]

  mutating func parse(_ lines: [SourceLine], into scenario: inout Scenario) {
    for line in lines { sourceText[line.number] = line.text }
    for line in lines {
      guard let head = line.tokens.first else { continue }
      let keyword = head.kind == .word ? head.text : ""
      if !sawScenario {
        guard keyword == "scenario" else {
          error(
            line, head, "a scenario file starts with 'scenario \"TITLE\"'",
            hint: head.kind == .word
              ? Suggestions.closest(to: keyword, among: ["scenario"]).map {
                "did you mean '\($0)'?"
              } : nil)
          sawScenario = true
          continue
        }
        sawScenario = true
        section = .header
        guard let title = stringArgument(line, at: 1, what: "the scenario's title") else {
          continue
        }
        scenario.title = title
        expectEnd(line, after: 2)
        continue
      }
      switch keyword {
      case "scenario":
        error(
          line, head, "a file holds one scenario",
          hint: "put the second scenario in its own .scenario file")
      case "step":
        if section == .controls {
          error(
            line, head, "steps come before the controls",
            hint: "move this step above the first 'control'")
          continue
        }
        section = .steps
        let title = stringArgument(line, at: 1, what: "the step's title") ?? ""
        expectEnd(line, after: 2)
        scenario.steps.append(
          Step(index: scenario.steps.count + 1, title: title, location: location(line, head)))
      case "control":
        if scenario.steps.isEmpty {
          error(line, head, "a control comes after the steps it makes fail")
        }
        section = .controls
        let name = stringArgument(line, at: 1, what: "the control's name") ?? ""
        expectEnd(line, after: 2)
        scenario.controls.append(Control(name: name, location: location(line, head)))
      default:
        switch section {
        case .start, .header:
          parseHeader(line, keyword: keyword, into: &scenario)
        case .steps:
          if State.headerKeywords.contains(keyword) || State.setupKeywords.contains(keyword) {
            error(
              line, head, "'\(keyword)' belongs before the first step",
              hint: "move it up, next to the scenario's other declarations")
            continue
          }
          if let parsed = parseStepLine(
            line, tokens: line.tokens[...], scenario: scenario, condition: nil)
          {
            scenario.steps[scenario.steps.count - 1].lines.append(parsed)
          }
        case .controls:
          parseControlLine(line, keyword: keyword, scenario: &scenario)
        }
      }
    }
  }

  // MARK: Header and setup

  mutating func parseHeader(_ line: SourceLine, keyword: String, into scenario: inout Scenario) {
    let head = line.tokens[0]
    let rest = Array(line.tokens.dropFirst())
    switch keyword {
    case "about":
      if let text = stringArgument(line, at: 1, what: "the text") { scenario.about.append(text) }
      expectEnd(line, after: 2)
    case "checklist", "supports":
      let items = listWords(line)
      if items.isEmpty {
        missing(
          line, "expected checklist item numbers",
          hint: "seed 000's release checklist has items 1 to 8")
      }
      for token in items {
        guard let n = Int(token.text), (1...8).contains(n) else {
          error(
            line, token, "'\(token.text)' is not a release checklist item",
            hint: "seed 000's release checklist has items 1 to 8")
          continue
        }
        if keyword == "checklist" {
          scenario.checklist.append(n)
        } else {
          scenario.supports.append(n)
        }
      }
    case "requires":
      let words = listWords(line)
      if words.isEmpty {
        missing(
          line, "expected a feature",
          hint:
            "features are \(AppProfile.Feature.allCases.map(\.rawValue).joined(separator: ", "))")
      }
      for token in words {
        guard let feature = AppProfile.Feature(rawValue: token.text) else {
          error(
            line, token, "unknown feature '\(token.text)'",
            hint: suggestion(token.text, AppProfile.Feature.allCases.map(\.rawValue))
              ?? "features are \(AppProfile.Feature.allCases.map(\.rawValue).joined(separator: ", "))"
          )
          continue
        }
        scenario.requires.append(feature)
      }
    case "platforms":
      if let platforms = parsePlatforms(line) { scenario.platforms = platforms }
    case "channels":
      if let channels = parseChannels(line) { scenario.channels = channels }
    case "tags":
      let tags = listWords(line)
      if tags.isEmpty { missing(line, "expected at least one tag") }
      scenario.tags += tags.map(\.text)
    case "timeout":
      guard let token = rest.first else {
        missing(line, "expected a duration", hint: "for example: timeout 5s")
        return
      }
      guard let seconds = Durations.parse(token.text), seconds > 0 else {
        error(
          line, token, "'\(token.text)' is not a duration", hint: "write it like 500ms, 5s or 2m")
        return
      }
      scenario.timeout = seconds
      expectEnd(line, after: 2)
    case "idp":
      guard let token = rest.first else {
        missing(
          line, "expected an identity provider profile",
          hint: "use one of: \(AppProfile.identityProviders.joined(separator: ", "))")
        return
      }
      guard AppProfile.identityProviders.contains(token.text) else {
        error(
          line, token, "unknown identity provider profile '\(token.text)'",
          hint: suggestion(token.text, AppProfile.identityProviders)
            ?? "use one of: \(AppProfile.identityProviders.joined(separator: ", "))")
        return
      }
      scenario.identityProvider = token.text
      expectEnd(line, after: 2)
    case "device":
      parseDevice(line, into: &scenario)
    case "app":
      parseApp(line, into: &scenario)
    case "user":
      guard let token = rest.first, token.kind == .word else {
        missing(
          line, "expected a user role",
          hint:
            "users are roles: \(AppProfile.userRoles.joined(separator: ", ")) (bound to the app's test users)"
        )
        return
      }
      guard AppProfile.userRoles.contains(token.text) else {
        error(
          line, token, "'\(token.text)' is not a user role",
          hint:
            "users are roles bound to the app's test users (qualify.json testUsers, or the realm export's users in order): \(AppProfile.userRoles.joined(separator: ", "))"
        )
        return
      }
      if scenario.users.contains(token.text) {
        error(line, token, "user '\(token.text)' is already declared")
      }
      scenario.users.append(token.text)
      expectEnd(line, after: 2)
    case "expect", "on", "mutate", "fails", "because":
      error(
        line, head,
        "'\(keyword)' belongs inside a \(keyword == "expect" || keyword == "on" ? "step" : "control")",
        hint: keyword == "expect" || keyword == "on"
          ? "start a step first: step \"TITLE\"" : "start a control first: control \"NAME\"")
    default:
      let known = ["scenario", "step", "control"] + State.headerKeywords + State.setupKeywords
      error(
        line, head, "unknown statement '\(head.text)'",
        hint: suggestion(head.text, known)
          ?? "before the first step a scenario declares: \(known.joined(separator: ", "))")
    }
  }

  mutating func parseDevice(_ line: SourceLine, into scenario: inout Scenario) {
    let tokens = Array(line.tokens.dropFirst())
    guard let name = tokens.first, name.kind == .word else {
      missing(line, "expected a device name", hint: "for example: device phone")
      return
    }
    if scenario.devices.contains(where: { $0.name == name.text }) {
      error(line, name, "device '\(name.text)' is already declared")
    }
    var declaration = DeviceDeclaration(
      name: name.text, browser: nil, hasPlayServices: true, location: location(line, name))
    var index = 1
    while index < tokens.count {
      let token = tokens[index]
      switch token.text {
      case "browser":
        guard index + 1 < tokens.count else {
          missing(
            line, "expected a browser kind after 'browser'",
            hint: "one of: \(Vocabulary.browserKinds.joined(separator: ", "))")
          return
        }
        let kind = tokens[index + 1]
        if !Vocabulary.browserKinds.contains(kind.text) {
          error(
            line, kind, "unknown browser kind '\(kind.text)'",
            hint: suggestion(kind.text, Vocabulary.browserKinds)
              ?? "one of: \(Vocabulary.browserKinds.joined(separator: ", "))")
        }
        declaration.browser = kind.text
        index += 2
      case "without":
        guard index + 1 < tokens.count, tokens[index + 1].text == "play-services" else {
          error(line, token, "expected 'without play-services'")
          return
        }
        declaration.hasPlayServices = false
        index += 2
      default:
        error(
          line, token, "unexpected '\(token.text)' in a device declaration",
          hint: "a device is declared as: device NAME [browser KIND] [without play-services]")
        return
      }
    }
    scenario.devices.append(declaration)
  }

  mutating func parseApp(_ line: SourceLine, into scenario: inout Scenario) {
    let tokens = Array(line.tokens.dropFirst())
    guard let name = tokens.first, name.kind == .word else {
      missing(line, "expected an app name", hint: "for example: app mail on phone")
      return
    }
    guard tokens.count >= 3, tokens[1].text == "on" else {
      if tokens.count >= 2 {
        error(line, tokens[1], "expected 'on DEVICE'")
      } else {
        missing(line, "expected 'on DEVICE'", hint: "for example: app \(name.text) on phone")
      }
      return
    }
    let device = tokens[2]
    if !scenario.devices.contains(where: { $0.name == device.text }) {
      error(
        line, device, "unknown device '\(device.text)'",
        hint: suggestion(device.text, scenario.devices.map(\.name))
          ?? "declare it first: device \(device.text)")
    }
    if scenario.apps.contains(where: { $0.name == name.text })
      || scenario.devices.contains(where: { $0.name == name.text })
    {
      error(line, name, "'\(name.text)' is already declared")
    }
    var role = AppDeclaration.Role.underTest
    if tokens.count > 3 {
      if tokens.count == 5, tokens[3].text == "as", tokens[4].text == "companion" {
        role = .companion
      } else {
        error(
          line, tokens[3], "unexpected '\(tokens[3].text)'",
          hint: "an app is declared as: app NAME on DEVICE [as companion]")
      }
    }
    scenario.apps.append(
      AppDeclaration(
        name: name.text, device: device.text, role: role, location: location(line, name)))
  }

  // MARK: Steps

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
    let candidates: [ActionSpec]
    if appNames.contains(head.text) {
      actor = head.text
      rest = tokens.dropFirst()
      candidates = Vocabulary.actions.filter { $0.actor == .app }
    } else {
      candidates = Vocabulary.actions.filter { $0.actor == .world }
    }
    guard let (spec, consumed) = match(rest, candidates.map { ($0, $0.phrase) }) else {
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
    guard let (spec, consumed) = match(rest, Vocabulary.expectations.map { ($0, $0.phrase) }) else {
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
  func match<Spec>(_ tokens: ArraySlice<Token>, _ specs: [(Spec, [String])]) -> (Spec, Int)? {
    let words = tokens.map(\.text)
    var best: (Spec, Int)?
    for (spec, phrase) in specs where words.starts(with: phrase) && !phrase.isEmpty {
      if phrase.count > (best?.1 ?? 0) { best = (spec, phrase.count) }
    }
    return best
  }

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

  // MARK: Controls

  mutating func parseControlLine(_ line: SourceLine, keyword: String, scenario: inout Scenario) {
    let head = line.tokens[0]
    let index = scenario.controls.count - 1
    switch keyword {
    case "mutate":
      guard let nameToken = line.tokens.dropFirst().first else {
        missing(
          line, "expected a mutation name",
          hint: "for example: mutate shell.ignores-transport-policy")
        return
      }
      let names = Vocabulary.mutations.map(\.name)
      guard let spec = Vocabulary.mutations.first(where: { $0.name == nameToken.text }) else {
        error(
          line, nameToken, "unknown mutation '\(nameToken.text)'",
          hint: suggestion(nameToken.text, names)
            ?? "`qualify list --vocabulary` lists the mutations")
        return
      }
      guard
        let arguments = parseArguments(
          line, line.tokens.dropFirst(2), spec.parameters, scenario: scenario,
          synopsis: spec.synopsis)
      else {
        return
      }
      scenario.controls[index].mutations.append(
        MutationUse(
          spec: spec, arguments: arguments,
          text: line.tokens.dropFirst().map(\.text).joined(separator: " "),
          location: location(line, nameToken)))
    case "fails":
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
      if let text = stringArgument(line, at: 1, what: "the expected failure text") {
        scenario.controls[index].because = text
      }
      expectEnd(line, after: 2)
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
        hint: suggestion(head.text, State.controlKeywords + ["control"])
          ?? "controls hold: \(State.controlKeywords.joined(separator: ", "))")
    }
  }

  // MARK: Validation

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
    if scenario.steps.isEmpty {
      report(fileStart, "the scenario has no steps", hint: "add one: step \"TITLE\"")
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
    if scenario.apps.filter({ $0.role == .underTest }).isEmpty && !scenario.apps.isEmpty {
      report(
        scenario.apps[0].location, "no app under qualification",
        hint: "declare one app without 'as companion'")
    }
  }

  // MARK: Helpers

  func stringArgument(_ line: SourceLine, at index: Int, what: String) -> String? {
    guard index < line.tokens.count else {
      missing(line, "expected \(what) in double quotes")
      return nil
    }
    let token = line.tokens[index]
    guard token.kind == .string else {
      error(line, token, "expected \(what) in double quotes", hint: "write it as \"\(token.text)\"")
      return nil
    }
    return token.text
  }

  func expectEnd(_ line: SourceLine, after count: Int) {
    if line.tokens.count > count {
      let extra = line.tokens[count]
      error(line, extra, "unexpected '\(extra.text)' at the end of the line")
    }
  }

  func listWords(_ line: SourceLine) -> [Token] {
    line.tokens.dropFirst().filter { $0.kind == .word }
  }

  func parsePlatforms(_ line: SourceLine) -> [Platform]? {
    let words = listWords(line)
    if words.isEmpty {
      missing(line, "expected ios, android or both")
      return nil
    }
    var out: [Platform] = []
    for token in words {
      guard let platform = Platform(rawValue: token.text) else {
        error(
          line, token, "unknown platform '\(token.text)'",
          hint: suggestion(token.text, ["ios", "android"]) ?? "platforms are ios and android")
        return nil
      }
      out.append(platform)
    }
    return out
  }

  func parseChannels(_ line: SourceLine) -> [Channel]? {
    let words = listWords(line)
    if words.isEmpty {
      missing(line, "expected channels (dev, staging, prod, release)")
      return nil
    }
    var out: [Channel] = []
    for token in words {
      if token.text == "release" {
        out += Channel.allCases.filter(\.isRelease)
        continue
      }
      guard let channel = Channel(rawValue: token.text) else {
        error(
          line, token, "unknown channel '\(token.text)'",
          hint: suggestion(token.text, ["dev", "staging", "prod", "release"])
            ?? "channels are dev, staging, prod (release = staging and prod)")
        return nil
      }
      out.append(channel)
    }
    return out
  }

  func suggestion(_ word: String, _ candidates: [String]) -> String? {
    Suggestions.closest(to: word, among: candidates).map { "did you mean '\($0)'?" }
  }
}
