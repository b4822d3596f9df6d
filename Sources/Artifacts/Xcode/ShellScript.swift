import Foundation

/// Just enough of `/bin/sh` to tell whether a build phase's command runs in a given
/// configuration: `if`/`elif`/`else`/`fi` on tests of `$CONFIGURATION` (or `$ACTION`),
/// `[ … ] && exit`, `[ … ] || exit`, and an early `exit`. A test qualify cannot decide (a
/// command such as `PlistBuddy -c Print …`) is taken as true, since those only check that
/// there is something to do.
enum ShellScript {
  /// Whether a command matching `pattern` (a regular expression) runs when the build's
  /// settings are `variables` (`CONFIGURATION` → `Release`).
  static func runs(_ pattern: String, in script: String, variables: [String: String]) -> Bool {
    var stack: [(parentActive: Bool, taken: Bool, active: Bool)] = []
    var halted = false
    var active: Bool { !halted && (stack.last?.active ?? true) }
    for var statement in statements(script) {
      if statement.hasPrefix("then ") { statement = String(statement.dropFirst(5)) }
      if statement == "then" || statement == "do" || statement == "done" { continue }
      if statement.hasPrefix("if ") {
        let value = test(String(statement.dropFirst(3)), variables) ?? true
        stack.append((active, value, active && value))
        continue
      }
      if statement.hasPrefix("elif "), var frame = stack.popLast() {
        let value = test(String(statement.dropFirst(5)), variables) ?? true
        frame.active = frame.parentActive && !frame.taken && value
        frame.taken = frame.taken || value
        stack.append(frame)
        continue
      }
      if statement == "else" || statement.hasPrefix("else "), var frame = stack.popLast() {
        frame.active = frame.parentActive && !frame.taken
        frame.taken = true
        stack.append(frame)
        let rest = statement.dropFirst(4).trimmingCharacters(in: .whitespaces)
        if !rest.isEmpty, active, rest.range(of: pattern, options: .regularExpression) != nil {
          return true
        }
        continue
      }
      if statement == "fi" {
        _ = stack.popLast()
        continue
      }
      guard active else { continue }
      if let and = statement.range(of: "&&"),
        statement[and.upperBound...]
          .trimmingCharacters(in: .whitespaces).hasPrefix("exit")
      {
        if test(String(statement[..<and.lowerBound]), variables) == true { halted = true }
        continue
      }
      if let or = statement.range(of: "||"),
        statement[or.upperBound...]
          .trimmingCharacters(in: .whitespaces).hasPrefix("exit")
      {
        if test(String(statement[..<or.lowerBound]), variables) == false { halted = true }
        continue
      }
      if statement == "exit" || statement.hasPrefix("exit ") {
        halted = true
        continue
      }
      if statement.range(of: pattern, options: .regularExpression) != nil { return true }
    }
    return false
  }

  /// Statements: lines split at unquoted `;` (so `if …; then` is two), comments dropped.
  static func statements(_ script: String) -> [String] {
    var out: [String] = []
    for line in script.components(separatedBy: "\n") {
      var current = ""
      var quote: Character?
      var previous: Character = " "
      for c in line {
        if quote == nil, c == "#", previous == " " || current.isEmpty { break }
        if let q = quote {
          if c == q { quote = nil }
        } else if c == "\"" || c == "'" {
          quote = c
        } else if c == ";" {
          out.append(current.trimmingCharacters(in: .whitespaces))
          current = ""
          previous = c
          continue
        }
        current.append(c)
        previous = c
      }
      out.append(current.trimmingCharacters(in: .whitespaces))
    }
    return out.filter { !$0.isEmpty && $0 != ";;" }
  }

  /// `[ A = B ]`, `[[ A != B ]]`, `test A == B` on known variables; nil when undecidable.
  static func test(_ text: String, _ variables: [String: String]) -> Bool? {
    var body = text.trimmingCharacters(in: .whitespaces)
    var negate = false
    if body.hasPrefix("! ") {
      negate = true
      body = String(body.dropFirst(2)).trimmingCharacters(in: .whitespaces)
    }
    if body.hasPrefix("[[") && body.hasSuffix("]]") {
      body = String(body.dropFirst(2).dropLast(2))
    } else if body.hasPrefix("[") && body.hasSuffix("]") {
      body = String(body.dropFirst().dropLast())
    } else if body.hasPrefix("test ") {
      body = String(body.dropFirst(5))
    } else {
      return nil
    }
    let words = body.split(separator: " ").map(String.init)
    guard words.count == 3, ["=", "==", "!="].contains(words[1]) else { return nil }
    guard let left = substitute(words[0], variables), let right = substitute(words[2], variables)
    else { return nil }
    let equal = left == right
    let result = words[1] == "!=" ? !equal : equal
    return negate ? !result : result
  }

  private static func substitute(_ word: String, _ variables: [String: String]) -> String? {
    var text = word
    if text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first {
      text = String(text.dropFirst().dropLast())
    }
    guard text.contains("$") else { return text }
    for (name, value) in variables {
      for form in ["${\(name)}", "$\(name)"] where text == form { return value }
    }
    return nil
  }
}
