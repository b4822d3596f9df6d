import Foundation
import QualifyCore

/// Reads `nativeLogout()` out of the web code's `auth.ts`: its steps and the `try` /
/// `catch` / `finally` structure around them, so that the simulated logout takes the paths
/// the real one takes when a request rejects. The real repository's own logout, for one,
/// flushes the native cookies inside the `try` that awaits the safety-net POST: without a
/// network the flush is skipped and the session cookie stays in the jar.
enum NativeLogoutReader {
  typealias Step = NativeLogoutFlow.Step

  /// The flow of the `nativeLogout` declared in `text`; a flow with a `problem` when the file
  /// declares none, or one whose body is not a block.
  static func read(_ text: String, file: String) -> NativeLogoutFlow {
    let code = SourceText.codeLines(text, quotes: ["\"", "'", "`"]).map(\.1)
    let tokens = JSToken.scan(code)
    func place(_ index: Int) -> FileLocation {
      FileLocation(file: file, line: tokens[index].line + 1, column: tokens[index].column + 1)
    }
    guard let declared = declaration(in: tokens) else {
      var flow = NativeLogoutFlow(
        file: file, declaration: FileLocation(file: file, line: 0, column: 1), steps: [:])
      flow.problem = "\(file) declares no nativeLogout function"
      return flow
    }
    var flow = NativeLogoutFlow(file: file, declaration: place(declared), steps: [:])
    guard let body = body(after: declared, in: tokens) else {
      flow.problem =
        "nativeLogout (line \(tokens[declared].line + 1)) has no braced body qualify can read (an expression body, or a call to code elsewhere)"
      return flow
    }
    let blocks = Block.structure(tokens, in: body)
    let strings = constants(in: tokens, outside: body)
    let found = occurrences(in: body, of: tokens, constants: strings)
    let reader = Reader(tokens: tokens, body: body, blocks: blocks)
    // Where each step is taken, and why an occurrence cannot be placed.
    var readable: [Step: [Int]] = [:]
    var unreadable: [Step: String] = [:]
    for (step, indices) in found {
      for index in indices {
        if let why = reader.unplaceable(index) {
          unreadable[step] = unreadable[step] ?? why
        } else {
          readable[step, default: []].append(index)
        }
      }
    }
    // The request of a fallible step: its statement (followed through a local it is put in).
    var requests: [Step: (start: Int, statement: Reader.Statement)] = [:]
    for step in Step.allCases where step.canReject {
      guard let start = readable[step]?.first else { continue }
      let statement = reader.statement(around: start)
      if let why = statement.unreadable {
        unreadable[step] = why
        readable[step] = nil
      } else {
        requests[step] = (start, statement)
      }
    }
    for (step, indices) in found {
      let location = place(indices[0])
      guard let occurrences = readable[step], !occurrences.isEmpty else {
        flow.steps[step] = NativeLogoutFlow.Placement(
          location: location, after: [:], unreadable: unreadable[step] ?? "not placed")
        continue
      }
      var placement = NativeLogoutFlow.Placement(location: place(occurrences[0]), after: [:])
      for (earlier, request) in requests where request.start < (occurrences.last ?? 0) {
        var reach = NativeLogoutFlow.Reach(whenResolved: false, whenRejected: false)
        // A step written twice (in the try and in its catch) runs when either copy does.
        for index in occurrences where index > request.start {
          reach.whenResolved = reach.whenResolved || !reader.inCatch(of: request.start, index)
          if !request.statement.rejects {
            reach.whenRejected = true
          } else if let reached = reader.reachedAfterRejection(of: request.start, at: index) {
            reach.whenRejected = reach.whenRejected || reached
          } else {
            placement.unreadable = "after a catch that may return or throw again"
          }
        }
        placement.after[earlier] = reach
      }
      flow.steps[step] = placement
    }
    return flow
  }

  /// Where the body takes each step: the safety-net and browser logout URLs (written, or in a
  /// module-level constant), `clearAllCookies()`, `setNativeCsrfToken(null)`.
  static func occurrences(
    in body: Range<Int>, of tokens: [JSToken], constants strings: [String: String]
  )
    -> [Step: [Int]]
  {
    var found: [Step: [Int]] = [:]
    for index in body {
      let token = tokens[index]
      var literal: String?
      if case .string(let text) = token.kind {
        literal = text
      } else if token.kind == .word, tokens.at(index - 1)?.text != ".",
        let text = strings[token.text]
      {
        // A module-level constant holding the URL (`fetch(getRequestUrl(LOGOUT_URL))`).
        literal = text
      }
      if let literal {
        if literal.contains("mobile/auth/logout") {
          found[.safetyNet, default: []].append(index)
        } else if literal.contains("/logout/") {
          found[.browserLogout, default: []].append(index)
        }
      } else if token.text == "clearAllCookies", tokens.at(index + 1)?.text == "(" {
        found[.clearCookies, default: []].append(index)
      } else if token.text == "setNativeCsrfToken", tokens.at(index + 1)?.text == "(",
        let value = tokens.at(index + 2),
        ["null", "undefined"].contains(value.text) || value.kind == .string("")
      {
        found[.clearCSRFToken, default: []].append(index)
      }
    }
    return found
  }

  /// The token indices inside the function's body braces: after the arrow of a `const`, or
  /// after the parameter list and the return type of a `function` (a type's own braces,
  /// `Promise<{ ok: boolean }>`, are not the body).
  private static func body(after declaration: Int, in tokens: [JSToken]) -> Range<Int>? {
    var index = declaration + 1
    if tokens[declaration - 1].text == "function" {
      guard let open = (index..<tokens.count).first(where: { tokens[$0].text == "(" }),
        let close = Block.matching(open, in: tokens, pair: ("(", ")"))
      else { return nil }
      index = close + 1
      var angles = 0
      while index < tokens.count {
        let text = tokens[index].text
        if text == "<" { angles += 1 }
        if text == ">" { angles -= 1 }
        if text == "{" && angles <= 0 { break }
        if text == ";" { return nil }
        index += 1
      }
      guard index < tokens.count, tokens[index].text == "{" else { return nil }
    } else {
      while index < tokens.count, tokens[index].text != "=>" {
        if tokens[index].text == ";" { return nil }
        index += 1
      }
      index += 1
      guard index < tokens.count, tokens[index].text == "{" else { return nil }
    }
    guard index < tokens.count, let close = Block.matching(index, in: tokens) else { return nil }
    return (index + 1)..<close
  }

  /// The structure questions the reader asks of one function body.
  struct Reader {
    let tokens: [JSToken]
    let body: Range<Int>
    let blocks: [Block]

    /// The statement a request is part of: whether its rejection reaches the function (it is
    /// awaited, no `.catch(` is chained on it, it is no `Promise.allSettled`).
    struct Statement {
      var first: Int
      var last: Int
      var rejects: Bool
      var unreadable: String?
    }

    func block(opening index: Int) -> Block? { blocks.first { $0.open == index } }
    func block(closing index: Int) -> Block? { blocks.first { $0.close == index } }

    /// Why the step at `index` cannot be placed: inside a condition, a callback (braced or
    /// not), or a `Promise.all`.
    func unplaceable(_ index: Int) -> String? {
      if let guarded = blocks.first(where: {
        $0.contains(index) && ($0.kind == .conditional || $0.kind == .function)
      }) {
        return guarded.kind == .conditional
          ? "inside a condition (line \(tokens[guarded.open].line + 1))"
          : "inside a callback (line \(tokens[guarded.open].line + 1))"
      }
      let statement = bounds(around: index)
      if (statement.first..<index).contains(where: { tokens[$0].text == "=>" }) {
        return "inside a callback (line \(tokens[index].line + 1))"
      }
      return nil
    }

    /// Whether `index` sits in the `catch` of the `try` around `start`: it runs only when the
    /// request failed.
    func inCatch(of start: Int, _ index: Int) -> Bool {
      blocks.contains { handler in
        handler.kind == .catch && handler.contains(index)
          && blocks.contains { $0.open == handler.tryOpen && $0.contains(start) }
      }
    }

    /// The first and last token of the statement holding `index`.
    func bounds(around index: Int) -> (first: Int, last: Int) {
      var first = index
      while first > body.lowerBound {
        let previous = tokens[first - 1]
        if previous.text == ";" { break }
        if previous.text == "{", block(opening: first - 1)?.kind != .other { break }
        if previous.text == "}", block(closing: first - 1)?.kind != .other { break }
        if endsStatement(first - 1, before: first) { break }
        first -= 1
      }
      var last = first
      var depth = 0
      var cursor = first
      while cursor < body.upperBound {
        let token = tokens[cursor]
        if depth == 0, cursor > first, token.text == ";" { break }
        if depth == 0, cursor > first, endsStatement(cursor - 1, before: cursor) { break }
        if ["(", "[", "{"].contains(token.text) { depth += 1 }
        if [")", "]", "}"].contains(token.text) {
          if depth == 0 { break }
          depth -= 1
        }
        last = cursor
        cursor += 1
      }
      return (first, last)
    }

    /// A line break between `end` and `next` that ends a statement written without `;`.
    private func endsStatement(_ end: Int, before next: Int) -> Bool {
      let a = tokens[end]
      let b = tokens[next]
      guard b.line > a.line, b.kind == .word else { return false }
      if a.kind == .word {
        return !["await", "new", "typeof", "void", "delete", "in", "of", "instanceof", "yield"]
          .contains(a.text)
      }
      if case .string = a.kind { return true }
      return [")", "]"].contains(a.text)
    }

    /// The statement of the request whose marker is at `index`, followed through a local it
    /// is put in (`const url = getRequestUrl("…"); await fetch(url);`).
    func statement(around index: Int) -> Statement {
      var (first, last) = bounds(around: index)
      var words = tokens[first...last].map(\.text)
      if ["const", "let", "var"].contains(words.first ?? ""), words.count > 2, words[2] == "=",
        !words.contains("await")
      {
        let name = words[1]
        if let use = ((last + 1)..<body.upperBound).first(where: {
          tokens[$0].text == name && tokens.at($0 - 1)?.text != "."
        }) {
          (first, last) = bounds(around: use)
          words = tokens[first...last].map(\.text)
        }
      }
      let pairs = Array(zip(words, words.dropFirst()))
      if pairs.contains(where: { $0.0 == "Promise" && $0.1 == "." }),
        let method = words.indices.first(where: {
          $0 > 0 && words[$0 - 1] == "." && words[$0 - 2] == "Promise"
        })
        .map({ words[$0] }), method != "allSettled"
      {
        return Statement(
          first: first, last: last, rejects: true,
          unreadable: "inside Promise.\(method) (line \(tokens[first].line + 1))")
      }
      let awaited = words.contains("await")
      let handled = pairs.contains { $0.0 == "." && $0.1 == "catch" }
      let settled = pairs.contains { $0.0 == "." && $0.1 == "allSettled" }
      return Statement(first: first, last: last, rejects: awaited && !handled && !settled)
    }

    /// Whether the step at `target` runs after the awaited request at `start` rejected: the
    /// rejection climbs the `try` statements around the request until a `catch` that does not
    /// throw again takes it; the code after that `try` statement runs (unless the catch
    /// returns), and so does every `finally` on the way. Nil when a `throw` or `return` the
    /// catch holds sits under a condition.
    func reachedAfterRejection(of start: Int, at target: Int) -> Bool? {
      var origin = start
      let tries = blocks.filter { $0.kind == .try && $0.contains(start) }.sorted {
        $0.open > $1.open
      }
      for attempt in tries where attempt.contains(origin) {
        let handlers = blocks.filter { $0.tryOpen == attempt.open }
        if handlers.contains(where: { $0.kind == .finally && $0.contains(target) }) { return true }
        if attempt.contains(target) && target > origin { return false }
        guard let handler = handlers.first(where: { $0.kind == .catch }) else { continue }
        if handler.contains(target) { return true }
        let exits = ((handler.open + 1)..<handler.close).filter {
          ["throw", "return"].contains(tokens[$0].text)
        }
        // An exit under a condition (braced, or `if (…) throw e;`) may or may not be taken.
        let direct = exits.filter { exit in
          !blocks.contains { $0.contains(exit) && handler.contains($0.open) }
            && !["if", "else"].contains(tokens[bounds(around: exit).first].text)
        }
        if exits.count != direct.count { return nil }
        if direct.contains(where: { tokens[$0].text == "return" }) { return false }
        if !direct.isEmpty {
          origin = handler.open
          continue
        }
        let end = handlers.map(\.close).max() ?? attempt.close
        return target > end
      }
      return false
    }
  }
  /// A braced block of the function body and what opened it.
  struct Block {
    enum Kind { case `try`, `catch`, finally, conditional, function, other }
    var kind: Kind
    var open: Int
    var close: Int
    /// For a `catch` or `finally`: the opening brace of its `try`.
    var tryOpen: Int?

    func contains(_ index: Int) -> Bool { index > open && index < close }

    /// The index of the token closing the one at `open` (`{` … `}` by default, or `(` … `)`).
    static func matching(
      _ open: Int, in tokens: [JSToken], pair: (open: String, close: String) = ("{", "}")
    ) -> Int? {
      var depth = 0
      for index in open..<tokens.count {
        if tokens[index].text == pair.open { depth += 1 }
        if tokens[index].text == pair.close {
          depth -= 1
          if depth == 0 { return index }
        }
      }
      return nil
    }

    /// Every block of `body`, with its kind read from the tokens before its brace.
    static func structure(_ tokens: [JSToken], in body: Range<Int>) -> [Block] {
      var blocks: [Block] = []
      for index in body where tokens[index].text == "{" {
        guard let close = matching(index, in: tokens) else { continue }
        let before = tokens.at(index - 1)?.text ?? ""
        var kind = Kind.other
        var tryOpen: Int?
        if before == "try" {
          kind = .try
        } else if before == "finally" {
          kind = .finally
        } else if before == "catch" {
          kind = .catch
        } else if before == "=>" {
          kind = .function
        } else if before == "else" {
          kind = .conditional
        } else if before == ")", let opener = openingParenthesis(before: index - 1, in: tokens) {
          let keyword = tokens.at(opener - 1)?.text ?? ""
          if keyword == "catch" {
            kind = .catch
          } else if ["if", "for", "while", "switch"].contains(keyword) {
            kind = .conditional
          } else {
            kind = .function
          }
        }
        if kind == .catch || kind == .finally {
          // The brace before the keyword closes the `try` (or, before `finally`, its
          // `catch`): that names the statement the handler belongs to, nesting included.
          let keyword =
            before == ")"
            ? (openingParenthesis(before: index - 1, in: tokens) ?? index) - 1 : index - 1
          let closed = blocks.first { $0.close == keyword - 1 }
          tryOpen = closed.map { $0.kind == .try ? $0.open : $0.tryOpen } ?? nil
        }
        blocks.append(Block(kind: kind, open: index, close: close, tryOpen: tryOpen))
      }
      return blocks
    }

    private static func openingParenthesis(before close: Int, in tokens: [JSToken]) -> Int? {
      var depth = 0
      var index = close
      while index >= 0 {
        if tokens[index].text == ")" { depth += 1 }
        if tokens[index].text == "(" {
          depth -= 1
          if depth == 0 { return index }
        }
        index -= 1
      }
      return nil
    }
  }
}

/// A JavaScript / TypeScript token: a word, a string literal, or punctuation, with where.
struct JSToken {
  enum Kind: Equatable {
    case word
    case string(String)
    case punctuation
  }
  var kind: Kind
  var text: String
  var line: Int
  var column: Int

  /// Tokens of comment-blanked lines. Template literals are one string token (their `${…}`
  /// included), which is all a reader of statement structure needs.
  static func scan(_ lines: [String]) -> [JSToken] {
    var out: [JSToken] = []
    var pending: (quote: Character, text: String, line: Int, column: Int)?
    for (lineIndex, line) in lines.enumerated() {
      let characters = Array(line)
      var index = 0
      if var string = pending {
        // A template literal continues across lines.
        while index < characters.count, characters[index] != string.quote {
          string.text.append(characters[index])
          index += 1
        }
        if index < characters.count {
          out.append(
            JSToken(
              kind: .string(string.text), text: "\"\"", line: string.line, column: string.column))
          pending = nil
          index += 1
        } else {
          string.text.append("\n")
          pending = string
          continue
        }
      }
      while index < characters.count {
        let character = characters[index]
        if character.isWhitespace {
          index += 1
        } else if character == "\"" || character == "'" || character == "`" {
          var text = ""
          var end = index + 1
          while end < characters.count, characters[end] != character {
            if characters[end] == "\\", end + 1 < characters.count {
              text.append(characters[end + 1])
              end += 2
            } else {
              text.append(characters[end])
              end += 1
            }
          }
          if end >= characters.count && character == "`" {
            pending = (character, text + "\n", lineIndex, index)
            break
          }
          out.append(JSToken(kind: .string(text), text: "\"\"", line: lineIndex, column: index))
          index = end + 1
        } else if character.isLetter || character.isNumber || character == "_" || character == "$" {
          var end = index
          while end < characters.count,
            characters[end].isLetter || characters[end].isNumber || characters[end] == "_"
              || characters[end] == "$"
          {
            end += 1
          }
          out.append(
            JSToken(
              kind: .word, text: String(characters[index..<end]), line: lineIndex, column: index))
          index = end
        } else if character == "=", index + 1 < characters.count, characters[index + 1] == ">" {
          out.append(JSToken(kind: .punctuation, text: "=>", line: lineIndex, column: index))
          index += 2
        } else {
          out.append(
            JSToken(kind: .punctuation, text: String(character), line: lineIndex, column: index))
          index += 1
        }
      }
    }
    return out
  }
}

extension Array where Element == JSToken {
  func at(_ index: Int) -> JSToken? {
    indices.contains(index) ? self[index] : nil
  }
}
