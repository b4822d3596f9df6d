import Artifacts
import Devices
import QualifyCore

/// What a bridge failure's message adds: the app's code that explains it, with where.
extension BridgePack {
  /// The page's `web.hello` refused at load, with the schema that refused it: every later
  /// decision follows from a handshake that never happened.
  static func helloRefusal(_ shell: BridgeShell) -> String {
    guard let why = shell.page.helloRefused else { return "" }
    let schema = shell.build.bridge?.messageSchema.map { " (webToNativeSchema, \($0.origin))" }
    return "; the page's web.hello was refused at load (\(why))\(schema ?? "")"
  }

  /// What the app's receive() leaves out, with where, for a failure it explains.
  static func receiverCode(_ build: AppBuild) -> String {
    let missing =
      (build.bridge?.receiverChecks ?? [:]).filter { !$0.value.value }
      .sorted { $0.key < $1.key }.map { "no \($0.key) check (\($0.value.origin))" }
      + (build.bridge?.receiverRefusesWellFormed.map {
        ["a well-formed message refused at `if (\($0.value))` (\($0.origin))"]
      } ?? [])
      + (build.bridge?.boundsCounted.map { counted in
        ["coordinates", "steps", "legs"].filter { !counted.value.values.contains($0) }.map {
          "no \($0) counted against a limit (the parser's counting, \(counted.origin))"
        }
      } ?? [])
    return missing.isEmpty ? "" : "; the receiver's code: " + missing.joined(separator: ", ")
  }

  /// What the web app's handoff code lacks, with where, for a failure it explains.
  static func serverCode(_ world: World) -> String {
    guard let code = world.configuration.build.bridge?.handoffServer else { return "" }
    let facts: [(Sourced<Bool>?, String)] = [
      (code.hashesCode, "no code hash"), (code.consumesAtomically, "no atomic consume"),
      (code.wrongVerifierBurns, "a wrong verifier does not burn the code"),
      (code.uniformRejections, "refusals differ"),
      (code.checksState, "any state is taken"),
    ]
    let missing = facts.compactMap { fact, text in
      fact.flatMap { $0.value ? nil : "\(text) (\($0.origin))" }
    }
    return missing.isEmpty ? "" : "; the server's code: " + missing.joined(separator: ", ")
  }
}
