import Foundation

/// Whether an early refusal read from an app's code (`if (C) return { status: "rejected", … }`)
/// would refuse a message that passes every test it makes — a refusal whose negation was lost
/// or whose `&&` became `||` keeps "the check" in place while the receiver refuses everything.
///
/// Each test of the condition is taken as a validity test, whose passing value follows how
/// refusals are written (`x === expected` passes when true, `x !== expected` and `n > limit`
/// when false, a value or a predicate call when truthy, a comparison with `null`, `undefined`,
/// `false`, `0` or `""` the other way round), or as a variety test: the message's type, kind,
/// action or name against a literal, which differs between well-formed messages. The refusal
/// refuses a well-formed message when some variety makes it true with every validity test
/// passing.
enum RefusalCondition {
  /// true when a well-formed message is refused, false when none is, nil when the condition
  /// holds a construct qualify does not read.
  /// `required` says whether a value is read after the refusal on the way to what it guards
  /// (`channel.nonce`): a truthy test of it passes when the value is there.
  static func refusesWellFormed(_ text: String, required: (String) -> Bool) -> Bool? {
    var unread = false
    let outcome = outcomes(text) { test, calls in
      switch passingValue(test, calls: calls, required: required) {
      case .passes(let value): return value
      case .varies: return nil
      case .unknown:
        unread = true
        return nil
      }
    }
    return unread ? nil : outcome?.canBeTrue
  }

  /// Whether the condition can be true and whether it can be false, over every value of its
  /// tests, with the tests `fixed` gives a value for (given each test and what the `__callN`
  /// names stand for) held at it; nil when the condition is not read or `fixed` fixes none.
  static func range(
    _ text: String, fixed: (ScriptCondition, [String: String]) -> Bool?
  ) -> (canBeTrue: Bool, canBeFalse: Bool)? {
    var held = 0
    let outcome = outcomes(text) { test, calls in
      let value = fixed(test, calls)
      if value != nil { held += 1 }
      return value
    }
    return held == 0 ? nil : outcome
  }

  /// The values the condition takes with each test `fixed` gives a value for held at it and
  /// the others free (at most eight); nil when it is not read.
  private static func outcomes(
    _ text: String, fixed: (ScriptCondition, [String: String]) -> Bool?
  ) -> (canBeTrue: Bool, canBeFalse: Bool)? {
    let (abstracted, calls) = abstractingCalls(text)
    guard case .success(let condition) = ScriptConditionParser.parse(abstracted) else {
      return nil
    }
    var tests: [ScriptCondition] = []
    collect(condition, into: &tests)
    var held: [(test: ScriptCondition, value: Bool)] = []
    var free: [ScriptCondition] = []
    for test in tests where !held.contains(where: { $0.test == test }) && !free.contains(test) {
      if let value = fixed(test, calls) { held.append((test, value)) } else { free.append(test) }
    }
    guard free.count <= 8 else { return nil }
    var (canBeTrue, canBeFalse) = (false, false)
    for combination in 0..<(1 << free.count) {
      let values =
        held + free.enumerated().map { ($0.element, combination & (1 << $0.offset) != 0) }
      if evaluate(condition, values) { canBeTrue = true } else { canBeFalse = true }
    }
    return (canBeTrue, canBeFalse)
  }

  /// The text with each call (`registry.rememberMessage(a, b)`) replaced by a name the
  /// condition parser reads (`__call0`), and what each name stands for.
  static func abstractingCalls(_ text: String) -> (String, [String: String]) {
    let characters = Array(text)
    var out = ""
    var calls: [String: String] = [:]
    var index = 0
    while index < characters.count {
      let c = characters[index]
      if c == "\"" || c == "'" || c == "`" {
        var end = index + 1
        while end < characters.count, characters[end] != c {
          end += characters[end] == "\\" ? 2 : 1
        }
        out += String(characters[index..<min(end + 1, characters.count)])
        index = end + 1
        continue
      }
      guard c.isLetter || c == "_" || c == "$" else {
        out.append(c)
        index += 1
        continue
      }
      var end = index
      while end < characters.count,
        characters[end].isLetter || characters[end].isNumber || "_$.?".contains(characters[end])
      {
        end += 1
      }
      let name = String(characters[index..<end])
      var open = end
      while open < characters.count, characters[open] == " " { open += 1 }
      guard open < characters.count, characters[open] == "(", name != "typeof" else {
        out += name
        index = end
        continue
      }
      var depth = 0
      var close = open
      while close < characters.count {
        if characters[close] == "(" { depth += 1 }
        if characters[close] == ")" {
          depth -= 1
          if depth == 0 { break }
        }
        close += 1
      }
      let atom = "__call\(calls.count)"
      calls[atom] = String(characters[index..<min(close + 1, characters.count)])
      out += atom
      index = close + 1
    }
    return (out, calls)
  }

  private static func collect(_ condition: ScriptCondition, into tests: inout [ScriptCondition]) {
    switch condition {
    case .or(let a, let b), .and(let a, let b):
      collect(a, into: &tests)
      collect(b, into: &tests)
    case .not(let inner): collect(inner, into: &tests)
    case .compare, .truthy: tests.append(condition)
    }
  }

  private static func evaluate(
    _ condition: ScriptCondition, _ values: [(test: ScriptCondition, value: Bool)]
  ) -> Bool {
    switch condition {
    case .or(let a, let b): evaluate(a, values) || evaluate(b, values)
    case .and(let a, let b): evaluate(a, values) && evaluate(b, values)
    case .not(let inner): !evaluate(inner, values)
    case .compare, .truthy: values.first { $0.test == condition }?.value ?? false
    }
  }

  /// What a test is on a well-formed message: a fixed value, either value, or not known.
  enum Passing {
    case passes(Bool)
    case varies
    case unknown
  }

  /// The value a test takes on a well-formed message.
  private static func passingValue(
    _ test: ScriptCondition, calls: [String: String], required: (String) -> Bool
  ) -> Passing {
    switch test {
    case .truthy(.path(let path, _)):
      if path.count == 1, let call = calls[path[0]] {
        // A set of messages already seen holds a well-formed (new) one's id not; a predicate
        // (`COMMANDS.has(type)`, `registry.rememberMessage(…)`, `isValid(…)`) holds.
        let seen = #"(?i)(seen|processed|handled|recent|replay)\w*\s*\??\.has\("#
        if call.range(of: seen, options: .regularExpression) != nil { return .passes(false) }
        let predicate =
          #"(?:^|\.)(?:has|is|remember|valid|check|matches|allow|accept|can)\w*\s*\($"#
        let head = String(call.prefix { $0 != "(" }) + "("
        return head.range(of: predicate, options: .regularExpression) != nil
          ? .passes(true) : .unknown
      }
      let last = path.last ?? ""
      if last.range(
        of: #"^(ok|valid|success|allowed|is[A-Z]\w*|has[A-Z]\w*)$"#, options: .regularExpression)
        != nil
      {
        return .passes(true)
      }
      if last.range(
        of: #"(?i)^(error|errors|invalid|failed|failure|duplicate)$"#, options: .regularExpression)
        != nil
      {
        return .passes(false)
      }
      return path.count == 1 && required(path[0]) ? .passes(true) : .unknown
    case .truthy: return .unknown
    case .compare(let a, let comparison, let b):
      if isVariety(a, b) || isVariety(b, a) { return .varies }
      var passes: Bool
      switch comparison {
      case .strictEqual, .equal: passes = true
      default: passes = false
      }
      if isEmptyish(a) || isEmptyish(b) { passes.toggle() }
      return .passes(passes)
    default: return .unknown
    }
  }

  private static func isVariety(_ term: ScriptTerm, _ other: ScriptTerm) -> Bool {
    guard case .path(let path, _) = term, let last = path.last,
      ["type", "kind", "action", "name"].contains(last),
      case .literal(.string) = other
    else { return false }
    return true
  }

  private static func isEmptyish(_ term: ScriptTerm) -> Bool {
    guard case .literal(let value) = term else { return false }
    return [.null, .undefined, .bool(false), .number(0), .string("")].contains(value)
  }
}
