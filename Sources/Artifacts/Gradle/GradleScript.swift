import Foundation
import QualifyCore

/// A value a Gradle declaration resolves to, with how it was decided.
public struct ResolvedValue: Sendable, Equatable {
  /// The value, nil when the declaration cannot be evaluated here.
  public var value: String?
  /// One sentence per input that decided it (`MOBILE_AUTH_SCHEME is unset: …`).
  public var derivation: [String]
  /// Where the declaration is written.
  public var location: FileLocation?
  /// Why the value could not be resolved.
  public var unresolved: String?
}

/// What qualify reads of an Android `app/build.gradle` (or `build.gradle.kts`) for one build
/// type: the application id and the manifest placeholders as Gradle would resolve them in
/// the build environment, and the shape of the release-build guard.
public struct GradleScript: Sendable {
  public var file: String
  public var applicationId: ResolvedValue?
  /// Manifest placeholder → value (`authCallbackScheme` → `stmessages`).
  public var placeholders: [String: ResolvedValue]
  /// The `preReleaseBuild` hook, when the script has one.
  public var releaseGuard: GradleReleaseGuard?
  /// `versionName` and `versionCode` as the build type sees them: what the store shows and
  /// orders releases by.
  public var versionName: ResolvedValue?
  public var versionCode: ResolvedValue?

  /// Evaluates `text` for `buildType` (`release` or `debug`).
  /// - Parameters:
  ///   - environment: the build environment (`System.getenv`).
  ///   - ext: `rootProject.ext` values (from `variables.gradle`).
  ///   - properties: Gradle project properties (`project.findProperty`).
  public static func read(
    text: String, file: String, buildType: String, environment: EnvLayers,
    ext: [String: String] = [:], properties: [String: String] = [:]
  ) -> GradleScript {
    let tokens = GradleLexer.tokens(text)
    var evaluator = GradleEvaluator(
      tokens: tokens, file: file, environment: environment, ext: ext, properties: properties,
      kotlin: file.hasSuffix(".kts"))
    evaluator.collectVariables(in: 0..<tokens.count)
    var script = GradleScript(
      file: file, applicationId: nil, placeholders: [:], releaseGuard: nil)
    if let android = evaluator.block(named: "android", in: 0..<tokens.count) {
      if let defaults = evaluator.block(named: "defaultConfig", in: android) {
        evaluator.collectVariables(in: defaults)
        evaluator.declarations(in: defaults, into: &script)
      }
      if let types = evaluator.block(named: "buildTypes", in: android),
        let type = evaluator.block(named: buildType, in: types)
      {
        evaluator.collectVariables(in: type)
        // defaultConfig and the build type each hold their own placeholder map (an `=` in the
        // build type replaces only its own); AGP merges them key by key, the build type's
        // winning.
        let inherited = script.placeholders
        script.placeholders = [:]
        evaluator.declarations(in: type, into: &script)
        script.placeholders = inherited.merging(script.placeholders) { $1 }
      }
    }
    script.releaseGuard = GradleReleaseGuard.find(in: tokens, file: file)
    return script
  }

  /// The `ext { … }` values of a `variables.gradle`, literal ones only.
  public static func extValues(text: String) -> [String: String] {
    let tokens = GradleLexer.tokens(text)
    var out: [String: String] = [:]
    var index = 0
    while index + 2 < tokens.count {
      if tokens[index].kind == .identifier, tokens[index + 1].isSymbol("="),
        let literal = tokens[index + 2].literal
          ?? (tokens[index + 2].kind == .number
            ? tokens[index + 2].text : nil)
      {
        out[tokens[index].text] = literal
      }
      index += 1
    }
    return out
  }
}

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
      case "applicationId", "applicationIdSuffix":
        var cursor = index + 1
        if cursor < range.upperBound, tokens[cursor].isSymbol("=") { cursor += 1 }
        let (resolved, end) = resolve(from: cursor, limit: range.upperBound, line: token.line)
        if token.text == "applicationId" {
          script.applicationId = resolved
        } else if var id = script.applicationId, let base = id.value, let suffix = resolved.value {
          id.value = base + suffix
          id.derivation += ["applicationIdSuffix \"\(suffix)\" (\(file):\(token.line))"]
          script.applicationId = id
        }
        index = max(end, index + 1)
      case "versionName", "versionCode":
        var cursor = index + 1
        if cursor < range.upperBound, tokens[cursor].isSymbol("=") { cursor += 1 }
        let (resolved, end) = resolve(from: cursor, limit: range.upperBound, line: token.line)
        if token.text == "versionName" {
          script.versionName = resolved
        } else {
          script.versionCode = resolved
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

  private mutating func resolve(from start: Int, limit: Int, line: Int) -> (ResolvedValue, Int) {
    derivation = []
    decidedAt = nil
    var cursor = start
    let value = expression(&cursor, limit: limit)
    return (resolvedValue(value, line: line), max(cursor, start))
  }

  private func resolvedValue(_ value: Value, line: Int) -> ResolvedValue {
    let location = decidedAt ?? FileLocation(file: file, line: line, column: 1)
    switch value {
    case .string(let s):
      return ResolvedValue(value: s, derivation: derivation, location: location, unresolved: nil)
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

  /// Where an expression starting at `start` ends (for variable declarations).
  mutating func expressionEnd(from start: Int, limit: Int) -> Int {
    var cursor = start
    let saved = (derivation, decidedAt)
    _ = expression(&cursor, limit: limit)
    (derivation, decidedAt) = saved
    return max(cursor, start + 1)
  }

  // MARK: Expressions

  mutating func expression(_ i: inout Int, limit: Int, depth: Int = 0) -> Value {
    guard depth < 32 else { return .unknown("the expression nests too deeply") }
    var left = postfix(&i, limit: limit, depth: depth)
    while i < limit {
      if tokens[i].isSymbol("?:") {
        i += 1
        let leftAbsent = left.isAbsent(kotlin: kotlin)
        let right = expression(&i, limit: limit, depth: depth + 1)
        if leftAbsent {
          if case .string(let s) = right {
            derivation.append("so the default \"\(s)\" applies (\(file):\(tokens[i - 1].line))")
            decidedAt = FileLocation(file: file, line: tokens[i - 1].line, column: 1)
          }
          left = right
        }
      } else if tokens[i].isSymbol("+") {
        i += 1
        let right = postfix(&i, limit: limit, depth: depth + 1)
        if let a = left.string, let b = right.string {
          left = .string(a + b)
        } else {
          left = .unknown("a concatenation qualify cannot evaluate")
        }
      } else {
        break
      }
    }
    return left
  }

  private mutating func postfix(_ i: inout Int, limit: Int, depth: Int) -> Value {
    var value = primary(&i, limit: limit, depth: depth)
    while i < limit {
      let token = tokens[i]
      if token.isSymbol(".") || token.isSymbol("?.") {
        guard i + 1 < limit, tokens[i + 1].kind == .identifier else { break }
        let name = tokens[i + 1].text
        i += 2
        var arguments: [Value] = []
        var called = false
        if i < limit, tokens[i].isSymbol("(") {
          called = true
          arguments = self.arguments(&i, limit: limit, depth: depth)
        }
        if token.isSymbol("?."), case .null = value { continue }
        value = member(value, name, called: called, arguments: arguments)
      } else if token.isSymbol("[") {
        i += 1
        let key = expression(&i, limit: limit, depth: depth + 1)
        if i < limit, tokens[i].isSymbol("]") { i += 1 }
        if let key = key.string { value = member(value, key, called: false, arguments: []) }
      } else if token.isIdentifier("as"), i + 1 < limit {
        // `x as String`: a cast changes nothing qualify reads.
        i += 2
        if i < limit, tokens[i].isSymbol("?") { i += 1 }
      } else {
        break
      }
    }
    return value
  }

  private mutating func arguments(_ i: inout Int, limit: Int, depth: Int) -> [Value] {
    guard let end = GradleLexer.matching(tokens, from: i), end <= limit else {
      i = limit
      return []
    }
    var out: [Value] = []
    var cursor = i + 1
    while cursor < end {
      out.append(expression(&cursor, limit: end, depth: depth + 1))
      if cursor < end, tokens[cursor].isSymbol(",") {
        cursor += 1
      } else if cursor < end, tokens[cursor].isIdentifier("to") {
        // Kotlin's `"k" to v` pair inside mapOf(…).
        cursor += 1
        let second = expression(&cursor, limit: end, depth: depth + 1)
        if let key = out.popLast()?.string { out.append(.map([(key, second)])) }
        if cursor < end, tokens[cursor].isSymbol(",") { cursor += 1 }
      } else {
        break
      }
    }
    i = end + 1
    return out
  }

  private mutating func primary(_ i: inout Int, limit: Int, depth: Int) -> Value {
    guard i < limit else { return .unknown("an expression is missing") }
    let token = tokens[i]
    switch token.kind {
    case .string(let parts):
      i += 1
      var out = ""
      for part in parts {
        switch part {
        case .text(let t): out += t
        case .interpolation(let source):
          let inner = GradleLexer.tokens(source)
          var nested = GradleEvaluator(
            tokens: inner, file: file, environment: environment, ext: ext,
            properties: properties, kotlin: kotlin)
          nested.variables = [:]
          var cursor = 0
          // Interpolations may name this script's variables.
          let value: Value
          if inner.count == 1, inner[0].kind == .identifier, let range = variables[inner[0].text] {
            var start = range.lowerBound
            value = expression(&start, limit: range.upperBound, depth: depth + 1)
          } else {
            value = nested.expression(&cursor, limit: inner.count, depth: depth + 1)
            derivation += nested.derivation
          }
          guard let s = value.string else {
            return .unknown("the template \"\(token.text)\" has a part qualify cannot evaluate")
          }
          out += s
        }
      }
      return .string(out)
    case .number:
      i += 1
      return .string(token.text)
    case .symbol:
      if token.text == "(" {
        i += 1
        let value = expression(&i, limit: limit, depth: depth + 1)
        if i < limit, tokens[i].isSymbol(")") { i += 1 }
        return value
      }
      if token.text == "[" {
        return collection(&i, limit: limit, depth: depth)
      }
      if token.text == "!" {
        i += 1
        let value = postfix(&i, limit: limit, depth: depth + 1)
        return .bool(value.isAbsent(kotlin: kotlin))
      }
      return .unknown("unexpected '\(token.text)'")
    case .identifier:
      i += 1
      switch token.text {
      case "null": return .null
      case "true": return .bool(true)
      case "false": return .bool(false)
      case "System", "project", "rootProject", "ext", "Integer", "providers":
        return .object(token.text)
      case "new":
        // `new groovy.json.JsonSlurper()…`: not a value qualify evaluates.
        while i < limit, tokens[i].kind == .identifier || tokens[i].isSymbol(".") { i += 1 }
        if i < limit, tokens[i].isSymbol("(") { _ = arguments(&i, limit: limit, depth: depth) }
        return .unknown("an object built at configuration time")
      case "mapOf", "mutableMapOf", "hashMapOf":
        guard i < limit, tokens[i].isSymbol("(") else { return .unknown(token.text) }
        let pairs = arguments(&i, limit: limit, depth: depth)
        var entries: [(String, Value)] = []
        for pair in pairs { if case .map(let e) = pair { entries += e } }
        return .map(entries)
      case "findProperty":
        guard i < limit, tokens[i].isSymbol("(") else { return .unknown(token.text) }
        return member(
          .object("project"), "findProperty", called: true,
          arguments: arguments(&i, limit: limit, depth: depth))
      default:
        if let range = variables[token.text] {
          var start = range.lowerBound
          let saved = variables
          variables[token.text] = nil  // no self-reference loops
          let value = expression(&start, limit: range.upperBound, depth: depth + 1)
          variables = saved
          return value
        }
        if i < limit, tokens[i].isSymbol("(") {
          _ = arguments(&i, limit: limit, depth: depth)
          return .unknown("a call to \(token.text)(…)")
        }
        return .unknown("\(token.text) is not something qualify can evaluate")
      }
    }
  }

  /// `[k: v, …]`, `[:]` or `[a, b]`.
  private mutating func collection(_ i: inout Int, limit: Int, depth: Int) -> Value {
    guard let end = GradleLexer.matching(tokens, from: i), end <= limit else {
      i = limit
      return .unknown("an unterminated literal")
    }
    var cursor = i + 1
    defer { i = end + 1 }
    if cursor < end, tokens[cursor].isSymbol(":") { return .map([]) }
    var entries: [(String, Value)] = []
    var items: [Value] = []
    while cursor < end {
      if cursor + 1 < end, tokens[cursor + 1].isSymbol(":"),
        tokens[cursor].kind == .identifier || tokens[cursor].literal != nil
      {
        let key = tokens[cursor].literal ?? tokens[cursor].text
        cursor += 2
        entries.append((key, expression(&cursor, limit: end, depth: depth + 1)))
      } else {
        items.append(expression(&cursor, limit: end, depth: depth + 1))
      }
      if cursor < end, tokens[cursor].isSymbol(",") {
        cursor += 1
      } else {
        break
      }
    }
    return entries.isEmpty && !items.isEmpty ? .list(items) : .map(entries)
  }

  private mutating func member(_ receiver: Value, _ name: String, called: Bool, arguments: [Value])
    -> Value
  {
    switch receiver {
    case .object("System") where name == "getenv":
      guard let key = arguments.first?.string else { return .unknown("System.getenv()") }
      if let value = environment[key] {
        let place = environment.location(of: key).map { " (\($0.file):\($0.line))" } ?? ""
        derivation.append(
          value.isEmpty ? "\(key) is empty\(place)" : "\(key) = \(value)\(place)")
        if !value.isEmpty { decidedAt = environment.location(of: key) }
        return .string(value)
      }
      derivation.append("\(key) is unset in the build environment")
      return .null
    case .object("providers") where name == "environmentVariable":
      return member(.object("System"), "getenv", called: true, arguments: arguments)
    case .object("project"), .object("rootProject"):
      switch name {
      case "findProperty", "property":
        guard let key = arguments.first?.string else { return .null }
        if let value = properties[key] {
          derivation.append("project property \(key) = \(value)")
          return .string(value)
        }
        derivation.append("project property \(key) is unset")
        return .null
      case "hasProperty":
        return .bool(arguments.first?.string.map { properties[$0] != nil } ?? false)
      case "ext": return .object("ext")
      default: return .unknown("project.\(name)")
      }
    case .object("ext"):
      if let value = ext[name] { return .string(value) }
      return .unknown("ext.\(name) is not defined in variables.gradle")
    case .object("Integer") where name == "parseInt" || name == "valueOf":
      return arguments.first ?? .unknown("Integer.\(name)")
    case .string(let s):
      switch name {
      case "trim", "strip": return .string(s.trimmingCharacters(in: .whitespacesAndNewlines))
      case "toString", "toInteger", "toInt": return .string(s)
      case "toLowerCase", "lowercase": return .string(s.lowercased())
      case "toUpperCase", "uppercase": return .string(s.uppercased())
      case "isEmpty": return .bool(s.isEmpty)
      default: return .unknown("\"\(s)\".\(name)")
      }
    case .map(let entries):
      if name == "get", let key = arguments.first?.string {
        return entries.last { $0.0 == key }?.1 ?? .null
      }
      return entries.last { $0.0 == name }?.1 ?? .null
    case .null:
      return .null
    default:
      return .unknown("\(name)\(called ? "(…)" : "")")
    }
  }
}
