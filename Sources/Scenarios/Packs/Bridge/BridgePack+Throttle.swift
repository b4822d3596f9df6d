import Artifacts
import Devices
import Foundation
import QualifyCore

/// The handoff's throttle as its code writes it (seed 001, OpenMapX's routes): a page that
/// goes one past the bound is answered 429.
extension BridgePack {
  static let throttleActions: [ActionSpec] = [
    ActionSpec(
      .app, "keeps trying the handoff",
      summary:
        "The page goes on past the bound the handoff's code writes: one redemption more than a route's `rateLimit` allows in its window (a wrong verifier each), or one sign-in more than the codes a user may hold outstanding. Leaves the last answer for `expect status`; with no throttle written, 20 wrong redemptions.",
      example: "openmapx keeps trying the handoff"
    ) { context in
      let shell = try context.bridgeShell()
      guard let server = context.world.ports.handoff else {
        throw ScenarioRuntimeError("no handoff server in this world")
      }
      let routes = shell.build.bridge?.handoffServer.routes
      var result = Outcome("\(shell.name) kept trying the handoff")
      switch routes?.throttle?.value {
      case .outstandingCodes(let max):
        for _ in 0...max {
          shell.openHandoff(purpose: "sign-in", login: server.login, password: server.password)
        }
        result.response = shell.lastSignIn
      case let bound:
        if bound == nil, routes?.throttles?.value == true {
          throw ScenarioNotApplicable(
            "the handoff's routes throttle (\(routes?.throttles?.origin ?? "")), with a bound not written as a literal rateLimit { max, timeWindow } or a MAX_ constant the issue compares: the bound is not verified"
          )
        }
        var tries = 20
        if case .redemptions(let max, _) = bound { tries = max + 1 }
        if shell.handoff == nil {
          shell.openHandoff(purpose: "sign-in", login: server.login, password: server.password)
        }
        for _ in 0..<tries { shell.redeem(wrongVerifier: true) }
        result.response = shell.lastRedemption
      }
      return result
    }
  ]
}
