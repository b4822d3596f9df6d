import Foundation
import QualifyCore

/// How the handoff client judges the callback the system browser brings back (seed 001: on
/// the compiled scheme's `auth` host, carrying the attempt's state), run rather than matched:
/// every early refusal whose condition tests the parsed callback is evaluated on the callback
/// the server sends and on one wrong in each part.
public struct HandoffCallbackCheck: Sendable, Equatable {
  /// A refusal that turns the right callback away (every sign-in fails), with its condition.
  public var refusesRight: Sourced<String>?
  /// The wrong callbacks no refusal turns away: `host`, `scheme`, `state`.
  public var accepts: [String]
}

enum HandoffCallbackReader {
  /// nil when no refusal on a parsed callback is found, or one of them is not evaluated.
  static func read(_ auth: CodeSearch, scheme: String, callback: String)
    -> Sourced<HandoffCallbackCheck>?
  {
    let parts = callback.split(separator: "/", maxSplits: 1).map(String.init)
    guard !scheme.isEmpty, let host = parts.first else { return nil }
    let path = parts.count > 1 ? "/" + parts[1] : ""
    for (file, lines) in auth.files {
      let text = lines.map(\.1).joined(separator: "\n")
      guard
        let parsed = InstanceDecisionReader.matches(
          #"\b(\w+)\s*=\s*new URL\(\s*\w+\s*\)"#, text
        ).first?.first
      else { continue }
      // The locals a refusal tests that hold a part of the callback
      // (`const returned = parsed.searchParams.get("state")`).
      let locals = InstanceDecisionReader.matches(
        #"(?:const|let)\s+(\w+)\s*=\s*([^;\n]*\b\#(parsed)\b[^;\n]*);"#, text)
      // A refusal tests the parsed callback, or a local holding a part of it.
      let tested = [parsed] + locals.map { $0[0] }
      let refusals = ScriptStatements.guards(text).filter { refusal in
        tested.contains {
          refusal.condition.range(of: #"\b\#($0)\b"#, options: .regularExpression) != nil
        }
      }
      guard !refusals.isEmpty else { continue }
      func location(_ refusal: ScriptStatements.Guard) -> FileLocation {
        FileLocation(
          file: file, line: refusal.line < lines.count ? lines[refusal.line].0 + 1 : 0, column: 1)
      }
      // `this.deps.scheme` and its kind are the compiled values, bound under plain names.
      let conditions = refusals.map {
        $0.condition.replacingOccurrences(
          of: #"\bthis\.(?:deps\.)?(?:config\.)?(\w+)"#, with: "__$1", options: .regularExpression)
      }
      // What the callback's state (read inline or through such a local) is compared with
      // holds the attempt's state.
      let stateRead = #"[\w.]*\.get\(\s*["']state["']\s*\)"#
      let get =
        "(?:"
        + ([stateRead]
        + locals.filter { $0[1].range(of: stateRead, options: .regularExpression) != nil }
        .map { #"\b"# + $0[0] + #"\b"# }).joined(separator: "|") + ")"
      let other = #"([A-Za-z_$][\w$.]*)"#
      let op = #"\s*(?:!==|!=|===|==)\s*"#
      let expected = conditions.lazy.compactMap { condition in
        (InstanceDecisionReader.matches(get + op + other, condition).first
          ?? InstanceDecisionReader.matches(other + op + get, condition).first)?.first
      }.first
      // Shaped as the real ones are (16 and 32 random bytes, base64url), since a client may
      // hold a code to its length and alphabet.
      let attempt = "qualifyAttemptState012"
      var names = [parsed, "__scheme", "__redirectUrl"]
      var stateBinding: ScriptFunction.Value?
      if let expected {
        let path = expected.split(separator: ".").map(String.init)
        names.append(path[0])
        stateBinding = path.dropFirst().reversed().reduce(ScriptFunction.Value.string(attempt)) {
          .object([$1: $0])
        }
      }
      let module = conditions.enumerated().map { index, condition in
        let used = locals.filter {
          condition.range(of: #"\b\#($0[0])\b"#, options: .regularExpression) != nil
        }.map { "  const \($0[0]) = \($0[1]);\n" }.joined()
        return "function refusal\(index)(\(names.joined(separator: ", "))) {\n\(used)"
          + "  return (\(condition));\n}"
      }.joined(separator: "\n")
      let functions = conditions.indices.compactMap {
        try? ScriptFunction.read("refusal\($0)", in: module).get()
      }
      guard functions.count == conditions.count else { return nil }
      /// The index of the first refusal that holds for `url`; nil when none; -1 unanswered.
      func refusing(_ url: String) -> Int? {
        guard let parsedURL = ScriptURL.parse(url) else { return -1 }
        var arguments: [ScriptFunction.Value] = [
          parsedURL, .string(scheme), .string("\(scheme)://\(callback)"),
        ]
        if let stateBinding { arguments.append(stateBinding) }
        for (index, function) in functions.enumerated() {
          guard let answer = function.call(arguments) else { return -1 }
          if answer.truthy { return index }
        }
        return nil
      }
      let code = "qualifyHandoffCode0123456789abcdefghijklmnop"
      let query = "?state=\(attempt)&code=\(code)"
      let right = refusing("\(scheme)://\(host)\(path)\(query)")
      let wrong = [
        ("host", "\(scheme)://elsewhere.example\(path)\(query)"),
        ("scheme", "qualify-other\(scheme)://\(host)\(path)\(query)"),
        ("state", "\(scheme)://\(host)\(path)?state=anotherAttemptState99&code=\(code)"),
      ].map { ($0.0, refusing($0.1)) }
      guard right != -1, !wrong.contains(where: { $0.1 == -1 }) else { return nil }
      let first = refusals[0]
      return Sourced(
        HandoffCallbackCheck(
          refusesRight: right.map { Sourced(refusals[$0].condition, at: location(refusals[$0])) },
          accepts: wrong.filter { $0.1 == nil }.map(\.0)),
        at: location(first),
        derivation: ["the callback's refusals, run on the callback \(scheme)://\(callback)"])
    }
    return nil
  }
}
