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
    // A check already found to take any caller is named once, above.
    if let missing = routes.allowlistAdmitsMissing, routes.checksOrigin?.value != false {
      hits.append(
        GuardHit(
          "the handoff's Origin check lets a request without an Origin through: a script outside any browser page can redeem a code it got hold of — \(missing.derivation.joined(separator: "; "))",
          at: missing.location, value: "no Origin"))
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

  /// The page's calls against the routes they reach: the path each posts to and the body it
  /// sends must be what the route registers and requires, and what the app puts in them —
  /// its purposes, its state's and its verifier's lengths — what the route's schema takes. A
  /// call not found, or not read, is unverified with where qualify looked.
  static func handoffContractHits(_ bridge: BridgeShellSettings) -> [GuardHit] {
    guard let routes = bridge.handoffServer.routes else { return [] }
    guard let exchange = routes.exchange else {
      return [
        GuardHit(
          "no exchange route read among the handoff's routes (\(routes.files.joined(separator: ", "))): a `.post(\"/…\", …)` with a literal path whose body carries the verifier; whether the web page's call reaches it is not verified",
          at: nil, value: "exchange route", unverified: true)
      ]
    }
    let looked =
      "under \(bridge.exchangeCallSearched.joined(separator: ", ")); name its folder with parts.handoffClient in qualify.json"
    var hits: [GuardHit] = []
    for (name, route, call) in [
      ("exchange", exchange, bridge.exchangeCall), ("issue", routes.issue, bridge.issueCall),
    ] {
      guard let route else { continue }
      guard let call else {
        if name == "exchange", let unread = bridge.exchangeCallUnread {
          hits.append(
            GuardHit(
              "the web page's call to the handoff's exchange is not read (\(unread.value)): whether it posts what \(route.value.served) requires is not verified",
              at: unread.location, value: "exchange call", unverified: true))
        } else {
          hits.append(
            GuardHit(
              "no call of the web page to the handoff's \(name) found (a fetch of a mobile-auth URL whose JSON body carries the \(name == "exchange" ? "verifier" : "challenge"), \(looked)): whether it posts what \(route.value.served) requires is not verified",
              at: route.location, value: "\(name) call", unverified: true))
        }
        continue
      }
      if let unread = route.value.unread {
        hits.append(
          GuardHit(
            "the handoff's \(name) route \(route.value.served) is read, but \(unread): whether the page's \(call.value.shape) fits it is not verified",
            at: route.location, value: "\(name) schema", unverified: true))
        continue
      }
      if let refusal = route.value.refusal(of: call.value) {
        hits.append(
          GuardHit(
            "the web page's \(name) sends \(call.value.shape) to …\(call.value.path), and the server's route \(route.value.served) (\(route.origin)) answers it \(refusal.status): \(refusal.why) — every sign-in handoff fails",
            at: call.location, value: name))
      }
    }
    return hits + valueHits(bridge.handoff, exchange: exchange, issue: routes.issue)
  }

  /// What the app puts in the fields against what the routes' schemas take: each purpose
  /// `open` takes, the state's and the verifier's lengths from their random bytes
  /// (base64url without padding), the S256 challenge's 43 characters.
  static func valueHits(
    _ client: HandoffClientCode, exchange: Sourced<HandoffRoute>, issue: Sourced<HandoffRoute>?
  ) -> [GuardHit] {
    var hits: [GuardHit] = []
    if let purposes = client.purposes, let issue, let allowed = issue.value.bounds(.purpose) {
      for purpose in purposes.value {
        guard let why = allowed.refusal(of: purpose) else { continue }
        hits.append(
          GuardHit(
            "the app opens the handoff for \"\(purpose)\" (\(purposes.origin)), and the issue route's schema (\(issue.value.fieldsFrom)) refuses it: \(why) — every \(purpose) attempt is answered 400",
            at: issue.location, value: purpose))
      }
    }
    // The seed's encoding of the random bytes (base64url, no padding: 16 bytes are 22
    // characters); one finding per constant, naming each route that refuses it.
    func length(_ bytes: Int) -> Int { (bytes * 4 + 2) / 3 }
    var lengths: [(HandoffField, Sourced<Int>, String, [Sourced<HandoffRoute>])] = []
    if let state = client.stateBytes {
      lengths.append((.state, state, "STATE_BYTES", [issue, exchange].compactMap { $0 }))
    }
    if let verifier = client.verifierBytes {
      lengths.append((.verifier, verifier, "VERIFIER_BYTES", [exchange]))
    }
    for (role, bytes, name, routes) in lengths {
      let refusals = routes.compactMap { route -> String? in
        route.value.bounds(role)?.refusal(length: length(bytes.value)).map {
          "\(route.value.served)'s schema (\(route.value.fieldsFrom), \(route.origin)): \($0)"
        }
      }
      guard !refusals.isEmpty else { continue }
      hits.append(
        GuardHit(
          "\(name) = \(bytes.value) gives a \(role.rawValue) of \(length(bytes.value)) characters as base64url, which \(refusals.joined(separator: "; and ")) — every sign-in handoff is answered 400",
          at: bytes.location, value: name))
    }
    if client.challengeMethod?.value ?? "S256" == "S256", let issue,
      let why = issue.value.bounds(.challenge)?.refusal(length: 43)
    {
      hits.append(
        GuardHit(
          "an S256 challenge is 43 base64url characters, and \(issue.value.served)'s schema (\(issue.value.fieldsFrom)) refuses it: \(why) — every sign-in handoff is answered 400",
          at: issue.location, value: "challenge"))
    }
    return hits
  }
}
