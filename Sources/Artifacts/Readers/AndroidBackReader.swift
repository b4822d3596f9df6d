import Foundation
import QualifyCore

/// What Android's back key does on a loaded instance, read from the handler the activity
/// overrides (`dispatchKeyEvent`, `onBackPressed`, an `OnBackPressedCallback`'s
/// `handleOnBackPressed`): the page its `loadUrl(…)` loads, with the string constants it
/// names resolved across the app's Java and Kotlin sources. Seed 004 (ADR 0006): back loads
/// the local page with `?manage=1` — the parameter boot() tests, whatever its name — which
/// boot() honours by showing the manager; the local page without it is a cold start, and
/// boot() redirects to the active instance again.
struct AndroidBackReader {
  let android: CodeSearch

  static let handlers = [
    "dispatchKeyEvent(", "handleOnBackPressed(", "onBackPressed(",
    "onBackPressedDispatcher.addCallback(",
  ]

  /// Whether back loads the manager (false, with where, when the handler loads something
  /// else or nothing; nil without Android sources), and the URL expression it loads when
  /// that is the local page without `manage`.
  /// `parameter` is the query parameter boot() tests to show the manager (`manage` when it
  /// was not read): the back URL must carry it.
  /// In `unread`, a back URL qualify cannot put together (a name it does not resolve, a
  /// builder): neither passed nor failed.
  func read(parameter: String = "manage", unread: inout Sourced<String>?) -> (
    loadsManager: Sourced<Bool>?, plainLocal: Sourced<String>?
  ) {
    guard let first = android.files.first else { return (nil, nil) }
    let constants = stringConstants()
    let carries = #"[?&]"# + NSRegularExpression.escapedPattern(for: parameter) + #"(?:=|&|$)"#
    var handler: (file: String, line: Int, body: String)?
    var plain: (String, FileLocation)?
    var skipped: (condition: String, argument: String, at: FileLocation)?
    for opener in Self.handlers {
      // dispatchKeyEvent sees every key: only a body testing the back key is a back handler.
      for block in android.blocks(after: opener)
      where opener != "dispatchKeyEvent(" || block.body.contains("KEYCODE_BACK") {
        handler = handler ?? block
        for (argument, offset, index) in Self.loadUrlArguments(block.body) {
          let at = FileLocation(file: block.file, line: block.line + offset, column: 1)
          switch Self.runsOnInstance(index, in: block.body, constants: constants) {
          case .runs: break
          case .skipped(let condition):
            skipped = skipped ?? (condition, argument, at)
            continue
          case .unread(let reason):
            unread =
              unread
              ?? Sourced(
                "the back handler loads \(argument) under a test qualify does not evaluate: \(reason)",
                at: at)
            continue
          }
          guard let url = resolve(argument, constants, locals: block.body) else {
            unread =
              unread
              ?? Sourced(
                "the back handler loads \(argument), which qualify does not put together", at: at)
            continue
          }
          if url.range(of: carries, options: .regularExpression) != nil {
            unread = nil
            return (Sourced(true, at: at), nil)
          }
          plain = plain ?? (argument, at)
        }
      }
    }
    if unread != nil { return (nil, nil) }
    if let (argument, at) = plain {
      return (
        Sourced(
          false, at: at,
          derivation: [
            "the back handler loads \(argument), without ?\(parameter)=1: boot() redirects to the active instance"
          ]),
        Sourced(argument, at: at)
      )
    }
    if let skipped {
      let condition = skipped.condition.replacingOccurrences(
        of: #"\s+"#, with: " ", options: .regularExpression)
      return (
        Sourced(
          false, at: skipped.at,
          derivation: [
            "the back handler loads \(skipped.argument) only when \(condition), which is false on a loaded instance (\(Self.instanceURL))"
          ]),
        nil
      )
    }
    if let handler {
      return (
        Sourced(
          false, at: FileLocation(file: handler.file, line: handler.line, column: 1),
          derivation: ["the back handler loads no page"]),
        nil
      )
    }
    let home =
      android.files.first { $0.lines.contains { $0.1.contains("BridgeActivity") } }?.file
      ?? first.file
    return (
      Sourced(
        false, at: FileLocation(file: home, line: 0, column: 1),
        derivation: ["no dispatchKeyEvent, onBackPressed or OnBackPressedCallback"]),
      nil
    )
  }

  /// The URL an argument builds, its terms joined in order: string literals (Kotlin's `$NAME`
  /// and `${NAME}` expanded), string constants, and the handler's own string locals; nil when
  /// a term is anything else.
  func resolve(_ argument: String, _ constants: [String: String], locals body: String) -> String? {
    let locals = Self.locals(in: body, declaredAs: #"String|val|var"#, type: "String")
    return resolve(argument, constants, locals, depth: 0)
  }

  /// The handler's locals as Java or Kotlin declares them (`String url = …;`,
  /// `val url: String = …`), by name, with their initializer's text: `declaredAs` is the
  /// keyword or type before the name, `type` a Kotlin annotation after it. A local assigned
  /// again (`remote = true;` in a branch) has no one value, and is left out.
  static func locals(in body: String, declaredAs: String, type: String) -> [String: String] {
    var locals: [String: String] = [:]
    for found in InstanceDecisionReader.matches(
      #"(?:"# + declaredAs + #")\s+([A-Za-z_]\w*)\s*(?::\s*"# + type + #"\s*)?=(?!=)\s*([^;\n]+)"#,
      body)
    where locals[found[0]] == nil {
      locals[found[0]] = found[1]
    }
    // Assignments are statements: counted where one starts, outside string literals (a
    // `"?url="` in a literal or a Kotlin named argument `f(url = x)` assigns nothing).
    let code = body.replacingOccurrences(
      of: #""(?:[^"\\\n]|\\.)*""#, with: "\"\"", options: .regularExpression)
    for name in Array(locals.keys)
    where InstanceDecisionReader.matches(
      #"(?m)(?:^|[;{})]|\belse)\s*(?:[\w<>?]+\s+)?("# + name + #")\s*(?::\s*[\w<>?]+\s*)?=(?!=)"#,
      code
    ).count > 1 {
      locals[name] = nil
    }
    return locals
  }

  private func resolve(
    _ expression: String, _ constants: [String: String], _ locals: [String: String], depth: Int
  ) -> String? {
    guard depth < 4 else { return nil }
    var out = ""
    for term in Self.terms(expression) {
      if term.hasPrefix("\"") {
        var text = String(term.dropFirst().dropLast())
        for name in InstanceDecisionReader.matches(#"\$\{?([A-Za-z_]\w*)\}?"#, text).map(\.[0]) {
          guard let value = constants[name] else { return nil }
          text = text.replacingOccurrences(of: "${\(name)}", with: value)
            .replacingOccurrences(of: "$\(name)", with: value)
        }
        out += text
      } else if let local = locals[term] {
        guard let value = resolve(local, constants, locals, depth: depth + 1) else { return nil }
        out += value
      } else if let value = constants[String(term.split(separator: ".").last ?? "")] {
        out += value
      } else {
        return nil
      }
    }
    return out
  }

  /// The `+`-joined terms of an expression, string literals kept whole.
  static func terms(_ expression: String) -> [String] {
    var out: [String] = []
    var current = ""
    var inString = false
    var previous: Character = " "
    for character in expression {
      if character == "\"" && previous != "\\" { inString.toggle() }
      if character == "+" && !inString {
        out.append(current.trimmingCharacters(in: .whitespaces))
        current = ""
      } else {
        current.append(character)
      }
      previous = character
    }
    out.append(current.trimmingCharacters(in: .whitespaces))
    return out.filter { !$0.isEmpty }
  }

  /// `static final String NAME = "…"` (Java), `const val NAME = "…"` and `val NAME = "…"`
  /// (Kotlin), in every source file: a reference through its class (`Urls.MANAGE`) is
  /// looked up by its last name.
  func stringConstants() -> [String: String] {
    var out: [String: String] = [:]
    for found in android.captures(
      #"(?:final\s+String|const\s+val|val)\s+([A-Za-z_]\w*)\s*(?::\s*String\s*)?=\s*"([^"]*)""#,
      groups: 2)
    where out[found.value[0]] == nil {
      out[found.value[0]] = found.value[1]
    }
    return out
  }

  /// Each `loadUrl(…)`'s argument in `body`, with its line's offset from the body's first and
  /// where the call starts.
  static func loadUrlArguments(_ body: String) -> [(String, Int, String.Index)] {
    var out: [(String, Int, String.Index)] = []
    var search = body.startIndex
    while let range = body.range(of: "loadUrl(", range: search..<body.endIndex) {
      var depth = 1
      var index = range.upperBound
      while index < body.endIndex, depth > 0 {
        if body[index] == "(" { depth += 1 }
        if body[index] == ")" { depth -= 1 }
        if depth > 0 { index = body.index(after: index) }
      }
      let argument = body[range.upperBound..<index].trimmingCharacters(in: .whitespacesAndNewlines)
      let offset = body[body.startIndex..<range.lowerBound].filter { $0 == "\n" }.count
      out.append((argument, offset, range.lowerBound))
      search = index < body.endIndex ? body.index(after: index) : body.endIndex
    }
    return out
  }
}
