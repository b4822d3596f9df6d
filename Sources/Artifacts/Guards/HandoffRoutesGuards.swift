import Foundation
import QualifyCore

extension BuildGuards {
  /// The handoff's routes: no-store, the caller's Origin, the throttle (unverified when no
  /// route was found), and the Origin allowlist on the server's env.
  static func handoffRoutesHits(_ server: HandoffServerCode, release: Bool) -> [GuardHit] {
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
    ].compactMap { $0 } + allowlistHits(routes, release: release)
  }

  /// The Origin allowlist on the server's env: the web app's own page must be in it. Without
  /// the env, a development channel's server is a developer's own: only a release's is asked for.
  static func allowlistHits(_ routes: HandoffRoutesCode, release: Bool) -> [GuardHit] {
    var hits: [GuardHit] = []
    // A check that refuses the page whatever its list holds is named once, above.
    if routes.admitsOwnPage?.value != false {
      if let refused = routes.allowlistRefusesPage {
        hits.append(
          GuardHit(
            "the handoff's Origin check, on the server's env as deployed, refuses the web app's own page: every redemption from it is refused with 403 — \(refused.derivation.joined(separator: "; "))",
            at: refused.location, value: "allowlist"))
      } else if release, let holds = routes.allowlistHoldsPage, !holds.value {
        hits.append(
          GuardHit(
            "\(Finding.unsuppliedInputPrefix)handoff server's env (\(routes.allowlistVariables.joined(separator: ", "))), which was not supplied: the Origin check refuses the web app's page on the code's fallbacks — \(holds.derivation.joined(separator: "; ")); give the deployed env with --backend-env",
            at: holds.location, value: "allowlist", unverified: true))
      }
    }
    if let other = routes.allowlistAdmitsOther {
      hits.append(
        GuardHit(
          "the handoff's Origin check lets a request from \(other.value) through: a page of another site can redeem a code it got hold of — \(other.derivation.joined(separator: "; "))",
          at: other.location, value: "other origin"))
    }
    // A check whose cases were not read is named once, above.
    if let unread = routes.allowlistUnread, routes.originCheckUnread == nil {
      hits.append(
        GuardHit(
          "the handoff's Origin check \(unread.value) was not run on the server's env (\(unread.derivation.joined(separator: "; "))): whether it lets the web app's own page through as deployed is not verified",
          at: unread.location, value: "allowlist", unverified: true))
    }
    return hits
  }

  /// The page's exchange against the route: the path it posts to and the body it sends must
  /// be what the route registers and requires. The page's call not found, or not read, is
  /// unverified with where qualify looked.
  static func exchangeHits(_ bridge: BridgeShellSettings) -> [GuardHit] {
    guard let route = bridge.handoffServer.routes?.exchange else { return [] }
    guard let call = bridge.exchangeCall else {
      if let unread = bridge.exchangeCallUnread {
        return [
          GuardHit(
            "the web page's call to the handoff's exchange is not read (\(unread.value)): whether it posts what \(route.value.served) requires is not verified",
            at: unread.location, value: "exchange call", unverified: true)
        ]
      }
      return [
        GuardHit(
          "no call of the web page to the handoff's exchange found (a fetch of a mobile-auth URL whose JSON body carries the verifier, under \(bridge.exchangeCallSearched.joined(separator: ", ")); name its folder with parts.handoffClient in qualify.json): whether it posts what \(route.value.served) requires is not verified",
          at: route.location, value: "exchange call", unverified: true)
      ]
    }
    guard let refusal = route.value.refusal(of: call.value) else { return [] }
    return [
      GuardHit(
        "the web page's exchange sends \(call.value.shape) to …\(call.value.path), and the server's route \(route.value.served) (\(route.origin)) answers it \(refusal.status): \(refusal.why) — every sign-in handoff fails",
        at: call.location, value: "exchange")
    ]
  }
}
