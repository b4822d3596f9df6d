import Foundation

/// A Zod schema of an app's protocol module read as written (issue 28: "the schema's
/// refusals"): `z.object({…}).strict()`, `z.string().min(1).max(MAX_ID_LENGTH)`,
/// `z.discriminatedUnion("type", [envelope("web.hello", …), …])`, the module's named schemas
/// and constants, and its arrow helpers (`const envelope = (type, payload) => z.object(…)`)
/// applied to their arguments. What is not read makes the schema unread, with the construct
/// named: qualify never guesses what a schema accepts.
struct SchemaReader {
  let module: ScriptModule
  /// `const NAME = <generics>(a, b) => expression;`: helpers that build a schema.
  let helpers: [String: (parameters: [String], body: ScriptExpression)]

  init(_ text: String) {
    module = ScriptModule(text)
    var helpers: [String: (parameters: [String], body: ScriptExpression)] = [:]
    let code = SourceText.codeLines(text, quotes: ["\"", "'", "`"]).map(\.1).joined(
      separator: "\n")
    let arrow = try? NSRegularExpression(
      pattern:
        #"(?m)^(?:export\s+)?const\s+([A-Za-z_$][\w$]*)\s*=\s*(?:<[^()=]*>)?\s*(\([^()]*\))\s*(?::[^=]+)?=>\s*([^;]+);"#
    )
    for match in arrow?.matches(in: code, range: NSRange(code.startIndex..., in: code)) ?? [] {
      guard let name = Range(match.range(at: 1), in: code),
        let header = Range(match.range(at: 2), in: code),
        let body = Range(match.range(at: 3), in: code),
        let tokens = ScriptLexer.tokens(String(code[body]))
      else { continue }
      var parser = ScriptParser(tokens: tokens)
      if let expression = parser.expression(), parser.atEnd {
        helpers[String(code[name])] = (
          ScriptStatements.parameters(String(code[header])), expression
        )
      }
    }
    self.helpers = helpers
  }

  /// The schema the module's constant `name` holds.
  func schema(_ name: String) -> Result<SchemaShape, ScriptReadError> {
    guard let expression = module.constants[name] else {
      return .failure(ScriptReadError(reason: "no constant \(name) qualify parses"))
    }
    do {
      return .success(try shape(expression, scope: [:], depth: 0).shape)
    } catch let error as ScriptReadError {
      return .failure(error)
    } catch {
      return .failure(ScriptReadError(reason: "\(error)"))
    }
  }

  /// What an expression stands for: a schema (and whether a field of it may be absent), or
  /// a literal a helper was given.
  enum Bound {
    case schema(SchemaShape, optional: Bool)
    case literal(String)
  }

  struct Typed {
    var shape: SchemaShape
    var optional = false
  }

  func shape(_ expression: ScriptExpression, scope: [String: Bound], depth: Int) throws -> Typed {
    guard depth < 48 else { throw ScriptReadError(reason: "schemas nested too deep") }
    switch expression {
    case .name(let name):
      if case .schema(let shape, let optional)? = scope[name] {
        return Typed(shape: shape, optional: optional)
      }
      guard let constant = module.constants[name] else {
        throw ScriptReadError(reason: "\(name) is not a schema of the module")
      }
      return try shape(constant, scope: [:], depth: depth + 1)
    case .call(.member(.name("z"), let kind, _), let arguments):
      return Typed(shape: try constructor(kind, arguments, scope: scope, depth: depth))
    case .call(.member(let base, let method, _), let arguments):
      var typed = try shape(base, scope: scope, depth: depth + 1)
      try modify(&typed, method, arguments, scope: scope, depth: depth + 1)
      return typed
    case .call(.name(let helper), let arguments):
      guard let (parameters, body) = helpers[helper], parameters.count == arguments.count
      else { throw ScriptReadError(reason: "\(helper)(…) is not a schema helper of the module") }
      var inner: [String: Bound] = [:]
      for (parameter, argument) in zip(parameters, arguments) {
        if case .literal(let value) = argument, let text = Self.jsonText(value) {
          inner[parameter] = .literal(text)
        } else {
          let typed = try shape(argument, scope: scope, depth: depth + 1)
          inner[parameter] = .schema(typed.shape, optional: typed.optional)
        }
      }
      return try shape(body, scope: inner, depth: depth + 1)
    default:
      throw ScriptReadError(reason: "a schema written as \(expression) is not read")
    }
  }

  func constructor(
    _ kind: String, _ arguments: [ScriptExpression], scope: [String: Bound], depth: Int
  ) throws -> SchemaShape {
    func schemaList(_ expression: ScriptExpression?) throws -> [SchemaShape] {
      guard case .array(let items)? = expression else {
        throw ScriptReadError(reason: "z.\(kind) without a list of schemas")
      }
      return try items.map { try shape($0, scope: scope, depth: depth + 1).shape }
    }
    switch kind {
    case "object", "strictObject", "looseObject":
      guard case .object(let members)? = arguments.first else {
        throw ScriptReadError(reason: "z.\(kind) without an object literal")
      }
      var fields: [String: SchemaShape.Field] = [:]
      for member in members {
        guard case .field(let key, let value) = member else {
          throw ScriptReadError(reason: "a spread in z.\(kind)({…})")
        }
        let typed = try shape(value, scope: scope, depth: depth + 1)
        fields[key] = SchemaShape.Field(typed.shape, optional: typed.optional)
      }
      return .object(fields, strict: kind == "strictObject")
    case "string": return .string(length: .init())
    case "number": return .number(integer: false, range: .init())
    case "int": return .number(integer: true, range: .init())
    case "boolean": return .boolean
    case "null": return .null
    case "unknown", "any": return .anything
    case "literal":
      switch arguments.first {
      case .literal(let value)?:
        guard let text = Self.jsonText(value) else { break }
        return .literal(text)
      case .name(let name)?:
        if case .literal(let text)? = scope[name] { return .literal(text) }
      default: break
      }
      throw ScriptReadError(reason: "z.literal of something other than a literal")
    case "enum":
      var values: [ScriptExpression] = []
      switch arguments.first {
      case .array(let items)?: values = items
      case .name(let name)?:
        if case .array(let items)? = module.constants[name] { values = items }
      default: break
      }
      let strings = values.compactMap { item -> String? in
        if case .literal(.string(let text)) = item { return text }
        return nil
      }
      guard !strings.isEmpty, strings.count == values.count else {
        throw ScriptReadError(reason: "z.enum of values that are not string literals")
      }
      return .oneOf(strings)
    case "array":
      guard let element = arguments.first else { throw ScriptReadError(reason: "z.array()") }
      return .array(try shape(element, scope: scope, depth: depth + 1).shape, count: .init())
    case "tuple":
      return .tuple(try schemaList(arguments.first))
    case "record":
      guard let value = arguments.last else { throw ScriptReadError(reason: "z.record()") }
      return .record(try shape(value, scope: scope, depth: depth + 1).shape)
    case "union":
      return .anyOf(try schemaList(arguments.first))
    case "discriminatedUnion":
      guard case .literal(.string(let key))? = arguments.first else {
        throw ScriptReadError(reason: "z.discriminatedUnion without its key")
      }
      var options: [String: SchemaShape] = [:]
      // An option without the key's literal is one no value selects (Zod refuses to build
      // such a union at all): what the module accepts is the options that have it.
      for option in try schemaList(arguments.dropFirst().first) {
        guard case .object(let fields, _) = option, let tag = fields[key]?.shape else { continue }
        guard case .literal(let text) = tag, text.hasPrefix("\""), text.hasSuffix("\"") else {
          throw ScriptReadError(
            reason: "an option of z.discriminatedUnion whose \(key) is not a string literal")
        }
        options[String(text.dropFirst().dropLast())] = option
      }
      return .tagged(key: key, options: options)
    default:
      throw ScriptReadError(reason: "z.\(kind) is not read")
    }
  }

  /// A method chained on a schema.
  func modify(
    _ typed: inout Typed, _ method: String, _ arguments: [ScriptExpression],
    scope: [String: Bound], depth: Int
  ) throws {
    func number() throws -> Double {
      guard let first = arguments.first, let value = constant(first) else {
        throw ScriptReadError(reason: ".\(method)(…) of a value qualify does not compute")
      }
      return value
    }
    switch (method, typed.shape) {
    case ("strict", .object(let fields, _)): typed.shape = .object(fields, strict: true)
    case ("passthrough", .object(let fields, _)), ("strip", .object(let fields, _)),
      ("loose", .object(let fields, _)):
      typed.shape = .object(fields, strict: false)
    case ("extend", .object(var fields, let strict)):
      guard case .object(let members)? = arguments.first else {
        throw ScriptReadError(reason: ".extend without an object literal")
      }
      for member in members {
        guard case .field(let key, let value) = member else {
          throw ScriptReadError(reason: "a spread in .extend({…})")
        }
        let inner = try shape(value, scope: scope, depth: depth + 1)
        fields[key] = SchemaShape.Field(inner.shape, optional: inner.optional)
      }
      typed.shape = .object(fields, strict: strict)
    case ("merge", .object(var fields, _)):
      guard let other = arguments.first,
        case .object(let more, let strict) = try shape(other, scope: scope, depth: depth + 1).shape
      else { throw ScriptReadError(reason: ".merge of something other than an object schema") }
      fields.merge(more) { $1 }
      typed.shape = .object(fields, strict: strict)
    case ("partial", .object(let fields, let strict)) where arguments.isEmpty:
      typed.shape = .object(
        fields.mapValues { SchemaShape.Field($0.shape, optional: true) }, strict: strict)
    case ("array", _):
      typed = Typed(shape: .array(typed.shape, count: .init()))
    case ("or", _):
      guard let other = arguments.first else { throw ScriptReadError(reason: ".or()") }
      typed.shape = .anyOf([typed.shape, try shape(other, scope: scope, depth: depth + 1).shape])
    case ("nonempty", .array), ("nonempty", .string): try bound(&typed, min: 1)
    case ("optional", _), ("default", _): typed.optional = true
    // A caught failure gives the fallback: any value passes.
    case ("catch", _): typed = Typed(shape: .anything, optional: true)
    case ("nullable", _): typed.shape = .nullable(typed.shape)
    case ("nullish", _):
      typed.shape = .nullable(typed.shape)
      typed.optional = true
    case ("int", .number(_, let range)): typed.shape = .number(integer: true, range: range)
    case ("nonnegative", _): try bound(&typed, min: 0)
    case ("min", _), ("gte", _): try bound(&typed, min: try number())
    case ("max", _), ("lte", _): try bound(&typed, max: try number())
    case ("length", _):
      let value = try number()
      try bound(&typed, min: value)
      try bound(&typed, max: value)
    case (let name, _) where Self.refinements.contains(name):
      // A refinement refuses more than the read part, never less: keeping the read part
      // claims nothing it does not check.
      break
    default:
      // Anything else may accept what the read part refuses (`.trim()`, `.passthrough` on a
      // non-object, `.catchall`, `.omit`): not guessed.
      throw ScriptReadError(reason: ".\(method)(…) is not read")
    }
  }

  /// Methods that only narrow what a schema accepts, or change what it returns and not what
  /// it accepts.
  static let refinements: Set<String> = [
    "describe", "regex", "email", "url", "uuid", "cuid", "cuid2", "ulid", "datetime", "date",
    "time", "ip", "emoji", "startsWith", "endsWith", "includes", "refine", "superRefine",
    "positive", "negative", "nonpositive", "finite", "safe", "multipleOf", "step", "gt", "lt",
    "brand", "readonly", "transform", "pipe", "meta",
  ]

  func bound(_ typed: inout Typed, min: Double? = nil, max: Double? = nil) throws {
    func narrowed(_ bounds: SchemaShape.Bounds) -> SchemaShape.Bounds {
      var bounds = bounds
      if let min { bounds.min = Swift.max(bounds.min ?? min, min) }
      if let max { bounds.max = Swift.min(bounds.max ?? max, max) }
      return bounds
    }
    switch typed.shape {
    case .string(let length): typed.shape = .string(length: narrowed(length))
    case .number(let integer, let range):
      typed.shape = .number(integer: integer, range: narrowed(range))
    case .array(let element, let count): typed.shape = .array(element, count: narrowed(count))
    default: throw ScriptReadError(reason: "a bound on a schema that has none")
    }
  }

  /// A numeric constant as the module computes it: literals, the module's constants, `*`,
  /// `+`, `-` and `Number.MAX_SAFE_INTEGER`.
  func constant(_ expression: ScriptExpression, depth: Int = 0) -> Double? {
    guard depth < 16 else { return nil }
    switch expression {
    case .literal(.number(let value)): return value
    case .name(let name): return module.constants[name].flatMap { constant($0, depth: depth + 1) }
    case .member(.name("Number"), "MAX_SAFE_INTEGER", _): return 9_007_199_254_740_991
    case .unary("-", let inner): return constant(inner, depth: depth + 1).map { -$0 }
    case .binary(let op, let left, let right):
      guard let a = constant(left, depth: depth + 1), let b = constant(right, depth: depth + 1)
      else { return nil }
      switch op {
      case "*": return a * b
      case "+": return a + b
      case "-": return a - b
      default: return nil
      }
    default: return nil
    }
  }

  static func jsonText(_ value: ScriptFunction.Value) -> String? {
    switch value {
    case .string(let text): return "\"\(text)\""
    case .bool(let flag): return flag ? "true" : "false"
    case .number(let number): return SchemaShape.numberText(number)
    default: return nil
    }
  }
}
