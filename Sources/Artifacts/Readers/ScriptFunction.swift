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
/// uses, the array methods that take an arrow function written in place (`.map((o) =>
/// o.trim())`) or `Boolean`; parameter defaults; `Number`, `String`, `Boolean`, `parseInt`; the
/// globals a caller gives (`process`); the module's own constants and the other functions of
/// its file. Anything else (a loop, an assignment, a call qualify does not know)
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
    read(name, in: ScriptModule(text))
  }

  /// The function `name` of the module at `path`, its relative imports read through `load`
  /// (a repository path to its text).
  static func read(name: String, at path: String, load: @escaping @Sendable (String) -> String?)
    -> Result<ScriptFunction, ScriptReadError>
  {
    guard let module = ScriptModuleLoader(read: load).module(at: path) else {
      return .failure(ScriptReadError(reason: "no file \(path)"))
    }
    return read(name, in: module)
  }

  static func read(_ name: String, in module: ScriptModule) -> Result<
    ScriptFunction, ScriptReadError
  > {
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

  /// How a call ends: a value, a throw, or nothing qualify can say.
  public enum Outcome: Sendable, Equatable {
    case returned(Value)
    /// With the thrown error's message when qualify evaluates it.
    case threw(String?)
    /// With what it needed that qualify does not have, when that is why.
    case unanswered(String?)
  }

  /// What the function does for `arguments`, a throw told apart from what is not evaluated.
  public func outcome(_ arguments: [Value]) -> Outcome {
    outcome(arguments, globals: [:], recording: nil).outcome
  }

  /// What the function does with `globals` in scope, and the keys it read from `recording`
  /// (an object among them, such as `process.env`), in order.
  public func outcome(_ arguments: [Value], globals: [String: Value], recording: Value?) -> (
    outcome: Outcome, read: [String]
  ) {
    var evaluator = ScriptEvaluator(module: module)
    evaluator.globals = globals
    evaluator.recorded = recording
    let outcome = Self.outcome(of: &evaluator, self, arguments)
    return (outcome, evaluator.recordedKeys)
  }

  private static func outcome(
    of evaluator: inout ScriptEvaluator, _ function: ScriptFunction, _ arguments: [Value]
  ) -> Outcome {
    if let value = evaluator.call(function, arguments) { return .returned(value) }
    guard evaluator.thrown else {
      return .unanswered(evaluator.undefinedCallee)
    }
    switch evaluator.thrownValue {
    case .object(let fields)?:
      if case .string(let message)? = fields["message"] { return .threw(message) }
      return .threw(nil)
    case .string(let message)?: return .threw(message)
    default: return .threw(nil)
    }
  }
}

/// The top-level `const`s and `function`s of a file, parsed on demand.
struct ScriptModule: Sendable, Equatable {
  let constants: [String: ScriptExpression]
  let functions: [String: FunctionText]
  var problems: [String: String] = [:]
  /// The names it imports from files beside it, when it was read with a loader.
  var imported: [String: ScriptImport] = [:]

  struct FunctionText: Sendable, Equatable {
    var parameters: [String]
    var body: [ScriptStatement]
  }

  /// The module of `text`; with a loader, its relative imports are read and bound too.
  init(_ text: String, path: String? = nil, loader: ScriptModuleLoader? = nil, depth: Int = 0) {
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
    if let loader, let path {
      // Comments blanked: an import commented out binds nothing.
      imported = loader.imports(of: code, path: path, depth: depth)
    }
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
    // A parameter's default (`env = process.env`) is what an `if (env === undefined)` at the
    // top of the body would assign.
    var defaults: [ScriptStatement] = []
    for part in ScriptStatements.topLevelParts(
      String(rest[rest.startIndex..<rest.index(before: index)]), angles: true)
    {
      guard
        let found = InstanceDecisionReader.matches(
          #"^\s*([A-Za-z_$][\w$]*)\s*\??\s*(?::[^=]*)?=(?![=>])\s*([\s\S]+?)\s*$"#, part
        ).first, found.count == 2
      else { continue }
      var parser = ScriptParser(tokens: ScriptLexer.tokens(found[1]) ?? [])
      guard let value = parser.expression(), parser.atEnd else {
        return .failure(ScriptReadError(reason: "the default of \(found[0]) is not read"))
      }
      defaults.append(
        .ifElse(
          .binary("===", .name(found[0]), .literal(.undefined)), .assign(found[0], value), nil))
    }
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
    var body = defaults
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
  /// `{ a: x, b, ...(cond && { c }) }`: its members in order.
  case object([ObjectMember])

  enum ObjectMember: Sendable, Equatable {
    case field(String, ScriptExpression)
    case spread(ScriptExpression)
  }
  case unary(String, ScriptExpression)
  case binary(String, ScriptExpression, ScriptExpression)
  case conditional(ScriptExpression, ScriptExpression, ScriptExpression)
  /// `(entry) => entry.trim()`: only ever called by an array method it is given to.
  case arrow([String], ScriptExpression)
}
