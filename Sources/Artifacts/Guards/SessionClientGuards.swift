import Foundation
import QualifyCore

/// Seed 002's client rules, judged on the app's own client code (the session scenarios drive
/// qualify's reference client, which keeps them by construction).
extension BuildGuards {
  static let sessionClientRules: [GuardRule] = [
    GuardRule(
      id: "client-code", title: "The app's client code keeps the session contract's client rules",
      source:
        "seed 002, Règles Client, Refresh and Suivi Mobile (Bearer, opaque tokens, secure storage, one refresh at a time, wipe on a terminal error, refresh before a known expiry, /v1/mobile/api/me, no browser or magic-link login, no deviceId in the refresh, invalid_credentials told apart, the access token's accessor answering it once stored)",
      devAllows: false, shells: [.sessionContract],
      check: { build in
        guard let client = build.sessionClient else { return [] }
        if let unread = client.unread {
          return [
            GuardHit(
              "no client code found (looked in \(unread)): the client rules are proven on qualify's reference client only, not on the app's",
              at: nil, value: "client code", unverified: true)
          ]
        }
        return client.rules.compactMap { rule in
          GuardHit.missing(
            rule.fact, "the client code breaks \"\(rule.name)\": \(rule.without)",
            value: rule.name)
        }
      },
      fix:
        "keep the rule in the client: Authorization: Bearer, the token never decoded, the envelope in SecureStore, one shared refresh promise, the stored session deleted on a terminal refresh error, a refresh before accessExpiresAt, /v1/mobile/api/me, the first-party login screens, { refreshToken } alone in the refresh body, invalid_credentials handled, an accessor that answers the stored access token"
    )
  ]
}
