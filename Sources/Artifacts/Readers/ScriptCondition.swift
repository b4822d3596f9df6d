import Foundation
import QualifyCore

/// A value as JavaScript sees it, for evaluating a condition read from an app's web code.
public enum ScriptValue: Sendable, Equatable {
  case undefined, null
  case bool(Bool)
  case number(Double)
  case string(String)
  case object([String: ScriptValue])
  case array

  /// A decoded JSON value (`JSONSerialization`'s types); nil is `undefined`.
  public init(json: Any?) {
    switch json {
    case nil: self = .undefined
    case is NSNull: self = .null
    case let value as String: self = .string(value)
    case let value as NSNumber:
      // JSONSerialization gives `true` as a boolean NSNumber (objCType "c").
      self =
        value.objCType.pointee == CChar(UInt8(ascii: "c"))
        ? .bool(value.boolValue) : .number(value.doubleValue)
    case let value as [String: Any]: self = .object(value.mapValues { ScriptValue(json: $0) })
    case is [Any]: self = .array
    default: self = .undefined
    }
  }

  /// `typeof value`.
  public var typeName: String {
    switch self {
    case .undefined: "undefined"
    case .null, .object, .array: "object"
    case .bool: "boolean"
    case .number: "number"
    case .string: "string"
    }
  }

  public var truthy: Bool {
    switch self {
    case .undefined, .null: false
    case .bool(let value): value
    case .number(let value): value != 0 && !value.isNaN
    case .string(let value): !value.isEmpty
    case .object, .array: true
    }
  }

  /// `value.name` (`undefined` on anything but an object; reading it on null or undefined
  /// throws in JavaScript, which the caller sees as nil).
  public func member(_ name: String) -> ScriptValue? {
    switch self {
    case .undefined, .null: nil
    case .object(let fields): fields[name] ?? .undefined
    default: .undefined
    }
  }
}

/// A boolean condition of an app's TypeScript, read as written (issue 23): `||`, `&&`, `!`,
/// `===`/`!==`/`==`/`!=`, the number comparisons, `typeof`, member paths (`fields.product`,
/// `record?.status`) and literals. Anything else (a call, arithmetic) is not read, and the
/// decision resting on it is unverified.
public indirect enum ScriptCondition: Sendable, Equatable, CustomStringConvertible {
  case or(ScriptCondition, ScriptCondition)
  case and(ScriptCondition, ScriptCondition)
  case not(ScriptCondition)
  case compare(ScriptTerm, Comparison, ScriptTerm)
  case truthy(ScriptTerm)

  public enum Comparison: String, Sendable {
    case strictEqual = "==="
    case strictNotEqual = "!=="
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
  }

  /// nil when the condition throws (a member of null read without `?.`).
  public func evaluate(_ lookup: ([String]) -> ScriptValue?) -> Bool? {
    switch self {
    case .or(let left, let right):
      guard let first = left.evaluate(lookup) else { return nil }
      return first ? true : right.evaluate(lookup)
    case .and(let left, let right):
      guard let first = left.evaluate(lookup) else { return nil }
      return first ? right.evaluate(lookup) : false
    case .not(let inner): return inner.evaluate(lookup).map { !$0 }
    case .truthy(let term): return term.value(lookup)?.truthy
    case .compare(let left, let comparison, let right):
      guard let a = left.value(lookup), let b = right.value(lookup) else { return nil }
      switch comparison {
      case .strictEqual: return a == b
      case .strictNotEqual: return a != b
      case .equal: return Self.loose(a, b)
      case .notEqual: return !Self.loose(a, b)
      default:
        guard case .number(let x) = a, case .number(let y) = b else { return false }
        switch comparison {
        case .less: return x < y
        case .lessOrEqual: return x <= y
        case .greater: return x > y
        default: return x >= y
        }
      }
    }
  }

  /// The condition with every test that reads a path `field` matches made false: that test
  /// never rejects (a mutation's "the check ignores FIELD").
  public func ignoring(_ field: ([String]) -> Bool) -> ScriptCondition {
    let never = ScriptCondition.compare(.literal(.bool(true)), .strictEqual, .literal(.bool(false)))
    func reads(_ term: ScriptTerm) -> Bool {
      switch term {
      case .path(let path, _), .typeOf(let path): field(path)
      case .literal: false
      }
    }
    switch self {
    case .or(let a, let b): return .or(a.ignoring(field), b.ignoring(field))
    case .and(let a, let b): return .and(a.ignoring(field), b.ignoring(field))
    case .not(let inner): return inner.mentions(field) ? never : .not(inner.ignoring(field))
    case .compare(let a, _, let b): return reads(a) || reads(b) ? never : self
    case .truthy(let term): return reads(term) ? never : self
    }
  }

  /// Whether any test of the condition reads a path `field` matches.
  public func mentions(_ field: ([String]) -> Bool) -> Bool {
    func reads(_ term: ScriptTerm) -> Bool {
      switch term {
      case .path(let path, _), .typeOf(let path): field(path)
      case .literal: false
      }
    }
    switch self {
    case .or(let a, let b), .and(let a, let b): return a.mentions(field) || b.mentions(field)
    case .not(let inner): return inner.mentions(field)
    case .compare(let a, _, let b): return reads(a) || reads(b)
    case .truthy(let term): return reads(term)
    }
  }

  /// As TypeScript would write it, fully parenthesised where operators nest.
  public var description: String {
    switch self {
    case .or(let a, let b):
      "\(a.isOr ? a.description : a.nested) || \(b.isOr ? b.description : b.nested)"
    case .and(let a, let b):
      "\(a.isAnd ? a.description : a.nested) && \(b.isAnd ? b.description : b.nested)"
    case .not(let inner):
      switch inner {
      case .truthy, .not: "!\(inner)"
      default: "!(\(inner))"
      }
    case .compare(let a, let comparison, let b): "\(a) \(comparison.rawValue) \(b)"
    case .truthy(let term): "\(term)"
    }
  }

  private var nested: String {
    switch self {
    case .or, .and: "(\(description))"
    default: description
    }
  }

  private var isOr: Bool {
    if case .or = self { return true }
    return false
  }

  private var isAnd: Bool {
    if case .and = self { return true }
    return false
  }

  /// `==` on the values a validator compares: null and undefined are equal to each other.
  static func loose(_ a: ScriptValue, _ b: ScriptValue) -> Bool {
    if [.null, .undefined].contains(a) && [.null, .undefined].contains(b) { return true }
    return a == b
  }
}

/// An operand of a condition.
public enum ScriptTerm: Sendable, Equatable, CustomStringConvertible {
  /// `fields.product`: the first name is a variable; `optional` parts were read with `?.`.
  case path([String], optional: Bool)
  case typeOf([String])
  case literal(ScriptValue)

  public var description: String {
    switch self {
    case .path(let path, let optional): path.joined(separator: optional ? "?." : ".")
    case .typeOf(let path): "typeof " + path.joined(separator: ".")
    case .literal(let value):
      switch value {
      case .undefined: "undefined"
      case .null: "null"
      case .bool(let flag): "\(flag)"
      case .number(let number):
        number == number.rounded() ? "\(Int(number))" : "\(number)"
      case .string(let text): "'\(text)'"
      case .object: "{…}"
      case .array: "[…]"
      }
    }
  }

  func value(_ lookup: ([String]) -> ScriptValue?) -> ScriptValue? {
    switch self {
    case .literal(let value): return value
    case .typeOf(let path): return .string((lookup(path) ?? .undefined).typeName)
    case .path(let path, let optional):
      guard let value = lookup(path) else { return optional ? .undefined : nil }
      return value
    }
  }
}

/// The recursive-descent parser of `ScriptCondition`.
public struct ScriptConditionParser {
  enum Token: Equatable {
    case open, close, and, or, not, typeOf
    case compare(ScriptCondition.Comparison)
    case path([String], optional: Bool)
    case literal(ScriptValue)
  }

  var tokens: [Token] = []
  var position = 0
  /// Why the text could not be read.
  public private(set) var problem: String?

  public static func parse(_ text: String) -> Result<ScriptCondition, ScriptReadError> {
    var parser = ScriptConditionParser()
    guard let tokens = tokenize(text) else {
      return .failure(ScriptReadError(reason: "`\(text)` holds a construct qualify does not read"))
    }
    parser.tokens = tokens
    guard let condition = parser.parseOr(), parser.position == tokens.count else {
      return .failure(
        ScriptReadError(reason: parser.problem ?? "`\(text)` is not a condition qualify reads"))
    }
    return .success(condition)
  }

  static func tokenize(_ text: String) -> [Token]? {
    var out: [Token] = []
    let characters = Array(text)
    var index = 0
    func at(_ offset: Int) -> Character {
      index + offset < characters.count ? characters[index + offset] : " "
    }
    while index < characters.count {
      let c = characters[index]
      switch c {
      case " ", "\t", "\n": index += 1
      case "(":
        out.append(.open)
        index += 1
      case ")":
        out.append(.close)
        index += 1
      case "&" where at(1) == "&":
        out.append(.and)
        index += 2
      case "|" where at(1) == "|":
        out.append(.or)
        index += 2
      case "=" where at(1) == "=":
        let strict = at(2) == "="
        out.append(.compare(strict ? .strictEqual : .equal))
        index += strict ? 3 : 2
      case "!" where at(1) == "=":
        let strict = at(2) == "="
        out.append(.compare(strict ? .strictNotEqual : .notEqual))
        index += strict ? 3 : 2
      case "!":
        out.append(.not)
        index += 1
      case "<", ">":
        let orEqual = at(1) == "="
        let comparison: ScriptCondition.Comparison =
          c == "<" ? (orEqual ? .lessOrEqual : .less) : (orEqual ? .greaterOrEqual : .greater)
        out.append(.compare(comparison))
        index += orEqual ? 2 : 1
      case "\"", "'":
        var end = index + 1
        var literal = ""
        while end < characters.count, characters[end] != c {
          if characters[end] == "\\", end + 1 < characters.count { end += 1 }
          literal.append(characters[end])
          end += 1
        }
        guard end < characters.count else { return nil }
        out.append(.literal(.string(literal)))
        index = end + 1
      case _ where c.isNumber:
        var end = index
        while end < characters.count,
          characters[end].isNumber || characters[end] == "_" || characters[end] == "."
        { end += 1 }
        guard
          let number = Double(
            String(characters[index..<end]).replacingOccurrences(of: "_", with: ""))
        else { return nil }
        out.append(.literal(.number(number)))
        index = end
      case _ where c.isLetter || c == "_" || c == "$":
        let (word, end) = name(characters, from: index)
        index = end
        // A call (`isRecord(body)`) is code qualify does not run.
        guard let word, at(0) != "(" || word.isKeyword else { return nil }
        out.append(word.token)
      default: return nil
      }
    }
    return out
  }

  /// A name or a member path (`url.host`, `body?.kind`) from `start`: the token it makes and
  /// where it ends; nil when a part is empty (`a..b`).
  static func name(_ characters: [Character], from start: Int) -> (Name?, Int) {
    var end = start
    var optional = false
    var parts: [String] = []
    var part = ""
    while end < characters.count {
      let d = characters[end]
      if d.isLetter || d.isNumber || d == "_" || d == "$" {
        part.append(d)
        end += 1
      } else if d == "?", end + 1 < characters.count, characters[end + 1] == "." {
        optional = true
        parts.append(part)
        part = ""
        end += 2
      } else if d == "." {
        parts.append(part)
        part = ""
        end += 1
      } else {
        break
      }
    }
    parts.append(part)
    let keywords: [[String]: Token] = [
      ["null"]: .literal(.null), ["undefined"]: .literal(.undefined),
      ["true"]: .literal(.bool(true)), ["false"]: .literal(.bool(false)), ["typeof"]: .typeOf,
    ]
    if let keyword = keywords[parts] { return (Name(token: keyword, isKeyword: true), end) }
    guard !parts.contains("") else { return (nil, end) }
    return (Name(token: .path(parts, optional: optional), isKeyword: false), end)
  }

  /// What `name(_:from:)` read: a keyword's token, or a path's.
  struct Name {
    var token: Token
    var isKeyword: Bool
  }

  var current: Token? { position < tokens.count ? tokens[position] : nil }

  mutating func parseOr() -> ScriptCondition? {
    guard var left = parseAnd() else { return nil }
    while current == .or {
      position += 1
      guard let right = parseAnd() else { return nil }
      left = .or(left, right)
    }
    return left
  }

  mutating func parseAnd() -> ScriptCondition? {
    guard var left = parseUnary() else { return nil }
    while current == .and {
      position += 1
      guard let right = parseUnary() else { return nil }
      left = .and(left, right)
    }
    return left
  }

  mutating func parseUnary() -> ScriptCondition? {
    if current == .not {
      position += 1
      return parseUnary().map { .not($0) }
    }
    if current == .open {
      position += 1
      guard let inner = parseOr(), current == .close else {
        problem = problem ?? "unbalanced parentheses"
        return nil
      }
      position += 1
      return inner
    }
    guard let left = parseTerm() else { return nil }
    guard case .compare(let comparison) = current else { return .truthy(left) }
    position += 1
    guard let right = parseTerm() else { return nil }
    return .compare(left, comparison, right)
  }

  mutating func parseTerm() -> ScriptTerm? {
    switch current {
    case .typeOf:
      position += 1
      guard case .path(let path, _) = current else {
        problem = problem ?? "`typeof` of something that is not a name"
        return nil
      }
      position += 1
      return .typeOf(path)
    case .path(let path, let optional):
      position += 1
      return .path(path, optional: optional)
    case .literal(let value):
      position += 1
      return .literal(value)
    default:
      problem = problem ?? "a term qualify does not read"
      return nil
    }
  }
}

/// Why a piece of an app's script could not be read.
public struct ScriptReadError: Error, Sendable, Equatable {
  public var reason: String
}
