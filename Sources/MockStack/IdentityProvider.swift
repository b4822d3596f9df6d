import Artifacts
import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

/// A mock OpenID Connect provider with the two behaviours seed 000 depends on: Keycloak as
/// the dev stack runs it (realm export, `acr.loa.map`, remember-me, no CSP) and ProConnect
/// as production runs it (CSP `form-action` on the login page, `acr_values=eidas1` required,
/// `prompt=login` ignored, a persistent session cookie).
///
/// Authorization code flow with PKCE, a login form with a CSRF-style form token, RS256
/// id_tokens, JWKS, userinfo, RP-initiated logout, and a Keycloak-style events endpoint
/// (`LOGIN`, `LOGIN_ERROR`, `CODE_TO_TOKEN`, `LOGOUT`) — the objective proof of cross-app SSO.
///
/// Sendable as a monitor, not by the compiler's proof: every mutable member is read and written
/// only while `lock` is held — inside `handle` (the whole request) or in the accessors below —
/// so the server's thread and the world's never touch the state at once. The I/O-free state
/// machine of issue 11 replaces this with checked state.
public final class IdentityProvider: HTTPHandler, @unchecked Sendable {
  public enum Profile: String, Sendable {
    case keycloakDev = "keycloak-dev"
    case proconnect
  }

  /// A registered relying party.
  public struct Client: Sendable {
    public var id: String
    public var secret: String
    /// Redirect URIs; a trailing `*` matches any suffix (Keycloak's wildcard).
    public var redirectURIs: [String]
    public var postLogoutRedirectURIs: [String]
    /// Keycloak `acr.loa.map`; an ACR that is not mapped forces re-authentication.
    public var acrLevels: [String: Int]

    public init(
      id: String, secret: String, redirectURIs: [String], postLogoutRedirectURIs: [String],
      acrLevels: [String: Int]
    ) {
      self.id = id
      self.secret = secret
      self.redirectURIs = redirectURIs
      self.postLogoutRedirectURIs = postLogoutRedirectURIs
      self.acrLevels = acrLevels
    }
  }

  /// An event as Keycloak's admin API shows it.
  public struct Event: Sendable {
    public var type: String
    public var time: Date
    public var clientId: String?
    public var userId: String?
    public var username: String?
    public var sessionId: String?
    public var error: String?

    var json: [String: Any] {
      var out: [String: Any] = [
        "type": type, "time": Int64(time.timeIntervalSince1970 * 1000), "realmId": "",
        "ipAddress": "127.0.0.1",
      ]
      if let clientId { out["clientId"] = clientId }
      if let userId { out["userId"] = userId }
      if let sessionId { out["sessionId"] = sessionId }
      if let error { out["error"] = error }
      if let username { out["details"] = ["username": username] }
      return out
    }
  }

  struct Session {
    var id: String
    var user: RealmSettings.User
    var authTime: Date
    var expires: Date
    var levelOfAssurance: Int
    var rememberMe: Bool
  }

  struct Pending {
    var client: Client
    var redirectURI: String
    var state: String?
    var nonce: String?
    var codeChallenge: String?
    var acr: String?
    var scope: String
    var formToken: String
    var binding: String
  }

  struct Grant {
    var client: Client
    var redirectURI: String
    var user: RealmSettings.User
    var sessionID: String
    var nonce: String?
    var codeChallenge: String?
    var acr: String?
    var authTime: Date
    var expires: Date
  }

  public let origin: Origin
  public let profile: Profile
  public let realm: String
  /// The realm export the clients came from, for messages.
  let realmFile: String?
  let context: StackContext
  let signingKey: Key
  let keyID: String
  let rememberMeAllowed: Bool
  let sessionLifetime: TimeInterval
  let rememberMeLifetime: TimeInterval
  private let lock = NSLock()
  private var clients: [String: Client]
  /// The users who can sign in (the realm export's, or seeded test identities).
  public let testUsers: [RealmSettings.User]
  private var sessions: [String: Session] = [:]
  private var identityCookies: [String: String] = [:]
  private var pending: [String: Pending] = [:]
  private var codes: [String: Grant] = [:]
  private var accessTokens: [String: (Grant, Date)] = [:]
  private var recorded: [Event] = []
  private var router = Router()

  public init(
    origin: Origin, profile: Profile, realm: RealmSettings?, clients: [Client],
    users: [RealmSettings.User],
    context: StackContext, signingKey: Key, keyID: String
  ) {
    self.origin = origin
    self.profile = profile
    self.realm = realm?.realm ?? "proconnect"
    realmFile = profile == .keycloakDev ? realm?.file : nil
    self.context = context
    self.signingKey = signingKey
    self.keyID = keyID
    self.clients = Dictionary(clients.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
    self.testUsers = users
    rememberMeAllowed = profile == .proconnect || (realm?.rememberMe ?? false)
    sessionLifetime = 36_000
    rememberMeLifetime = profile == .proconnect ? 43_200 : 2_592_000
    let p = paths
    router.get(p.discovery) { [unowned self] _ in self.discovery() }
    router.get(p.authorize) { [unowned self] in self.authorize($0) }
    router.get(p.interaction + "*") { [unowned self] in self.interaction($0) }
    router.post(p.login) { [unowned self] in self.login($0) }
    router.post(p.token) { [unowned self] in self.token($0) }
    router.get(p.jwks) { [unowned self] _ in self.jwks() }
    router.get(p.userinfo) { [unowned self] in self.userinfo($0) }
    router.get(p.endSession) { [unowned self] in self.endSession($0) }
    router.get(p.events) { [unowned self] in self.eventsEndpoint($0) }
    router.get("/_qualify/events") { [unowned self] in self.eventsEndpoint($0) }
  }

  public func handle(_ request: HTTPRequest) -> HTTPResponse {
    lock.lock()
    defer { lock.unlock() }
    return router.handle(request)
  }

  // MARK: Paths

  struct Paths {
    var base, discovery, authorize, interaction, login, token, jwks, userinfo, endSession,
      events: String
  }

  var paths: Paths {
    switch profile {
    case .keycloakDev:
      let base = "/realms/\(realm)"
      let oidc = base + "/protocol/openid-connect"
      return Paths(
        base: base, discovery: base + "/.well-known/openid-configuration",
        authorize: oidc + "/auth",
        interaction: base + "/login-actions/form", login: base + "/login-actions/authenticate",
        token: oidc + "/token",
        jwks: oidc + "/certs", userinfo: oidc + "/userinfo", endSession: oidc + "/logout",
        events: "/admin/realms/\(realm)/events")
    case .proconnect:
      let base = "/api/v2"
      return Paths(
        base: base, discovery: base + "/.well-known/openid-configuration",
        authorize: base + "/authorize",
        interaction: base + "/interaction/", login: base + "/interaction/login",
        token: base + "/token",
        jwks: base + "/jwks", userinfo: base + "/userinfo", endSession: base + "/session/end",
        events: base + "/_qualify/events")
    }
  }

  /// The issuer identifier.
  public var issuer: String { origin.url(paths.base) }

  /// The events recorded so far, oldest first.
  public var events: [Event] {
    lock.lock()
    defer { lock.unlock() }
    return recorded
  }

  /// The registered clients without their secrets, for `qualify serve`.
  public var clientSummaries: [[String: Any]] {
    lock.lock()
    defer { lock.unlock() }
    return clients.values.sorted { $0.id < $1.id }.map {
      ["client_id": $0.id, "redirect_uris": $0.redirectURIs]
    }
  }

  /// Registers a client at run time (the harness's companion app on ProConnect).
  public func register(_ client: Client) {
    lock.lock()
    clients[client.id] = client
    lock.unlock()
  }

  private var identityCookie: String { profile == .keycloakDev ? "KEYCLOAK_IDENTITY" : "_session" }
  private var bindingCookie: String { profile == .keycloakDev ? "AUTH_SESSION_ID" : "_interaction" }

  private func record(_ event: Event) {
    recorded.append(event)
    var summary = "\(event.type)"
    if let username = event.username { summary += " user=\(username)" }
    if let clientId = event.clientId { summary += " client=\(clientId)" }
    if let sessionId = event.sessionId { summary += " session=\(sessionId.prefix(8))" }
    if let error = event.error { summary += " error=\(error)" }
    context.event("idp", summary)
  }

  // MARK: Discovery and keys

  func discovery() -> HTTPResponse {
    let p = paths
    return .json([
      "issuer": issuer, "authorization_endpoint": origin.url(p.authorize),
      "token_endpoint": origin.url(p.token),
      "jwks_uri": origin.url(p.jwks), "userinfo_endpoint": origin.url(p.userinfo),
      "end_session_endpoint": origin.url(p.endSession), "response_types_supported": ["code"],
      "response_modes_supported": ["query"], "grant_types_supported": ["authorization_code"],
      "subject_types_supported": ["public"], "id_token_signing_alg_values_supported": ["RS256"],
      "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
      "code_challenge_methods_supported": ["S256"],
      "scopes_supported": ["openid", "email", "profile"],
      "claims_supported": [
        "sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "acr", "sid", "email",
        "given_name", "family_name",
      ],
      "acr_values_supported": profile == .proconnect
        ? ["eidas1"] : Array(Set(clients.values.flatMap { $0.acrLevels.keys })).sorted(),
      "frontchannel_logout_supported": false,
    ])
  }

  func jwks() -> HTTPResponse {
    guard let key = try? JWT.jwk(signingKey, keyID: keyID) else {
      return .problem(500, "no signing key")
    }
    return .json(["keys": [key]])
  }

  // MARK: Authorization

  func authorize(_ request: HTTPRequest) -> HTTPResponse {
    func fail(_ message: String) -> HTTPResponse {
      .html(page("Error", "<p class=\"error\">\(HTMLText.escape(message))</p>"), status: 400)
    }
    guard request.query("response_type") == "code" else { return fail("unsupported response_type") }
    guard let clientID = request.query("client_id"), let client = clients[clientID] else {
      return fail("Client not found.")
    }
    guard let redirectURI = request.query("redirect_uri"),
      IdentityProvider.matches(redirectURI, client.redirectURIs)
    else {
      return fail("Invalid parameter: redirect_uri")
    }
    let acr = request.query("acr_values").flatMap { $0.isEmpty ? nil : $0 }
    if profile == .proconnect && acr != "eidas1" {
      return .redirect(
        to: redirect(
          redirectURI,
          [
            "error": "invalid_request", "error_description": "acr_values=eidas1 is required",
            "state": request.query("state"),
          ]))
    }
    if let method = request.query("code_challenge_method"), method != "S256" {
      return .redirect(
        to: redirect(
          redirectURI,
          [
            "error": "invalid_request", "error_description": "only S256 is supported",
            "state": request.query("state"),
          ]))
    }
    let pendingLogin = Pending(
      client: client, redirectURI: redirectURI, state: request.query("state"),
      nonce: request.query("nonce"),
      codeChallenge: request.query("code_challenge"), acr: acr,
      scope: request.query("scope") ?? "openid",
      formToken: context.secret(byteCount: 24), binding: context.secret(byteCount: 16))

    // Single sign-on: an existing session that satisfies the request needs no form.
    let forceLogin = profile == .keycloakDev && request.query("prompt") == "login"
    if let session = session(from: request), !forceLogin,
      satisfies(session, acr: acr, client: client)
    {
      context.event(
        "idp",
        "authorize: session of \(session.user.username) satisfies \(acr ?? "no acr") for \(client.id); no login form"
      )
      return issueCode(pendingLogin, session: session)
    }
    if let session = session(from: request) {
      let map = client.acrLevels.isEmpty ? "empty" : client.acrLevels.description
      let why =
        forceLogin
        ? "prompt=login"
        : "the session does not satisfy acr \(acr ?? "-") (acr.loa.map of client \(client.id)\(realmFile.map { " in \($0)" } ?? ""): \(map))"
      context.event(
        "idp",
        "authorize: session of \(session.user.username) exists but re-authentication is required: \(why)"
      )
    }
    let tab = context.random.token(byteCount: 9)
    pending[tab] = pendingLogin
    let binding = SetCookie.header(
      bindingCookie, pendingLogin.binding, path: paths.base + "/", secure: origin.isSecure,
      persistent: nil)
    switch profile {
    case .keycloakDev:
      return loginForm(tab: tab, pending: pendingLogin, error: nil).with("Set-Cookie", binding)
    case .proconnect:
      return HTTPResponse.redirect(to: origin.url(paths.interaction + tab)).with(
        "Set-Cookie", binding)
    }
  }

  /// ProConnect's interaction page: the login form, under its CSP.
  func interaction(_ request: HTTPRequest) -> HTTPResponse {
    let tab = String(request.path.dropFirst(paths.interaction.count))
    guard let pendingLogin = pending[tab] else {
      return .html(
        page("Error", "<p class=\"error\">Session expired, please start again.</p>"), status: 400)
    }
    return loginForm(tab: tab, pending: pendingLogin, error: nil)
  }

  private func loginForm(tab: String, pending: Pending, error: String?) -> HTTPResponse {
    let action: String
    switch profile {
    case .keycloakDev:
      action = paths.login + "?tab_id=\(tab)&client_id=\(Query.escape(pending.client.id))"
    case .proconnect: action = paths.login + "?uid=\(tab)"
    }
    var body =
      "<h1>\(profile == .proconnect ? "ProConnect" : "Sign in to \(HTMLText.escape(realm))")</h1>\n"
    if let error { body += "<p class=\"error\" id=\"input-error\">\(HTMLText.escape(error))</p>\n" }
    body += """
      <form id="kc-form-login" action="\(HTMLText.escape(action))" method="post">
        <label for="username">Username or email</label><input id="username" name="username" type="text" autocomplete="username">
        <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password">

      """
    if rememberMeAllowed && profile == .keycloakDev {
      body +=
        "  <label><input id=\"rememberMe\" name=\"rememberMe\" type=\"checkbox\"> Remember me</label>\n"
    }
    body += """
        <input type="hidden" name="form_token" value="\(HTMLText.escape(pending.formToken))">
        <input type="hidden" id="id-hidden-input" name="credentialId" value="">
        <input type="submit" name="login" id="kc-login" value="Sign In">
      </form>
      """
    var headers = HTTPHeaders()
    if profile == .proconnect {
      // The policy that breaks a direct 302 to a custom scheme after the form submission:
      // `*` matches network schemes only (seed 000, Authentication architecture, step 4).
      headers.add(
        "Content-Security-Policy",
        "default-src 'self'; form-action 'self' *; frame-ancestors 'none'")
    }
    headers.add("Cache-Control", "no-store")
    return .html(page("Sign in", body), headers: headers)
  }

  func login(_ request: HTTPRequest) -> HTTPResponse {
    let tab = request.query("tab_id") ?? request.query("uid") ?? ""
    guard let pendingLogin = pending[tab] else {
      return .html(
        page(
          "Error",
          "<p class=\"error\">Your login attempt timed out. Login will start from the beginning.</p>"
        ), status: 400)
    }
    guard request.cookies[bindingCookie] == pendingLogin.binding,
      request.formValue("form_token") == pendingLogin.formToken
    else {
      record(
        Event(
          type: "LOGIN_ERROR", time: context.clock.now, clientId: pendingLogin.client.id,
          error: "invalid_code"))
      return .html(
        page(
          "Error",
          "<p class=\"error\">Invalid form token: this form was not issued to this browser.</p>"),
        status: 400)
    }
    let username = request.formValue("username") ?? ""
    guard let user = testUsers.first(where: { $0.username == username || $0.email == username }),
      Digest.constantTimeEqual(
        Array((user.password ?? "").utf8), Array((request.formValue("password") ?? "").utf8))
    else {
      record(
        Event(
          type: "LOGIN_ERROR", time: context.clock.now, clientId: pendingLogin.client.id,
          username: username, error: "invalid_user_credentials"))
      return loginForm(tab: tab, pending: pendingLogin, error: "Invalid username or password.")
    }
    pending[tab] = nil
    let rememberMe =
      profile == .proconnect || (rememberMeAllowed && request.formValue("rememberMe") == "on")
    let now = context.clock.now
    let level =
      profile == .proconnect
      ? 1 : (pendingLogin.acr.flatMap { pendingLogin.client.acrLevels[$0] } ?? 0)
    let session = Session(
      id: context.random.hex(byteCount: 16), user: user, authTime: now,
      expires: now.addingTimeInterval(rememberMe ? rememberMeLifetime : sessionLifetime),
      levelOfAssurance: level,
      rememberMe: rememberMe)
    sessions[session.id] = session
    let cookieValue = context.secret(byteCount: 32)
    identityCookies[cookieValue] = session.id
    record(
      Event(
        type: "LOGIN", time: now, clientId: pendingLogin.client.id, userId: user.username,
        username: user.username, sessionId: session.id))
    // Remember-me makes the identity cookie persistent; otherwise it dies with the browser
    // session — which an iOS auth session does not share (seed 000, Cross-app SSO conditions).
    let persistent = rememberMe || context.behaviours.identityCookieAlwaysPersistent
    var response = issueCode(pendingLogin, session: session)
    response.headers.add(
      "Set-Cookie",
      SetCookie.header(
        identityCookie, cookieValue, path: paths.base + "/", secure: origin.isSecure,
        persistent: persistent ? session.expires.timeIntervalSince(now) : nil))
    if profile == .keycloakDev {
      response.headers.add(
        "Set-Cookie",
        SetCookie.header(
          "KEYCLOAK_SESSION", "\(realm)/\(user.username)/\(session.id)", path: paths.base + "/",
          secure: origin.isSecure,
          persistent: persistent ? session.expires.timeIntervalSince(now) : nil))
    }
    response.headers.add(
      "Set-Cookie",
      SetCookie.header(
        bindingCookie, "", path: paths.base + "/", secure: origin.isSecure, persistent: 0))
    return response
  }

  private func issueCode(_ pendingLogin: Pending, session: Session) -> HTTPResponse {
    let code = context.secret(byteCount: 32)
    codes[code] = Grant(
      client: pendingLogin.client, redirectURI: pendingLogin.redirectURI, user: session.user,
      sessionID: session.id,
      nonce: pendingLogin.nonce, codeChallenge: pendingLogin.codeChallenge, acr: pendingLogin.acr,
      authTime: session.authTime,
      expires: context.clock.now.addingTimeInterval(60))
    var parameters: [String: String?] = ["code": code, "state": pendingLogin.state, "iss": issuer]
    if profile == .keycloakDev { parameters["session_state"] = session.id }
    return .redirect(to: redirect(pendingLogin.redirectURI, parameters))
  }

  private func satisfies(_ session: Session, acr: String?, client: Client) -> Bool {
    switch profile {
    case .proconnect:
      return true
    case .keycloakDev:
      guard let acr else { return true }
      guard let level = client.acrLevels[acr] else { return false }
      return session.levelOfAssurance >= level
    }
  }

  private func session(from request: HTTPRequest) -> Session? {
    guard let cookie = request.cookies[identityCookie], let id = identityCookies[cookie],
      let session = sessions[id]
    else {
      return nil
    }
    guard session.expires > context.clock.now else {
      sessions[id] = nil
      return nil
    }
    return session
  }

  // MARK: Token, userinfo

  func token(_ request: HTTPRequest) -> HTTPResponse {
    func error(_ code: String, _ description: String, status: Int = 400) -> HTTPResponse {
      .json(["error": code, "error_description": description], status: status)
    }
    var clientID = request.formValue("client_id")
    var secret = request.formValue("client_secret")
    if let authorization = request.headers["Authorization"], authorization.hasPrefix("Basic "),
      let decoded = Data(base64Encoded: String(authorization.dropFirst(6))).map({
        String(decoding: $0, as: UTF8.self)
      }),
      let colon = decoded.firstIndex(of: ":")
    {
      clientID = Query.decode(String(decoded[..<colon]))
      secret = Query.decode(String(decoded[decoded.index(after: colon)...]))
    }
    guard let clientID, let client = clients[clientID], let secret,
      Digest.constantTimeEqual(Array(secret.utf8), Array(client.secret.utf8))
    else {
      return error("invalid_client", "Invalid client or Invalid client credentials", status: 401)
    }
    guard request.formValue("grant_type") == "authorization_code",
      let code = request.formValue("code")
    else {
      return error("unsupported_grant_type", "only authorization_code is supported")
    }
    guard let grant = codes.removeValue(forKey: code) else {
      return error("invalid_grant", "Code not valid")
    }
    guard grant.expires > context.clock.now else { return error("invalid_grant", "Code expired") }
    guard grant.client.id == client.id else {
      return error("invalid_grant", "Code issued to another client")
    }
    guard request.formValue("redirect_uri") == grant.redirectURI else {
      return error("invalid_grant", "Incorrect redirect_uri")
    }
    if let challenge = grant.codeChallenge {
      let verifier = request.formValue("code_verifier") ?? ""
      guard
        Digest.constantTimeEqual(
          Array(Digest.pkceChallenge(verifier: verifier).utf8), Array(challenge.utf8))
      else {
        return error("invalid_grant", "PKCE verification failed")
      }
    }
    let now = context.clock.now
    var claims: [String: Any] = [
      "iss": issuer, "sub": grant.user.username, "aud": client.id, "azp": client.id,
      "exp": Int(now.timeIntervalSince1970) + 300, "iat": Int(now.timeIntervalSince1970),
      "auth_time": Int(grant.authTime.timeIntervalSince1970), "sid": grant.sessionID, "typ": "ID",
    ]
    if let nonce = grant.nonce { claims["nonce"] = nonce }
    if let acr = grant.acr { claims["acr"] = satisfiesACR(grant) ? acr : "0" }
    if let email = grant.user.email { claims["email"] = email }
    if let given = grant.user.firstName { claims["given_name"] = given }
    if let family = grant.user.lastName { claims["family_name"] = family }
    guard let idToken = try? JWT.sign(claims, key: signingKey, keyID: keyID) else {
      return error("server_error", "signing failed", status: 500)
    }
    context.redactor.register(idToken)
    let accessToken = context.secret(byteCount: 32)
    accessTokens[accessToken] = (grant, now.addingTimeInterval(300))
    record(
      Event(
        type: "CODE_TO_TOKEN", time: now, clientId: client.id, userId: grant.user.username,
        username: grant.user.username, sessionId: grant.sessionID))
    return HTTPResponse.json([
      "access_token": accessToken, "token_type": "Bearer", "expires_in": 300, "id_token": idToken,
      "scope": "openid email profile", "session_state": grant.sessionID,
    ]).with("Cache-Control", "no-store")
  }

  private func satisfiesACR(_ grant: Grant) -> Bool {
    guard let acr = grant.acr else { return true }
    if profile == .proconnect { return acr == "eidas1" }
    guard let level = grant.client.acrLevels[acr] else { return false }
    return (sessions[grant.sessionID]?.levelOfAssurance ?? 0) >= level
  }

  func userinfo(_ request: HTTPRequest) -> HTTPResponse {
    guard let authorization = request.headers["Authorization"], authorization.hasPrefix("Bearer "),
      let (grant, expires) = accessTokens[String(authorization.dropFirst(7))],
      expires > context.clock.now
    else {
      return HTTPResponse.json(["error": "invalid_token"], status: 401).with(
        "WWW-Authenticate", "Bearer error=\"invalid_token\"")
    }
    var claims: [String: Any] = [
      "sub": grant.user.username, "preferred_username": grant.user.username,
    ]
    if let email = grant.user.email { claims["email"] = email }
    if let given = grant.user.firstName { claims["given_name"] = given }
    if let family = grant.user.lastName { claims["family_name"] = family }
    return .json(claims)
  }

  // MARK: Logout, events

  func endSession(_ request: HTTPRequest) -> HTTPResponse {
    var client: Client?
    if let hint = request.query("id_token_hint") {
      let keys = [keyID: signingKey]
      guard let (_, claims) = JWT.verify(hint, keys: keys), let audience = claims["aud"] as? String
      else {
        return .html(page("Error", "<p class=\"error\">Invalid id_token_hint.</p>"), status: 400)
      }
      client = clients[audience]
    } else if let id = request.query("client_id") {
      client = clients[id]
    }
    let target = request.query("post_logout_redirect_uri")
    if let target,
      !(client.map { IdentityProvider.matches(target, $0.postLogoutRedirectURIs + $0.redirectURIs) }
        ?? false)
    {
      return .html(page("Error", "<p class=\"error\">Invalid redirect uri</p>"), status: 400)
    }
    var response: HTTPResponse
    if let target {
      response = .redirect(to: redirect(target, ["state": request.query("state")]))
    } else {
      response = .html(page("Logging out", "<p>You are logged out.</p>"))
    }
    if let session = session(from: request), !context.behaviours.idpKeepsSessionOnLogout {
      sessions[session.id] = nil
      identityCookies = identityCookies.filter { $0.value != session.id }
      record(
        Event(
          type: "LOGOUT", time: context.clock.now, clientId: client?.id,
          userId: session.user.username, username: session.user.username, sessionId: session.id))
      response.headers.add(
        "Set-Cookie",
        SetCookie.header(
          identityCookie, "", path: paths.base + "/", secure: origin.isSecure, persistent: 0))
      if profile == .keycloakDev {
        response.headers.add(
          "Set-Cookie",
          SetCookie.header(
            "KEYCLOAK_SESSION", "", path: paths.base + "/", secure: origin.isSecure, persistent: 0))
      }
    }
    return response
  }

  func eventsEndpoint(_ request: HTTPRequest) -> HTTPResponse {
    var list = recorded.reversed().map(\.self)
    if let type = request.query("type") { list = list.filter { $0.type == type } }
    if let client = request.query("client") { list = list.filter { $0.clientId == client } }
    if let user = request.query("user") { list = list.filter { $0.userId == user } }
    let max = request.query("max").flatMap(Int.init) ?? 100
    return .json(
      list.prefix(max).map { event -> [String: Any] in
        var json = event.json
        json["realmId"] = realm
        return json
      })
  }

  // MARK: Helpers

  /// Whether `uri` matches one of `patterns` (exact, or a prefix ending in `*`).
  static func matches(_ uri: String, _ patterns: [String]) -> Bool {
    patterns.contains { pattern in
      pattern == "*" || pattern == "+"
        || (pattern.hasSuffix("*") ? uri.hasPrefix(pattern.dropLast()) : uri == pattern)
    }
  }

  private func redirect(_ base: String, _ parameters: [String: String?]) -> String {
    let pairs = parameters.compactMap { key, value in value.map { (key, $0) } }.sorted {
      $0.0 < $1.0
    }
    return base + (base.contains("?") ? "&" : "?") + Query.encode(pairs)
  }

  private func page(_ title: String, _ body: String) -> String {
    "<!doctype html><html><head><meta charset=\"utf-8\"><title>\(HTMLText.escape(title))</title></head><body>\n\(body)\n</body></html>"
  }
}

extension SetCookie {
  /// A `Set-Cookie` value; `persistent` is the Max-Age in seconds (0 deletes), nil for a
  /// session cookie.
  static func header(
    _ name: String, _ value: String, path: String, secure: Bool, persistent: TimeInterval?
  ) -> String {
    var out = "\(name)=\(value); Path=\(path)"
    if let persistent { out += "; Max-Age=\(Int(persistent))" }
    if secure { out += "; Secure; SameSite=None" }
    out += "; HttpOnly"
    return out
  }
}
