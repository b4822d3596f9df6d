import Artifacts
import Foundation
import QualifyCore
import QualifyCrypto

/// What the machine holds, takes and answers: its records, each endpoint's parsed request and
/// its decision.
extension AuthorizationStateMachine {
  /// What a decision needs from outside: the clock and fresh random values.
  struct Environment {
    var now: Date
    /// A random token that is a secret (registered with the redactor by the caller).
    var secret: (_ byteCount: Int) -> String
    /// A random token that is not (a tab id).
    var token: (_ byteCount: Int) -> String
    /// A random hex string (a session id).
    var hex: (_ byteCount: Int) -> String
    /// Mutations of the world (`idp.cookie-always-persistent`, `idp.keeps-session-on-logout`).
    var identityCookieAlwaysPersistent = false
    var keepsSessionOnLogout = false
  }

  struct Session: Sendable {
    var id: String
    var user: RealmSettings.User
    var authTime: Date
    var expires: Date
    var levelOfAssurance: Int
    var rememberMe: Bool
  }

  /// An authorization request waiting for the user at the login form.
  struct Pending: Sendable {
    var client: Client
    var redirectURI: String
    var state: String?
    var nonce: String?
    var codeChallenge: String?
    /// `S256` or `plain` (RFC 7636 §4.3: `plain` when the request names none).
    var codeChallengeMethod: String
    var acr: String?
    var scope: String
    var formToken: String
    var binding: String
  }

  struct Grant: Sendable {
    var client: Client
    var redirectURI: String
    var user: RealmSettings.User
    var sessionID: String
    var nonce: String?
    var codeChallenge: String?
    var codeChallengeMethod: String
    var acr: String?
    var authTime: Date
    var expires: Date
  }

  // MARK: Inputs

  struct AuthorizeRequest: Sendable {
    var responseType: String?
    var clientID: String?
    var redirectURI: String?
    var acr: String?
    var state: String?
    var nonce: String?
    var codeChallenge: String?
    var codeChallengeMethod: String?
    var scope: String?
    var prompt: String?
    /// `max_age` as sent (seconds since the user last authenticated).
    var maxAge: String? = nil
    /// The names of every parameter the request carried (a profile may refuse unknown ones).
    var parameterNames: [String] = []
    /// The identity cookie the browser sent.
    var identityCookie: String?
  }

  struct LoginSubmission: Sendable {
    var tab: String
    var bindingCookie: String?
    var formToken: String?
    var username: String
    var password: String
    var rememberMeTicked: Bool
  }

  struct TokenRequest: Sendable {
    var clientID: String?
    var clientSecret: String?
    var grantType: String?
    var code: String?
    var redirectURI: String?
    var codeVerifier: String?
    /// The names of every parameter the body carried, repeats included.
    var parameterNames: [String] = []
    /// How the client authenticated: `client_secret_basic` (the Authorization header) or
    /// `client_secret_post` (the secret in the body).
    var authMethod = "client_secret_post"
  }

  struct EndSessionRequest: Sendable {
    /// The audience of a verified `id_token_hint`; `.some(nil)` when a hint did not verify.
    var hintAudience: String??
    var clientID: String?
    var postLogoutRedirectURI: String?
    var state: String?
    var identityCookie: String?
  }

  // MARK: Outputs

  /// A cookie to set; `maxAge` nil for a session cookie, 0 to delete.
  struct CookieChange: Sendable, Equatable {
    var name: String
    var value: String
    var maxAge: TimeInterval?
  }

  enum Action: Sendable {
    /// An error page (400) with this message.
    case errorPage(String)
    /// A redirect to the client carrying an OAuth error (RFC 6749 §4.1.2.1); in the fragment
    /// for a response type that would have answered there (§4.2.2.1).
    case redirectError(
      redirectURI: String, error: String, description: String, state: String?,
      fragment: Bool = false)
    /// The login form for `tab`, with an error message after a failed attempt.
    case loginForm(tab: String, pending: Pending, error: String?, cookies: [CookieChange])
    /// A redirect to the interaction page that shows the form (ProConnect).
    case interaction(tab: String, cookies: [CookieChange])
    /// The authorization response: back to the client with a code.
    case authorized(redirectURI: String, parameters: [String: String?], cookies: [CookieChange])
    /// The token endpoint's error.
    case tokenError(code: String, description: String, status: Int)
    /// Tokens to issue: the adapter signs `claims` into the id_token.
    case tokens(accessToken: String, claims: [String: TokenClaim], sessionID: String)
    /// The userinfo claims; with `audience`, signed as a JWT for that client (ProConnect).
    case userinfo([String: String], audience: String?)
    case invalidToken
    /// Logged out: to the client's post-logout URI, or a page when none was given.
    case loggedOut(redirect: String?, state: String?, cookies: [CookieChange])
  }

  /// A claim value of the id_token.
  enum TokenClaim: Sendable, Equatable {
    case string(String)
    case int(Int)
  }

  /// What an endpoint answers, the events it records and what it says in the evidence.
  struct Decision: Sendable {
    var action: Action
    var notes: [String] = []
    var events: [Event] = []
  }
}

/// Pure rules of the requests, shared by the endpoints.
extension AuthorizationStateMachine {

  /// The parameter names a request carries more than once, in the order first repeated.
  static func repeated(_ names: [String]) -> [String] {
    var seen: Set<String> = []
    var out: [String] = []
    for name in names where !seen.insert(name).inserted && !out.contains(name) {
      out.append(name)
    }
    return out
  }

  /// Whether `value` is a PKCE verifier or challenge: 43 to 128 characters of
  /// `[A-Za-z0-9-._~]` (RFC 7636 §4.1).
  static func isPKCEValue(_ value: String) -> Bool {
    (43...128).contains(value.utf8.count)
      && value.utf8.allSatisfy {
        ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
          || [0x2D, 0x2E, 0x5F, 0x7E].contains($0)
      }
  }

  /// ProConnect's claims for which the mock has no directory: a 14-digit SIRET and the id of
  /// the identity provider the user came through.
  static let testSIRET = "00000000000018"
  static let testIdentityProviderID = "qualify-test-identity-provider"

  /// Whether `uri` matches one of `patterns` (exact, or a prefix ending in `*`: Keycloak's
  /// wildcard redirect URIs).
  static func matches(_ uri: String, _ patterns: [String]) -> Bool {
    patterns.contains { pattern in
      pattern == "*"
        || (pattern.hasSuffix("*") ? uri.hasPrefix(pattern.dropLast()) : uri == pattern)
    }
  }
}
