import Foundation
import QualifyCore

extension SessionClientReader {
  /// The accessor private requests take the access token from (`currentAccess()`: `return
  /// accessToken && accessExpiresAt !== null ? { token, expiresAt } : null`), evaluated as
  /// written on the state a stored envelope leaves: the module's `let x = null` variables that
  /// the function writing secure storage sets — a number where it parses a date, a string
  /// otherwise. An accessor that answers null then (its test inverted) sends every private
  /// request without the token, whatever the keyword rules find. Nil when no such accessor is
  /// found or its test reads something else.
  static func accessAnswered(_ code: CodeSearch) -> Sourced<Bool>? {
    for (file, lines) in code.files {
      let text = lines.map(\.1).joined(separator: "\n")
      let state = storedState(text)
      guard !state.isEmpty else { continue }
      // The function's body is its first statement's: `return TEST ? { …token… } : null;`.
      let accessor = try? NSRegularExpression(
        pattern: #"^\{\s*return\s+([^?;]+?)\s*\?\s*\{[^}]*\btoken\b[^}]*\}\s*:\s*null\s*;"#)
      for function in ScriptStatements.functions(in: text) {
        let body = function.body
        guard
          let match = accessor?.firstMatch(
            in: body, range: NSRange(body.startIndex..., in: body)),
          let testRange = Range(match.range(at: 1), in: body)
        else { continue }
        let name = function.name
        let test = String(body[testRange])
        guard case .success(let condition) = ScriptConditionParser.parse(test),
          let answers = condition.evaluate({ path in path.count == 1 ? state[path[0]] : nil })
        else { continue }
        let line = function.line
        let at = FileLocation(
          file: file, line: lines.count > line ? lines[line].0 + 1 : 0, column: 1)
        return Sourced(
          answers, at: at,
          derivation: answers
            ? []
            : [
              "\(name)() answers null once an envelope is stored (\(test)): every private request goes without the access token"
            ])
      }
    }
    return nil
  }

  /// The module's variables set to null at the top (`let accessToken: string | null = null`)
  /// and the values the function that writes secure storage gives them: a literal as written;
  /// else a value of the declared type (`string`, `number`), or a number where it parses a
  /// date. A variable whose value qualify cannot type is left out, and a test of it unjudged.
  static func storedState(_ text: String) -> [String: ScriptValue] {
    let declared = InstanceDecisionReader.matches(
      #"(?m)^(?:export\s+)?let\s+(\w+)\s*(?::\s*([^=\n]+?))?\s*=\s*null\s*;"#, text)
    guard
      let store = ScriptStatements.functions(in: text).first(where: {
        $0.body.contains("SecureStore.setItemAsync(")
      })
    else { return [:] }
    var state: [String: ScriptValue] = [:]
    for declaration in declared {
      let name = declaration[0]
      let type = declaration.count > 1 ? declaration[1] : ""
      guard
        let value = InstanceDecisionReader.matches(
          #"(?:^|[^.\w])"# + name + #"\s*=\s*([^;=][^;]*);"#, store.body
        ).first?.first?.trimmingCharacters(in: .whitespaces)
      else { continue }
      if let literal = literal(value) {
        state[name] = literal
      } else if value.range(
        of: #"^(?:Date\.parse\(|Date\.now\(|Number\(|parseInt\()|\.getTime\(\)$"#,
        options: .regularExpression) != nil || type.contains("number")
      {
        state[name] = .number(1_700_000_000_000)
      } else if type.contains("string") {
        state[name] = .string("stored")
      }
    }
    return state
  }

  private static func literal(_ text: String) -> ScriptValue? {
    switch text {
    case "null": return .null
    case "true": return .bool(true)
    case "false": return .bool(false)
    default:
      if let number = Double(text) { return .number(number) }
      if let quoted = InstanceDecisionReader.matches(#"^["'`]([^"'`]*)["'`]$"#, text).first?.first {
        return .string(quoted)
      }
      return nil
    }
  }
}
