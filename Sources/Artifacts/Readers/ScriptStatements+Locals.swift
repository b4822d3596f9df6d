import Foundation

/// Locals a condition names instead of writing its test, in the languages the readers read
/// (Swift, Kotlin, Java, TypeScript): the navigation policies' and the bridge receiver's.
extension ScriptStatements {
  /// Boolean locals a test names instead of writing it (`let sameOrigin = a == b && …`,
  /// `boolean sameOrigin = …;`, JavaScript's `const fromProduct = … === …;`): name → the
  /// expression, to the `;` or the blank line that ends it.
  static func booleanLocals(in text: String) -> [String: String] {
    let declaration =
      #"^\s*(?:let|var|val|const|boolean|final\s+boolean|Boolean)\s+(\w+)\s*(?::\s*Bool(?:ean)?\s*)?=\s*(.*)$"#
    guard let regex = try? NSRegularExpression(pattern: declaration) else { return [:] }
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let operators = ["&&", "||", "==", "!=", "(", "."]
    var out: [String: String] = [:]
    for (index, line) in lines.enumerated() {
      guard let match = regex.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
        let name = Range(match.range(at: 1), in: line),
        let first = Range(match.range(at: 2), in: line)
      else { continue }
      // The expression runs to its `;`, or — without one — on while a line ends with an
      // operator or the next begins with one (a newline ends a Swift or Kotlin statement).
      var parts = [line[first].trimmingCharacters(in: .whitespaces)]
      var next = index + 1
      while !(parts.last ?? "").hasSuffix(";"), next < lines.count {
        let last = parts.last ?? ""
        let following = lines[next].trimmingCharacters(in: .whitespaces)
        guard
          last.isEmpty || operators.contains(where: last.hasSuffix)
            || operators.contains(where: following.hasPrefix)
        else { break }
        parts.append(following)
        next += 1
      }
      var expression = parts.filter { !$0.isEmpty }.joined(separator: " ")
      if expression.hasSuffix(";") { expression.removeLast() }
      // Only a comparison is a test; anything else is not taken for one.
      guard expression.contains("==") || expression.contains(".equals(") else { continue }
      out[String(line[name])] = expression
    }
    return out
  }
}
