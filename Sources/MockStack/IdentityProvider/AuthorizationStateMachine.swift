import Artifacts
import Foundation
import QualifyCore
import QualifyCrypto

/// The identity provider's decisions, with no I/O: an OIDC authorization server as a value.
///
/// Each `mutating` method takes what an endpoint received, already parsed, and returns what to
/// answer; `IdentityProvider` is the HTTP around it (parsing, pages, cookies, signing). Time and
/// randomness come in through `Environment`, so a unit test drives every rule of DESIGN.md
/// rules 3 and 9 and RFC 6749/7636 without a socket.
struct AuthorizationStateMachine: Sendable {
  /// A registered relying party.
  typealias Client = IdentityProvider.Client
  typealias Event = IdentityProvider.Event

  // MARK: State

  let profile: IdentityProviderProfile
  let realm: String
  let realmFile: String?
  let issuer: String
  let rememberMeAllowed: Bool
  private(set) var clients: [String: Client]
  let users: [RealmSettings.User]
  private var sessions: [String: Session] = [:]
  private var identityCookies: [String: String] = [:]
  private var pending: [String: Pending] = [:]
  private var codes: [String: Grant] = [:]
  private var accessTokens: [String: (Grant, Date)] = [:]
  /// Codes already redeemed, with the access tokens issued from them: a code presented twice
  /// revokes them (RFC 6749 §4.1.2).
  private var redeemed: [String: [String]] = [:]
  /// Every event recorded, oldest first (what Keycloak's admin events API serves).
  private(set) var events: [Event] = []

  init(
    profile: IdentityProviderProfile, realm: String, realmFile: String?, issuer: String,
    realmRememberMe: Bool, clients: [Client], users: [RealmSettings.User]
  ) {
    self.profile = profile
    self.realm = realm
    self.realmFile = realmFile
    self.issuer = issuer
    rememberMeAllowed = profile.rememberMe == .always || realmRememberMe
    self.clients = Dictionary(clients.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
    self.users = users
  }

  mutating func register(_ client: Client) {
    clients[client.id] = client
  }

  private mutating func record(_ event: Event, into decision: inout Decision) {
    events.append(event)
    decision.events.append(event)
  }

  // MARK: Authorization

  /// The authorization endpoint: validate, then reuse a session that satisfies the request
  /// (single sign-on, no form) or ask for credentials (rule 3).
  mutating func authorize(_ request: AuthorizeRequest, _ environment: Environment) -> Decision {
    if let allowed = profile.authorizeParameters,
      let unknown = request.parameterNames.first(where: { !allowed.contains($0) })
    {
      return Decision(
        action: .errorPage("Y000400 : Bad Request Exception (unknown parameter \(unknown))"))
    }
    // "Request and response parameters MUST NOT be included more than once" (RFC 6749 §3.1):
    // a repeated client_id or redirect_uri leaves no client to redirect to.
    let repeated = AuthorizationStateMachine.repeated(request.parameterNames)
    if let name = repeated.first(where: { $0 == "client_id" || $0 == "redirect_uri" }) {
      return Decision(action: .errorPage("Invalid request: parameter \(name) sent twice."))
    }
    guard let clientID = request.clientID, let client = clients[clientID] else {
      return Decision(action: .errorPage("Client not found."))
    }
    // A redirect URI with a fragment is never valid (RFC 6749 §3.1.2): no redirect to it.
    guard let redirectURI = request.redirectURI, !redirectURI.contains("#"),
      AuthorizationStateMachine.matches(redirectURI, client.redirectURIs)
    else {
      return Decision(action: .errorPage("Invalid parameter: redirect_uri"))
    }
    func refuse(_ error: String, _ description: String, fragment: Bool = false) -> Decision {
      Decision(
        action: .redirectError(
          redirectURI: redirectURI, error: error, description: description,
          state: request.state, fragment: fragment))
    }
    if let name = repeated.first {
      return refuse("invalid_request", "parameter \(name) sent twice")
    }
    let method: String
    let acr: String?
    let maxAge: Int?
    switch checkParameters(request, refuse: refuse) {
    case .refused(let decision): return decision
    case .accepted(let checked): (method, acr, maxAge) = checked
    }
    let login = Pending(
      client: client, redirectURI: redirectURI, state: request.state, nonce: request.nonce,
      codeChallenge: request.codeChallenge, codeChallengeMethod: method, acr: acr,
      scope: request.scope ?? "openid", formToken: environment.secret(24),
      binding: environment.secret(16))
    let prompts = Set((request.prompt ?? "").split(separator: " ").map(String.init))
    // OIDC Core §3.1.2.1: "none" with any other value is an error.
    if prompts.contains("none") && prompts.count > 1 {
      return refuse("invalid_request", "prompt=none cannot be combined with other values")
    }
    let forceLogin = profile.honoursPromptLogin && prompts.contains("login")
    let session = liveSession(request.identityCookie, now: environment.now)
    // max_age: a session authenticated longer ago than that must authenticate again
    // (OIDC Core §3.1.2.1; max_age=0 always does).
    let tooOld =
      session.map { session in
        maxAge.map { environment.now.timeIntervalSince(session.authTime) >= Double($0) } ?? false
      } ?? false
    if let session, !forceLogin, !tooOld, satisfies(session, acr: acr, client: client) {
      var decision = issueCode(login, session: session, environment)
      decision.notes.append(
        "authorize: session of \(session.user.username) satisfies \(acr ?? "no acr") for \(client.id); no login form"
      )
      return decision
    }
    // prompt=none: no form may be shown, so the client hears that a login is needed.
    if prompts.contains("none") {
      return refuse(
        "login_required",
        session == nil ? "no session at the identity provider" : "the session cannot be reused")
    }
    var decision = Decision(action: .errorPage(""))
    if let session {
      decision.notes.append(
        "authorize: session of \(session.user.username) exists but re-authentication is required: \(reauthentication(client, acr: acr, forceLogin: forceLogin, tooOld: tooOld, maxAge: maxAge))"
      )
    }
    decision.action = awaitLogin(login, environment)
    return decision
  }

  /// A login to ask for, kept under a new tab id: the profile's login form, or its
  /// interaction page (ProConnect), with the cookie that binds the browser to it.
  private mutating func awaitLogin(_ login: Pending, _ environment: Environment) -> Action {
    let tab = environment.token(9)
    pending[tab] = login
    let binding = CookieChange(name: profile.bindingCookie, value: login.binding, maxAge: nil)
    return profile.formOnAuthorize
      ? .loginForm(tab: tab, pending: login, error: nil, cookies: [binding])
      : .interaction(tab: tab, cookies: [binding])
  }

  /// The interaction page of a pending login (ProConnect).
  func interaction(tab: String) -> Decision {
    guard let login = pending[tab] else {
      return Decision(action: .errorPage("Session expired, please start again."))
    }
    return Decision(action: .loginForm(tab: tab, pending: login, error: nil, cookies: []))
  }

  /// A submitted login form: it must come from the browser the form was issued to, with the
  /// right credentials; then a session starts and the code goes back to the client.
  mutating func login(_ submission: LoginSubmission, _ environment: Environment) -> Decision {
    guard let login = pending[submission.tab] else {
      return Decision(
        action: .errorPage("Your login attempt timed out. Login will start from the beginning."))
    }
    var decision = Decision(action: .errorPage(""))
    guard submission.bindingCookie == login.binding, submission.formToken == login.formToken else {
      record(
        Event(
          type: "LOGIN_ERROR", time: environment.now, clientId: login.client.id,
          error: "invalid_code"), into: &decision)
      decision.action = .errorPage("Invalid form token: this form was not issued to this browser.")
      return decision
    }
    guard
      let user = users.first(where: {
        $0.username == submission.username || $0.email == submission.username
      }),
      Digest.constantTimeEqual(Array((user.password ?? "").utf8), Array(submission.password.utf8))
    else {
      record(
        Event(
          type: "LOGIN_ERROR", time: environment.now, clientId: login.client.id,
          username: submission.username, error: "invalid_user_credentials"), into: &decision)
      decision.action = .loginForm(
        tab: submission.tab, pending: login, error: "Invalid username or password.", cookies: [])
      return decision
    }
    pending[submission.tab] = nil
    let rememberMe =
      profile.rememberMe == .always || (rememberMeAllowed && submission.rememberMeTicked)
    let now = environment.now
    let level =
      profile.reusesSessionForAnyACR ? 1 : (login.acr.flatMap { login.client.acrLevels[$0] } ?? 0)
    let session = Session(
      id: environment.hex(16), user: user, authTime: now,
      expires: now.addingTimeInterval(
        rememberMe ? profile.rememberMeLifetime : profile.sessionLifetime),
      levelOfAssurance: level, rememberMe: rememberMe)
    sessions[session.id] = session
    let cookieValue = environment.secret(32)
    identityCookies[cookieValue] = session.id
    record(
      Event(
        type: "LOGIN", time: now, clientId: login.client.id, userId: user.username,
        username: user.username, sessionId: session.id), into: &decision)
    // Remember-me makes the identity cookie persistent; otherwise it dies with the browser
    // session — which an iOS auth session does not share (seed 000, Cross-app SSO conditions).
    let persistent = rememberMe || environment.identityCookieAlwaysPersistent
    let maxAge = persistent ? session.expires.timeIntervalSince(now) : nil
    var cookies = [CookieChange(name: profile.identityCookie, value: cookieValue, maxAge: maxAge)]
    if let mirror = profile.sessionMirrorCookie {
      cookies.append(
        CookieChange(name: mirror, value: "\(realm)/\(user.username)/\(session.id)", maxAge: maxAge)
      )
    }
    cookies.append(CookieChange(name: profile.bindingCookie, value: "", maxAge: 0))
    let issued = issueCode(login, session: session, environment, cookies: cookies)
    decision.action = issued.action
    return decision
  }

  private mutating func issueCode(
    _ login: Pending, session: Session, _ environment: Environment, cookies: [CookieChange] = []
  ) -> Decision {
    let code = environment.secret(32)
    codes[code] = Grant(
      client: login.client, redirectURI: login.redirectURI, user: session.user,
      sessionID: session.id, nonce: login.nonce, codeChallenge: login.codeChallenge,
      codeChallengeMethod: login.codeChallengeMethod, acr: login.acr,
      authTime: session.authTime,
      expires: environment.now.addingTimeInterval(profile.codeLifetime))
    var parameters: [String: String?] = ["code": code, "state": login.state, "iss": issuer]
    if profile.sendsSessionState { parameters["session_state"] = session.id }
    return Decision(
      action: .authorized(redirectURI: login.redirectURI, parameters: parameters, cookies: cookies))
  }

  private func satisfies(_ session: Session, acr: String?, client: Client) -> Bool {
    if profile.reusesSessionForAnyACR { return true }
    guard let acr else { return true }
    guard let level = client.acrLevels[acr] else { return false }
    return session.levelOfAssurance >= level
  }

  /// The session an identity cookie names, if it is still alive; an expired one is dropped.
  private mutating func liveSession(_ cookie: String?, now: Date) -> Session? {
    guard let cookie, let id = identityCookies[cookie], let session = sessions[id] else {
      return nil
    }
    guard session.expires > now else {
      sessions[id] = nil
      return nil
    }
    return session
  }

  // MARK: Token, userinfo

  /// The token endpoint (RFC 6749 §4.1.3, RFC 7636 §4.6): an authenticated client redeems a
  /// code once, before it expires, with the redirect URI and the PKCE verifier it was
  /// issued for.
  mutating func token(_ request: TokenRequest, _ environment: Environment) -> Decision {
    func error(_ code: String, _ description: String, status: Int = 400) -> Decision {
      Decision(action: .tokenError(code: code, description: description, status: status))
    }
    if let name = AuthorizationStateMachine.repeated(request.parameterNames).first {
      return error("invalid_request", "parameter \(name) sent twice")
    }
    guard profile.tokenAuthMethods.contains(request.authMethod) else {
      return error(
        "invalid_client",
        "client authentication by \(request.authMethod) is not accepted (\(profile.tokenAuthMethods.joined(separator: ", ")))",
        status: 401)
    }
    guard let clientID = request.clientID, let client = clients[clientID],
      let secret = request.clientSecret,
      Digest.constantTimeEqual(Array(secret.utf8), Array(client.secret.utf8))
    else {
      return error("invalid_client", "Invalid client or Invalid client credentials", status: 401)
    }
    guard let grantType = request.grantType else {
      return error("invalid_request", "Missing parameter: grant_type")
    }
    guard grantType == "authorization_code" else {
      return error("unsupported_grant_type", "only authorization_code is supported")
    }
    guard let code = request.code else {
      return error("invalid_request", "Missing parameter: code")
    }
    if let issued = redeemed[code] {
      // A code presented twice may have been stolen: what it bought is revoked (§4.1.2).
      for token in issued { accessTokens[token] = nil }
      redeemed[code] = []
      return error("invalid_grant", "Code already used; the tokens issued from it are revoked")
    }
    guard let grant = codes.removeValue(forKey: code) else {
      return error("invalid_grant", "Code not valid")
    }
    redeemed[code] = []
    guard grant.expires > environment.now else { return error("invalid_grant", "Code expired") }
    guard grant.client.id == client.id else {
      return error("invalid_grant", "Code issued to another client")
    }
    guard let redirectURI = request.redirectURI else {
      return error("invalid_request", "Missing parameter: redirect_uri")
    }
    guard redirectURI == grant.redirectURI else {
      return error("invalid_grant", "Incorrect redirect_uri")
    }
    if let challenge = grant.codeChallenge {
      guard let verifier = request.codeVerifier, AuthorizationStateMachine.isPKCEValue(verifier)
      else {
        return error("invalid_grant", "code_verifier must be 43 to 128 unreserved characters")
      }
      let derived =
        grant.codeChallengeMethod == "S256" ? Digest.pkceChallenge(verifier: verifier) : verifier
      guard Digest.constantTimeEqual(Array(derived.utf8), Array(challenge.utf8)) else {
        return error("invalid_grant", "PKCE verification failed")
      }
    } else if request.codeVerifier != nil {
      return error("invalid_grant", "a code_verifier for a code issued without code_challenge")
    }
    let now = environment.now
    let claims = idTokenClaims(grant, client: client, now: now)
    let accessToken = environment.secret(32)
    accessTokens[accessToken] = (grant, now.addingTimeInterval(profile.accessTokenLifetime))
    redeemed[code] = [accessToken]
    var decision = Decision(
      action: .tokens(accessToken: accessToken, claims: claims, sessionID: grant.sessionID))
    record(
      Event(
        type: "CODE_TO_TOKEN", time: now, clientId: client.id, userId: grant.user.username,
        username: grant.user.username, sessionId: grant.sessionID), into: &decision)
    return decision
  }

  /// The ID token's claims for `grant`, issued at `now` for five minutes; an acr the session
  /// does not satisfy is "0".
  private func idTokenClaims(_ grant: Grant, client: Client, now: Date) -> [String: TokenClaim] {
    let seconds = Int(now.timeIntervalSince1970)
    var claims: [String: TokenClaim] = [
      "iss": .string(issuer), "sub": .string(grant.user.username), "aud": .string(client.id),
      "azp": .string(client.id), "exp": .int(seconds + 300), "iat": .int(seconds),
      "auth_time": .int(Int(grant.authTime.timeIntervalSince1970)),
      "sid": .string(grant.sessionID), "typ": .string("ID"),
    ]
    if let nonce = grant.nonce { claims["nonce"] = .string(nonce) }
    if let acr = grant.acr { claims["acr"] = .string(satisfiesACR(grant) ? acr : "0") }
    if let email = grant.user.email { claims["email"] = .string(email) }
    if let given = grant.user.firstName { claims["given_name"] = .string(given) }
    if let family = grant.user.lastName { claims["family_name"] = .string(family) }
    return claims
  }

  private func satisfiesACR(_ grant: Grant) -> Bool {
    guard let acr = grant.acr else { return true }
    if let required = profile.requiredACR { return acr == required }
    guard let level = grant.client.acrLevels[acr] else { return false }
    return (sessions[grant.sessionID]?.levelOfAssurance ?? 0) >= level
  }

  func userinfo(accessToken: String?, now: Date) -> Decision {
    guard let accessToken, let (grant, expires) = accessTokens[accessToken], expires > now else {
      return Decision(action: .invalidToken)
    }
    var claims = ["sub": grant.user.username]
    if let email = grant.user.email { claims["email"] = email }
    if let given = grant.user.firstName { claims["given_name"] = given }
    switch profile.userClaims {
    case .standard:
      claims["preferred_username"] = grant.user.username
      if let family = grant.user.lastName { claims["family_name"] = family }
    case .proconnect:
      claims["uid"] = grant.user.username
      claims["usual_name"] = grant.user.lastName ?? ""
      claims["given_name"] = grant.user.firstName ?? ""
      claims["email"] = grant.user.email ?? grant.user.username
      // A test establishment and the federation's test identity provider: the mock has no
      // directory to take them from.
      claims["siret"] = AuthorizationStateMachine.testSIRET
      claims["idp_id"] = AuthorizationStateMachine.testIdentityProviderID
    }
    return Decision(
      action: .userinfo(claims, audience: profile.signsUserinfo ? grant.client.id : nil))
  }

  // MARK: Logout

  /// RP-initiated logout: the post-logout URI must be registered for the client the hint or
  /// `client_id` names; the browser's session ends unless a mutation keeps it (rule 9).
  mutating func endSession(_ request: EndSessionRequest, _ environment: Environment) -> Decision {
    if profile.endSessionNeedsHintStateAndRedirect {
      for (name, present) in [
        ("id_token_hint", request.hintAudience != nil), ("state", request.state != nil),
        ("post_logout_redirect_uri", request.postLogoutRedirectURI != nil),
      ] where !present {
        return Decision(action: .errorPage("Y000400 : Bad Request Exception (\(name) is required)"))
      }
    }
    var client: Client?
    if let hint = request.hintAudience {
      guard let audience = hint else {
        return Decision(action: .errorPage("Invalid id_token_hint."))
      }
      // Both given: "the OP MUST verify that the Client Identifier matches the one used when
      // issuing the ID Token" (OpenID Connect RP-Initiated Logout 1.0 §2).
      if let id = request.clientID, id != audience {
        return Decision(
          action: .errorPage("Invalid request: client_id does not match the id_token_hint."))
      }
      client = clients[audience]
    } else if let id = request.clientID {
      client = clients[id]
    }
    let target = request.postLogoutRedirectURI
    if let target,
      !(client.map {
        AuthorizationStateMachine.matches(target, $0.allowedPostLogoutURIs)
      } ?? false)
    {
      return Decision(action: .errorPage("Invalid redirect uri"))
    }
    var decision = Decision(action: .loggedOut(redirect: target, state: request.state, cookies: []))
    if let session = liveSession(request.identityCookie, now: environment.now),
      !environment.keepsSessionOnLogout
    {
      sessions[session.id] = nil
      identityCookies = identityCookies.filter { $0.value != session.id }
      record(
        Event(
          type: "LOGOUT", time: environment.now, clientId: client?.id,
          userId: session.user.username, username: session.user.username, sessionId: session.id),
        into: &decision)
      var cookies = [CookieChange(name: profile.identityCookie, value: "", maxAge: 0)]
      if let mirror = profile.sessionMirrorCookie {
        cookies.append(CookieChange(name: mirror, value: "", maxAge: 0))
      }
      decision.action = .loggedOut(redirect: target, state: request.state, cookies: cookies)
    }
    return decision
  }
}
