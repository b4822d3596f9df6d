import Foundation
import QualifyCore

/// A recursive-descent parser of the boolean conditions navigation policies write.
struct ConditionParser {
  enum Token: Equatable {
    case open, close, and, or, not, equal, notEqual, comma
    case path(String)
    case text(String)
    case null
  }

  /// Marks a path whose receiver is a literal: `\u{1}sovereign.equalsIgnoreCase`.
  static let literalRoot = "\u{1}"

  var tokens: [Token] = []
  var position = 0
  let aliases: [String: String]
  /// Why the condition could not be read.
  var problem: String?
  /// Whether the navigation tested is a main-frame one: a frame test (`isForMainFrame()`,
  /// `targetFrame?.isMainFrame`) then holds.
  var mainFrame = false

  init(text: String, aliases: [String: String], mainFrame: Bool = false) {
    self.aliases = aliases
    self.mainFrame = mainFrame
    tokens = Self.tokenize(text) ?? []
    if tokens.isEmpty { problem = "unreadable text" }
  }

  static func tokenize(_ text: String) -> [Token]? {
    var out: [Token] = []
    let characters = Array(text)
    var index = 0
    while index < characters.count {
      let c = characters[index]
      let next = index + 1 < characters.count ? characters[index + 1] : " "
      switch c {
      case " ", "\t", "\n": index += 1
      case "(":
        out.append(.open)
        index += 1
      case ")":
        out.append(.close)
        index += 1
      case ",":
        out.append(.comma)
        index += 1
      case "&" where next == "&":
        out.append(.and)
        index += 2
      case "|" where next == "|":
        out.append(.or)
        index += 2
      case "=" where next == "=":
        out.append(.equal)
        index += characters.indices.contains(index + 2) && characters[index + 2] == "=" ? 3 : 2
      case "!" where next == "=":
        out.append(.notEqual)
        index += characters.indices.contains(index + 2) && characters[index + 2] == "=" ? 3 : 2
      case "!":
        out.append(.not)
        index += 1
      case "\"", "'":
        // A literal, and a method called on it (`"sovereign".equalsIgnoreCase(…)`).
        var end = index + 1
        while end < characters.count, characters[end] != c {
          if characters[end] == "\\" { end += 1 }
          end += 1
        }
        guard end < characters.count else { return nil }
        let literal = String(characters[(index + 1)..<end])
        index = end + 1
        if index < characters.count, characters[index] == "." {
          var method = index + 1
          while method < characters.count, characters[method].isLetter { method += 1 }
          out.append(.path(Self.literalRoot + literal + String(characters[index..<method])))
          index = method
        } else {
          out.append(.text(literal))
        }
      default:
        guard c.isLetter || c == "_" else { return nil }
        var end = index
        // A path: identifiers, dots, optional chaining, and empty calls (`getHost()`).
        while end < characters.count {
          let d = characters[end]
          if d.isLetter || d.isNumber || d == "_" || d == "." || d == "?" {
            end += 1
          } else if d == "(", end + 1 < characters.count, characters[end + 1] == ")" {
            end += 2
          } else if d == "!", end + 1 < characters.count, characters[end + 1] != "=" {
            end += 1
          } else {
            break
          }
        }
        let word = String(characters[index..<end])
        out.append(word == "null" || word == "nil" ? .null : .path(word))
        index = end
      }
    }
    return out
  }

  var current: Token? { position < tokens.count ? tokens[position] : nil }

  mutating func parse() -> OriginCondition? {
    guard !tokens.isEmpty, let condition = parseOr() else { return nil }
    guard position == tokens.count else {
      problem = problem ?? "unexpected text after the condition"
      return nil
    }
    return condition
  }

  mutating func parseOr() -> OriginCondition? {
    guard var left = parseAnd() else { return nil }
    while current == .or {
      position += 1
      guard let right = parseAnd() else { return nil }
      left = .or(left, right)
    }
    return left
  }

  mutating func parseAnd() -> OriginCondition? {
    guard var left = parseUnary() else { return nil }
    while current == .and {
      position += 1
      guard let right = parseUnary() else { return nil }
      left = .and(left, right)
    }
    return left
  }

  mutating func parseUnary() -> OriginCondition? {
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
    return parseComparison()
  }

  mutating func parseComparison() -> OriginCondition? {
    guard case .path(let path) = current else {
      problem = problem ?? "a term that is not a comparison"
      return nil
    }
    position += 1
    if mainFrame,
      ["isForMainFrame()", "isForMainFrame", "isMainFrame"].contains(where: { path.hasSuffix($0) })
    {
      return .constant(true)
    }
    // `a.hasSuffix(b)`, `a.endsWith(b)`, …: a look-alike match, evaluated as written.
    let matchCalls: [(String, OriginCondition.TextMatch)] = [
      (".hasSuffix", .suffix), (".endsWith", .suffix), (".hasPrefix", .prefix),
      (".startsWith", .prefix), (".contains", .contains),
    ]
    if let (call, kind) = matchCalls.first(where: { path.hasSuffix($0.0) }) {
      guard current == .open else { return fail("`\(path)` without an argument") }
      position += 1
      guard case .path(let argument) = current, let right = operand(argument),
        let left = operand(String(path.dropLast(call.count)))
      else { return fail("`\(path)` matches something that is not a URL part") }
      position += 1
      guard current == .close else { return fail("`\(path)` with more than one argument") }
      position += 1
      return .matches(kind, left, right)
    }
    // `a.equals(b)`, `a.equalsIgnoreCase(b)`, `Objects.equals(a, b)`, `TextUtils.equals(a, b)`.
    if let call = Self.equalsCalls.first(where: { path.hasSuffix($0) }) {
      return parseEquals(path, call: call)
    }
    guard let left = operand(path) else { return nil }
    guard current == .equal || current == .notEqual else {
      return fail("`\(path)` is not compared with anything")
    }
    let negated = current == .notEqual
    position += 1
    if current == .null {
      position += 1
      return negated ? .present(left) : .not(.present(left))
    }
    let right: OriginCondition.Operand
    if case .text(let literal) = current {
      right = .init(side: .literal, component: literal)
    } else if case .path(let other) = current, let operand = operand(other) {
      right = operand
    } else {
      return fail("`\(path)` is compared with something that is not a URL part")
    }
    position += 1
    return negated ? .not(.equal(left, right)) : .equal(left, right)
  }

  static let equalsCalls = [".equals", ".contentEquals", ".equalsIgnoreCase"]

  /// The arguments of `path`, a call of `call`, after its name: one compared with the
  /// receiver, or two for a static helper.
  mutating func parseEquals(_ path: String, call: String) -> OriginCondition? {
    guard current == .open else { return fail("`\(path)` without an argument") }
    position += 1
    var arguments: [OriginCondition.Operand] = []
    while true {
      if case .path(let argument) = current {
        position += 1
        guard let operand = operand(argument) else { return nil }
        arguments.append(operand)
      } else if case .text(let literal) = current {
        position += 1
        arguments.append(.init(side: .literal, component: literal))
      } else {
        break
      }
      if current == .comma { position += 1 }
    }
    guard current == .close else {
      return fail("an argument of `\(path)` that is not a URL part")
    }
    position += 1
    let receiver = String(path.dropLast(call.count))
    if call == ".equalsIgnoreCase" {
      guard arguments.count == 1, let left = operand(receiver) else {
        return fail("`\(path)` compares something that is not a URL part")
      }
      var both = [left, arguments[0]]
      for index in both.indices { both[index].lowercased = true }
      return .equal(both[0], both[1])
    }
    // Written bare or fully qualified (`java.util.Objects.equals(a, b)`).
    let helper = receiver.split(separator: ".").last.map(String.init) ?? receiver
    if ["Objects", "TextUtils", "Intrinsics"].contains(helper), arguments.count == 2 {
      return .equal(arguments[0], arguments[1])
    }
    guard arguments.count == 1, let left = operand(receiver) else {
      return fail("`\(path)` compares something that is not a URL part")
    }
    return .equal(left, arguments[0])
  }

  mutating func fail(_ reason: String) -> OriginCondition? {
    problem = problem ?? reason
    return nil
  }

  /// `url.host`, `activeUri.getPort()`, `scheme` (an alias of `url.getScheme()`), with a
  /// trailing `lowercased()` kept as a flag: the comparison is then case-insensitive.
  mutating func operand(_ path: String) -> OriginCondition.Operand? {
    if path.hasPrefix(Self.literalRoot) {
      return .init(side: .literal, component: String(path.dropFirst(Self.literalRoot.count)))
    }
    var parts = path.replacingOccurrences(of: "()", with: "").replacingOccurrences(
      of: "?", with: ""
    )
    .replacingOccurrences(of: "!", with: "").split(separator: ".").map(String.init)
    if let root = parts.first, let alias = aliases[root], alias != path {
      parts =
        alias.replacingOccurrences(of: "()", with: "").split(separator: ".").map(String.init)
        + parts.dropFirst()
    }
    var lowercased = false
    while let last = parts.last, ["lowercased", "toLowerCase", "lowercase"].contains(last) {
      parts.removeLast()
      lowercased = true
    }
    let components = [
      "scheme": "scheme", "getScheme": "scheme", "host": "host", "getHost": "host",
      "port": "port", "getPort": "port",
    ]
    guard parts.count >= 2, let component = components[parts.last ?? ""], let root = parts.first
    else {
      problem = problem ?? "`\(path)` is not the scheme, host or port of a URL"
      return nil
    }
    // A type or a configuration object is neither side: a constant the reader cannot see.
    if root.first?.isUppercase == true || root.lowercased().contains("config") {
      problem = problem ?? "`\(path)` is neither the URL's nor the active instance's"
      return nil
    }
    let side: OriginCondition.Side = root.lowercased().contains("active") ? .active : .url
    return OriginCondition.Operand(side: side, component: component, lowercased: lowercased)
  }
}
