import Foundation
import QualifyCore

/// The locals a navigation policy names its tests and URL parts with.
extension NavigationPolicyReader {
  /// `let sameOrigin = url.host == active.host && …` then `if sameOrigin {`: the test is the
  /// local's expression (negated for `!sameOrigin`).
  static func resolving(_ statement: IfStatement, _ named: [String: String]) -> IfStatement {
    var statement = statement
    let bare = statement.condition.trimmingCharacters(
      in: CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "()")))
    if let expression = named[bare] {
      statement.condition = expression
    } else if bare.hasPrefix("!"), let expression = named[String(bare.dropFirst())] {
      statement.condition = "!(\(expression))"
    }
    return statement
  }

  /// Locals bound to a path: `let host = url.host`, `String scheme = url.getScheme();`,
  /// `val port = uri.port`, a binding of a condition list (`let scheme = url.scheme,`).
  static func aliases(in text: String) -> [String: String] {
    let pattern =
      #"(?:\blet|\bvar|\bval|\bString|\bUri|\bint|\bInteger|\bfinal\s+\w+)\s+(\w+)\s*(?::\s*\w+\??\s*)?=\s*([A-Za-z_][\w.]*(?:\(\))?(?:\.[A-Za-z_]\w*(?:\(\))?)*)\s*;?\s*$"#
    guard let regex = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
    else { return [:] }
    var out: [String: String] = [:]
    let range = NSRange(text.startIndex..., in: text)
    // Swift's condition lists bind them too: `guard let url = …, let scheme = url.scheme, …`.
    let path = #"([A-Za-z_][\w.?]*(?:\(\))?(?:\.[A-Za-z_]\w*(?:\(\))?)*)"#
    let binding = try? NSRegularExpression(
      pattern: #"\b(?:let|var)\s+(\w+)\s*=\s*"# + path + #"\s*,"#)
    for match in regex.matches(in: text, range: range)
      + (binding?.matches(in: text, range: range) ?? [])
    {
      guard let name = Range(match.range(at: 1), in: text),
        let value = Range(match.range(at: 2), in: text)
      else { continue }
      out[String(text[name])] = out[String(text[name])] ?? String(text[value])
    }
    return out
  }
}
