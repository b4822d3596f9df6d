import Foundation
import QualifyCore

/// Evaluates the expressions Gradle scripts use for identity and placeholders:
/// string literals and templates, `System.getenv`, `?:`, `?.trim()`, `project.findProperty`,
/// `rootProject.ext.x`, map literals (`[k: v]`, `mapOf("k" to v)`), local `def`/`val`.
struct GradleEvaluator {
  indirect enum Value: Sendable {
    case string(String)
    case null
    case bool(Bool)
    case map([(String, Value)])
    case list([Value])
    /// A receiver qualify knows (`System`, `project`, `rootProject.ext`).
    case object(String)
    case unknown(String)

    var string: String? { if case .string(let s) = self { return s } else { return nil } }

    /// Groovy truth (Kotlin's `?:` only tests null, which `kotlin` selects).
    func isAbsent(kotlin: Bool) -> Bool {
      switch self {
      case .null: return true
      case .string(let s): return !kotlin && s.isEmpty
      case .bool(let b): return !kotlin && !b
      default: return false
      }
    }
  }

  let tokens: [GradleToken]
  let file: String
  let environment: EnvLayers
  let ext: [String: String]
  let properties: [String: String]
  let kotlin: Bool
  var variables: [String: Range<Int>] = [:]
  /// The synced `capacitor.config.json` and where it came from, when the build has one.
  var syncedConfig: (json: JSONValue, file: String)?
  var derivation: [String] = []
  var decidedAt: FileLocation?

  init(
    tokens: [GradleToken], file: String, environment: EnvLayers, ext: [String: String],
    properties: [String: String], kotlin: Bool
  ) {
    self.tokens = tokens
    self.file = file
    self.environment = environment
    self.ext = ext
    self.properties = properties
    self.kotlin = kotlin
  }

  // MARK: Blocks and statements

  /// The token range inside `name { … }` (or `getByName("name") { … }`,
  /// `named("name") { … }`, `create("name") { … }`) found directly in `range`.
  func block(named name: String, in range: Range<Int>) -> Range<Int>? {
    var index = range.lowerBound
    while index < range.upperBound {
      let token = tokens[index]
      if token.kind == .symbol, token.text == "{",
        let end = GradleLexer.matching(tokens, from: index)
      {
        // Is this block introduced by `name` or `getByName("name")`?
        if index > range.lowerBound {
          let before = tokens[index - 1]
          if before.isIdentifier(name) { return (index + 1)..<end }
          if before.isSymbol(")"), index >= range.lowerBound + 4,
            tokens[index - 2].literal == name, tokens[index - 3].isSymbol("("),
            ["getByName", "named", "create", "maybeCreate", "register"].contains(
              tokens[index - 4].text)
          {
            return (index + 1)..<end
          }
        }
        index = end + 1
        continue
      }
      index += 1
    }
    return nil
  }

  /// Records `def`/`val`/`var NAME = expr` declared directly in `range`.
  mutating func collectVariables(in range: Range<Int>) {
    var index = range.lowerBound
    while index < range.upperBound {
      let token = tokens[index]
      if token.kind == .symbol, ["{", "(", "["].contains(token.text),
        let end = GradleLexer.matching(tokens, from: index)
      {
        index = end + 1
        continue
      }
      if ["def", "val", "var"].contains(token.text), token.kind == .identifier,
        index + 2 < range.upperBound, tokens[index + 1].kind == .identifier
      {
        var cursor = index + 2
        // `val x: String = …`
        if tokens[cursor].isSymbol(":") { cursor += 2 }
        if cursor < range.upperBound, tokens[cursor].isSymbol("=") {
          var probe = self
          let end = probe.expressionEnd(from: cursor + 1, limit: range.upperBound)
          variables[tokens[index + 1].text] = (cursor + 1)..<end
          index = end
          continue
        }
      }
      index += 1
    }
  }

  /// Applies the identity and placeholder declarations of one block.
  mutating func declarations(in range: Range<Int>, into script: inout GradleScript) {
    var index = range.lowerBound
    while index < range.upperBound {
      let token = tokens[index]
      if token.kind == .symbol, token.text == "{",
        let end = GradleLexer.matching(tokens, from: index)
      {
        index = end + 1
        continue
      }
      guard token.kind == .identifier else {
        index += 1
        continue
      }
      switch token.text {
      case "applicationId", "applicationIdSuffix", "versionName", "versionCode", "debuggable",
        "isDebuggable":
        let (resolved, end) = assignedValue(after: index, limit: range.upperBound)
        switch token.text {
        case "applicationId": script.applicationId = resolved
        case "versionName": script.versionName = resolved
        case "versionCode": script.versionCode = resolved
        case "debuggable", "isDebuggable": script.debuggable = resolved
        default:
          if var id = script.applicationId, let base = id.value, let suffix = resolved.value {
            id.value = base + suffix
            id.derivation += ["applicationIdSuffix \"\(suffix)\" (\(file):\(token.line))"]
            script.applicationId = id
          }
        }
        index = max(end, index + 1)
      case "manifestPlaceholders":
        index = placeholderStatement(at: index, limit: range.upperBound, into: &script)
      case "addManifestPlaceholders":
        if index + 1 < range.upperBound, tokens[index + 1].isSymbol("(") {
          let (map, end) = mapArgument(from: index + 2, limit: range.upperBound)
          merge(map, line: token.line, into: &script)
          index = end
        } else {
          index += 1
        }
      default:
        index += 1
      }
    }
  }

  /// The value `name value` or `name = value` (Groovy's call form and Kotlin's assignment)
  /// gives the declaration at `index`, and where it ends.
  private mutating func assignedValue(after index: Int, limit: Int) -> (ResolvedValue, Int) {
    var cursor = index + 1
    if cursor < limit, tokens[cursor].isSymbol("=") { cursor += 1 }
    return resolve(from: cursor, limit: limit, line: tokens[index].line)
  }

  private mutating func placeholderStatement(
    at start: Int, limit: Int, into script: inout GradleScript
  ) -> Int {
    let line = tokens[start].line
    var cursor = start + 1
    guard cursor < limit else { return limit }
    let next = tokens[cursor]
    if next.isSymbol("=") || next.isSymbol("+=") {
      if next.isSymbol("=") { script.placeholders = [:] }
      let (map, end) = mapArgument(from: cursor + 1, limit: limit)
      merge(map, line: line, into: &script)
      return end
    }
    if next.isSymbol("["), cursor + 3 < limit, let key = tokens[cursor + 1].literal,
      tokens[cursor + 2].isSymbol("]"), tokens[cursor + 3].isSymbol("=")
    {
      let (resolved, end) = resolve(from: cursor + 4, limit: limit, line: line)
      script.placeholders[key] = resolved
      return end
    }
    if next.isSymbol("."), cursor + 1 < limit {
      let member = tokens[cursor + 1]
      cursor += 2
      if ["put", "set"].contains(member.text), cursor < limit, tokens[cursor].isSymbol("("),
        cursor + 2 < limit, let key = tokens[cursor + 1].literal, tokens[cursor + 2].isSymbol(",")
      {
        let (resolved, end) = resolve(from: cursor + 3, limit: limit, line: line)
        script.placeholders[key] = resolved
        return end
      }
      if member.text == "putAll", cursor < limit, tokens[cursor].isSymbol("(") {
        let (map, end) = mapArgument(from: cursor + 1, limit: limit)
        merge(map, line: line, into: &script)
        return end
      }
      if cursor < limit, tokens[cursor].isSymbol("=") {
        let (resolved, end) = resolve(from: cursor + 1, limit: limit, line: line)
        script.placeholders[member.text] = resolved
        return end
      }
    }
    return start + 1
  }

  private mutating func mapArgument(from start: Int, limit: Int) -> ([(String, ResolvedValue)], Int)
  {
    derivation = []
    decidedAt = nil
    var cursor = start
    let value = expression(&cursor, limit: limit)
    guard case .map(let entries) = value else {
      return ([], max(cursor, start + 1))
    }
    return (
      entries.map { key, value in
        (key, resolvedValue(value, line: tokens[min(start, tokens.count - 1)].line))
      }, cursor
    )
  }

  private func merge(_ map: [(String, ResolvedValue)], line: Int, into script: inout GradleScript) {
    for (key, value) in map { script.placeholders[key] = value }
  }

  mutating func resolve(from start: Int, limit: Int, line: Int) -> (ResolvedValue, Int) {
    derivation = []
    decidedAt = nil
    var cursor = start
    let value = expression(&cursor, limit: limit)
    return (resolvedValue(value, line: line), max(cursor, start))
  }

  func resolvedValue(_ value: Value, line: Int) -> ResolvedValue {
    let location = decidedAt ?? FileLocation(file: file, line: line, column: 1)
    switch value {
    case .string(let s):
      return ResolvedValue(value: s, derivation: derivation, location: location, unresolved: nil)
    case .bool(let b):
      // AGP stringifies placeholder values (`[usesCleartextTraffic: true]` gives "true").
      return ResolvedValue(
        value: String(b), derivation: derivation, location: location, unresolved: nil)
    case .null:
      return ResolvedValue(
        value: nil, derivation: derivation, location: location,
        unresolved: "it evaluates to null")
    case .unknown(let why):
      return ResolvedValue(value: nil, derivation: derivation, location: location, unresolved: why)
    default:
      return ResolvedValue(
        value: nil, derivation: derivation, location: location,
        unresolved: "it is not a string")
    }
  }
}
