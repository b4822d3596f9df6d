import Foundation
import QualifyCore

/// `nativeLogout()` as the web code writes it (seed 000, *Logout*; checklist item 6): every
/// step is taken, the cookie flush and the CSRF token's removal run whatever the requests
/// before them do, and nothing the safety-net POST needs is cleared before it is sent.
extension BuildGuards {
  static let logoutRules: [GuardRule] = [
    GuardRule(
      id: "native-logout",
      title: "nativeLogout() signs the app out, network or not",
      source:
        "seed 000, Logout: the app clears the native cookies and the cached CSRF token after the safety-net POST; checklist item 6",
      devAllows: false,
      check: { build in
        guard let flow = build.authSession.nativeLogout else {
          // No auth.ts where the profile says it is: the logout is the seed's, assumed.
          let path = build.files["web.auth"] ?? AppProfile.conventionalPaths["web.auth"] ?? ""
          return [
            GuardHit(
              "nativeLogout() (\(path), the profile's web.auth) was not read: what the app's logout clears, and whether it does without a network, is unverified",
              at: nil, value: "nativeLogout", unverified: true)
          ]
        }
        return logoutHits(flow)
      },
      fix:
        "in nativeLogout(), send the browser logout and the safety-net POST each in its own try/catch, and clear the native cookies and the cached CSRF token after them (in a finally, or after the catch), whatever the requests did"
    )
  ]

  static func logoutHits(_ flow: NativeLogoutFlow) -> [GuardHit] {
    let declared = flow.declaration
    if let problem = flow.problem {
      return [
        GuardHit(
          "\(problem): qualify cannot tell what the app's logout does", at: declared,
          value: "nativeLogout", unverified: true)
      ]
    }
    var hits: [GuardHit] = []
    for step in NativeLogoutFlow.Step.allCases where flow.steps[step] == nil {
      let consequence: String
      switch step {
      case .browserLogout:
        consequence = "the IdP session survives and the next login signs the same user back in"
      case .safetyNet:
        consequence =
          "the Django session survives when the browser no longer holds its cookie"
      case .clearCookies:
        consequence = "the session cookie stays in the native jar"
      case .clearCSRFToken:
        consequence = "the next user's requests carry the previous session's CSRF token"
      }
      // A helper or a constant of another file may take it: not seen is not proven absent.
      hits.append(
        GuardHit(
          "nativeLogout() (\(declared.file):\(declared.line)) takes \(step.rawValue) nowhere qualify reads (its body, the constants of its file); if it does not take it at all, \(consequence)",
          at: declared, value: step.rawValue, unverified: true))
    }
    for step in flow.order {
      guard let placement = flow.steps[step] else { continue }
      if let unreadable = placement.unreadable {
        hits.append(
          GuardHit(
            "\(step.rawValue) of nativeLogout() is \(unreadable): qualify cannot tell when it runs",
            at: placement.location, value: step.rawValue, unverified: true))
        continue
      }
      for (earlier, reach) in placement.after.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
        guard !step.canReject || earlier == .browserLogout else { continue }
        if !reach.whenRejected {
          hits.append(
            GuardHit(
              "nativeLogout() skips \(step.rawValue) when \(earlier.rawValue) rejects (no network, the backend down): "
                + (step == .clearCookies
                  ? "the session cookie stays in the native jar, and the app is signed in again when the network returns"
                  : step == .clearCSRFToken
                    ? "the cached CSRF token outlives the logout"
                    : "the logout stops half-way"),
              at: placement.location, value: step.rawValue))
        }
        if !reach.whenResolved {
          hits.append(
            GuardHit(
              "nativeLogout() takes \(step.rawValue) only when \(earlier.rawValue) rejects: a logout that reaches the backend leaves it undone",
              at: placement.location, value: step.rawValue))
        }
      }
    }
    if let post = flow.steps[.safetyNet] {
      for step in [NativeLogoutFlow.Step.clearCookies, .clearCSRFToken] {
        guard let cleared = flow.steps[step], cleared.unreadable == nil,
          (cleared.location.line, cleared.location.column)
            < (post.location.line, post.location.column)
        else { continue }
        hits.append(
          GuardHit(
            "nativeLogout() takes \(step.rawValue) before \(NativeLogoutFlow.Step.safetyNet.rawValue) (\(post.location.file):\(post.location.line)): the POST then carries "
              + (step == .clearCookies
                ? "no session cookie, and cannot end the session"
                : "no X-CSRFToken, and the backend refuses it"),
            at: cleared.location, value: step.rawValue))
      }
    }
    return hits
  }
}
