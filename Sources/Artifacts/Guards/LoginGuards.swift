import Foundation
import QualifyCore

/// `nativeLogin()` as the web code writes it (seed 000, *Login*): the one-time token is read
/// from the parameter the backend's callback carries it in.
extension BuildGuards {
  static let loginRules: [GuardRule] = [
    GuardRule(
      id: "login-callback",
      title: "nativeLogin() reads the token the callback carries",
      source:
        "seed 000, Login: the hand-off page opens <scheme>://auth?token=<one-time token>, which the app exchanges with its verifier",
      devAllows: false,
      check: { build in
        guard let read = build.authSession.callbackParameter, read.value != "token" else {
          return []
        }
        return [
          GuardHit(
            "nativeLogin() reads the token from \"\(read.value)\", and the backend's callback carries it as \"token\": every login stops with no token",
            at: read.location, value: read.value)
        ]
      },
      fix: "read the one-time token with new URL(callbackUrl).searchParams.get(\"token\")"
    )
  ]
}
