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
    func pairs(_ expression: NSRegularExpression?) -> [(String, String)] {
      (expression?.matches(in: text, range: range) ?? []).compactMap { match in
        guard let name = Range(match.range(at: 1), in: text),
          let value = Range(match.range(at: 2), in: text)
        else { return nil }
        return (String(text[name]), String(text[value]))
      }
    }
    for (name, value) in pairs(regex) { out[name] = value }
    // A binding only names a URL the way its path does: `let active = self.activeURL,` keeps
    // its own name, which is what says it is the active instance's.
    for (name, value) in pairs(binding)
    where out[name] == nil
      && name.lowercased().contains("active") == value.lowercased().contains("active")
    {
      out[name] = value
    }
    return out
  }
}
