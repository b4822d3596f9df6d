import Foundation
import QualifyCore

extension BuildGuards {
  /// The handoff's routes: no-store, the caller's Origin, the throttle (unverified when no
  /// route was found).
  static func handoffRoutesHits(_ server: HandoffServerCode) -> [GuardHit] {
    guard let routes = server.routes else {
      return [
        GuardHit(
          "no route of the handoff found (a file naming mobile-auth or handoff under \(server.searched.joined(separator: ", ")) that registers one): no-store, the Origin check and the throttle are not verified",
          at: nil, value: "handoff routes", unverified: true)
      ]
    }
    return [
      GuardHit.missing(
        routes.noStore,
        "the handoff's answers are not no-store: a one-time token can outlive its use in a cache",
        value: "no-store"),
      GuardHit.missing(
        routes.checksOrigin,
        "the handoff's routes take a caller of any Origin: a page of another site can redeem a code it got hold of",
        value: "Origin"),
      GuardHit.missing(
        routes.admitsOwnPage,
        "the handoff's Origin check refuses the web app's own page: no sign-in handoff is ever redeemed",
        value: "own page"),
      GuardHit.missing(
        routes.throttles,
        "the handoff's routes never slow a failing caller down: codes can be guessed at speed",
        value: "throttle"),
      routes.originCheckUnread.map {
        GuardHit(
          "the handoff's Origin check \($0.value): whether it refuses another site and lets the web app's own page through is not verified",
          at: $0.location, value: "Origin check", unverified: true)
      },
    ].compactMap { $0 }
  }
}
