import Foundation
import QualifyCore

/// Reads a native navigation policy's same-origin decision from its function (iOS
/// `webView(_:decidePolicyFor:decisionHandler:)`, Android `shouldOverrideUrlLoading`): the
/// `if` that compares the navigated URL with the active instance's, and what its branch does.
/// The condition is parsed into an `OriginCondition`, so that the simulated shell keeps in the
/// WebView exactly what the code would keep (issue 23, A; seed 004, ADR 0007).
struct NavigationPolicyReader {
  let file: String
  /// `(index, line)` with comments blanked (`SourceText.codeLines`).
  let lines: [(Int, String)]

  /// The decision of the function whose signature holds `marker` (preferring a line that also
  /// holds `preferring`: the navigation-action variant, not the response one); nil when no
  /// such function. The tests that compare the navigated URL with the active instance's are
  /// combined in order: an `if` that allows ends the decision, one that leaves (an early exit)
  /// must be false for the navigation to stay, a `guard` must hold.
  func decision(marker: String, preferring: String = "")
    -> Sourced<ReadDecision<NavigationDecision>>?
  {
    guard let start = functionStart(marker: marker, preferring: preferring) else { return nil }
    let body = functionBody(from: start)
    let at = FileLocation(file: file, line: lines[start].0 + 1, column: 1)
    let bodyText = body.map(\.1).joined(separator: "\n")
    let aliases = Self.aliases(in: bodyText)
    let named = ScriptStatements.booleanLocals(in: bodyText)
    // What stays, as the tests read so far say: every earlier exit not taken.
    var notLeaving: [OriginCondition] = []
    var written: [String] = []
    var first: FileLocation?
    for found in Self.ifStatements(in: body) {
      let statement = Self.resolving(found, named)
      let lowered = statement.condition.lowercased()
      // `if (active == null) return false;` compares no URL part: not the decision.
      guard lowered.contains("active"),
        ["scheme", "host", "port"].contains(where: { lowered.contains($0) })
      else { continue }
      let location = FileLocation(file: file, line: statement.line + 1, column: 1)
      let text = Self.clauses(statement.condition).joined(separator: " && ")
      var parser = ConditionParser(text: text, aliases: aliases)
      guard let condition = parser.parse() else {
        return Sourced(
          .unverified(
            "the same-origin condition `\(text)` has a term qualify cannot evaluate (\(parser.problem ?? "unknown construct"))"
          ), at: location)
      }
      let sides = Set(condition.operands.map(\.side))
      guard sides.contains(.url), sides.contains(.active) else { continue }
      first = first ?? location
      written.append(statement.isGuard ? "guard \(text)" : text)
      let branch = statement.branch
      // Capacitor's own handler (`super.shouldOverrideUrlLoading`) opens a remote origin
      // outside: handing a navigation to it is leaving.
      let allows = [".allow", "return false", "return@"].contains { branch.contains($0) }
      let leaves = [".cancel", "return true", "open(", "startActivity", "super.shouldOverride"]
        .contains { branch.contains($0) }
      guard allows != leaves else {
        return Sourced(
          .unverified(
            "the branch of `\(text)` neither clearly allows nor cancels the navigation"),
          at: location)
      }
      // A guard's else branch runs when its condition is false.
      let exit: OriginCondition = statement.isGuard ? .not(condition) : condition
      if leaves {
        notLeaving.append(.not(exit))
        continue
      }
      let stays = notLeaving.reversed().reduce(exit) { .and($1, $0) }
      return Sourced(
        .read(
          NavigationDecision(
            staysInWebView: stays, written: written.joined(separator: "; then "))), at: first)
    }
    if let last = notLeaving.popLast() {
      // Only exits: what passes them all stays.
      let stays = notLeaving.reversed().reduce(last) { .and($1, $0) }
      return Sourced(
        .read(
          NavigationDecision(staysInWebView: stays, written: written.joined(separator: "; then "))),
        at: first)
    }
    return Sourced(
      .unverified(
        "no condition in \(marker) compares the navigated URL with the active instance's"),
      at: at)
  }

  /// The line of the signature holding `marker`, preferring one that also holds `preferring`.
  func functionStart(marker: String, preferring: String) -> Int? {
    let candidates = lines.indices.filter { lines[$0].1.contains(marker) }
    return candidates.first(where: { !preferring.isEmpty && lines[$0].1.contains(preferring) })
      ?? candidates.first
  }

  /// A condition's tests: Swift's condition list split at its top-level commas, its bindings
  /// (`let`, `var`, `case`) left out, each clause on one line.
  static func clauses(_ condition: String) -> [String] {
    topLevelClauses(condition).map {
      $0.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        .joined(separator: " ")
    }.filter {
      !($0.isEmpty || $0.hasPrefix("let ") || $0.hasPrefix("var ") || $0.hasPrefix("case "))
    }
  }

  /// Whether a deep link reaches the code that hands it over (issue 23, A): the `if`s and
  /// `guard`s of the function holding `marker` that test the link's scheme are evaluated on
  /// `testURL`, in order. An exit taken (an `if` whose branch returns without handing over, a
  /// `guard` that fails) drops the link; a test that holds and whose branch hands over passes
  /// it; a test that fails while its branch holds the handoff drops it unless a later test
  /// hands it over. Nil when no such function or test is found, or when a test cannot be
  /// evaluated (the presence of the handoff then stands).
  func deepLinkHandoff(marker: String, handoff: [String], testURL: String) -> Sourced<Bool>? {
    guard let found = lines.firstIndex(where: { $0.1.contains(marker) }) else { return nil }
    let start = enclosingFunction(of: found)
    let body = functionBody(from: start)
    let aliases = Self.aliases(in: body.map(\.1).joined(separator: "\n"))
    let url = URLParts(testURL)
    var tested = false
    var missed: (FileLocation, String)?
    for statement in Self.ifStatements(in: body) where statement.condition.contains("cheme") {
      let location = FileLocation(file: file, line: statement.line + 1, column: 1)
      let written = Self.clauses(statement.condition).joined(separator: " && ")
      var parser = ConditionParser(text: written, aliases: aliases)
      guard let condition = parser.parse() else { return nil }
      tested = true
      let holds = condition.evaluate(url: url, active: URLParts(""))
      let branch = statement.branch.trimmingCharacters(in: .whitespacesAndNewlines)
      let handsOver = handoff.contains { branch.contains($0) }
      if statement.isGuard {
        guard holds else {
          return Sourced(
            false, at: location,
            derivation: ["`guard \(written)` fails for \(testURL): the link is dropped"])
        }
        continue
      }
      let exits = !handsOver && (branch.hasPrefix("return") || branch.contains("return"))
      if exits {
        if holds {
          return Sourced(
            false, at: location,
            derivation: [
              "`\(written)` holds for \(testURL): the link returns before it is handed over"
            ])
        }
        continue
      }
      if holds {
        guard handsOver else {
          return Sourced(
            false, at: location,
            derivation: [
              "the branch taken for \(testURL) never calls \(handoff.joined(separator: " or "))"
            ])
        }
        return Sourced(true, at: location, derivation: ["`\(written)` holds for \(testURL)"])
      }
      // Not taken: an `else if` may still hand it over.
      if handsOver { missed = missed ?? (location, written) }
    }
    guard tested else { return nil }
    if let (location, written) = missed {
      return Sourced(
        false, at: location,
        derivation: [
          "`\(written)` is false for \(testURL): the branch that hands it over is not taken"
        ])
    }
    // Every exit passed: what follows must hand the link over.
    let rest = body.map(\.1).joined(separator: "\n")
    let signature = FileLocation(file: file, line: lines[start].0 + 1, column: 1)
    guard handoff.contains(where: { rest.contains($0) }) else {
      return Sourced(
        false, at: signature,
        derivation: ["nothing after the scheme test calls \(handoff.joined(separator: " or "))"])
    }
    return Sourced(true, at: signature)
  }

  /// The line of the signature of the function that holds line `index`: the nearest line
  /// above it that declares one (modifiers and annotations first).
  private func enclosingFunction(of index: Int) -> Int {
    let declaration = try? NSRegularExpression(
      pattern:
        #"^\s*(@\w+\s+)*((public|private|protected|internal|fileprivate|open|override|static|final|suspend|@objc)\s+)*((func|fun)\s+\w+|(void|boolean|int|String|Uri)\s+\w+\s*\()"#
    )
    var cursor = index
    while cursor >= 0 {
      let line = lines[cursor].1
      if declaration?.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
        return cursor
      }
      cursor -= 1
    }
    return index
  }

  /// A condition split at its top-level commas (Swift's condition lists).
  static func topLevelClauses(_ condition: String) -> [String] {
    var out: [String] = []
    var current = ""
    var depth = 0
    var quote: Character?
    for c in condition {
      if let open = quote {
        if c == open { quote = nil }
        current.append(c)
        continue
      }
      if c == "\"" { quote = c }
      if c == "(" || c == "[" { depth += 1 }
      if c == ")" || c == "]" { depth -= 1 }
      if c == ",", depth == 0 {
        out.append(current)
        current = ""
        continue
      }
      current.append(c)
    }
    out.append(current)
    return out
  }

  /// The lines from the signature to the brace that closes the function body.
  func functionBody(from start: Int) -> [(Int, String)] {
    Self.block(from: start, in: lines)
  }

  /// The lines from `start` to the one whose brace closes the first block opened on or after
  /// it (a function's body, a trailing closure).
  static func block(from start: Int, in lines: [(Int, String)]) -> [(Int, String)] {
    var depth = 0
    var opened = false
    var out: [(Int, String)] = []
    for entry in lines[start...] {
      out.append(entry)
      for c in codeCharacters(entry.1) {
        if c == "{" {
          depth += 1
          opened = true
        } else if c == "}" {
          depth -= 1
        }
      }
      if opened && depth <= 0 { break }
    }
    return out
  }

  /// The characters of a line outside string literals.
  static func codeCharacters(_ line: String) -> [Character] {
    var out: [Character] = []
    var quote: Character?
    var escaped = false
    for c in line {
      if escaped {
        escaped = false
        continue
      }
      if quote != nil {
        if c == "\\" { escaped = true } else if c == quote { quote = nil }
        continue
      }
      if c == "\"" || c == "'" {
        quote = c
        continue
      }
      out.append(c)
    }
    return out
  }

  struct IfStatement {
    var line: Int
    var condition: String
    /// The start of what the `if` runs (its first statement or block); for a `guard`, its
    /// `else` block.
    var branch: String
    var isGuard = false
  }

  /// The text with the inside of every string literal blanked (same length): keywords,
  /// brackets and braces inside strings are not code.
  static func masked(_ characters: [Character]) -> [Character] {
    var out = characters
    var quote: Character?
    var index = 0
    while index < out.count {
      let c = characters[index]
      if let open = quote {
        if c == "\\" {
          out[index] = " "
          if index + 1 < out.count { out[index + 1] = " " }
          index += 2
          continue
        }
        if c == open || c == "\n" { quote = nil } else { out[index] = " " }
      } else if c == "\"" || c == "'" {
        quote = c
      }
      index += 1
    }
    return out
  }

  /// Each `if` and `guard` of the body (`#if` left out), with its whole condition, across
  /// lines.
  static func ifStatements(in body: [(Int, String)]) -> [IfStatement] {
    let text = body.map(\.1).joined(separator: "\n")
    let original = Array(text)
    let characters = masked(original)
    var lineOf: [Int] = []
    for (index, entry) in body.enumerated() {
      lineOf += Array(repeating: entry.0, count: entry.1.count + (index < body.count - 1 ? 1 : 0))
    }
    func isWordStart(_ index: Int) -> Bool {
      index == 0
        || !(characters[index - 1].isLetter || characters[index - 1].isNumber
          || characters[index - 1] == "#" || characters[index - 1] == "_")
    }
    func starts(_ word: String, at index: Int) -> Bool {
      let pattern = Array(word)
      guard index + pattern.count < characters.count,
        Array(characters[index..<(index + pattern.count)]) == pattern
      else { return false }
      let next = characters[index + pattern.count]
      return next == " " || next == "(" || next == "\n"
    }
    var out: [IfStatement] = []
    var index = 0
    while index + 3 < characters.count {
      defer { index += 1 }
      guard isWordStart(index) else { continue }
      let isGuard = starts("guard", at: index)
      guard isGuard || starts("if", at: index) else { continue }
      var cursor = index + (isGuard ? 5 : 2)
      while cursor < characters.count, characters[cursor] == " " { cursor += 1 }
      var condition = ""
      var end = cursor
      if isGuard {
        // `guard … else {`: up to `else` at depth 0.
        end = guardEnd(characters, from: cursor)
        condition = String(original[cursor..<end])
        end += 5
      } else if cursor < characters.count, characters[cursor] == "(" {
        // Java, Kotlin: the parenthesised condition, unless more follows it (`(a) && b` is
        // Swift's, and Swift's rule below takes it).
        var depth = 0
        while end < characters.count {
          if characters[end] == "(" { depth += 1 }
          if characters[end] == ")" {
            depth -= 1
            if depth == 0 { break }
          }
          end += 1
        }
        var next = end + 1
        while next < characters.count, characters[next] == " " { next += 1 }
        if next < characters.count,
          characters[next] == "{" || characters[next].isLetter || characters[next] == "\n"
        {
          condition = String(original[(cursor + 1)..<min(end, original.count)])
          end += 1
        }
      }
      if condition.isEmpty && !isGuard {
        // Swift: up to the block's brace at depth 0.
        var depth = 0
        end = cursor
        while end < characters.count {
          let c = characters[end]
          if c == "(" || c == "[" { depth += 1 }
          if c == ")" || c == "]" { depth -= 1 }
          if c == "{" && depth == 0 { break }
          end += 1
        }
        condition = String(original[cursor..<min(end, original.count)])
      }
      let taken = branchText(characters, original, from: min(end, characters.count))
      out.append(
        IfStatement(
          line: lineOf.indices.contains(index) ? lineOf[index] : body.first?.0 ?? 0,
          condition: condition.trimmingCharacters(in: .whitespacesAndNewlines),
          branch: taken.text, isGuard: isGuard))
    }
    return out
  }

  /// The block or statement that starts at `from`, to its end.
  static func branchText(_ characters: [Character], _ original: [Character], from: Int) -> (
    text: String, end: Int
  ) {
    var start = from
    while start < characters.count, characters[start] == " " || characters[start] == "\n" {
      start += 1
    }
    var end = start
    var braces = 0
    while end < characters.count {
      let c = characters[end]
      if c == "{" { braces += 1 }
      if c == "}" {
        braces -= 1
        if braces <= 0 { break }
      }
      if braces == 0, c == ";" || c == "\n", end > start { break }
      end += 1
    }
    let stop = min(characters.count, end + 1)
    return (String(original[start..<stop]), stop)
  }

  /// Where a `guard`'s condition starting at `cursor` ends: at ` else` (or `else` on a line of
  /// its own) at bracket depth 0.
  static func guardEnd(_ characters: [Character], from cursor: Int) -> Int {
    var end = cursor
    var depth = 0
    while end + 4 < characters.count {
      let c = characters[end]
      if c == "(" || c == "[" { depth += 1 }
      if c == ")" || c == "]" { depth -= 1 }
      if depth == 0,
        String(characters[end..<(end + 5)]) == " else"
          || String(characters[end..<(end + 5)]) == "\nelse"
      {
        break
      }
      end += 1
    }
    return end
  }
}
