import Foundation

/// The statements of a script body qualify reads: `if (condition) return value;`, with the
/// return on the same line or in a braced block after it.
enum ScriptStatements {
  struct Guard {
    var condition: String
    /// What it returns (`null`, or empty for a bare `return;`).
    var returns: String
    /// Lines from the start of the text.
    var line: Int
  }

  static func parameters(_ header: String) -> [String] {
    guard let open = header.firstIndex(of: "("),
      let close = closingParenthesis(header, from: open)
    else { return [] }
    // Split at the list's own commas, not those of a type (`Record<string, string>`) or a
    // default (`sep = ","`); a list written one per line (a trailing comma) is the same list.
    let parts = topLevelParts(String(header[header.index(after: open)..<close]), angles: true)
    return parts.enumerated().compactMap { index, part in
      guard !part.isEmpty else { return nil }
      let name = String(part.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "$" })
      // A destructured parameter keeps its place under a name no code can use.
      return name.isEmpty ? "#\(index)" : name
    }
  }

  static func guards(_ text: String) -> [Guard] {
    let characters = Array(text)
    var out: [Guard] = []
    var index = 0
    while index < characters.count {
      // `if (` at a word boundary.
      guard characters[index] == "i", index + 1 < characters.count, characters[index + 1] == "f",
        index == 0 || !(characters[index - 1].isLetter || characters[index - 1].isNumber)
      else {
        index += 1
        continue
      }
      var cursor = index + 2
      while cursor < characters.count, characters[cursor] == " " { cursor += 1 }
      guard cursor < characters.count, characters[cursor] == "(" else {
        index += 1
        continue
      }
      var depth = 0
      var end = cursor
      while end < characters.count {
        if characters[end] == "(" { depth += 1 }
        if characters[end] == ")" {
          depth -= 1
          if depth == 0 { break }
        }
        end += 1
      }
      guard end < characters.count else { break }
      let condition = String(characters[(cursor + 1)..<end])
      // The consequence: `return x;` directly, or `{ … return x; }`.
      var rest = String(characters[(end + 1)...].prefix(400))
      rest = rest.trimmingCharacters(in: .whitespacesAndNewlines)
      var consequence = rest
      if rest.hasPrefix("{"), let close = Self.closingBrace(rest) {
        consequence = String(rest[rest.index(after: rest.startIndex)..<close])
        if let last = consequence.range(of: "return", options: .backwards) {
          consequence = String(consequence[last.lowerBound...])
        }
      }
      let line = characters[..<index].filter { $0 == "\n" }.count
      if consequence.hasPrefix("return") {
        let value = consequence.dropFirst("return".count).prefix { $0 != ";" && $0 != "\n" }
        out.append(
          Guard(
            condition: condition, returns: value.trimmingCharacters(in: .whitespaces), line: line))
      }
      index = end + 1
    }
    return out
  }
}

extension ScriptStatements {
  /// The brace closing the block `text` opens (a template's `${…}` counts as a pair).
  static func closingBrace(_ text: String) -> String.Index? {
    var depth = 0
    for index in text.indices {
      if text[index] == "{" { depth += 1 }
      if text[index] == "}" {
        depth -= 1
        if depth == 0 { return index }
      }
    }
    return nil
  }
}
