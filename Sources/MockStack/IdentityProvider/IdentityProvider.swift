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
/// The decisions live in `AuthorizationStateMachine`, behind a lock for the server's thread;
/// this type is the HTTP around it: routes, request parsing, the login page, cookies and
/// id_token signing. What differs between IdPs is an `IdentityProviderProfile` value.
public final class IdentityProvider: HTTPHandler, Sendable {
  /// A registered relying party.
  public struct Client: Sendable {
    public var id: String
    public var secret: String
    /// Redirect URIs; a trailing `*` matches any suffix (Keycloak's wildcard).
    public var redirectURIs: [String]
    /// Post-logout redirect URIs; `+` stands for the redirect URIs (Keycloak), not any URI.
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

    /// The post-logout patterns with Keycloak's `+` replaced by the redirect URIs.
    var allowedPostLogoutURIs: [String] {
      postLogoutRedirectURIs.flatMap { $0 == "+" ? redirectURIs : [$0] }
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

    /// One line for the evidence.
    var summary: String {
      var summary = "\(type)"
      if let username { summary += " user=\(username)" }
      if let clientId { summary += " client=\(clientId)" }
      if let sessionId { summary += " session=\(sessionId.prefix(8))" }
      if let error { summary += " error=\(error)" }
      return summary
    }

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

  public let origin: Origin
  public let profile: IdentityProviderProfile
  public let realm: String
  let context: StackContext
  let signingKey: Key
  let keyID: String
  public let paths: IdentityProviderProfile.Paths
  /// The users who can sign in (the realm export's, or seeded test identities).
  public let testUsers: [RealmSettings.User]
  private let machine: Locked<AuthorizationStateMachine>
  /// Filled once `init` has every other member: its routes call back into `self`.
  private let router = Locked(Router())

  public init(
    origin: Origin, profile: IdentityProviderProfile, realm: RealmSettings?, clients: [Client],
    users: [RealmSettings.User],
    context: StackContext, signingKey: Key, keyID: String
  ) {
    self.origin = origin
    self.profile = profile
    let realmName = realm?.realm ?? profile.defaultRealm
    self.realm = realmName
    self.context = context
    self.signingKey = signingKey
    self.keyID = keyID
    self.testUsers = users
    let paths = profile.paths(realmName)
    self.paths = paths
    machine = Locked(
      AuthorizationStateMachine(
        profile: profile, realm: realmName,
        realmFile: profile.clientsFromRealmExport ? realm?.file : nil,
        issuer: origin.url(paths.base), realmRememberMe: realm?.rememberMe ?? false,
        clients: clients, users: users))
    router.withLock { router in
      router.get(paths.discovery) { [unowned self] _ in self.discovery() }
      // Authorization, userinfo and logout take GET and POST alike (OIDC Core §3.1.2.1,
      // §5.3.1; RP-Initiated Logout §2).
      router.get(paths.authorize) { [unowned self] in self.authorize($0) }
      router.post(paths.authorize) { [unowned self] in self.authorize($0) }
      router.post(paths.userinfo) { [unowned self] in self.userinfo($0) }
      router.post(paths.endSession) { [unowned self] in self.endSession($0) }
      router.get(paths.interaction + "*") { [unowned self] in self.interaction($0) }
      router.post(paths.login) { [unowned self] in self.login($0) }
      router.post(paths.token) { [unowned self] in self.token($0) }
      router.get(paths.jwks) { [unowned self] _ in self.jwks() }
      router.get(paths.userinfo) { [unowned self] in self.userinfo($0) }
      router.get(paths.endSession) { [unowned self] in self.endSession($0) }
      router.get(paths.events) { [unowned self] in self.eventsEndpoint($0) }
      router.get("/_qualify/events") { [unowned self] in self.eventsEndpoint($0) }
    }
  }

  public func handle(_ request: HTTPRequest) -> HTTPResponse {
    router.withLock { $0 }.handle(request)
  }

  /// The issuer identifier.
  public var issuer: String { origin.url(paths.base) }

  /// The events recorded so far, oldest first.
  public var events: [Event] { machine.withLock { $0.events } }

  /// The registered clients without their secrets, for `qualify serve`.
  public var clientSummaries: [[String: Any]] {
    machine.withLock { $0.clients.values.sorted { $0.id < $1.id } }.map {
      ["client_id": $0.id, "redirect_uris": $0.redirectURIs]
    }
  }

  /// Whether the login form offers "remember me" (the realm's setting, or always).
  var machineAllowsRememberMe: Bool { machine.withLock { $0.rememberMeAllowed } }

  /// Registers a client at run time (the harness's companion app on ProConnect).
  public func register(_ client: Client) {
    machine.withLock { $0.register(client) }
  }

  /// Runs one decision under the lock with the world's clock and randomness, then says in
  /// the evidence what it decided and recorded.
  private func decide(
    _ body: (inout AuthorizationStateMachine, AuthorizationStateMachine.Environment) ->
      AuthorizationStateMachine.Decision
  ) -> AuthorizationStateMachine.Decision {
    let context = context
    let environment = AuthorizationStateMachine.Environment(
      now: context.clock.now, secret: { context.secret(byteCount: $0) },
      token: { context.random.token(byteCount: $0) },
      hex: { context.random.hex(byteCount: $0) },
      identityCookieAlwaysPersistent: context.behaviours.identityCookieAlwaysPersistent,
      keepsSessionOnLogout: context.behaviours.idpKeepsSessionOnLogout)
    let decision = machine.withLock { body(&$0, environment) }
    for note in decision.notes { context.event("idp", note) }
    for event in decision.events { context.event("idp", event.summary) }
    return decision
  }

  // MARK: Discovery and keys

  func discovery() -> HTTPResponse {
    let p = paths
    let mapped = machine.withLock { Set($0.clients.values.flatMap { $0.acrLevels.keys }) }
    return .json(
      [
        "issuer": issuer, "authorization_endpoint": origin.url(p.authorize),
        "token_endpoint": origin.url(p.token),
        "jwks_uri": origin.url(p.jwks), "userinfo_endpoint": origin.url(p.userinfo),
        "end_session_endpoint": origin.url(p.endSession), "response_types_supported": ["code"],
        "response_modes_supported": ["query"], "grant_types_supported": ["authorization_code"],
        "subject_types_supported": ["public"], "id_token_signing_alg_values_supported": ["RS256"],
        "token_endpoint_auth_methods_supported": profile.tokenAuthMethods,
        // A profile that refuses PKCE parameters does not announce it.
        "code_challenge_methods_supported": profile.authorizeParameters.map {
          $0.contains("code_challenge") ? ["S256", "plain"] : []
        } ?? ["S256", "plain"],
        "prompt_values_supported": profile.honoursPromptLogin ? ["none", "login"] : ["none"],
        "scopes_supported": ["openid", "email", "profile"],
        "claims_supported": [
          "sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "acr", "sid", "email",
          "given_name",
        ]
          + (profile.userClaims == .proconnect
            ? ["usual_name", "uid", "siret", "idp_id"] : ["family_name", "preferred_username"]),
        "acr_values_supported": profile.announcedACRValues(mapped),
        "frontchannel_logout_supported": false,
        // Every authorization response names its issuer, errors included (RFC 9207 §3).
        "authorization_response_iss_parameter_supported": true,
      ].merging(profile.signsUserinfo ? ["userinfo_signing_alg_values_supported": ["RS256"]] : [:])
      {
        $1
      })
  }

  func jwks() -> HTTPResponse {
    guard let key = try? JWT.jwk(signingKey, keyID: keyID) else {
      return .problem(500, "no signing key")
    }
    return .json(["keys": [key]])
  }

  // MARK: Endpoints

  /// A request parameter: from the form body of a POST, from the query of a GET.
  static func parameter(_ request: HTTPRequest, _ name: String) -> String? {
    request.method == "POST" ? request.formValue(name) : request.query(name)
  }

  static func parameterNames(_ request: HTTPRequest) -> [String] {
    (request.method == "POST" ? request.form : Query.parse(request.queryString)).map(\.name)
  }

  func authorize(_ request: HTTPRequest) -> HTTPResponse {
    let p = { IdentityProvider.parameter(request, $0) }
    let input = AuthorizationStateMachine.AuthorizeRequest(
      responseType: p("response_type"), clientID: p("client_id"),
      redirectURI: p("redirect_uri"), acr: p("acr_values"), state: p("state"),
      nonce: p("nonce"), codeChallenge: p("code_challenge"),
      codeChallengeMethod: p("code_challenge_method"), scope: p("scope"), prompt: p("prompt"),
      maxAge: p("max_age"), parameterNames: IdentityProvider.parameterNames(request),
      identityCookie: request.cookies[profile.identityCookie])
    return response(to: decide { $0.authorize(input, $1) })
  }

  /// ProConnect's interaction page: the login form, under its CSP.
  func interaction(_ request: HTTPRequest) -> HTTPResponse {
    let tab = String(request.path.dropFirst(paths.interaction.count))
    return response(to: machine.withLock { $0.interaction(tab: tab) })
  }

  func login(_ request: HTTPRequest) -> HTTPResponse {
    let input = AuthorizationStateMachine.LoginSubmission(
      tab: request.query("tab_id") ?? request.query("uid") ?? "",
      bindingCookie: request.cookies[profile.bindingCookie],
      formToken: request.formValue("form_token"), username: request.formValue("username") ?? "",
      password: request.formValue("password") ?? "",
      rememberMeTicked: request.formValue("rememberMe") == "on")
    return response(to: decide { $0.login(input, $1) })
  }

  func token(_ request: HTTPRequest) -> HTTPResponse {
    var input = AuthorizationStateMachine.TokenRequest(
      clientID: request.formValue("client_id"), clientSecret: request.formValue("client_secret"),
      grantType: request.formValue("grant_type"), code: request.formValue("code"),
      redirectURI: request.formValue("redirect_uri"),
      codeVerifier: request.formValue("code_verifier"),
      parameterNames: request.form.map(\.name))
    if let authorization = request.headers["Authorization"], authorization.hasPrefix("Basic "),
      let decoded = Data(base64Encoded: String(authorization.dropFirst(6))).map({
        String(decoding: $0, as: UTF8.self)
      }),
      let colon = decoded.firstIndex(of: ":")
    {
      input.clientID = Query.decode(String(decoded[..<colon]))
      input.clientSecret = Query.decode(String(decoded[decoded.index(after: colon)...]))
      input.authMethod = "client_secret_basic"
    }
    return response(to: decide { $0.token(input, $1) })
  }

  func userinfo(_ request: HTTPRequest) -> HTTPResponse {
    // The access token in the header, or in a POST's form body (RFC 6750 §2.2).
    let bearer =
      request.headers["Authorization"].flatMap {
        $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil
      } ?? (request.method == "POST" ? request.formValue("access_token") : nil)
    let now = context.clock.now
    return response(to: machine.withLock { $0.userinfo(accessToken: bearer, now: now) })
  }

  func endSession(_ request: HTTPRequest) -> HTTPResponse {
    let p = { IdentityProvider.parameter(request, $0) }
    var hintAudience: String??
    if let hint = p("id_token_hint") {
      let verified = JWT.verify(hint, keys: [keyID: signingKey])
      hintAudience = .some(verified?.1["aud"] as? String)
    }
    let input = AuthorizationStateMachine.EndSessionRequest(
      hintAudience: hintAudience, clientID: p("client_id"),
      postLogoutRedirectURI: p("post_logout_redirect_uri"),
      state: p("state"), identityCookie: request.cookies[profile.identityCookie])
    return response(to: decide { $0.endSession(input, $1) })
  }

  func eventsEndpoint(_ request: HTTPRequest) -> HTTPResponse {
    var list = events.reversed().map(\.self)
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
