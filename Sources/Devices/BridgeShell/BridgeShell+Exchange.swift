import Artifacts
import Foundation

extension BridgeShell {
  /// Where the page posts the exchange and the body's keys, each with what it carries: the
  /// page's call as its code writes it, to the route's path when the call names it; the route's
  /// fields when the call was not read; the seed's `/api/mobile-auth/redeem` when neither was.
  var exchangeRequest: (path: String, keys: [(String, HandoffField)]) {
    let route = build.bridge?.handoffServer.routes?.exchange?.value
    let call = build.bridge?.exchangeCall?.value
    let seed: [(String, HandoffField)] = [
      ("code", .code), ("verifier", .verifier), ("state", .state),
    ]
    guard let route else { return ("/api/mobile-auth/redeem", seed) }
    // Without the page's call, the route's own fields (the seed's when none was read).
    let keys = route.keys(of: call, roles: [.code, .verifier, .state])
    return (call.map(route.path(of:)) ?? route.served, keys.isEmpty ? seed : keys)
  }
}
