import Foundation
import QualifyCore

/// The checks a bridge shell's receiver makes before it dispatches (seed 001, What crosses),
/// read from its `receive(` method under `apps/mobile/src/bridge`: each early refusal
/// (`if (…) return { status: "rejected", … }`) written before the dispatch, by what its
/// condition compares — the reporting document's origin with the compiled one
/// (`classifyNavigation(event.url, …) === "allow-in-webview"`, `….origin !== webOrigin`,
/// directly or through a local it names), the message id against those remembered, the
/// command's protocol against the handshake's — and the nonce handed to the parser
/// (`expectedNonce:`) or compared. A check not found so is reported missing; a receive()
/// whose dispatch is not found is not read at all (nil: unknown).
struct BridgeReceiverReader {
  let search: CodeSearch

  /// A receive() method up to its dispatch.
  struct Body {
    var file: String
    /// The method's first line.
    var line: Int
    /// Its lines before the dispatch's, and the dispatch's.
    var lines: [String]
    var dispatch: Int
  }

  func body() -> Body? {
    guard
      let block = search.blocks(after: "async receive(").first
        ?? search.blocks(after: "receive(").first
    else { return nil }
    let lines = block.body.split(separator: "\n", omittingEmptySubsequences: false).map(
      String.init)
    // `this.deps.dispatch(command)`, or optionally chained: `dispatch?.(command)`.
    guard
      let dispatch = lines.firstIndex(where: {
        $0.range(of: #"\bdispatch(?:\?\.)?\("#, options: .regularExpression) != nil
      })
    else {
      return nil
    }
    return Body(file: block.file, line: block.line, lines: lines, dispatch: dispatch)
  }

  /// The checks by name (`BridgeShellSettings.receiverChecks`), nil when no `receive(` method
  /// with a dispatch is found.
  func read() -> [String: Sourced<Bool>]? {
    guard let body = body() else { return nil }
    let (block, lines, dispatch) = (body, body.lines, body.dispatch)
    let before = lines[..<dispatch].joined(separator: "\n")
    let at = FileLocation(file: block.file, line: block.line, column: 1)
    let named = ScriptStatements.booleanLocals(in: before)
    let refusals = ScriptStatements.guards(before).filter { $0.returns.contains("reject") }
    func refusal(_ tests: (String) -> Bool) -> Sourced<Bool> {
      for refusal in refusals {
        var condition = refusal.condition
        for (name, expression) in named
        where condition.range(of: #"\b"# + name + #"\b"#, options: .regularExpression) != nil {
          condition += " " + expression
        }
        if tests(condition) {
          return Sourced(
            true, at: FileLocation(file: block.file, line: block.line + refusal.line, column: 1))
        }
      }
      return Sourced(false, at: at, derivation: ["no refusal before the dispatch tests it"])
    }
    var checks: [String: Sourced<Bool>] = [:]
    checks["origin"] = refusal { condition in
      ["classifyNavigation(", "webOrigin", ".origin"].contains(where: condition.contains)
    }
    // The message id against those remembered (not the type against the vocabulary).
    checks["duplicates"] = refusal { condition in
      condition.contains("rememberMessage(")
        || (condition.contains("messageId")
          && (condition.contains(".has(") || condition.lowercased().contains("seen")))
    }
    checks["protocol"] = refusal { condition in
      condition.contains("protocolVersion")
        && (condition.contains("handshake") || condition.contains("negotiated"))
    }
    // The nonce is checked by the parser it is handed to, or compared here.
    let nonce = #"expectedNonce\s*:|[Nn]once\s*!==|!==\s*[\w.]*[Nn]once\b"#
    if let line = lines[..<dispatch].firstIndex(where: {
      $0.range(of: nonce, options: .regularExpression) != nil
    }) {
      checks["nonce"] = Sourced(
        true, at: FileLocation(file: block.file, line: block.line + line, column: 1))
    } else {
      checks["nonce"] = Sourced(
        false, at: at, derivation: ["receive() hands no nonce to check before the dispatch"])
    }
    return checks
  }

  /// The first refusal before the dispatch that a well-formed message meets (its condition,
  /// where), with locals read as their expressions; nil when every refusal is read and none
  /// refuses one, or when there is no receive() that dispatches.
  func wellFormedRefusal() -> Sourced<String>? { judgeRefusals().refusing }

  /// Each refusal before the dispatch judged on a well-formed message: the first that refuses
  /// one, and those whose condition qualify cannot evaluate (a call it does not follow, a
  /// form it does not read), which are neither passed nor failed.
  func judgeRefusals() -> (refusing: Sourced<String>?, unjudged: [Sourced<String>]) {
    guard let body = body() else { return (nil, []) }
    var unjudged: [Sourced<String>] = []
    let before = body.lines[..<body.dispatch].joined(separator: "\n")
    let named = ScriptStatements.booleanLocals(in: before)
    let refusals = ScriptStatements.guards(before).filter { $0.returns.contains("reject") }
    for refusal in refusals {
      var condition = refusal.condition
      for (name, expression) in named {
        condition = condition.replacingOccurrences(
          of: #"\b"# + name + #"\b(?![.(])"#, with: "(" + expression + ")",
          options: .regularExpression)
      }
      // What is read after the refusal on the way to the dispatch must be there.
      let rest = body.lines[(refusal.line + 1)...body.dispatch].joined(separator: "\n")
      let required = { (name: String) in
        rest.range(of: #"\b"# + name + #"\.\w"#, options: .regularExpression) != nil
      }
      let written = Sourced(
        refusal.condition.trimmingCharacters(in: .whitespacesAndNewlines),
        at: FileLocation(file: body.file, line: body.line + refusal.line, column: 1))
      switch RefusalCondition.refusesWellFormed(condition, required: required) {
      case true?: return (written, unjudged)
      case nil: unjudged.append(written)
      case false?: break
      }
    }
    return (nil, unjudged)
  }
}
