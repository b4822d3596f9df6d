import Foundation

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
      if take(":") { _ = skipType(to: ["=", ";"]) }
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
      if let parameters = arrowParameters() { return arrowBody(parameters) }
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
    case .punct("{"):
      // In an expression a brace opens an object literal, never a block.
      var members: [ScriptExpression.ObjectMember] = []
      while !take("}") {
        if take("...") {
          guard let value = expression() else { return nil }
          members.append(.spread(value))
        } else {
          let key: String
          switch current {
          case .word(let name)?: key = name
          case .string(let name)?: key = name
          default: return nil
          }
          position += 1
          if take(":") {
            guard let value = expression() else { return nil }
            members.append(.field(key, value))
          } else {
            guard case .word = tokens[position - 1] else { return nil }
            members.append(.field(key, .name(key)))
          }
        }
        if !take(",") && current != .punct("}") { return nil }
      }
      return .object(members)
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
      // `new Error(…)` and its kinds: an object whose message is the first argument.
      if case .word(let name)? = current, name.hasSuffix("Error") {
        position += 1
        guard take("(") else { return nil }
        var arguments: [ScriptExpression] = []
        while !take(")") {
          guard let argument = expression() else { return nil }
          arguments.append(argument)
          if !take(",") && current != .punct(")") { return nil }
        }
        return .call(.name("Error"), arguments)
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
      if take("=>") { return arrowBody([name]) }
      return .name(name)
    default: return nil
    }
  }
}
