import Foundation

/// Which native acts of an iOS script message handler are reached without the message's
/// action compared with a literal first (seed 003: `action == "request"` before the
/// permission request): either a `guard` before the act that compares it, or an `if` that
/// compares it and whose block holds the act. The name check (`message.name == …`) does not
/// count: it says which handler, not what to do.
enum ScriptMessageGuards {
  static let acts = [
    "requestAuthorization", "requestNotificationPermission", "UIActivityViewController",
    "open", "evaluateJavaScript",
  ]

  /// The acts reached unguarded, with their line in `body` (from 0).
  static func unguardedActs(_ body: String) -> [(act: String, line: Int)] {
    let lines = body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var guarded = false
    // The depth of each open `if` block that compares the action, and the current depth.
    var openIfs: [Int] = []
    var depth = 0
    var out: [(act: String, line: Int)] = []
    var index = 0
    while index < lines.count {
      var statement = lines[index]
      let trimmed = statement.trimmingCharacters(in: .whitespaces)
      let start = index
      // A guard runs to its `else`.
      if trimmed.hasPrefix("guard") {
        while !statement.contains("else"), index + 1 < lines.count {
          index += 1
          statement += "\n" + lines[index]
        }
        if comparesAction(statement) { guarded = true }
      } else if trimmed.hasPrefix("if ") || trimmed.hasPrefix("} else if "),
        comparesAction(statement), statement.contains("{")
      {
        openIfs.append(depth + 1)
      }
      if !trimmed.hasPrefix("guard"), !guarded, openIfs.isEmpty,
        let act = acts.first(where: {
          statement.range(of: #"\b"# + $0 + #"\s*[({]"#, options: .regularExpression) != nil
        })
      {
        out.append((act, start))
      }
      for character in statement {
        if character == "{" { depth += 1 }
        if character == "}" {
          depth -= 1
          while let last = openIfs.last, last > depth { openIfs.removeLast() }
        }
      }
      index += 1
    }
    return out
  }

  /// Whether the text compares something other than the message's name with a literal.
  static func comparesAction(_ text: String) -> Bool {
    guard let regex = try? NSRegularExpression(pattern: #"([\w\]\["?. ]+?)\s*==\s*""#) else {
      return false
    }
    return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).contains {
      guard let left = Range($0.range(at: 1), in: text) else { return false }
      return !text[left].contains("name")
    }
  }
}
