import Foundation

extension IdentityProviderProfile {
  /// ProConnect (seed 000, *Authentication architecture* and *Cross-app SSO conditions*):
  /// `acr_values=eidas1` is required and a live session satisfies it, `prompt=login` is
  /// ignored, the login page's CSP carries `form-action 'self' *` (which a Chromium browser
  /// enforces on the redirect chain of the form submission), and every login is remembered.
  ///
  /// From ProConnect's partner documentation as published in numerique-gouv/
  /// proconnect-documentation (doc_fs/implementation_technique.md and donnees_fournies.md,
  /// May 2025): the authorization request takes only its documented parameters — now with
  /// `login_hint` — and any other is `Y000400 : Bad Request Exception`; `state` and `nonce` are
  /// required with at least 32 characters; "un seul scope est obligatoire : openid"; `max-age`
  /// "n'est pas encore implémentée" (ignored); the token request carries `client_id` and
  /// `client_secret` in its body (client_secret_post; HTTP Basic is not among the documented
  /// ways, so it is refused); a code lives 30 seconds and an access token 60; userinfo answers
  /// a signed JWT; RP-initiated logout needs `id_token_hint`, `state` and
  /// `post_logout_redirect_uri`, answered with a 303; userinfo names the user with `given_name`,
  /// `usual_name`, `email`, `uid`, `siret` and `idp_id` (donnees_fournies.md). `acr_values` stays accepted: seed 000 sends `eidas1`, as the
  /// documentation's own support example does (doc_fs/aide_support.md).
  public static let proconnect: IdentityProviderProfile = {
    var profile = proconnectBase
    profile.authorizeParameters = [
      "response_type", "client_id", "redirect_uri", "scope", "claims", "state", "nonce",
      "prompt", "idp_hint", "login_hint", "acr_values",
    ]
    profile.minimumStateAndNonceLength = 32
    profile.requiredScopes = ["openid"]
    profile.tokenAuthMethods = ["client_secret_post"]
    profile.userClaims = .proconnect
    // "303 — Redirection vers le FI pour déconnexion, puis redirection vers le FS"
    // (doc_fs/implementation_technique.md §2.4.1.3).
    profile.logoutRedirectStatus = 303
    profile.honoursMaxAge = false
    profile.codeLifetime = 30
    profile.accessTokenLifetime = 60
    profile.signsUserinfo = true
    profile.endSessionNeedsHintStateAndRedirect = true
    return profile
  }()

  private static let proconnectBase = IdentityProviderProfile(
    name: "proconnect", defaultRealm: "proconnect", clientsFromRealmExport: false,
    paths: { _ in
      let base = "/api/v2"
      return Paths(
        base: base, discovery: base + "/.well-known/openid-configuration",
        authorize: base + "/authorize", interaction: base + "/interaction/",
        login: base + "/interaction/login", token: base + "/token", jwks: base + "/jwks",
        userinfo: base + "/userinfo", endSession: base + "/session/end",
        events: base + "/_qualify/events")
    },
    identityCookie: "_session", bindingCookie: "_interaction", sessionMirrorCookie: nil,
    requiredACR: "eidas1", announcedACRValues: { _ in ["eidas1"] }, honoursPromptLogin: false,
    reusesSessionForAnyACR: true, formOnAuthorize: false,
    // `*` matches network schemes only (CSP3), so a 302 to a custom scheme after the form
    // submission is blocked: the reason for the backend's hand-off page (rule 4).
    loginPagePolicy: "default-src 'self'; form-action 'self' *; frame-ancestors 'none'",
    rememberMe: .always, sessionLifetime: 36_000, rememberMeLifetime: 43_200,
    sendsSessionState: false,
    loginAction: { paths, tab, _ in paths.login + "?uid=\(tab)" },
    heading: { _ in "ProConnect" })
}
