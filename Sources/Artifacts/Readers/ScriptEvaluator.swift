import Foundation

/// Runs a function's statements; nil wherever JavaScript would do something qualify does not
/// model.
struct ScriptEvaluator {
  typealias Value = ScriptFunction.Value
  /// The module whose names are in scope: the one of the function being run.
  var module: ScriptModule
  var depth = 0
  var scopes: [[String: Value]] = []
  /// Module constants being evaluated (a constant defined through itself is unanswered).
  var resolving: Set<String> = []
  /// Names the caller gives every module (`process`, whose `env` is the deployed env).
  var globals: [String: Value] = [:]
  /// An object whose reads are recorded (`process.env`, however it is passed on), and the
  /// keys read from it, in order: what the answer depended on.
  var recorded: Value?
  var recordedKeys: [String] = []

  mutating func record(_ base: Value, _ key: String) {
    if recorded != nil, base == recorded, !recordedKeys.contains(key) { recordedKeys.append(key) }
  }

  enum Flow {
    case next
    case returned(Value)
    case threw
  }
  /// Set when an expression threw (a `new URL` of something that is not a URL): the value is
  /// nil, and the statement that evaluated it throws.
  var thrown = false
  /// The value of the last `throw` statement, when qualify evaluates it.
  var thrownValue: Value?
  /// Why a call went unanswered, when it was a name: the first function called or name read
  /// that neither the module nor qualify defines (an import qualify could not follow), or a
  /// method of a JavaScript global qualify does not model.
  var undefinedCallee: String?
  static let standardGlobals: Set<String> = [
    "Object", "Math", "JSON", "Date", "Intl", "Array", "Reflect", "Promise", "Symbol",
  ]

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
    case nil: return nil
    case .threw:
      // The caller's statement throws in its turn (a `catch` there takes it).
      thrown = true
      return nil
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
    case .throwing(let value):
      // What it throws, for the reader's message; a throw whatever qualify makes of it.
      thrownValue = evaluate(value)
      thrown = false
      return .threw
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

  /// Whether `name` is the global of that name: no local or module constant shadows it.
  func lookupIsUnbound(_ name: String) -> Bool {
    !scopes.contains { $0[name] != nil } && module.constants[name] == nil
      && module.imported[name] == nil && globals[name] == nil
  }

  mutating func lookup(_ name: String) -> Value? {
    for scope in scopes.reversed() {
      if let value = scope[name] { return value }
    }
    if module.constants[name] == nil, let imported = module.imported[name] {
      // Evaluated in its own file, where its own names are in scope.
      let (savedModule, savedScopes) = (module, scopes)
      module = imported.module.module
      scopes = [[:]]
      defer { (module, scopes) = (savedModule, savedScopes) }
      return module.constants[imported.name] == nil ? nil : lookup(imported.name)
    }
    guard let constant = module.constants[name] else { return globals[name] }
    guard !resolving.contains(name) else { return nil }
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
    case .name(let name):
      let value = lookup(name)
      if value == nil, undefinedCallee == nil, lookupIsUnbound(name) {
        undefinedCallee = "\(name), which neither the module nor qualify defines"
      }
      return value
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
      record(base, name)
      return Self.property(base, name)
    case .index(let object, let index):
      guard let base = evaluate(object), let key = evaluate(index) else { return nil }
      if case .string(let name) = key { record(base, name) }
      switch (base, key) {
      case (.array(let values), .number(let n)):
        let i = Int(n)
        return Double(i) == n && i >= 0 && i < values.count ? values[i] : .undefined
      case (.object(let fields), .string(let key)):
        return fields[key] ?? .undefined
      case (.string(let text), .number(let n)):
        let scalars = Array(text.utf16)
        let i = Int(n)
        guard Double(i) == n, i >= 0, i < scalars.count else { return .undefined }
        return .string(String(decoding: [scalars[i]], as: UTF16.self))
      default: return nil
      }
    case .arrow:
      // A function is not a value qualify holds: only the array methods it is given to run it.
      return nil
    case .call(.member(let object, let method, let optional), let arguments)
    where ScriptEvaluator.iterating.contains(method) && arguments.count == 1
      && (arguments[0].isArrow || arguments[0] == .name("Boolean") && lookupIsUnbound("Boolean")):
      guard let base = evaluate(object) else { return nil }
      if optional, base == .undefined || base == .null { return .undefined }
      return iterate(base, method, arguments[0])
    case .call(let callee, let arguments):
      var values: [Value] = []
      for argument in arguments {
        guard let value = evaluate(argument) else { return nil }
        values.append(value)
      }
      // `Object.freeze(x)` is `x` to a reader: nothing here writes to it afterwards.
      if case .member(.name("Object"), "freeze", false) = callee, values.count == 1,
        lookupIsUnbound("Object")
      {
        return values[0]
      }
      if case .member(let object, let method, let optional) = callee {
        // A global of JavaScript's own that qualify does not model (`Object.keys`, `Math.max`).
        if case .name(let name) = object, Self.standardGlobals.contains(name),
          lookupIsUnbound(name)
        {
          if undefinedCallee == nil {
            undefinedCallee = "\(name).\(method)(), which qualify does not evaluate"
          }
          return nil
        }
        guard let base = evaluate(object) else { return nil }
        if optional, base == .undefined || base == .null { return .undefined }
        return Self.method(base, method, values)
      }
      guard case .name(let name) = callee else { return nil }
      if let global = Self.global(name, values) { return global }
      if module.functions[name] == nil, let imported = module.imported[name],
        let function = imported.module.module.functions[imported.name]
      {
        let saved = module
        module = imported.module.module
        defer { module = saved }
        return call(parameters: function.parameters, body: function.body, values)
      }
      guard let function = module.functions[name] else {
        if undefinedCallee == nil, lookupIsUnbound(name) {
          undefinedCallee = "\(name)(), which neither the module nor qualify defines"
        }
        return nil
      }
      return call(parameters: function.parameters, body: function.body, values)
    case .object(let members):
      var fields: [String: Value] = [:]
      for member in members {
        switch member {
        case .field(let key, let expression):
          guard let value = evaluate(expression) else { return nil }
          fields[key] = value
        case .spread(let expression):
          guard let value = evaluate(expression) else { return nil }
          switch value {
          case .object(let more): fields.merge(more) { _, new in new }
          case .undefined, .null, .bool, .number: continue
          case .string(let text) where text.isEmpty: continue
          default: return nil
          }
        }
      }
      return .object(fields)
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
    case "Error": return .object(["message": .string(arguments.isEmpty ? "" : string(first))])
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
}
