import Foundation
import QualifyCore

/// Source-text helpers for Swift, Kotlin, Java and Gradle files: the guards look for
/// declarations, so comments must not count, and code compiled out of the build being
/// qualified (`#if DEBUG` in a Release build) must not count either.
enum SourceText {
  /// `(index, line)` pairs with `//` comments and `/* … */` blocks blanked; `quotes` are the
  /// string delimiters of the language (`'` and `` ` `` too in JavaScript), inside which
  /// `//` is text.
  static func codeLines(_ text: String, quotes: Set<Character> = ["\""]) -> [(Int, String)] {
    var out: [(Int, String)] = []
    var inBlock = false
    for (index, raw) in TextLines.split(text).enumerated() {
      var kept = ""
      var rest = Substring(raw)
      var inString: Character?
      while !rest.isEmpty {
        if inBlock {
          guard let end = rest.range(of: "*/") else {
            rest = ""
            break
          }
          rest = rest[end.upperBound...]
          inBlock = false
          continue
        }
        guard let c = rest.first else { break }
        if quotes.contains(c) && (inString == nil || inString == c) {
          inString = inString == nil ? c : nil
          kept.append(c)
          rest = rest.dropFirst()
        } else if c == "\\", inString != nil, rest.count > 1 {
          kept.append(contentsOf: rest.prefix(2))
          rest = rest.dropFirst(2)
        } else if inString == nil, rest.hasPrefix("/*") {
          rest = rest.dropFirst(2)
          inBlock = true
        } else if inString == nil, rest.hasPrefix("//") {
          rest = ""
        } else {
          kept.append(c)
          rest = rest.dropFirst()
        }
      }
      out.append((index, kept))
    }
    return out
  }

  /// The code lines of a Swift file that a build with `conditions` active compiles:
  /// `#if`/`#elseif`/`#else`/`#endif` blocks are evaluated (`DEBUG`, `!DEBUG`, `&&`, `||`,
  /// `true`, `false`; anything else, such as `os(iOS)`, is taken as true).
  static func compiledSwiftLines(_ text: String, conditions: Set<String>) -> [(Int, String)] {
    struct Frame {
      var parentActive: Bool
      var taken: Bool
      var active: Bool
    }
    var stack: [Frame] = []
    var out: [(Int, String)] = []
    for (index, line) in codeLines(text) {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      let active = stack.last?.active ?? true
      if trimmed.hasPrefix("#if ") || trimmed == "#if" {
        let value = evaluate(String(trimmed.dropFirst(3)), conditions)
        stack.append(Frame(parentActive: active, taken: value, active: active && value))
        continue
      }
      if trimmed.hasPrefix("#elseif"), var frame = stack.popLast() {
        let value = evaluate(String(trimmed.dropFirst(7)), conditions)
        frame.active = frame.parentActive && !frame.taken && value
        frame.taken = frame.taken || value
        stack.append(frame)
        continue
      }
      if trimmed.hasPrefix("#else"), var frame = stack.popLast() {
        frame.active = frame.parentActive && !frame.taken
        frame.taken = true
        stack.append(frame)
        continue
      }
      if trimmed.hasPrefix("#endif") {
        _ = stack.popLast()
        continue
      }
      out.append((index, active ? line : ""))
    }
    return out
  }

  /// Evaluates a compilation condition.
  static func evaluate(_ expression: String, _ conditions: Set<String>) -> Bool {
    let text = expression.trimmingCharacters(in: .whitespaces)
    if let or = text.range(of: "||") {
      return evaluate(String(text[..<or.lowerBound]), conditions)
        || evaluate(String(text[or.upperBound...]), conditions)
    }
    if let and = text.range(of: "&&") {
      return evaluate(String(text[..<and.lowerBound]), conditions)
        && evaluate(String(text[and.upperBound...]), conditions)
    }
    if text.hasPrefix("!") { return !evaluate(String(text.dropFirst()), conditions) }
    if text.hasPrefix("("), text.hasSuffix(")") {
      return evaluate(String(text.dropFirst().dropLast()), conditions)
    }
    switch text {
    case "true": return true
    case "false": return false
    default:
      if text.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
        return conditions.contains(text)
      }
      return true
    }
  }

  /// The first capture group of `pattern` in `line`.
  static func capture(_ pattern: String, in line: String) -> String? {
    guard let regex = try? NSRegularExpression(pattern: pattern),
      let match = regex.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
      match.numberOfRanges > 1, let range = Range(match.range(at: 1), in: line)
    else { return nil }
    return String(line[range])
  }

  /// Whether `pattern` matches `line`.
  static func matches(_ pattern: String, _ line: String) -> Bool {
    line.range(of: pattern, options: .regularExpression) != nil
  }
}
