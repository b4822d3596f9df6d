import Foundation

extension ScriptStatements {
  /// The functions of a TypeScript text (`function name(…) {`, `const name = (…) => {`):
  /// name, body (its braces included), and the line (from 0) the declaration starts on. The
  /// parameter list is skipped whole before the body's brace is looked for — a parameter
  /// typed as an object literal or defaulting to `{}` holds braces of its own — and an arrow
  /// function without a block body is not one.
  static func functions(in text: String) -> [(name: String, body: String, line: Int)] {
    let declaration = #"(?:function\s+(\w+)\s*\(|(?:const|let)\s+(\w+)\s*=\s*(?:async\s*)?\()"#
    guard let regex = try? NSRegularExpression(pattern: declaration) else { return [] }
    var out: [(name: String, body: String, line: Int)] = []
    for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
      let group = match.range(at: 1).location != NSNotFound ? 1 : 2
      guard let name = Range(match.range(at: group), in: text),
        let whole = Range(match.range, in: text),
        let parameters = closingParenthesis(text, from: text.index(before: whole.upperBound)),
        let open = text[parameters...].firstIndex(of: "{"),
        // A return type or an arrow between them, not a statement's end.
        !text[parameters..<open].contains(";"),
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
