import Foundation
import HTTP

extension IdentityProviderProfile {
  /// The dev stack's Keycloak (seed 000, *Cross-app SSO conditions*): clients and users from
  /// the realm export, `acr.loa.map` decides whether a session satisfies an ACR, `prompt=login`
  /// is honoured, no CSP on the login form, "remember me" when the realm enables it.
  public static let keycloakDev = IdentityProviderProfile(
    name: "keycloak-dev", defaultRealm: "messages", clientsFromRealmExport: true,
    paths: { realm in
      let base = "/realms/\(realm)"
      let oidc = base + "/protocol/openid-connect"
      return Paths(
        base: base, discovery: base + "/.well-known/openid-configuration",
        authorize: oidc + "/auth", interaction: base + "/login-actions/form",
        login: base + "/login-actions/authenticate", token: oidc + "/token",
        jwks: oidc + "/certs", userinfo: oidc + "/userinfo", endSession: oidc + "/logout",
        events: "/admin/realms/\(realm)/events")
    },
    identityCookie: "KEYCLOAK_IDENTITY", bindingCookie: "AUTH_SESSION_ID",
    sessionMirrorCookie: "KEYCLOAK_SESSION", requiredACR: nil,
    announcedACRValues: { mapped in mapped.sorted() }, honoursPromptLogin: true,
    reusesSessionForAnyACR: false, formOnAuthorize: true, loginPagePolicy: nil,
    rememberMe: .checkbox, sessionLifetime: 36_000, rememberMeLifetime: 2_592_000,
    sendsSessionState: true,
    loginAction: { paths, tab, clientID in
      paths.login + "?tab_id=\(tab)&client_id=\(Query.escape(clientID))"
    },
    heading: { realm in "Sign in to \(realm)" })
}
