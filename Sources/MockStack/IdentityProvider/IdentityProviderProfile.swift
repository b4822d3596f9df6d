import Foundation

/// How one identity provider behaves, as a value: the mock serves any profile, and a new IdP
/// is one new file (`IdentityProviderProfile+<Name>.swift`) with a static member, not branches
/// through the mock.
///
/// The profiles differ exactly where the seed says the real systems do (seed 000, *Cross-app
/// SSO conditions*): the dev Keycloak honours `acr.loa.map` and `prompt=login` and sends no
/// CSP on its login form; ProConnect requires `acr_values=eidas1`, reuses its session for it,
/// ignores `prompt=login` and puts `form-action` in its login page's CSP.
public struct IdentityProviderProfile: Sendable, Equatable, CustomStringConvertible {
  /// Where a profile's endpoints live under its origin.
  public struct Paths: Sendable, Equatable {
    public var base, discovery, authorize, interaction, login, token, jwks, userinfo,
      endSession, events: String
  }

  /// How "remember me" is decided at login.
  public enum RememberMe: Sendable, Equatable {
    /// Every login is remembered (ProConnect's session cookie is persistent).
    case always
    /// A checkbox on the form, when the realm allows it (Keycloak's `rememberMe` setting).
    case checkbox
  }

  /// The name scenarios and `qualify.json` use (`keycloak-dev`, `proconnect`).
  public let name: String
  /// The realm when the app's files name none.
  public let defaultRealm: String
  /// Whether the clients come from the app's realm export (Keycloak) or are registered from
  /// the backend's env (a partner registration at ProConnect).
  public let clientsFromRealmExport: Bool
  /// The endpoints for `realm`.
  public let paths: @Sendable (_ realm: String) -> Paths
  /// The cookie that carries the IdP session, and the one binding a login form to a browser.
  public let identityCookie: String
  public let bindingCookie: String
  /// A second cookie mirroring the session (`KEYCLOAK_SESSION`), nil when there is none.
  public let sessionMirrorCookie: String?
  /// The ACR every authorization request must carry; nil accepts any.
  public let requiredACR: String?
  /// The ACR values announced in discovery for the registered clients' maps.
  public let announcedACRValues: @Sendable (_ mapped: Set<String>) -> [String]
  /// Whether `prompt=login` forces the form even over a live session.
  public let honoursPromptLogin: Bool
  /// Whether a live session is reused for any requested ACR (ProConnect), or only when the
  /// client's `acr.loa.map` maps it at or below the session's level (Keycloak: an empty map
  /// forces re-authentication).
  public let reusesSessionForAnyACR: Bool
  /// Whether the authorize endpoint answers with the form itself (Keycloak) or redirects to
  /// an interaction page that shows it (ProConnect).
  public let formOnAuthorize: Bool
  /// The `Content-Security-Policy` of the login page, nil for none.
  public let loginPagePolicy: String?
  public let rememberMe: RememberMe
  /// Session lifetimes in seconds, without and with "remember me".
  public let sessionLifetime: TimeInterval
  public let rememberMeLifetime: TimeInterval
  /// Whether the authorization response carries `session_state`.
  public let sendsSessionState: Bool
  /// The form's action for a pending login, relative to the origin.
  public let loginAction: @Sendable (_ paths: Paths, _ tab: String, _ clientID: String) -> String
  /// The heading of the login page.
  public let heading: @Sendable (_ realm: String) -> String
  /// The authorization request's parameters the IdP accepts; nil accepts any (unknown ones
  /// are ignored, as OIDC Core §3.1.2.1 says). ProConnect refuses any other.
  public var authorizeParameters: Set<String>? = nil
  /// `state` and `nonce` are required, at least this long (ProConnect: 32).
  public var minimumStateAndNonceLength: Int? = nil
  /// Scopes every authorization request must carry.
  public var requiredScopes: Set<String> = []
  /// How a client may authenticate at the token endpoint (discovery's
  /// `token_endpoint_auth_methods_supported`); another is `invalid_client`.
  public var tokenAuthMethods = ["client_secret_basic", "client_secret_post"]
  /// The claims userinfo names the user with.
  public var userClaims: UserClaims = .standard
  /// The status of end_session's redirect back to the client.
  public var logoutRedirectStatus = 302

  public enum UserClaims: Sendable {
    /// OpenID Connect's standard claims (`preferred_username`, `family_name`, …).
    case standard
    /// ProConnect's (doc_fs/donnees_fournies.md): `given_name`, `usual_name`, `email`, `uid`
    /// and `siret` always, `idp_id` naming the identity provider the user came through.
    case proconnect
  }
  /// Whether `max_age` is honoured (OIDC Core §3.1.2.1); ProConnect's documentation says it
  /// ignores it.
  public var honoursMaxAge = true
  /// How long a code and an access token live, in seconds.
  public var codeLifetime: TimeInterval = 60
  public var accessTokenLifetime: TimeInterval = 300
  /// Whether userinfo answers a signed JWT (`application/jwt`) rather than JSON.
  public var signsUserinfo = false
  /// Whether RP-initiated logout needs `id_token_hint`, `state` and
  /// `post_logout_redirect_uri` all three (ProConnect).
  public var endSessionNeedsHintStateAndRedirect = false

  public var description: String { name }

  public static func == (a: IdentityProviderProfile, b: IdentityProviderProfile) -> Bool {
    a.name == b.name
  }

  /// Every profile the mock knows.
  public static let all: [IdentityProviderProfile] = [.keycloakDev, .proconnect]

  /// The profile called `name`, nil when there is none.
  public static func named(_ name: String) -> IdentityProviderProfile? {
    all.first { $0.name == name }
  }
}
