import Foundation
import QualifyCore

extension ConfigScript.Evaluator {
  typealias Traced = ConfigScript.Traced
  typealias Value = ConfigScript.Value

  /// `a ? b : c`, the lowest precedence the subset has.
  mutating func expression() throws -> Traced {
    try descend()
    defer { depth -= 1 }
    let condition = try logical()
    guard accept("?") else { return condition }
    let wasActive = active
    active = wasActive && condition.value.truthy
    let yes = try expression()
    try expect(":")
    active = wasActive && !condition.value.truthy
    let no = try expression()
    active = wasActive
    guard active else { return Traced(.undefined) }
    return (condition.value.truthy ? yes : no).adding(condition.reads)
  }

  /// `||` and `??`, then `&&`: each side evaluated only when JavaScript would.
  mutating func logical() throws -> Traced {
    var left = try conjunction()
    while isPunctuator("||") || isPunctuator("??") {
      let nullish = isPunctuator("??")
      position += 1
      let decided: Bool
      switch left.value {
      case .undefined, .null: decided = false
      default: decided = nullish || left.value.truthy
      }
      let wasActive = active
      active = wasActive && !decided
      let right = try conjunction()
      active = wasActive
      if active && !decided { left = right.adding(left.reads) }
    }
    return left
  }

  mutating func conjunction() throws -> Traced {
    var left = try equality()
    while accept("&&") {
      let wasActive = active
      active = wasActive && left.value.truthy
      let right = try equality()
      active = wasActive
      if active && left.value.truthy { left = right.adding(left.reads) }
    }
    return left
  }

  mutating func equality() throws -> Traced {
    var left = try additive()
    while let symbol = ["===", "!==", "==", "!="].first(where: { isPunctuator($0) }) {
      position += 1
      let right = try additive()
      var same = left.value.strictlyEquals(right.value)
      if symbol.count == 2 {
        // Loose equality, as far as a config uses it: null and undefined are equal.
        switch (left.value, right.value) {
        case (.undefined, .null), (.null, .undefined): same = true
        default: break
        }
      }
      left = Traced(.bool(symbol.hasPrefix("!") ? !same : same), reads: left.reads + right.reads)
    }
    return left
  }

  mutating func additive() throws -> Traced {
    var left = try unary()
    while accept("+") {
      let right = try unary()
      switch (left.value, right.value) {
      case (.number(let a), .number(let b)):
        left = Traced(.number(a + b), reads: left.reads + right.reads)
      default:
        left = Traced(
          .string(left.value.text + right.value.text), reads: left.reads + right.reads)
      }
    }
    return left
  }

  mutating func unary() throws -> Traced {
    try descend()
    defer { depth -= 1 }
    if accept("!") {
      let operand = try unary()
      return Traced(.bool(!operand.value.truthy), reads: operand.reads)
    }
    if accept("-") {
      let operand = try unary()
      guard case .number(let n) = operand.value else {
        return try unsupported("`-` on a value that is not a number")
      }
      return Traced(.number(-n), reads: operand.reads)
    }
    if isWord("typeof") {
      position += 1
      let operand = try unary()
      let kind: String
      switch operand.value {
      case .undefined: kind = "undefined"
      case .bool: kind = "boolean"
      case .number: kind = "number"
      case .string: kind = "string"
      case .global, .method: kind = "function"
      default: kind = "object"
      }
      return Traced(.string(kind), reads: operand.reads)
    }
    if isWord("new") {
      position += 1
      return try postfix(try primary())
    }
    return try postfix(try primary())
  }

  /// Member reads, calls and TypeScript's `as` / `satisfies` / non-null `!`.
  mutating func postfix(_ start: Traced) throws -> Traced {
    var value = start
    while true {
      let line = self.line
      if accept(".") || accept("?.") {
        let optional = tokens[position - 1].kind == .punctuator("?.")
        if isPunctuator("(") { continue }
        let name = try word()
        value = try member(of: value, name, optional: optional, line: line)
      } else if accept("[") {
        let key = try expression()
        try expect("]")
        value = try member(of: value, key.value.text, optional: false, line: line).adding(key.reads)
      } else if accept("(") {
        var arguments: [Traced] = []
        while !accept(")") {
          arguments.append(try expression())
          if !isPunctuator(")") { try expect(",") }
        }
        value = try call(value, arguments, line: line)
      } else if isWord("as") || isWord("satisfies") {
        position += 1
        try skipType()
      } else if isPunctuator("!"),
        let next = position + 1 < tokens.count ? tokens[position + 1] : nil,
        next.kind == .punctuator(".") || next.kind == .punctuator(")")
          || next.kind == .punctuator(",")
      {
        position += 1
      } else {
        return value
      }
    }
  }

  mutating func primary() throws -> Traced {
    guard let token = current else { throw error("expected a value") }
    position += 1
    switch token.kind {
    case .number(let n): return Traced(.number(n))
    case .string(let s): return Traced(.string(s))
    case .template(let parts, let expressions):
      return try template(parts, expressions, line: token.line)
    case .punctuator("("):
      let inner = try expression()
      try expect(")")
      return inner
    case .punctuator("{"): return try object()
    case .punctuator("["):
      var items: [Traced] = []
      while !accept("]") {
        items.append(try expression())
        if !isPunctuator("]") { try expect(",") }
      }
      return Traced(.array(items))
    case .word(let name): return try identifier(name, line: token.line)
    default:
      position -= 1
      throw error("expected a value")
    }
  }

  mutating func identifier(_ name: String, line: Int) throws -> Traced {
    switch name {
    case "true": return Traced(.bool(true))
    case "false": return Traced(.bool(false))
    case "null": return Traced(.null)
    case "undefined": return Traced(.undefined)
    case "NaN": return Traced(.number(.nan))
    case "process", "Buffer", "Boolean", "String", "Number", "JSON", "parseInt", "Error",
      "TypeError":
      return Traced(.global(name))
    default:
      if let value = constants[name] { return value }
      guard active else { return Traced(.undefined) }
      return try unsupported("`\(name)`, which is not declared before it is used", line: line)
    }
  }

  /// `{ key: value, shorthand, ...spread }`.
  mutating func object() throws -> Traced {
    var members: [ConfigScript.Member] = []
    func set(_ member: ConfigScript.Member) {
      if let index = members.firstIndex(where: { $0.key == member.key }) {
        members[index] = member
      } else {
        members.append(member)
      }
    }
    while !accept("}") {
      let line = self.line
      if accept("...") {
        let spread = try expression()
        if case .object(let inner) = spread.value {
          for member in inner {
            set(
              ConfigScript.Member(
                key: member.key, value: member.value.adding(spread.reads), line: member.line))
          }
        }
      } else {
        let key: String
        switch current?.kind {
        case .string(let s)?: key = s
        case .number(let n)?: key = Value.number(n).text
        case .word(let w)?: key = w
        default: throw error("expected a key")
        }
        position += 1
        if accept(":") {
          set(ConfigScript.Member(key: key, value: try expression(), line: line))
        } else {
          set(ConfigScript.Member(key: key, value: try identifier(key, line: line), line: line))
        }
      }
      if !isPunctuator("}") { try expect(",") }
    }
    return Traced(.object(members))
  }

  mutating func template(_ parts: [String], _ expressions: [String], line: Int) throws -> Traced {
    var text = parts.first ?? ""
    var reads: [String] = []
    for (index, source) in expressions.enumerated() {
      var inner = ConfigScript.Evaluator(
        tokens: try ConfigScript.tokens(source, file: file, firstLine: line), file: file, env: env)
      inner.constants = constants
      inner.active = active
      inner.depth = depth
      let value = try inner.expression()
      text += value.value.text + (index + 1 < parts.count ? parts[index + 1] : "")
      reads += value.reads
    }
    return Traced(.string(text), reads: reads)
  }

  func unsupported(_ what: String, line: Int? = nil) throws -> Traced {
    guard active else { return Traced(.undefined) }
    throw error("cannot evaluate \(what)", line: line)
  }
}
