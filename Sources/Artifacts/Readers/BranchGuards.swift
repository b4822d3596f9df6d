import Foundation

/// The conditions a statement runs under in C-like code (Java, Kotlin, Swift, TypeScript): the
/// `if`s around it, an `else` it sits in, and the earlier `if (…) return` at its level — found
/// by brackets, string literals skipped, so that a reader can evaluate each condition as
/// written.
enum BranchGuards {
  /// The conditions `index` runs under: each enclosing `if (c)` wants `c` true, its `else`
  /// wants it false, an earlier `if (c) … return` whose then-branch returns at its own level
  /// wants it false, and an earlier `if (c) { … } else { return }` wants it true.
  static func guards(of index: String.Index, in body: String) -> [(String, Bool)] {
    var out: [(String, Bool)] = []
    var search = body.startIndex
    while let found = body.range(
      of: #"\bif\s*\("#, options: .regularExpression, range: search..<body.endIndex)
    {
      search = found.upperBound
      guard found.lowerBound < index,
        let close = closing(from: body.index(before: found.upperBound), in: body, "(", ")")
      else { continue }
      let condition = String(body[found.upperBound..<close])
      let statement = statement(after: body.index(after: close), in: body)
      if statement.contains(index) {
        out.append((condition, true))
        continue
      }
      let otherwise = body[statement.upperBound...].range(
        of: #"^\s*else\b"#, options: .regularExpression
      ).map { Self.statement(after: $0.upperBound, in: body) }
      if let otherwise, otherwise.contains(index) {
        out.append((condition, false))
        continue
      }
      // An `else if` returns only for its own branch of the chain: what follows the chain
      // runs under a condition of several tests (`a || !b`), which no single guard says.
      if body[..<found.lowerBound].range(of: #"\belse\s*$"#, options: .regularExpression) != nil {
        continue
      }
      // An early return at a level that encloses `index` (no brace closes it in between):
      // from the then-branch, `index` needs the condition false; from an else whose
      // then-branch runs on, true.
      let thenReturns = returnsAtItsLevel(body[statement])
      let end = thenReturns ? statement.upperBound : otherwise?.upperBound ?? statement.upperBound
      if end <= index,
        thenReturns || otherwise.map({ returnsAtItsLevel(body[$0]) }) == true
      {
        var depth = 0
        var leaves = false
        for character in body[end..<index] {
          if character == "{" { depth += 1 }
          if character == "}" { depth -= 1 }
          if depth < 0 { leaves = true }
        }
        if !leaves { out.append((condition, !thenReturns)) }
      }
    }
    return out
  }

  /// The `when` (Kotlin) or `switch` (Java, Swift, TypeScript) whose block holds `index`, by
  /// its keyword; nil when none does.
  static func selector(around index: String.Index, in body: String) -> String? {
    var search = body.startIndex
    while let found = body.range(
      of: #"\b(?:when|switch)\b[^{;\n]*\{"#, options: .regularExpression,
      range: search..<body.endIndex)
    {
      search = found.upperBound
      guard found.lowerBound < index else { break }
      let open = body.index(before: found.upperBound)
      if let close = closing(from: open, in: body, "{", "}"), open < index, index < close {
        return body[found].hasPrefix("when") ? "when" : "switch"
      }
    }
    return nil
  }

  /// Whether a then-branch returns itself: a bare `return …`, or a block with a `return` at
  /// its own depth (not one inside a nested `if` or a closure).
  static func returnsAtItsLevel(_ branch: Substring) -> Bool {
    let text = branch.trimmingCharacters(in: .whitespacesAndNewlines)
    guard text.hasPrefix("{") else {
      return text.range(of: #"^return\b"#, options: .regularExpression) != nil
    }
    var depth = 0
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      if character == "{" { depth += 1 }
      if character == "}" { depth -= 1 }
      if depth == 1, text[index...].range(of: #"^return\b"#, options: .regularExpression) != nil,
        index == text.startIndex
          || !(text[text.index(before: index)].isLetter || text[text.index(before: index)] == "_")
      {
        return true
      }
      index = text.index(after: index)
    }
    return false
  }

  /// The statement starting at `start`: a braced block, an `if` with its `else` chain, or up
  /// to its `;` — or the end of its line, as Kotlin and TypeScript may write it, once its
  /// brackets are closed.
  static func statement(after start: String.Index, in body: String) -> Range<String.Index> {
    var index = start
    while index < body.endIndex, body[index].isWhitespace { index = body.index(after: index) }
    guard index < body.endIndex else { return index..<index }
    if body[index...].range(of: #"^if\s*\("#, options: .regularExpression) != nil,
      let open = body[index...].firstIndex(of: "("),
      let close = closing(from: open, in: body, "(", ")")
    {
      var end = statement(after: body.index(after: close), in: body).upperBound
      if let rest = body[end...].range(of: #"^\s*else\b"#, options: .regularExpression) {
        end = statement(after: rest.upperBound, in: body).upperBound
      }
      return index..<end
    }
    if body[index] == "{", let close = closing(from: index, in: body, "{", "}") {
      return index..<body.index(after: close)
    }
    var depth = 0
    var quote: Character?
    var cursor = index
    while cursor < body.endIndex {
      let character = body[cursor]
      if let open = quote {
        // A quote left open at the end of its line was an apostrophe in text, not a string.
        if (character == open && body[body.index(before: cursor)] != "\\")
          || (character == "\n" && open != "`")
        {
          quote = nil
        }
      } else if "\"'`".contains(character) {
        quote = character
      } else if "([{".contains(character) {
        depth += 1
      } else if ")]}".contains(character) {
        depth -= 1
        if depth < 0 { return index..<cursor }
      } else if character == ";" && depth == 0 {
        return index..<body.index(after: cursor)
      } else if character == "\n" && depth == 0 {
        return index..<cursor
      }
      cursor = body.index(after: cursor)
    }
    return index..<body.endIndex
  }

  /// The index of the `close` matching the `open` at `start`, string literals (`"`, `'`,
  /// `` ` ``) skipped.
  static func closing(
    from start: String.Index, in body: String, _ open: Character, _ close: Character
  ) -> String.Index? {
    var depth = 0
    var quote: Character?
    var previous: Character = " "
    var index = start
    while index < body.endIndex {
      let character = body[index]
      if let inside = quote {
        if (character == inside && previous != "\\") || (character == "\n" && inside != "`") {
          quote = nil
        }
      } else if "\"'`".contains(character) && index != start {
        quote = character
      } else {
        if character == open { depth += 1 }
        if character == close {
          depth -= 1
          if depth == 0 { return index }
        }
      }
      previous = character
      index = body.index(after: index)
    }
    return nil
  }
}
