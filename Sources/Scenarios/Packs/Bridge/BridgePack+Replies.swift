import Artifacts
import Devices
import Foundation

/// What the page hears back about its messages: seed 001 refuses an unauthenticated sender
/// without a word, and OpenMapX's handler answers no refusal at all.
extension BridgePack {
  static let replyExpectations: [ExpectationSpec] = [
    ExpectationSpec(
      "bridge reply on", [.value("app", .app), .value("reply", .text)],
      summary:
        "What the page heard back about its last message: `none`, or the reply (`native.error CODE`, `dispatched TYPE`). The simulated shell answers a refusal as the app's message handler does with receive()'s answer.",
      example: "expect bridge reply on openmapx none"
    ) { context in
      let shell = try context.bridgeShell("app")
      let wanted = context.arguments["reply"] ?? ""
      let actual = shell.lastReply ?? "none"
      if actual == wanted { return nil }
      let handler = shell.build.bridge?.rejectionReplies.map {
        "; the message handler: \($0.value.rawValue) (\($0.origin))"
      }
      return context.fail(
        .bridgeReply, actual,
        "expected the page to hear \(wanted == "none" ? "nothing" : wanted); it heard \(actual == "none" ? "nothing" : actual) (\(shell.lastDecision.map(shell.describe) ?? "nothing sent"))\(handler ?? "")"
      )
    }
  ]
}

extension FailureReason {
  static let bridgeReply = FailureReason(
    "bridge-reply", detail: "what the page heard", "The page heard another answer.")
}
