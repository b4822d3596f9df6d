import Artifacts
import Foundation
import QualifyCore

/// The header keywords (`about`, `checklist`, `platforms`, …) and the setup lines (`device`, `app`, `user`).
extension ParserState {
  mutating func parseHeader(_ line: SourceLine, keyword: String, into scenario: inout Scenario) {
    let head = line.tokens[0]
    switch keyword {
    case "about":
      if let text = stringArgument(line, at: 1, what: "the text") { scenario.about.append(text) }
      expectEnd(line, after: 2)
    case "shell":
      parseShell(line, into: &scenario)
    case "checklist", "supports":
      parseChecklist(line, keyword: keyword, into: &scenario)
    case "requires":
      parseRequires(line, into: &scenario)
    case "given":
      if let use = parseMutation(line, scenario: scenario) { scenario.given.append(use) }
    case "platforms":
      if let platforms = parsePlatforms(line) { scenario.platforms = platforms }
    case "channels":
      if let channels = parseChannels(line) { scenario.channels = channels }
    case "ota-ordering":
      parseOTAOrdering(line, into: &scenario)
    case "tags":
      let tags = listWords(line)
      if tags.isEmpty { missing(line, "expected at least one tag") }
      scenario.tags += tags.map(\.text)
    case "timeout":
      parseTimeout(line, into: &scenario)
    case "idp":
      parseIdentityProvider(line, into: &scenario)
    case "device":
      parseDevice(line, into: &scenario)
    case "app":
      parseApp(line, into: &scenario)
    case "user":
      parseUser(line, into: &scenario)
    case "expect", "on", "mutate", "fails", "because":
      error(
        line, head,
        "'\(keyword)' belongs inside a \(keyword == "expect" || keyword == "on" ? "step" : "control")",
        hint: keyword == "expect" || keyword == "on"
          ? "start a step first: step \"TITLE\"" : "start a control first: control \"NAME\"")
    default:
      let known =
        ["scenario", "step", "control"] + ParserState.headerKeywords + ParserState.setupKeywords
      error(
        line, head, "unknown statement '\(head.text)'",
        hint: suggestion(head.text, known)
          ?? "before the first step a scenario declares: \(known.joined(separator: ", "))")
    }
  }

  /// `shell KIND`: before checklist and supports, once.
  mutating func parseShell(_ line: SourceLine, into scenario: inout Scenario) {
    let head = line.tokens[0]
    let rest = Array(line.tokens.dropFirst())
    let ids = ShellKind.all.map(\.id)
    guard let token = rest.first else {
      missing(
        line, "expected a shell kind", hint: "shell kinds are \(ids.joined(separator: ", "))")
      return
    }
    guard let kind = ShellKind.named(token.text) else {
      error(
        line, token, "unknown shell kind '\(token.text)'",
        hint: suggestion(token.text, ids) ?? "shell kinds are \(ids.joined(separator: ", "))")
      return
    }
    if sawShell {
      error(line, head, "the shell kind is given twice")
    }
    sawShell = true
    if !scenario.checklist.isEmpty || !scenario.supports.isEmpty {
      error(
        line, head, "the shell line comes before checklist and supports",
        hint: "checklist items are numbered in the shell kind's own checklist")
    }
    scenario.shell = kind
    expectEnd(line, after: 2)
  }

  /// `checklist N…` or `supports N…`: items of the shell kind's own checklist.
  mutating func parseChecklist(_ line: SourceLine, keyword: String, into scenario: inout Scenario) {
    let items = listWords(line)
    let numbers = scenario.shell.checklist.map(\.number)
    let range = "\(scenario.shell.source) has items \(numbers.first ?? 1) to \(numbers.last ?? 1)"
    if items.isEmpty {
      missing(line, "expected checklist item numbers", hint: range)
    }
    for token in items {
      guard let n = Int(token.text), numbers.contains(n) else {
        error(
          line, token, "'\(token.text)' is not a release checklist item", hint: range)
        continue
      }
      if keyword == "checklist" {
        scenario.checklist.append(n)
      } else {
        scenario.supports.append(n)
      }
    }
  }

  /// `requires FEATURE…`: the app features the scenario needs.
  mutating func parseRequires(_ line: SourceLine, into scenario: inout Scenario) {
    let words = listWords(line)
    if words.isEmpty {
      missing(
        line, "expected a feature",
        hint:
          "features are \(AppProfile.Feature.allCases.map(\.word).joined(separator: ", "))")
    }
    for token in words {
      guard let feature = AppProfile.Feature.allCases.first(where: { $0.word == token.text })
      else {
        error(
          line, token, "unknown feature '\(token.text)'",
          hint: suggestion(token.text, AppProfile.Feature.allCases.map(\.word))
            ?? "features are \(AppProfile.Feature.allCases.map(\.word).joined(separator: ", "))"
        )
        continue
      }
      scenario.requires.append(feature)
    }
  }

  /// `ota-ordering count|sequence`.
  mutating func parseOTAOrdering(_ line: SourceLine, into scenario: inout Scenario) {
    let words = listWords(line)
    guard words.count == 1, AppProfile.otaOrderings.contains(words[0].text) else {
      missing(
        line, "expected count or sequence",
        hint:
          "ota-ordering count: the app orders releases by <count>-<sha> ids; sequence: by the manifest's sequence"
      )
      return
    }
    scenario.otaOrdering = words[0].text
  }

  /// `timeout DURATION`.
  mutating func parseTimeout(_ line: SourceLine, into scenario: inout Scenario) {
    let rest = Array(line.tokens.dropFirst())
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
  }

  /// `idp PROFILE`.
  mutating func parseIdentityProvider(_ line: SourceLine, into scenario: inout Scenario) {
    let rest = Array(line.tokens.dropFirst())
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
  }

  /// `user ROLE`: one of the roles bound to the app's test users.
  mutating func parseUser(_ line: SourceLine, into scenario: inout Scenario) {
    let rest = Array(line.tokens.dropFirst())
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
}
