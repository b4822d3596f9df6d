import Foundation
import QualifyCore

/// When the back handler's `loadUrl(…)` runs: the `if`s around it (their `else` negated) and
/// the earlier `if (…) return` at its level, evaluated on a loaded instance's URL. A flipped
/// test (`url.startsWith(LOCAL_ORIGIN)` for `!url.startsWith(…)`) loads the manager only
/// where it is already shown, and back on an instance falls through to the default.
extension AndroidBackReader {
  /// The URL a loaded instance shows when back is pressed: any remote origin.
  static let instanceURL = "https://cloud.example.org/apps/files/"

  /// Whether the statement at `index` of `body` runs when back is pressed on a loaded
  /// instance: `.runs`, `.skipped(condition)` naming the test that keeps it from running, or
  /// `.unread(reason)`. The key event is tried as both its down and its up action.
  static func runsOnInstance(
    _ index: String.Index, in body: String, constants: [String: String]
  ) -> BackCondition {
    // A branch of a Kotlin `when` or a Java `switch` is chosen by what qualify does not
    // evaluate: neither run nor skipped.
    if let branch = BranchGuards.selector(around: index, in: body) {
      return .unread("the \(branch) around it")
    }
    let guards = BranchGuards.guards(of: index, in: body)
    if guards.isEmpty { return .runs }
    let locals = Self.locals(
      in: body, declaredAs: #"\b[A-Z]\w*|\bboolean|\bval|\bvar"#, type: #"[\w?]+"#)
    // A test of the action passes on one of the two events the key sends.
    var outcomes: [(blocked: String?, unread: String?)] = []
    for action in ["ACTION_DOWN", "ACTION_UP"] {
      var blocked: String?
      var unread: String?
      for (condition, wanted) in guards {
        var evaluator = BackConditionEvaluator(
          text: condition, constants: constants, locals: locals, url: instanceURL,
          action: action)
        switch evaluator.evaluate() {
        case .bool(let value) where value == wanted: continue
        case .bool: blocked = blocked ?? (wanted ? condition : "!(\(condition))")
        default: unread = unread ?? evaluator.problem ?? "`\(condition)`"
        }
      }
      if blocked == nil && unread == nil { return .runs }
      outcomes.append((blocked, unread))
    }
    if let unread = outcomes.lazy.compactMap(\.unread).first { return .unread(unread) }
    return .skipped(outcomes.lazy.compactMap(\.blocked).first ?? "")
  }
}

/// Whether a back handler's page load runs on a loaded instance.
enum BackCondition: Equatable {
  case runs
  /// The test, as written, that is false there.
  case skipped(String)
  /// What qualify does not evaluate.
  case unread(String)
}

/// Evaluates a Java or Kotlin condition of a back handler: `&&`, `||`, `!`, `==`, `!=`, `?:`
/// (the ternary), string literals and constants, the handler's locals, null, the WebView's
/// current URL (`getUrl()`, `.url`), the key event's code and action, and the string tests
/// `startsWith`, `endsWith`, `contains`, `equals`, `equalsIgnoreCase`, `isEmpty`. Anything
/// else is unknown, and a condition that depends on it is not evaluated.
struct BackConditionEvaluator {
  enum Value: Equatable {
    case bool(Bool)
    case text(String)
    case null
    /// An object that exists (the WebView, the event), or a type (`KeyEvent`).
    case object(String)
    case unknown
  }

  enum Token: Equatable {
    case symbol(String)
    case name(String)
    case text(String)
  }

  var tokens: [Token] = []
  var position = 0
  let constants: [String: String]
  let locals: [String: String]
  let url: String
  let action: String
  var depth = 0
  /// The first term that could not be evaluated.
  var problem: String?

  init(
    text: String, constants: [String: String], locals: [String: String], url: String,
    action: String, depth: Int = 0
  ) {
    self.constants = constants
    self.locals = locals
    self.url = url
    self.action = action
    self.depth = depth
    if let tokens = Self.tokenize(text) {
      self.tokens = tokens
    } else {
      problem = "`\(text)`, which qualify does not read"
    }
  }

  static func tokenize(_ text: String) -> [Token]? {
    var out: [Token] = []
    let characters = Array(text)
    var index = 0
    let pairs = ["&&", "||", "==", "!=", "?."]
    while index < characters.count {
      let c = characters[index]
      if c.isWhitespace {
        index += 1
        continue
      }
      let two = index + 1 < characters.count ? String(characters[index...(index + 1)]) : ""
      if pairs.contains(two) {
        // Kotlin's `===` and `!==` compare as `==` and `!=` do for these values.
        out.append(.symbol(two == "?." ? "." : two))
        index += 2
        if two == "==" || two == "!=", index < characters.count, characters[index] == "=" {
          index += 1
        }
        continue
      }
      if "()!.?:,".contains(c) {
        out.append(.symbol(String(c)))
        index += 1
        continue
      }
      if c == "\"" {
        var end = index + 1
        var literal = ""
        while end < characters.count, characters[end] != "\"" {
          // An escape or a Kotlin template is not read: the literal would be a guess.
          if characters[end] == "\\" || characters[end] == "$" { return nil }
          literal.append(characters[end])
          end += 1
        }
        guard end < characters.count else { return nil }
        out.append(.text(literal))
        index = end + 1
        continue
      }
      guard c.isLetter || c == "_" else { return nil }
      var end = index
      while end < characters.count,
        characters[end].isLetter || characters[end].isNumber
          || characters[end] == "_"
      {
        end += 1
      }
      out.append(.name(String(characters[index..<end])))
      index = end
    }
    return out
  }

  var current: Token? { position < tokens.count ? tokens[position] : nil }

  mutating func take(_ symbol: String) -> Bool {
    guard current == .symbol(symbol) else { return false }
    position += 1
    return true
  }

  mutating func evaluate() -> Value {
    guard !tokens.isEmpty else { return .unknown }
    let value = ternary()
    guard position == tokens.count else {
      problem = problem ?? "the text after a term qualify reads"
      return .unknown
    }
    return value
  }

  mutating func ternary() -> Value {
    let test = or()
    guard take("?") else { return test }
    let yes = ternary()
    guard take(":") else { return fail("a ternary without its `:`") }
    let no = ternary()
    switch test {
    case .bool(let value): return value ? yes : no
    default: return .unknown
    }
  }

  mutating func or() -> Value {
    var left = and()
    while take("||") {
      let right = and()
      if left == .bool(true) || right == .bool(true) {
        left = .bool(true)
      } else if left == .bool(false) && right == .bool(false) {
        left = .bool(false)
      } else {
        left = .unknown
      }
    }
    return left
  }

  mutating func and() -> Value {
    var left = equality()
    while take("&&") {
      let right = equality()
      if left == .bool(false) || right == .bool(false) {
        left = .bool(false)
      } else if left == .bool(true) && right == .bool(true) {
        left = .bool(true)
      } else {
        left = .unknown
      }
    }
    return left
  }

  mutating func equality() -> Value {
    let left = unary()
    for (symbol, negated) in [("==", false), ("!=", true)] where take(symbol) {
      let right = unary()
      guard let same = Self.same(left, right) else { return .unknown }
      return .bool(same != negated)
    }
    return left
  }

  static func same(_ a: Value, _ b: Value) -> Bool? {
    switch (a, b) {
    case (.unknown, _), (_, .unknown): return nil
    case (.null, .null): return true
    case (.null, _), (_, .null): return false
    case (.object, _), (_, .object): return nil
    default: return a == b
    }
  }

  mutating func unary() -> Value {
    if take("!") {
      switch unary() {
      case .bool(let value): return .bool(!value)
      default: return .unknown
      }
    }
    return postfix()
  }

  mutating func postfix() -> Value {
    var value = primary()
    while take(".") {
      guard case .name(let member) = current else { return fail("a member without a name") }
      position += 1
      var argument: Value?
      var called = false
      if take("(") {
        called = true
        if !take(")") {
          argument = ternary()
          guard take(")") else { return fail("`\(member)(…)` with more than one argument") }
        }
      }
      value = self.member(member, of: value, argument: argument, called: called)
    }
    return value
  }

  mutating func member(_ name: String, of receiver: Value, argument: Value?, called: Bool)
    -> Value
  {
    switch receiver {
    case .unknown: return .unknown
    case .null: return .unknown
    case .object(let type) where type.first?.isUppercase == true:
      // `KeyEvent.KEYCODE_BACK`, `Urls.LOCAL_ORIGIN`: a constant of the class, or its symbol.
      if called { return fail("\(type).\(name)(…), which qualify does not evaluate") }
      if let value = constants[name] { return .text(value) }
      return .text(name)
    case .object:
      switch name {
      case "getUrl", "url": return .text(url)
      case "getKeyCode", "keyCode": return .text("KEYCODE_BACK")
      case "getAction", "action": return .text(action)
      case "getWebView", "webView", "bridge", "getBridge": return .object(name)
      default: return fail("\(name)\(called ? "()" : ""), which qualify does not model")
      }
    case .text(let text):
      if name == "isEmpty" { return .bool(text.isEmpty) }
      if ["toString", "trim", "toLowerCase", "lowercase"].contains(name) {
        return .text(name.hasPrefix("to") && name != "toString" ? text.lowercased() : text)
      }
      guard case .text(let other) = argument else {
        return argument == .null ? .bool(false) : .unknown
      }
      switch name {
      case "startsWith": return .bool(text.hasPrefix(other))
      case "endsWith": return .bool(text.hasSuffix(other))
      case "contains": return .bool(text.contains(other))
      case "equals", "contentEquals": return .bool(text == other)
      case "equalsIgnoreCase": return .bool(text.lowercased() == other.lowercased())
      default: return fail("\(name)(…) on a string, which qualify does not evaluate")
      }
    case .bool:
      return fail("\(name) on a boolean")
    }
  }

  mutating func primary() -> Value {
    guard let token = current else { return fail("a condition that ends early") }
    position += 1
    switch token {
    case .text(let text): return .text(text)
    case .symbol("("):
      let value = ternary()
      guard take(")") else { return fail("unbalanced parentheses") }
      return value
    case .symbol(let symbol): return fail("`\(symbol)` where a term was expected")
    case .name(let name):
      switch name {
      case "null": return .null
      case "true": return .bool(true)
      case "false": return .bool(false)
      default: break
      }
      if let initializer = locals[name] {
        guard depth < 4 else { return fail("`\(name)`, defined too deep") }
        var inner = BackConditionEvaluator(
          text: initializer, constants: constants, locals: locals, url: url, action: action,
          depth: depth + 1)
        let value = inner.evaluate()
        if value == .unknown { problem = problem ?? inner.problem }
        return value
      }
      if let value = constants[name] { return .text(value) }
      // A type, or an object the handler holds (the event, the WebView): it exists, and only
      // the members above are read from it.
      return .object(name)
    }
  }

  mutating func fail(_ reason: String) -> Value {
    problem = problem ?? reason
    return .unknown
  }
}
