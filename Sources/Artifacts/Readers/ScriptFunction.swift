import Foundation
import QualifyCore

/// A pure function of an app's TypeScript, read so that qualify can call it on the inputs a
/// rule is about (a host, a URL) and act on what the app's own code answers, as written:
/// `isNonPublicHost("10.0.2.2")` evaluated through its `startsWith`, its regular expressions
/// and its octet comparisons, not guessed from a keyword.
///
/// What it reads is the side-effect-free subset such predicates are written in: `const`/`let`
/// declarations (array destructuring included), `if`/`else`, `return`; strings, numbers,
/// booleans, arrays, plain objects, `new Set([…])`, `new URL(…)` (WHATWG parts: `protocol`,
/// `username`, `hostname`, `origin`, …) and regular-expression literals; `try`/`catch` and
/// `throw`, assignments to its own locals; the operators of
/// conditions and arithmetic; the string, array and regular-expression methods a validator
/// uses; `Number`, `String`, `Boolean`, `parseInt`; the module's own constants and the other
/// functions of its file. Anything else (a loop, an assignment, a call qualify does not know)
/// makes the function unreadable or the call unanswered: never a guess.
public struct ScriptFunction: Sendable, Equatable {
  public let name: String
  public let parameters: [String]
  let body: [ScriptStatement]
  /// The module the function lives in: its top-level constants and functions, by name.
  let module: ScriptModule

  /// A value as the function sees it.
  public indirect enum Value: Sendable, Equatable {
    case undefined, null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([Value])
    case regex(pattern: String, flags: String)
    /// A plain object: a parameter such as `config`, or a parsed `URL` (its parts as fields).
    case object([String: Value])

    var truthy: Bool {
      switch self {
      case .undefined, .null: false
      case .bool(let value): value
      case .number(let value): value != 0 && !value.isNaN
      case .string(let value): !value.isEmpty
      case .array, .regex, .object: true
      }
    }
  }

  /// The function `name` of `file`'s text, or why it cannot be read.
  public static func read(_ name: String, in text: String) -> Result<
    ScriptFunction, ScriptReadError
  > {
    let module = ScriptModule(text)
    guard let function = module.function(name) else {
      return .failure(
        ScriptReadError(reason: module.problems[name] ?? "no function \(name) in the module"))
    }
    return .success(function)
  }

  /// What the function returns for `arguments`; nil when evaluating it needs something
  /// qualify does not evaluate (or it throws).
  public func call(_ arguments: [Value]) -> Value? {
    var evaluator = ScriptEvaluator(module: module)
    return evaluator.call(self, arguments)
  }
}

/// The top-level `const`s and `function`s of a file, parsed on demand.
struct ScriptModule: Sendable, Equatable {
  let constants: [String: ScriptExpression]
  let functions: [String: FunctionText]
  var problems: [String: String] = [:]

  struct FunctionText: Sendable, Equatable {
    var parameters: [String]
    var body: [ScriptStatement]
  }

  init(_ text: String) {
    var constants: [String: ScriptExpression] = [:]
    var functions: [String: FunctionText] = [:]
    var problems: [String: String] = [:]
    let code = SourceText.codeLines(text, quotes: ["\"", "'", "`"]).map(\.1).joined(
      separator: "\n")
    // `const NAME = …;` at the top level, one statement each (annotations skipped).
    let constant = try? NSRegularExpression(
      pattern: #"(?m)^(?:export\s+)?const\s+([A-Za-z_$][\w$]*)\s*(?::[^=\n]+)?=\s*([^;]+);"#)
    for match in constant?.matches(in: code, range: NSRange(code.startIndex..., in: code)) ?? [] {
      guard let name = Range(match.range(at: 1), in: code),
        let value = Range(match.range(at: 2), in: code),
        let tokens = ScriptLexer.tokens(String(code[value]))
      else { continue }
      var parser = ScriptParser(tokens: tokens)
      if let expression = parser.expression(), parser.atEnd {
        constants[String(code[name])] = expression
      }
    }
    let function = try? NSRegularExpression(
      pattern: #"(?m)^(?:export\s+)?function\s+([A-Za-z_$][\w$]*)\s*\("#)
    for match in function?.matches(in: code, range: NSRange(code.startIndex..., in: code)) ?? [] {
      guard let name = Range(match.range(at: 1), in: code), let whole = Range(match.range, in: code)
      else { continue }
      let key = String(code[name])
      switch ScriptModule.function(code[whole.upperBound...]) {
      case .success(let text): functions[key] = text
      case .failure(let error): problems[key] = error.reason
      }
    }
    self.constants = constants
    self.functions = functions
    self.problems = problems
  }

  func function(_ name: String) -> ScriptFunction? {
    functions[name].map {
      ScriptFunction(name: name, parameters: $0.parameters, body: $0.body, module: self)
    }
  }

  /// The parameters and body of a function whose text starts after its `(`.
  static func function(_ rest: Substring) -> Result<FunctionText, ScriptReadError> {
    var depth = 1
    var index = rest.startIndex
    while index < rest.endIndex, depth > 0 {
      if rest[index] == "(" { depth += 1 }
      if rest[index] == ")" { depth -= 1 }
      index = rest.index(after: index)
    }
    guard depth == 0 else { return .failure(ScriptReadError(reason: "unbalanced parameters")) }
    let parameters = ScriptStatements.parameters("(" + rest[rest.startIndex..<index])
    // The return type, if any, runs to the body's brace.
    guard let open = rest[index...].firstIndex(of: "{") else {
      return .failure(ScriptReadError(reason: "no body"))
    }
    depth = 0
    var close = open
    for position in rest[open...].indices {
      if rest[position] == "{" { depth += 1 }
      if rest[position] == "}" {
        depth -= 1
        if depth == 0 {
          close = position
          break
        }
      }
    }
    guard depth == 0, let tokens = ScriptLexer.tokens(String(rest[rest.index(after: open)..<close]))
    else {
      return .failure(ScriptReadError(reason: "its body holds a construct qualify does not read"))
    }
    var parser = ScriptParser(tokens: tokens)
    var body: [ScriptStatement] = []
    while !parser.atEnd {
      guard let statement = parser.statement() else {
        return .failure(
          ScriptReadError(
            reason: "its body holds a statement qualify does not evaluate (\(parser.near))"))
      }
      body.append(statement)
    }
    return .success(FunctionText(parameters: parameters, body: body))
  }
}

indirect enum ScriptStatement: Sendable, Equatable {
  /// `let x;` declares with no value: `undefined` until assigned.
  case declare([String], destructured: Bool, ScriptExpression?)
  case assign(String, ScriptExpression)
  case tryCatch([ScriptStatement], [ScriptStatement])
  case throwing(ScriptExpression)
  case ifElse(ScriptExpression, ScriptStatement, ScriptStatement?)
  case returns(ScriptExpression?)
  case block([ScriptStatement])
  case empty
}

indirect enum ScriptExpression: Sendable, Equatable {
  case literal(ScriptFunction.Value)
  case name(String)
  case array([ScriptExpression])
  case member(ScriptExpression, String, optional: Bool)
  case index(ScriptExpression, ScriptExpression)
  case call(ScriptExpression, [ScriptExpression])
  case newSet(ScriptExpression?)
  case newURL([ScriptExpression])
  case unary(String, ScriptExpression)
  case binary(String, ScriptExpression, ScriptExpression)
  case conditional(ScriptExpression, ScriptExpression, ScriptExpression)
}

enum ScriptToken: Sendable, Equatable {
  case word(String)
  case number(Double)
  case string(String)
  case regex(String, String)
  case punct(String)
  /// `` `a${x}b` ``: the literal pieces around each substitution's source text.
  case template([String], [String])
}

enum ScriptLexer {
  static let punctuators = [
    "===", "!==", "...", "?.", "??", "&&", "||", "==", "!=", "<=", ">=", "=>", "(", ")", "[", "]",
    "{", "}", ",", ";", ".", "?", ":", "=", "<", ">", "+", "-", "*", "/", "%", "!",
  ]

  /// The tokens of `text`; nil on a construct the evaluator never handles (a template with
  /// a substitution, an unterminated literal).
  static func tokens(_ text: String) -> [ScriptToken]? {
    let characters = Array(text.unicodeScalars)
    var out: [ScriptToken] = []
    var index = 0
    func regexAllowed() -> Bool {
      switch out.last {
      case nil: return true
      case .punct(let p): return ![")", "]", "}"].contains(p)
      case .word(let w): return ["return", "typeof", "case", "in", "of"].contains(w)
      default: return false
      }
    }
    while index < characters.count {
      let c = characters[index]
      if CharacterSet.whitespacesAndNewlines.contains(c) {
        index += 1
      } else if c == "`" {
        var pieces: [String] = []
        var substitutions: [String] = []
        var literal = ""
        var end = index + 1
        while end < characters.count, characters[end] != "`" {
          if characters[end] == "\\", end + 1 < characters.count {
            let escaped = characters[end + 1]
            guard !"nrtux0123456789".unicodeScalars.contains(escaped) else { return nil }
            literal.unicodeScalars.append(escaped)
            end += 2
            continue
          }
          if characters[end] == "$", end + 1 < characters.count, characters[end + 1] == "{" {
            var depth = 1
            var inner = ""
            end += 2
            while end < characters.count {
              if characters[end] == "{" { depth += 1 }
              if characters[end] == "}" {
                depth -= 1
                if depth == 0 { break }
              }
              inner.unicodeScalars.append(characters[end])
              end += 1
            }
            guard end < characters.count else { return nil }
            pieces.append(literal)
            substitutions.append(inner)
            literal = ""
            end += 1
            continue
          }
          literal.unicodeScalars.append(characters[end])
          end += 1
        }
        guard end < characters.count else { return nil }
        pieces.append(literal)
        out.append(substitutions.isEmpty ? .string(pieces[0]) : .template(pieces, substitutions))
        index = end + 1
      } else if c == "\"" || c == "'" {
        var end = index + 1
        var literal = ""
        while end < characters.count, characters[end] != c {
          if characters[end] == "\\", end + 1 < characters.count {
            end += 1
            switch characters[end] {
            case "n": literal += "\n"
            case "t": literal += "\t"
            case "r": literal += "\r"
            // A code-point escape would need decoding qualify does not do: unread, not misread.
            case "u", "x", "0"..."9": return nil
            default: literal.unicodeScalars.append(characters[end])
            }
          } else {
            literal.unicodeScalars.append(characters[end])
          }
          end += 1
        }
        guard end < characters.count else { return nil }
        out.append(.string(literal))
        index = end + 1
      } else if c == "/" && regexAllowed() {
        var end = index + 1
        var inClass = false
        var pattern = ""
        while end < characters.count {
          let d = characters[end]
          if d == "\\", end + 1 < characters.count {
            pattern.unicodeScalars.append(d)
            pattern.unicodeScalars.append(characters[end + 1])
            end += 2
            continue
          }
          if d == "\n" { return nil }
          if d == "[" { inClass = true }
          if d == "]" { inClass = false }
          if d == "/" && !inClass { break }
          pattern.unicodeScalars.append(d)
          end += 1
        }
        guard end < characters.count else { return nil }
        end += 1
        var flags = ""
        while end < characters.count, CharacterSet.letters.contains(characters[end]) {
          flags.unicodeScalars.append(characters[end])
          end += 1
        }
        out.append(.regex(pattern, flags))
        index = end
      } else if CharacterSet.decimalDigits.contains(c)
        || (c == "." && index + 1 < characters.count
          && CharacterSet.decimalDigits.contains(characters[index + 1]))
      {
        var end = index
        var digits = ""
        while end < characters.count,
          CharacterSet.alphanumerics.contains(characters[end]) || characters[end] == "."
            || characters[end] == "_"
        {
          if characters[end] != "_" { digits.unicodeScalars.append(characters[end]) }
          end += 1
        }
        let value =
          digits.hasPrefix("0x")
          ? Double(UInt64(digits.dropFirst(2), radix: 16) ?? 0)
          : Double(digits)
        guard let value else { return nil }
        out.append(.number(value))
        index = end
      } else if CharacterSet.letters.contains(c) || c == "_" || c == "$" {
        var end = index
        var word = ""
        while end < characters.count,
          CharacterSet.alphanumerics.contains(characters[end]) || characters[end] == "_"
            || characters[end] == "$"
        {
          word.unicodeScalars.append(characters[end])
          end += 1
        }
        out.append(.word(word))
        index = end
      } else {
        let rest = String(
          String.UnicodeScalarView(characters[index..<min(index + 3, characters.count)]))
        guard let p = punctuators.first(where: { rest.hasPrefix($0) }) else { return nil }
        out.append(.punct(p))
        index += p.unicodeScalars.count
      }
    }
    return out
  }
}

/// Recursive descent over the tokens, JavaScript's precedence.
struct ScriptParser {
  var tokens: [ScriptToken]
  var position = 0

  var atEnd: Bool { position >= tokens.count }
  var current: ScriptToken? { atEnd ? nil : tokens[position] }
  /// A few tokens from where parsing stopped, to name what was not read.
  var near: String {
    tokens[min(position, tokens.count)..<min(position + 4, tokens.count)].map {
      switch $0 {
      case .word(let w): w
      case .number(let n): "\(n)"
      case .string(let s): "\"\(s)\""
      case .regex(let p, let f): "/\(p)/\(f)"
      case .punct(let p): p
      case .template: "`…`"
      }
    }.joined(separator: " ")
  }

  mutating func take(_ punct: String) -> Bool {
    guard current == .punct(punct) else { return false }
    position += 1
    return true
  }

  mutating func takeWord(_ word: String) -> Bool {
    guard current == .word(word) else { return false }
    position += 1
    return true
  }

  mutating func statement() -> ScriptStatement? {
    if take(";") { return .empty }
    if take("{") {
      var body: [ScriptStatement] = []
      while !take("}") {
        guard !atEnd, let statement = statement() else { return nil }
        body.append(statement)
      }
      return .block(body)
    }
    if takeWord("if") {
      guard take("("), let condition = expression(), take(")"), let then = statement() else {
        return nil
      }
      if takeWord("else") {
        guard let otherwise = statement() else { return nil }
        return .ifElse(condition, then, otherwise)
      }
      return .ifElse(condition, then, nil)
    }
    if takeWord("return") {
      if take(";") || current == .punct("}") || atEnd { return .returns(nil) }
      guard let value = expression() else { return nil }
      _ = take(";")
      return .returns(value)
    }
    if takeWord("const") || takeWord("let") || takeWord("var") {
      var names: [String] = []
      var destructured = false
      if take("[") {
        destructured = true
        while !take("]") {
          if take(",") { continue }
          guard case .word(let name) = current else { return nil }
          position += 1
          names.append(name)
        }
      } else {
        guard case .word(let name) = current else { return nil }
        position += 1
        names = [name]
      }
      // A type annotation runs to the `=`, or to the `;` of a declaration without a value.
      if take(":") {
        var depth = 0
        while let token = current, depth > 0 || (token != .punct("=") && token != .punct(";")) {
          if [.punct("<"), .punct("("), .punct("["), .punct("{")].contains(token) { depth += 1 }
          if [.punct(">"), .punct(")"), .punct("]"), .punct("}")].contains(token) { depth -= 1 }
          position += 1
        }
      }
      if !destructured, names.count == 1, take(";") || current == .punct("}") || atEnd {
        return .declare(names, destructured: false, nil)
      }
      guard take("="), let value = expression() else { return nil }
      _ = take(";")
      return .declare(names, destructured: destructured, value)
    }
    if takeWord("try") {
      guard take("{"), let body = block() else { return nil }
      guard takeWord("catch") else { return nil }
      // `catch (error)` binds nothing qualify reads; `catch {` binds nothing at all.
      if take("(") {
        while let token = current, token != .punct(")") { position += 1 }
        guard take(")") else { return nil }
      }
      guard take("{"), let handler = block() else { return nil }
      return .tryCatch(body, handler)
    }
    if takeWord("throw") {
      guard let value = expression() else { return nil }
      _ = take(";")
      return .throwing(value)
    }
    if case .word(let name) = current, position + 1 < tokens.count,
      tokens[position + 1] == .punct("=")
    {
      position += 2
      guard let value = expression() else { return nil }
      _ = take(";")
      return .assign(name, value)
    }
    return nil
  }

  /// The statements up to the `}` closing a block whose `{` was taken.
  mutating func block() -> [ScriptStatement]? {
    var body: [ScriptStatement] = []
    while !take("}") {
      guard !atEnd, let statement = statement() else { return nil }
      body.append(statement)
    }
    return body
  }

  mutating func expression() -> ScriptExpression? { conditional() }

  mutating func conditional() -> ScriptExpression? {
    guard let test = binary(0) else { return nil }
    guard take("?") else { return test }
    guard let yes = conditional(), take(":"), let no = conditional() else { return nil }
    return .conditional(test, yes, no)
  }

  static let levels: [[String]] = [
    ["??", "||"], ["&&"], ["===", "!==", "==", "!="], ["<", "<=", ">", ">="], ["+", "-"],
    ["*", "/", "%"],
  ]

  mutating func binary(_ level: Int) -> ScriptExpression? {
    guard level < Self.levels.count else { return unary() }
    guard var left = binary(level + 1) else { return nil }
    while case .punct(let p) = current, Self.levels[level].contains(p) {
      position += 1
      guard let right = binary(level + 1) else { return nil }
      left = .binary(p, left, right)
    }
    return left
  }

  mutating func unary() -> ScriptExpression? {
    for op in ["!", "-", "+"] where take(op) {
      return unary().map { .unary(op, $0) }
    }
    if takeWord("typeof") { return unary().map { .unary("typeof", $0) } }
    return postfix()
  }

  mutating func postfix() -> ScriptExpression? {
    guard var value = primary() else { return nil }
    while true {
      if take(".") || take("?.") {
        let optional = tokens[position - 1] == .punct("?.")
        if optional, take("(") { return nil }
        guard case .word(let name) = current else { return nil }
        position += 1
        value = .member(value, name, optional: optional)
      } else if take("[") {
        guard let index = expression(), take("]") else { return nil }
        value = .index(value, index)
      } else if take("(") {
        var arguments: [ScriptExpression] = []
        while !take(")") {
          guard let argument = expression() else { return nil }
          arguments.append(argument)
          if !take(",") && current != .punct(")") { return nil }
        }
        value = .call(value, arguments)
      } else {
        return value
      }
    }
  }

  mutating func primary() -> ScriptExpression? {
    guard let token = current else { return nil }
    position += 1
    switch token {
    case .number(let n): return .literal(.number(n))
    case .string(let s): return .literal(.string(s))
    case .regex(let p, let f): return .literal(.regex(pattern: p, flags: f))
    case .template(let pieces, let substitutions):
      // `a${x}b` is "a" + String(x) + "b".
      var value = ScriptExpression.literal(.string(pieces[0]))
      for (index, source) in substitutions.enumerated() {
        guard let inner = ScriptLexer.tokens(source) else { return nil }
        var parser = ScriptParser(tokens: inner)
        guard let expression = parser.expression(), parser.atEnd else { return nil }
        value = .binary(
          "+", .binary("+", value, .call(.name("String"), [expression])),
          .literal(.string(pieces[index + 1])))
      }
      return value
    case .punct("("):
      guard let inner = expression(), take(")") else { return nil }
      return inner
    case .punct("["):
      var elements: [ScriptExpression] = []
      while !take("]") {
        guard let element = expression() else { return nil }
        elements.append(element)
        if !take(",") && current != .punct("]") { return nil }
      }
      return .array(elements)
    case .word("true"): return .literal(.bool(true))
    case .word("false"): return .literal(.bool(false))
    case .word("null"): return .literal(.null)
    case .word("undefined"): return .literal(.undefined)
    case .word("new"):
      if takeWord("URL") {
        guard take("(") else { return nil }
        var arguments: [ScriptExpression] = []
        while !take(")") {
          guard let argument = expression() else { return nil }
          arguments.append(argument)
          if !take(",") && current != .punct(")") { return nil }
        }
        return .newURL(arguments)
      }
      guard takeWord("Set"), take("(") else { return nil }
      if take(")") { return .newSet(nil) }
      guard let items = expression(), take(")") else { return nil }
      return .newSet(items)
    case .word(let name)
    where ![
      "function", "for", "while", "do", "switch", "throw", "try", "class", "this", "await",
      "yield", "delete", "void", "in", "instanceof", "as",
    ].contains(name):
      return .name(name)
    default: return nil
    }
  }
}

/// Runs a function's statements; nil wherever JavaScript would do something qualify does not
/// model.
struct ScriptEvaluator {
  typealias Value = ScriptFunction.Value
  let module: ScriptModule
  var depth = 0
  var scopes: [[String: Value]] = []
  /// Module constants being evaluated (a constant defined through itself is unanswered).
  var resolving: Set<String> = []

  enum Flow {
    case next
    case returned(Value)
    case threw
  }
  /// Set when an expression threw (a `new URL` of something that is not a URL): the value is
  /// nil, and the statement that evaluated it throws.
  var thrown = false

  mutating func call(_ function: ScriptFunction, _ arguments: [Value]) -> Value? {
    call(parameters: function.parameters, body: function.body, arguments)
  }

  mutating func call(parameters: [String], body: [ScriptStatement], _ arguments: [Value]) -> Value?
  {
    guard depth < 24 else { return nil }
    depth += 1
    defer { depth -= 1 }
    var frame: [String: Value] = [:]
    for (index, name) in parameters.enumerated() {
      frame[name] = index < arguments.count ? arguments[index] : .undefined
    }
    let saved = scopes
    scopes = [frame]
    defer { scopes = saved }
    switch run(body) {
    case nil, .threw: return nil
    case .returned(let value): return value
    case .next: return .undefined
    }
  }

  mutating func run(_ statements: [ScriptStatement]) -> Flow? {
    for statement in statements {
      guard let flow = run(statement) else { return thrownFlow() }
      if case .next = flow { continue }
      return flow
    }
    return .next
  }

  /// What a statement whose evaluation came back empty did: it threw, or qualify cannot say.
  mutating func thrownFlow() -> Flow? {
    guard thrown else { return nil }
    thrown = false
    return .threw
  }

  mutating func run(_ statement: ScriptStatement) -> Flow? {
    switch statement {
    case .empty: return .next
    case .throwing: return .threw
    case .tryCatch(let body, let handler):
      scopes.append([:])
      let flow = run(body)
      scopes.removeLast()
      guard case .threw? = flow else { return flow }
      scopes.append([:])
      defer { scopes.removeLast() }
      return run(handler)
    case .assign(let name, let expression):
      guard let value = evaluate(expression) else { return thrownFlow() }
      guard let scope = scopes.lastIndex(where: { $0[name] != nil }) else { return nil }
      scopes[scope][name] = value
      return .next
    case .returns(let value):
      guard let value else { return .returned(.undefined) }
      guard let result = evaluate(value) else { return thrownFlow() }
      return .returned(result)
    case .block(let body):
      scopes.append([:])
      defer { scopes.removeLast() }
      return run(body)
    case .ifElse(let condition, let then, let otherwise):
      guard let test = evaluate(condition) else { return thrownFlow() }
      if test.truthy { return run(then) }
      return otherwise.map { run($0) } ?? .next
    case .declare(let names, let destructured, let expression):
      guard let expression else {
        scopes[scopes.count - 1][names[0]] = .undefined
        return .next
      }
      guard let value = evaluate(expression) else { return thrownFlow() }
      if destructured {
        let items: [Value]
        switch value {
        case .array(let values): items = values
        default: return nil
        }
        for (index, name) in names.enumerated() {
          scopes[scopes.count - 1][name] = index < items.count ? items[index] : .undefined
        }
      } else {
        scopes[scopes.count - 1][names[0]] = value
      }
      return .next
    }
  }

  mutating func lookup(_ name: String) -> Value? {
    for scope in scopes.reversed() {
      if let value = scope[name] { return value }
    }
    guard let constant = module.constants[name], !resolving.contains(name) else { return nil }
    resolving.insert(name)
    defer { resolving.remove(name) }
    let saved = scopes
    scopes = [[:]]
    defer { scopes = saved }
    return evaluate(constant)
  }

  mutating func evaluate(_ expression: ScriptExpression) -> Value? {
    switch expression {
    case .literal(let value): return value
    case .name(let name): return lookup(name)
    case .array(let elements):
      var values: [Value] = []
      for element in elements {
        guard let value = evaluate(element) else { return nil }
        values.append(value)
      }
      return .array(values)
    case .newSet(let items):
      guard let items else { return .array([]) }
      guard case .array(let values)? = evaluate(items) else { return nil }
      var unique: [Value] = []
      for value in values where !unique.contains(value) { unique.append(value) }
      return .array(unique)
    case .newURL(let arguments):
      var values: [Value] = []
      for argument in arguments {
        guard let value = evaluate(argument) else { return nil }
        values.append(value)
      }
      guard values.count == 1, case .string(let text) = values[0] else { return nil }
      guard let url = ScriptURL.parse(text) else {
        thrown = true
        return nil
      }
      return url
    case .member(let object, let name, let optional):
      guard let base = evaluate(object) else { return nil }
      if optional, base == .undefined || base == .null { return .undefined }
      return Self.property(base, name)
    case .index(let object, let index):
      guard let base = evaluate(object), let key = evaluate(index) else { return nil }
      switch (base, key) {
      case (.array(let values), .number(let n)):
        let i = Int(n)
        return Double(i) == n && i >= 0 && i < values.count ? values[i] : .undefined
      case (.string(let text), .number(let n)):
        let scalars = Array(text.utf16)
        let i = Int(n)
        guard Double(i) == n, i >= 0, i < scalars.count else { return .undefined }
        return .string(String(decoding: [scalars[i]], as: UTF16.self))
      default: return nil
      }
    case .call(let callee, let arguments):
      var values: [Value] = []
      for argument in arguments {
        guard let value = evaluate(argument) else { return nil }
        values.append(value)
      }
      if case .member(let object, let method, let optional) = callee {
        guard let base = evaluate(object) else { return nil }
        if optional, base == .undefined || base == .null { return .undefined }
        return Self.method(base, method, values)
      }
      guard case .name(let name) = callee else { return nil }
      if let global = Self.global(name, values) { return global }
      guard let function = module.functions[name] else { return nil }
      return call(parameters: function.parameters, body: function.body, values)
    case .unary(let op, let operand):
      guard let value = evaluate(operand) else { return nil }
      switch op {
      case "!": return .bool(!value.truthy)
      case "-": return .number(-Self.number(value))
      case "+": return .number(Self.number(value))
      default: return .string(Self.typeName(value))
      }
    case .conditional(let test, let yes, let no):
      guard let value = evaluate(test) else { return nil }
      return evaluate(value.truthy ? yes : no)
    case .binary(let op, let left, let right):
      guard let a = evaluate(left) else { return nil }
      switch op {
      case "&&": return a.truthy ? evaluate(right) : a
      case "||": return a.truthy ? a : evaluate(right)
      case "??": return a == .undefined || a == .null ? evaluate(right) : a
      default: break
      }
      guard let b = evaluate(right) else { return nil }
      return Self.binary(op, a, b)
    }
  }

  static func binary(_ op: String, _ a: Value, _ b: Value) -> Value? {
    switch op {
    case "===": return .bool(strictEqual(a, b))
    case "!==": return .bool(!strictEqual(a, b))
    case "==": return .bool(looseEqual(a, b))
    case "!=": return .bool(!looseEqual(a, b))
    case "<", "<=", ">", ">=":
      if case .string(let x) = a, case .string(let y) = b {
        let (xs, ys) = (Array(x.utf16), Array(y.utf16))
        let less = xs.lexicographicallyPrecedes(ys)
        switch op {
        case "<": return .bool(less)
        case "<=": return .bool(less || xs == ys)
        case ">": return .bool(!less && xs != ys)
        default: return .bool(!less)
        }
      }
      let (x, y) = (number(a), number(b))
      if x.isNaN || y.isNaN { return .bool(false) }
      switch op {
      case "<": return .bool(x < y)
      case "<=": return .bool(x <= y)
      case ">": return .bool(x > y)
      default: return .bool(x >= y)
      }
    case "+":
      if case .string = a { return .string(string(a) + string(b)) }
      if case .string = b { return .string(string(a) + string(b)) }
      return .number(number(a) + number(b))
    case "-": return .number(number(a) - number(b))
    case "*": return .number(number(a) * number(b))
    case "/": return .number(number(a) / number(b))
    case "%": return .number(number(a).truncatingRemainder(dividingBy: number(b)))
    default: return nil
    }
  }

  static func strictEqual(_ a: Value, _ b: Value) -> Bool {
    if case .number(let x) = a, case .number(let y) = b { return x == y }
    switch (a, b) {
    // Identity: two objects are never the same one here.
    case (.array, .array), (.regex, .regex), (.object, .object): return false
    default: return a == b
    }
  }

  static func looseEqual(_ a: Value, _ b: Value) -> Bool {
    let nullish: Set<String> = ["undefined", "null"]
    if nullish.contains(kind(a)) || nullish.contains(kind(b)) {
      return nullish.contains(kind(a)) && nullish.contains(kind(b))
    }
    if kind(a) == kind(b) { return strictEqual(a, b) }
    return number(a) == number(b)
  }

  static func kind(_ value: Value) -> String {
    switch value {
    case .undefined: "undefined"
    case .null: "null"
    case .bool: "boolean"
    case .number: "number"
    case .string: "string"
    case .array: "array"
    case .regex: "regex"
    case .object: "object"
    }
  }

  static func typeName(_ value: Value) -> String {
    switch value {
    case .null, .array, .regex, .object: "object"
    default: kind(value)
    }
  }

  static func number(_ value: Value) -> Double {
    switch value {
    case .undefined: return .nan
    case .null: return 0
    case .bool(let flag): return flag ? 1 : 0
    case .number(let n): return n
    case .string(let text):
      let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
      if trimmed.isEmpty { return 0 }
      if trimmed.hasPrefix("0x") || trimmed.hasPrefix("0X") {
        return UInt64(trimmed.dropFirst(2), radix: 16).map(Double.init) ?? .nan
      }
      // JavaScript's Number("1e3") is 1000 and Number("12px") is NaN; Double agrees, except
      // that it takes "nan" and "inf", which JavaScript does not.
      guard trimmed.allSatisfy({ "0123456789+-.eE".contains($0) }) else { return .nan }
      return Double(trimmed) ?? .nan
    case .array(let values):
      if values.isEmpty { return 0 }
      return values.count == 1 ? number(.string(string(values[0]))) : .nan
    case .regex, .object: return .nan
    }
  }

  static func string(_ value: Value) -> String {
    switch value {
    case .undefined: return "undefined"
    case .null: return "null"
    case .bool(let flag): return "\(flag)"
    case .number(let n):
      if n.isNaN { return "NaN" }
      if n == n.rounded(), abs(n) < 1e21 { return String(Int64(n)) }
      return "\(n)"
    case .string(let text): return text
    case .array(let values):
      return values.map { $0 == .undefined || $0 == .null ? "" : string($0) }.joined(
        separator: ",")
    case .regex(let pattern, let flags): return "/\(pattern)/\(flags)"
    case .object(let fields): return fields["href"].map { string($0) } ?? "[object Object]"
    }
  }

  static func property(_ base: Value, _ name: String) -> Value? {
    switch (base, name) {
    case (.string(let text), "length"): return .number(Double(text.utf16.count))
    case (.array(let values), "length"), (.array(let values), "size"):
      return .number(Double(values.count))
    case (.object(let fields), _): return fields[name] ?? .undefined
    case (.undefined, _), (.null, _): return nil  // a TypeError in JavaScript
    default: return nil
    }
  }

  static func global(_ name: String, _ arguments: [Value]) -> Value? {
    let first = arguments.first ?? .undefined
    switch name {
    case "Number": return .number(arguments.isEmpty ? 0 : number(first))
    case "String": return .string(arguments.isEmpty ? "" : string(first))
    case "Boolean": return .bool(first.truthy)
    case "isNaN": return .bool(number(first).isNaN)
    case "parseInt":
      let radix = arguments.count > 1 ? Int(number(arguments[1])) : 10
      let text = string(first).trimmingCharacters(in: .whitespaces)
      let digits = text.prefix { $0.isHexDigit || $0 == "-" || $0 == "+" }
      var prefix = ""
      for c in digits
      where Int(String(c), radix: radix) != nil || (prefix.isEmpty && "+-".contains(c)) {
        prefix.append(c)
      }
      return .number(Int(prefix, radix: radix).map(Double.init) ?? .nan)
    default: return nil
    }
  }

  static func regex(_ pattern: String, _ flags: String) -> NSRegularExpression? {
    // Sticky matching and the unicode-sets mode have no counterpart here.
    guard !flags.contains("y"), !flags.contains("v") else { return nil }
    var options: NSRegularExpression.Options = []
    if flags.contains("i") { options.insert(.caseInsensitive) }
    if flags.contains("m") { options.insert(.anchorsMatchLines) }
    if flags.contains("s") { options.insert(.dotMatchesLineSeparators) }
    return try? NSRegularExpression(pattern: pattern, options: options)
  }

  static func method(_ base: Value, _ name: String, _ arguments: [Value]) -> Value? {
    let first = arguments.first ?? .undefined
    switch base {
    case .string(let text):
      let range = NSRange(text.startIndex..., in: text)
      switch name {
      case "toLowerCase": return .string(text.lowercased())
      case "toUpperCase": return .string(text.uppercased())
      case "trim": return .string(text.trimmingCharacters(in: .whitespacesAndNewlines))
      case "startsWith": return .bool(text.utf16.starts(with: string(first).utf16))
      case "endsWith":
        return .bool(text.utf16.reversed().starts(with: string(first).utf16.reversed()))
      case "includes": return .bool(string(first).isEmpty || text.contains(string(first)))
      case "indexOf":
        guard let found = text.range(of: string(first)) else { return .number(-1) }
        return .number(Double(text.utf16.distance(from: text.startIndex, to: found.lowerBound)))
      case "slice", "substring":
        let units = Array(text.utf16)
        var start = arguments.isEmpty ? 0 : Int(number(first))
        var end = arguments.count > 1 ? Int(number(arguments[1])) : units.count
        if name == "slice" {
          if start < 0 { start += units.count }
          if end < 0 { end += units.count }
        }
        start = max(0, min(start, units.count))
        end = max(0, min(end, units.count))
        return .string(start < end ? String(decoding: units[start..<end], as: UTF16.self) : "")
      case "split":
        guard case .string(let separator) = first else { return nil }
        if separator.isEmpty { return .array(text.map { .string(String($0)) }) }
        return .array(text.components(separatedBy: separator).map { .string($0) })
      case "replace", "replaceAll":
        guard arguments.count == 2, case .string(let replacement) = arguments[1],
          !replacement.contains("$")
        else { return nil }
        switch first {
        case .string(let needle):
          guard !needle.isEmpty else { return nil }
          if name == "replaceAll" {
            return .string(text.replacingOccurrences(of: needle, with: replacement))
          }
          guard let found = text.range(of: needle) else { return base }
          return .string(text.replacingCharacters(in: found, with: replacement))
        case .regex(let pattern, let flags):
          guard let regex = regex(pattern, flags) else { return nil }
          let template = NSRegularExpression.escapedTemplate(for: replacement)
          if flags.contains("g") {
            return .string(
              regex.stringByReplacingMatches(in: text, range: range, withTemplate: template))
          }
          guard let match = regex.firstMatch(in: text, range: range),
            let found = Range(match.range, in: text)
          else { return base }
          return .string(text.replacingCharacters(in: found, with: replacement))
        default: return nil
        }
      case "match":
        guard case .regex(let pattern, let flags) = first, let regex = regex(pattern, flags) else {
          return nil
        }
        if flags.contains("g") {
          let all = regex.matches(in: text, range: range).compactMap {
            Range($0.range, in: text).map { Value.string(String(text[$0])) }
          }
          return all.isEmpty ? .null : .array(all)
        }
        guard let match = regex.firstMatch(in: text, range: range) else { return .null }
        return .array(
          (0..<match.numberOfRanges).map { group in
            Range(match.range(at: group), in: text).map { .string(String(text[$0])) } ?? .undefined
          })
      default: return nil
      }
    case .regex(let pattern, let flags):
      guard name == "test", let regex = regex(pattern, flags) else { return nil }
      let text = string(first)
      return .bool(regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil)
    case .array(let values):
      switch name {
      case "includes", "has":
        return .bool(values.contains { strictEqual($0, first) || $0 == first })
      case "indexOf":
        return .number(Double(values.firstIndex { strictEqual($0, first) } ?? -1))
      case "join":
        let separator = arguments.isEmpty ? "," : string(first)
        return .string(
          values.map { $0 == .undefined || $0 == .null ? "" : string($0) }.joined(
            separator: separator))
      default: return nil
      }
    default: return nil
    }
  }
}

/// `new URL(text)` as the WHATWG URL parser answers it for the URLs a navigation policy
/// judges: an absolute URL with a scheme; nil where the parser throws.
enum ScriptURL {
  typealias Value = ScriptFunction.Value

  static let special: [String: Int?] = [
    "http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21, "file": nil,
  ]

  static func parse(_ text: String) -> Value? {
    let trimmed = text.trimmingCharacters(in: CharacterSet(charactersIn: " \t\n\r\u{0}"))
    guard let colon = trimmed.firstIndex(of: ":") else { return nil }
    let scheme = trimmed[..<colon].lowercased()
    guard let first = scheme.unicodeScalars.first, CharacterSet.letters.contains(first),
      scheme.unicodeScalars.allSatisfy({
        CharacterSet.alphanumerics.contains($0) || "+-.".unicodeScalars.contains($0)
      })
    else { return nil }
    let rest = String(trimmed[trimmed.index(after: colon)...])
    guard special[scheme] != nil else {
      // An opaque URL (`mailto:`, `blob:`, `javascript:`): its path is the rest; a blob's
      // origin is its inner URL's.
      var fields = base(scheme: scheme)
      fields["pathname"] = .string(rest)
      fields["href"] = .string(scheme + ":" + rest)
      if scheme == "blob", case .object(let inner)? = parse(rest),
        case .string(let innerProtocol)? = inner["protocol"],
        ["http:", "https:"].contains(innerProtocol)
      {
        fields["origin"] = inner["origin"]
      }
      return .object(fields)
    }
    // Special schemes: backslashes are slashes, and the authority follows any run of them.
    let normalized = rest.replacingOccurrences(of: "\\", with: "/")
    let afterSlashes = normalized.drop { $0 == "/" }
    let authorityEnd = afterSlashes.firstIndex { "/?#".contains($0) } ?? afterSlashes.endIndex
    let authority = String(afterSlashes[..<authorityEnd])
    let tail = String(afterSlashes[authorityEnd...])
    var userinfo = ""
    var hostPort = authority
    if let at = authority.lastIndex(of: "@") {
      userinfo = String(authority[..<at])
      hostPort = String(authority[authority.index(after: at)...])
    }
    var host = hostPort
    var port = ""
    if let lastColon = hostPort.lastIndex(of: ":"), !hostPort.hasSuffix("]"),
      !hostPort[..<lastColon].contains(":") || hostPort.hasPrefix("[")
    {
      host = String(hostPort[..<lastColon])
      port = String(hostPort[hostPort.index(after: lastColon)...])
    }
    host = (host.removingPercentEncoding ?? host).lowercased()
    guard !host.isEmpty || scheme == "file",
      !host.contains(where: { " #%/:<>?@[\\]^|".contains($0) }) || host.hasPrefix("[")
    else { return nil }
    if !port.isEmpty {
      guard port.allSatisfy(\.isNumber), let number = Int(port), number <= 65535 else {
        return nil
      }
      port = number == special[scheme] ?? nil ? "" : String(number)
    }
    let (username, password): (String, String) = {
      guard !userinfo.isEmpty else { return ("", "") }
      guard let split = userinfo.firstIndex(of: ":") else { return (userinfo, "") }
      return (
        String(userinfo[..<split]), String(userinfo[userinfo.index(after: split)...])
      )
    }()
    let queryStart = tail.firstIndex { "?#".contains($0) } ?? tail.endIndex
    let path = String(tail[..<queryStart])
    var fields = base(scheme: scheme)
    let hostField = port.isEmpty ? host : host + ":" + port
    fields["username"] = .string(username)
    fields["password"] = .string(password)
    fields["hostname"] = .string(host)
    fields["host"] = .string(hostField)
    fields["port"] = .string(port)
    fields["pathname"] = .string(path.isEmpty ? "/" : path)
    fields["origin"] = .string(scheme == "file" ? "null" : scheme + "://" + hostField)
    let credentials =
      username.isEmpty && password.isEmpty
      ? "" : username + (password.isEmpty ? "" : ":" + password) + "@"
    fields["href"] = .string(
      scheme + "://" + credentials + hostField + (path.isEmpty ? "/" : path)
        + String(tail[queryStart...]))
    return .object(fields)
  }

  static func base(scheme: String) -> [String: Value] {
    [
      "protocol": .string(scheme + ":"), "username": .string(""), "password": .string(""),
      "hostname": .string(""), "host": .string(""), "port": .string(""),
      "origin": .string("null"), "search": .string(""), "hash": .string(""),
    ]
  }
}
