import QualifyCore

/// The `preReleaseBuild` hook of an Android `build.gradle` (seed 000, *Production hardening*:
/// "`preReleaseBuild` fails when the synced `capacitor.config.json` carries a dev
/// `server.url` or `server.cleartext`"), read for what it really checks: which keys of the
/// parsed config it tests in a condition that throws.
///
/// A guard that reads a key `cap sync` never writes (`server.devUrl`), or that only logs,
/// guards nothing; reading structure rather than searching for words tells them apart.
public struct GradleReleaseGuard: Sendable, Equatable {
  /// The line the hook is declared on.
  public var line: Int
  /// Whether the hook parses the synced `capacitor.config.json`.
  public var readsSyncedConfig: Bool
  /// Dotted keys of the parsed config that a throwing condition tests (`server.url`).
  public var guardedKeys: Set<String>
  /// Every dotted key of the parsed config the hook reads.
  public var readKeys: Set<String>
  /// The task filter names `preReleaseBuild` to leave it out (`it.name != 'preReleaseBuild'`,
  /// `!it.name.equals(…)`): the hook runs before every other task and never before a release.
  public var excludesReleaseTask = false

  /// The keys a release guard must test: what a dev `cap sync` bakes in.
  public static let requiredKeys: Set<String> = ["server.url", "server.cleartext"]

  /// The required keys the hook does not test.
  public var missingKeys: [String] {
    GradleReleaseGuard.requiredKeys.subtracting(guardedKeys).sorted()
  }

  static func find(in tokens: [GradleToken], file: String) -> GradleReleaseGuard? {
    // The hook: the first block after the token naming `preReleaseBuild` (as an identifier,
    // `preReleaseBuild.doFirst {`, or a string, `task.name == 'preReleaseBuild'`).
    guard
      let nameIndex = tokens.firstIndex(where: {
        $0.text == "preReleaseBuild" || $0.literal == "preReleaseBuild"
      })
    else { return nil }
    var open = nameIndex + 1
    while open < tokens.count, !tokens[open].isSymbol("{") { open += 1 }
    guard open < tokens.count, let close = GradleLexer.matching(tokens, from: open) else {
      return nil
    }
    var body = Array(tokens[(open + 1)..<close])
    // `preReleaseBuild.dependsOn(checkX)`: the named task's body counts too.
    if let depends = tokens[nameIndex..<min(tokens.count, nameIndex + 6)].firstIndex(where: {
      $0.isIdentifier("dependsOn")
    }), depends + 2 < tokens.count {
      let target = tokens[depends + 2].literal ?? tokens[depends + 2].text
      if let start = tokens.indices.first(where: {
        ($0 > 0 && tokens[$0 - 1].isIdentifier("task") && tokens[$0].text == target)
          || (tokens[$0].literal == target && $0 > 1 && tokens[$0 - 2].isIdentifier("register"))
      }) {
        var blockOpen = start + 1
        while blockOpen < tokens.count, !tokens[blockOpen].isSymbol("{") { blockOpen += 1 }
        if blockOpen < tokens.count, let blockClose = GradleLexer.matching(tokens, from: blockOpen)
        {
          body += tokens[(blockOpen + 1)..<blockClose]
        }
      }
    }
    // The parsed config may be bound before the hook, at configuration time
    // (`def syncedConfig = … JsonSlurper().parse(file('…/capacitor.config.json'))` at the top
    // of the script) and only tested inside it: those bindings hold in the body, and none of
    // the prelude's own `if`s count as the guard.
    var prelude = Analysis(tokens: Array(tokens[..<nameIndex]))
    prelude.run()
    let readsInPrelude =
      tokens[..<nameIndex].contains { $0.literal?.contains("capacitor.config.json") == true }
      && body.contains { $0.kind == .identifier && prelude.bindings[$0.text] != nil }
    let reads =
      readsInPrelude || body.contains { $0.literal?.contains("capacitor.config.json") == true }
    var analysis = Analysis(tokens: body)
    analysis.bindings = prelude.bindings
    analysis.run()
    return GradleReleaseGuard(
      line: tokens[nameIndex].line, readsSyncedConfig: reads,
      guardedKeys: analysis.guarded, readKeys: analysis.read,
      excludesReleaseTask: isExcluded(nameAt: nameIndex, in: tokens))
  }

  /// Whether the string naming the task is compared to leave it out: `!=` on either side, or
  /// an `equals(…)` call whose receiver chain is negated.
  static func isExcluded(nameAt index: Int, in tokens: [GradleToken]) -> Bool {
    guard tokens[index].literal != nil else { return false }
    if index > 0, tokens[index - 1].isSymbol("!=") { return true }
    if index + 1 < tokens.count, tokens[index + 1].isSymbol("!=") { return true }
    guard index > 1, tokens[index - 1].isSymbol("("), tokens[index - 2].isIdentifier("equals")
    else { return false }
    var start = index - 2
    while start > 0,
      tokens[start - 1].isSymbol(".") || tokens[start - 1].isSymbol("?.")
        || tokens[start - 1].kind == .identifier
    {
      start -= 1
    }
    return start > 0 && tokens[start - 1].isSymbol("!")
  }

  /// Follows variables bound to the parsed JSON (`def parsed = new JsonSlurper().parse(f)`,
  /// `def server = parsed?.server`) and the conditions of `if` statements whose branch throws.
  private struct Analysis {
    let tokens: [GradleToken]
    /// Variable → the dotted key it holds ("" for the parsed document itself).
    var bindings: [String: String] = [:]
    var guarded: Set<String> = []
    var read: Set<String> = []

    init(tokens: [GradleToken]) {
      self.tokens = tokens
    }

    mutating func run() {
      var index = 0
      while index < tokens.count {
        let token = tokens[index]
        if ["def", "val", "var"].contains(token.text), token.kind == .identifier,
          index + 2 < tokens.count, tokens[index + 1].kind == .identifier
        {
          var cursor = index + 2
          if tokens[cursor].isSymbol(":") { cursor += 2 }
          if cursor < tokens.count, tokens[cursor].isSymbol("=") {
            let end = statementEnd(from: cursor + 1)
            let expression = Array(tokens[(cursor + 1)..<end])
            if expression.contains(where: { $0.text.contains("JsonSlurper") })
              || expression.contains(where: { $0.isIdentifier("parseText") })
            {
              bindings[tokens[index + 1].text] = ""
            } else if let path = chains(in: expression).first {
              bindings[tokens[index + 1].text] = path
              read.insert(path)
            }
            index = end
            continue
          }
        }
        if token.isIdentifier("if"), index + 1 < tokens.count, tokens[index + 1].isSymbol("("),
          let close = GradleLexer.matching(tokens, from: index + 1)
        {
          let condition = Array(tokens[(index + 2)..<close])
          let paths = chains(in: condition)
          read.formUnion(paths)
          // The branch: a block, or a single statement up to the end of its line.
          var branch: ArraySlice<GradleToken>
          if close + 1 < tokens.count, tokens[close + 1].isSymbol("{"),
            let end = GradleLexer.matching(tokens, from: close + 1)
          {
            branch = tokens[(close + 2)..<end]
          } else {
            let line = tokens[min(close + 1, tokens.count - 1)].line
            branch = tokens[(close + 1)...].prefix { $0.line == line }
          }
          // What stops the build: `throw`, or Kotlin's `error(...)`. A `GradleException` made
          // and not thrown, or `logger.error(...)`, only writes a line and the build goes on.
          let fails = branch.indices.contains { i in
            if branch[i].isIdentifier("throw") { return true }
            // `error(...)` itself, not a method of that name (`logger.error`, `logger?.error`)
            // nor a variable.
            guard branch[i].isIdentifier("error"), i + 1 < branch.endIndex,
              branch[i + 1].isSymbol("(")
            else { return false }
            return
              !(i > branch.startIndex
              && (branch[i - 1].isSymbol(".") || branch[i - 1].isSymbol("?.")))
          }
          if fails { guarded.formUnion(paths) }
        }
        index += 1
      }
    }

    /// The end of a declaration: the next token on a later line that is not a continuation.
    func statementEnd(from start: Int) -> Int {
      var index = start
      var depth = 0
      while index < tokens.count {
        let token = tokens[index]
        if token.kind == .symbol, ["(", "[", "{"].contains(token.text) { depth += 1 }
        if token.kind == .symbol, [")", "]", "}"].contains(token.text) {
          if depth == 0 { return index }
          depth -= 1
        }
        if depth == 0, index > start, token.line > tokens[index - 1].line,
          !["?", ":", "?:", ".", "?.", "+", "&&", "||"].contains(tokens[index - 1].text),
          !["?", ":", "?:", ".", "?.", "+", "&&", "||"].contains(token.text)
        {
          return index
        }
        index += 1
      }
      return tokens.count
    }

    /// Dotted keys reached from a bound variable: `parsed?.server?.url`,
    /// `server["url"]`, `server.get("cleartext")`.
    func chains(in expression: [GradleToken]) -> [String] {
      var out: [String] = []
      var index = 0
      while index < expression.count {
        let token = expression[index]
        guard token.kind == .identifier, let base = bindings[token.text],
          index == 0
            || !(expression[index - 1].isSymbol(".") || expression[index - 1].isSymbol("?."))
        else {
          index += 1
          continue
        }
        var path = base
        var cursor = index + 1
        while cursor < expression.count {
          if expression[cursor].isSymbol(".") || expression[cursor].isSymbol("?."),
            cursor + 1 < expression.count, expression[cursor + 1].kind == .identifier
          {
            let name = expression[cursor + 1].text
            if name == "get", cursor + 3 < expression.count, expression[cursor + 2].isSymbol("("),
              let key = expression[cursor + 3].literal
            {
              path = path.isEmpty ? key : path + "." + key
              cursor += 5
              continue
            }
            if ["trim", "toString", "toBoolean", "asBoolean"].contains(name) {
              cursor += 2
              if cursor < expression.count, expression[cursor].isSymbol("(") { cursor += 2 }
              continue
            }
            path = path.isEmpty ? name : path + "." + name
            cursor += 2
          } else if expression[cursor].isSymbol("["), cursor + 2 < expression.count,
            let key = expression[cursor + 1].literal, expression[cursor + 2].isSymbol("]")
          {
            path = path.isEmpty ? key : path + "." + key
            cursor += 3
          } else {
            break
          }
        }
        if !path.isEmpty { out.append(path) }
        index = cursor
      }
      return out
    }
  }
}
