import Foundation
import QualifyCore

/// The checks a bridge shell's receiver makes before it dispatches (seed 001, What crosses),
/// read from its `receive(` method under `apps/mobile/src/bridge`: each early refusal
/// (`if (…) return { status: "rejected", … }`) by what its condition tests — the reporting
/// document's URL or origin (directly or through a local it names, `const fromProduct = …`),
/// the channel nonce handed to the parser, the message id remembered, the handshake's
/// protocol version. The simulated receiver then leaves out what the code leaves out; what
/// is not written in a form read here stays unknown.
struct BridgeReceiverReader {
  let search: CodeSearch

  /// The checks by name (`BridgeShellSettings.receiverChecks`), nil when no `receive(` method
  /// is found.
  func read() -> [String: Sourced<Bool>]? {
    guard
      let block = search.blocks(after: "async receive(").first
        ?? search.blocks(after: "receive(").first
    else { return nil }
    let body = block.body
    let at = FileLocation(file: block.file, line: block.line, column: 1)
    let named = NavigationPolicyReader.booleanLocals(in: body)
    let refusals = ScriptStatements.guards(body).filter {
      $0.returns.contains("rejected") || $0.returns.contains("reject")
    }
    func refusal(_ tests: (String) -> Bool) -> Sourced<Bool> {
      for refusal in refusals {
        var condition = refusal.condition
        for (name, expression) in named where condition.contains(name) {
          condition += " " + expression
        }
        if tests(condition) {
          return Sourced(
            true, at: FileLocation(file: block.file, line: block.line + refusal.line, column: 1))
        }
      }
      return Sourced(false, at: at, derivation: ["no refusal in receive() tests it"])
    }
    var checks: [String: Sourced<Bool>] = [:]
    checks["origin"] = refusal { condition in
      let lowered = condition.lowercased()
      return lowered.contains("url") || lowered.contains("origin")
    }
    checks["duplicates"] = refusal { condition in
      condition.contains("messageId") || condition.contains("rememberMessage")
        || condition.lowercased().contains("seen")
    }
    checks["protocol"] = refusal { $0.contains("protocolVersion") }
    // The nonce is checked by the parser it is handed to, or compared here.
    if let line = body.split(separator: "\n", omittingEmptySubsequences: false).firstIndex(
      where: {
        $0.contains("expectedNonce") || $0.contains("Nonce !==") || $0.contains("nonce !==")
      })
    {
      checks["nonce"] = Sourced(
        true, at: FileLocation(file: block.file, line: block.line + line, column: 1))
    } else {
      checks["nonce"] = Sourced(false, at: at, derivation: ["receive() hands no nonce to check"])
    }
    return checks
  }
}
