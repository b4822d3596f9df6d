import Foundation

extension ScriptStatements {
  /// The functions of a TypeScript text (`function name(…) {`, `const name = (…) => {`):
  /// name, body (its braces included), and the line (from 0) the declaration starts on. The
  /// parameter list and the return type are skipped whole before the body's brace is looked
  /// for — a parameter typed as an object literal or defaulting to `{}`, and a return type
  /// such as `{ token: string } | null`, hold braces of their own — and an arrow function
  /// without a block body is not one.
  static func functions(in text: String) -> [(name: String, body: String, line: Int)] {
    let declaration = #"(?:function\s+(\w+)\s*\(|(?:const|let)\s+(\w+)\s*=\s*(?:async\s*)?\()"#
    guard let regex = try? NSRegularExpression(pattern: declaration) else { return [] }
    var out: [(name: String, body: String, line: Int)] = []
    for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
      let group = match.range(at: 1).location != NSNotFound ? 1 : 2
      guard let name = Range(match.range(at: group), in: text),
        let whole = Range(match.range, in: text),
        let parameters = closingParenthesis(text, from: text.index(before: whole.upperBound)),
        case let typed = returnTypeEnd(text, after: parameters),
        let open = text[typed...].firstIndex(of: "{"),
        // An arrow between them, not a statement's end (a return type's `;`s are its own).
        !text[typed..<open].contains(";"),
        let close = closingBrace(String(text[open...]))
      else { continue }
      out.append(
        (
          String(text[name]), String(String(text[open...])[...close]),
          text[..<whole.lowerBound].filter { $0 == "\n" }.count
        ))
    }
    return out
  }

  /// Where the return type annotated after the parameter list closing at `parameters` ends
  /// (`): { token: string } | null {` → before the body's brace); `parameters` itself when
  /// there is none. A type is a union or intersection of primaries: a name with its generics
  /// and `[]`s, a bracketed type (an object, a tuple, a parenthesised or function type, whose
  /// `=> T` is read on), a string literal.
  static func returnTypeEnd(_ text: String, after parameters: String.Index) -> String.Index {
    var index = text.index(after: parameters)
    func skipBlanks() {
      while index < text.endIndex, text[index].isWhitespace { index = text.index(after: index) }
    }
    func starts(_ prefix: String) -> Bool { text[index...].hasPrefix(prefix) }
    skipBlanks()
    guard index < text.endIndex, text[index] == ":" else { return parameters }
    index = text.index(after: index)
    while true {
      skipBlanks()
      guard index < text.endIndex else { return parameters }
      let character = text[index]
      if "{[(".contains(character) {
        guard let close = closingBracket(text, from: index) else { return parameters }
        index = text.index(after: close)
        skipBlanks()
        // A parenthesised function type: its return type is read on. After an object or a
        // tuple type, `=>` is the arrow function's own.
        if character == "(", starts("=>") {
          index = text.index(index, offsetBy: 2)
          continue
        }
      } else if "\"'`".contains(character) {
        guard let end = text[text.index(after: index)...].firstIndex(of: character) else {
          return parameters
        }
        index = text.index(after: end)
      } else {
        let start = index
        while index < text.endIndex,
          text[index].isLetter || text[index].isNumber || "_$.".contains(text[index])
        {
          index = text.index(after: index)
        }
        guard index > start else { return parameters }
        skipBlanks()
        if index < text.endIndex, text[index] == "<" {
          guard let close = closingBracket(text, from: index) else { return parameters }
          index = text.index(after: close)
        }
      }
      skipBlanks()
      while starts("[]") {
        index = text.index(index, offsetBy: 2)
        skipBlanks()
      }
      guard index < text.endIndex, "|&".contains(text[index]) else { return index }
      index = text.index(after: index)
    }
  }

  /// The bracket closing the one at `start` (`{`, `[`, `(` or `<`), every kind counted, a
  /// string's brackets left alone and `=>` closing nothing.
  private static func closingBracket(_ text: String, from start: String.Index) -> String.Index? {
    var depth = 0
    var quote: Character?
    var previous: Character = " "
    var index = start
    while index < text.endIndex {
      let character = text[index]
      defer {
        previous = character
        index = text.index(after: index)
      }
      if let open = quote {
        if character == open && previous != "\\" { quote = nil }
        continue
      }
      if "\"'`".contains(character) {
        quote = character
        continue
      }
      if "{[(<".contains(character) { depth += 1 }
      if "}])".contains(character) || (character == ">" && previous != "=") {
        depth -= 1
        if depth == 0 { return index }
      }
    }
    return nil
  }

  /// The parenthesis closing the one at `start`.
  static func closingParenthesis(_ text: String, from start: String.Index) -> String.Index? {
    var depth = 0
    var index = start
    while index < text.endIndex {
      if text[index] == "(" { depth += 1 }
      if text[index] == ")" {
        depth -= 1
        if depth == 0 { return index }
      }
      index = text.index(after: index)
    }
    return nil
  }

  /// A parameter or argument list split at its own commas, each part trimmed (the last kept
  /// even when empty): commas inside brackets are left alone, and with `angles` those inside
  /// `<…>` too (a type's generics; in an expression `<` and `>` compare).
  static func topLevelParts(_ list: String, angles: Bool) -> [String] {
    var out: [String] = []
    var depth = 0
    var current = ""
    var quote: Character?
    var previous: Character = " "
    for character in list {
      defer { previous = character }
      // A comma or a bracket inside a string literal is the string's.
      if let open = quote {
        if character == open && previous != "\\" { quote = nil }
        current.append(character)
        continue
      }
      if "\"'`".contains(character) {
        quote = character
        current.append(character)
        continue
      }
      if "([{".contains(character) || (angles && character == "<") { depth += 1 }
      // `=>` of a function type closes nothing.
      if ")]}".contains(character) || (angles && character == ">" && previous != "=") {
        depth -= 1
      }
      if character == ",", depth == 0 {
        out.append(current.trimmingCharacters(in: .whitespacesAndNewlines))
        current = ""
      } else {
        current.append(character)
      }
    }
    out.append(current.trimmingCharacters(in: .whitespacesAndNewlines))
    return out
  }
}
