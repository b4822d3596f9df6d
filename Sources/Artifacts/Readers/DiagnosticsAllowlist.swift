import Foundation
import QualifyCore

/// The fields an app's diagnostics keep, where they are kept by an allowlist (seed 001's
/// diagnostic export, as OpenMapX writes it: `DIAGNOSTIC_FIELDS`, a record of the field names
/// permitted per type, and a recorder that writes a field only when the list `.includes` it).
/// An allowlist fails closed, so what matters is what it lets through, not what it names.
enum DiagnosticsAllowlist {
  /// A constant whose name says it lists what is allowed, declared as an object or an array.
  static let declaration =
    #"(?:const|let)\s+(\w*(?:FIELDS|ALLOWED|ALLOWLIST|PERMITTED|ALLOW_LIST)\w*)\s*(?::[^=]+)?=\s*[\{\[]"#

  /// Every field name the allowlist permits (the string literals of its arrays), where it is
  /// declared; nil when no allowlist is declared or none is applied (`.includes(` or `.has(`
  /// after its name is read again).
  static func read(_ code: CodeSearch) -> Sourced<[String]>? {
    guard let regex = try? NSRegularExpression(pattern: declaration) else { return nil }
    for (file, lines) in code.files {
      let text = lines.map(\.1).joined(separator: "\n")
      guard
        let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
        let nameRange = Range(match.range(at: 1), in: text),
        let whole = Range(match.range, in: text)
      else { continue }
      let name = String(text[nameRange])
      let body = balanced(text[text.index(before: whole.upperBound)...])
      let rest = text[whole.upperBound...].dropFirst(body.count)
      let applied =
        rest.range(of: #"\b"# + name + #"\b"#, options: .regularExpression) != nil
        && (rest.contains(".includes(") || rest.contains(".has("))
      guard applied else { continue }
      let before = text[..<whole.lowerBound].filter { $0 == "\n" }.count
      let line = lines.count > before ? lines[before].0 + 1 : 0
      return Sourced(fields(in: body), at: FileLocation(file: file, line: line, column: 1))
    }
    return nil
  }

  /// The text from an opening `{` or `[` to the one closing it.
  static func balanced(_ text: Substring) -> Substring {
    var depth = 0
    for index in text.indices {
      if text[index] == "{" || text[index] == "[" { depth += 1 }
      if text[index] == "}" || text[index] == "]" {
        depth -= 1
        if depth == 0 { return text[...index] }
      }
    }
    return text
  }

  /// The string literals inside the arrays of `body` (an object's keys name types, not fields).
  static func fields(in body: Substring) -> [String] {
    let arrays = InstanceDecisionReader.matches(#"\[([^\[\]]*)\]"#, String(body)).map { $0[0] }
    let source = arrays.isEmpty ? [String(body)] : arrays
    return source.flatMap { array in
      InstanceDecisionReader.matches(#"["']([^"']+)["']"#, array).map { $0[0] }
    }
  }
}
