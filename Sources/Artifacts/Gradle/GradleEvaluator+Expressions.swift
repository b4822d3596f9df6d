import Foundation
import QualifyCore

/// The expression half of the evaluator: what a declaration's value is, as Gradle would
/// compute it at configuration time.
extension GradleEvaluator {
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
      } else if tokens[i].isSymbol("?") {
        // `cond ? a : b`, with Groovy truth for the condition.
        i += 1
        let yes = expression(&i, limit: limit, depth: depth + 1)
        guard i < limit, tokens[i].isSymbol(":") else {
          return .unknown("a conditional without its ':'")
        }
        i += 1
        let no = expression(&i, limit: limit, depth: depth + 1)
        if case .unknown = left { return left }
        left = left.isAbsent(kotlin: false) ? no : yes
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

  mutating func postfix(_ i: inout Int, limit: Int, depth: Int) -> Value {
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

  mutating func arguments(_ i: inout Int, limit: Int, depth: Int) -> [Value] {
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

  mutating func primary(_ i: inout Int, limit: Int, depth: Int) -> Value {
    guard i < limit else { return .unknown("an expression is missing") }
    let token = tokens[i]
    switch token.kind {
    case .string(let parts):
      i += 1
      return template(parts, token, depth: depth)
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
        // `new groovy.json.JsonSlurper()` reads JSON qualify can give it (the synced config);
        // any other object built at configuration time is not a value qualify evaluates.
        var last = ""
        while i < limit, tokens[i].kind == .identifier || tokens[i].isSymbol(".") {
          last = tokens[i].text
          i += 1
        }
        if i < limit, tokens[i].isSymbol("(") { _ = arguments(&i, limit: limit, depth: depth) }
        return last == "JsonSlurper"
          ? .object("JsonSlurper") : .unknown("an object built at configuration time")
      case "file" where i < limit && tokens[i].isSymbol("("):
        let path = arguments(&i, limit: limit, depth: depth).first?.string
        return path.map { .object("file:" + $0) } ?? .unknown("file(…)")
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

  /// A string literal with `${…}` interpolations, each evaluated (a name of this script's
  /// variables included); unknown when a part cannot be.
  mutating func template(_ parts: [GradleToken.StringPart], _ token: GradleToken, depth: Int)
    -> Value
  {
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
  }

  /// `[k: v, …]`, `[:]` or `[a, b]`.
  mutating func collection(_ i: inout Int, limit: Int, depth: Int) -> Value {
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

  mutating func member(_ receiver: Value, _ name: String, called: Bool, arguments: [Value])
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
    case .object(let handle) where handle.hasPrefix("file:"):
      // The synced config exists when Gradle runs: `cap sync` writes it first.
      guard name == "exists", handle.hasSuffix("capacitor.config.json") else {
        return .unknown("\(handle.dropFirst(5)).\(name)")
      }
      return .bool(syncedConfig != nil)
    case .object("JsonSlurper") where name == "parse":
      guard case .object(let handle)? = arguments.first, handle.hasSuffix("capacitor.config.json"),
        let synced = syncedConfig
      else { return .unknown("JSON parsed at configuration time") }
      derivation.append("read back from the config cap sync writes (\(synced.file))")
      return Self.value(synced.json)
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

  /// A JSON value as the evaluator holds it (numbers as the text Groovy prints).
  static func value(_ json: JSONValue) -> Value {
    switch json {
    case .null: return .null
    case .bool(let b): return .bool(b)
    case .string(let s): return .string(s)
    case .number(let n):
      return .string(n == n.rounded() && abs(n) < 1e15 ? String(Int(n)) : String(n))
    case .array(let items): return .list(items.map(value))
    case .object(let members): return .map(members.map { ($0.key, value($0.value)) })
    }
  }
}
