import Foundation
import QualifyCore

/// What a React Native bridge shell's message handler does with receive()'s answer (seed
/// 001, What crosses), read from `App.tsx`: an answer discarded (`void bridge.receive(…)`)
/// leaves every refusal silent; an answer kept and sent back as `native.error` with its code
/// is an answer to every refusal unless the handler names the codes of the origin and nonce
/// refusals, whose senders must hear nothing.
enum RejectionRepliesReader {
  /// How far below the receive( call the handler's answer is looked for.
  static let window = 25

  /// - Parameter unauthenticated: the codes receive() refuses a foreign origin or a stale
  ///   nonce with.
  static func read(_ app: CodeSearch, unauthenticated: [String]) -> Sourced<RejectionReplies>? {
    for (file, lines) in app.files {
      guard let start = lines.firstIndex(where: { $0.1.contains(".receive(") }) else {
        continue
      }
      let at = FileLocation(file: file, line: lines[start].0 + 1, column: 1)
      let call = lines[start].1
      // `const outcome = await shell.bridge.receive(…)` or `.receive(…).then((outcome) =>`.
      let kept =
        SourceText.capture(
          #"(?:const|let)\s+(\w+)\s*=\s*(?:await\s+)?[\w.?]*\.receive\("#, in: call)
        ?? SourceText.capture(#"\.receive\([^\n]*\)\s*\.then\(\s*\(?\s*(\w+)"#, in: call)
      guard let variable = kept else {
        return Sourced(.silent, at: at, derivation: ["receive()'s answer is discarded"])
      }
      let after = lines[start..<min(lines.count, start + window)]
      guard
        let answer = after.first(where: {
          $0.1.contains("native.error")
            && after.contains {
              $0.1.contains(variable + ".code") || $0.1.contains(variable + ".reason")
            }
        })
      else {
        return Sourced(
          .silent, at: at, derivation: ["\(variable) is never sent back as native.error"])
      }
      let answerAt = FileLocation(file: file, line: answer.0 + 1, column: 1)
      let spared = unauthenticated.filter { code in
        after.contains { $0.1.contains("\"\(code)\"") || $0.1.contains("'\(code)'") }
      }
      // Sparing the foreign origin but not the stale nonce still answers an unauthenticated
      // sender: every such code must be spared.
      let answered = unauthenticated.filter { !spared.contains($0) }
      return spared.isEmpty || !answered.isEmpty
        ? Sourced(
          .every, at: answerAt,
          derivation: [
            spared.isEmpty
              ? "every refusal is answered with native.error, \(variable)'s code in it"
              : "the refusals \(answered.joined(separator: ", ")) are answered too"
          ])
        : Sourced(
          .authenticatedOnly, at: answerAt,
          derivation: ["the refusals \(spared.joined(separator: ", ")) are not answered"])
    }
    return nil
  }

  /// The codes receive() refuses a document of another origin or without the channel's
  /// nonce with (`return { status: "rejected", code: "wrong-origin" }`).
  static func unauthenticatedCodes(_ receive: [String]) -> [String] {
    receive.compactMap {
      SourceText.capture(
        #"status:\s*["']rejected["'][^\n]*code:\s*["']([^"']*(?:origin|channel|nonce)[^"']*)["']"#,
        in: $0)
    }
  }
}
