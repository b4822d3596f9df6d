import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

/// The confidential OIDC client of seed 000 (*Authentication architecture*, *Logout*):
/// `authenticate` flags a mobile attempt, the callback mints a one-time token bound by PKCE,
/// the exchange turns it into a native session; logout ends the backend and IdP sessions.
extension Backend {
  var callbackURL: String { origin.url("/api/v1.0/callback/") }
  var logoutCallbackURL: String { origin.url("/api/v1.0/logout-callback/") }

  /// `GET /api/v1.0/authenticate/[?mobile_scheme=S&code_challenge=C]`.
  func authenticate(_ request: HTTPRequest) -> HTTPResponse {
    let scheme = request.query("mobile_scheme")
    let challenge = request.query("code_challenge")
    if let scheme {
      guard
        context.behaviours.backendSkipsSchemeAllowlist || settings.callbackSchemes.contains(scheme)
          || (context.behaviours.backendSchemePrefixMatch
            && settings.callbackSchemes.contains { scheme.hasPrefix($0) })
      else {
        event(
          "authenticate refused: mobile_scheme \(scheme) is not in MOBILE_AUTH_CALLBACK_SCHEMES \(settings.callbackSchemes)"
        )
        return .problem(400, "Unknown mobile scheme.")
      }
      guard let challenge, (43...128).contains(challenge.count) else {
        return .problem(400, "A mobile login needs a PKCE code_challenge.")
      }
    }
    var session = session(of: request) ?? newSession()
    if let scheme, let challenge, context.behaviours.backendShortCircuitsValidSession,
      let user = session.user
    {
      // The false positive of seed 000: a valid backend session answers without the IdP.
      event("authenticate: \(user) already has a session; minting a mobile token without the IdP")
      return handOff(
        scheme: scheme, token: mint(sessionKey: session.key, challenge: challenge),
        setting: sessionCookieHeader(session))
    }
    let state = context.secret(byteCount: 24)
    let nonce = context.secret(byteCount: 24)
    session.oidcState = state
    session.oidcNonce = nonce
    if let scheme, let challenge {
      session.mobileFlag = MobileFlag(
        scheme: scheme, codeChallenge: challenge, state: state, createdAt: context.clock.now)
      event("authenticate: mobile flag stored for scheme \(scheme)")
    }
    sessions[session.key] = session
    guard let endpoint = settings.oidcAuthorizationEndpoint, let clientID = settings.oidcClientId
    else {
      return .problem(500, "OIDC_OP_AUTHORIZATION_ENDPOINT / OIDC_RP_CLIENT_ID are not configured.")
    }
    var parameters: [(String, String)] = [
      ("response_type", "code"), ("client_id", clientID), ("redirect_uri", callbackURL),
      ("scope", settings.oidcScopes),
      ("state", state), ("nonce", nonce),
    ]
    for (key, value) in settings.oidcExtraParams.sorted(by: { $0.key < $1.key }) {
      parameters.append((key, value))
    }
    let location = endpoint + (endpoint.contains("?") ? "&" : "?") + Query.encode(parameters)
    return HTTPResponse.redirect(to: location).with("Set-Cookie", sessionCookieHeader(session))
  }

  /// `GET /api/v1.0/callback/?code&state`: the OIDC callback (rules 2 and 4).
  func callback(_ request: HTTPRequest) -> HTTPResponse {
    guard var session = session(of: request), let expected = session.oidcState else {
      event("callback without a session that started a login")
      return .problem(400, "No login in progress in this browser.")
    }
    if let error = request.query("error") {
      return .problem(
        400, "The identity provider refused: \(error) \(request.query("error_description") ?? "")")
    }
    guard let state = request.query("state"),
      Digest.constantTimeEqual(Array(state.utf8), Array(expected.utf8))
        || context.behaviours.backendCallbackIgnoresState
    else {
      event("callback refused: state mismatch")
      return .problem(400, "OIDC callback state does not match.")
    }
    guard let code = request.query("code") else {
      return .problem(400, "OIDC callback without a code.")
    }
    let identity: (user: String, idToken: String)
    switch redeem(code: code, nonce: session.oidcNonce) {
    case .success(let value): identity = value
    case .failure(let problem): return problem.response
    }
    // Django's login() rotates the session key.
    sessions[session.key] = nil
    session.key = context.secret(byteCount: 24)
    session.user = identity.user
    session.idToken = identity.idToken
    session.oidcState = nil
    session.oidcNonce = nil
    session.expires = context.clock.now.addingTimeInterval(settings.sessionAge)
    let flag = session.mobileFlag
    session.mobileFlag = nil
    sessions[session.key] = session
    event("session created for \(identity.user)")

    if let flag {
      let stateMatches = context.behaviours.backendFlagIgnoresState || flag.state == state
      let fresh =
        context.behaviours.backendFlagIgnoresAge
        || context.clock.now.timeIntervalSince(flag.createdAt)
          < (context.behaviours.backendFlagMaxAge ?? 600)
      if stateMatches && fresh {
        let token = mint(sessionKey: session.key, challenge: flag.codeChallenge)
        return handOff(scheme: flag.scheme, token: token, setting: sessionCookieHeader(session))
      }
      event(
        "callback: mobile flag ignored (\(stateMatches ? "older than 10 minutes" : "state of another login"))"
      )
    }
    return HTTPResponse.redirect(to: origin.url("/")).with(
      "Set-Cookie", sessionCookieHeader(session))
  }

  /// Caches `{session_key, code_challenge}` under a fresh one-time token.
  func mint(sessionKey: String, challenge: String) -> String {
    let token = context.secret(byteCount: 32)
    tokens[token] = TokenEntry(
      sessionKey: sessionKey, codeChallenge: challenge,
      expires: context.clock.now.addingTimeInterval(settings.tokenTTL))
    event("one-time token minted (TTL \(Int(settings.tokenTTL))s)")
    return token
  }

  /// The 200 hand-off page ending the browser's redirect chain, whose auto-redirect and
  /// "open the app" link leave for the app from the backend's own page — or, when the
  /// behaviour is switched, the direct 302 a strict CSP blocks.
  func handOff(scheme: String, token: String, setting cookie: String) -> HTTPResponse {
    let target = "\(scheme)://auth?token=\(Query.escape(token))"
    if context.behaviours.backendRedirectsDirectlyToScheme {
      return HTTPResponse.redirect(to: target).with("Set-Cookie", cookie)
    }
    let html = """
      <!doctype html><html><head><meta charset="utf-8"><title>Opening the app</title>
      <meta http-equiv="refresh" content="0;url=\(HTMLText.escape(target))"></head>
      <body><p>You are signed in.</p><p><a id="open-app" href="\(HTMLText.escape(target))">Open the app</a></p></body></html>
      """
    return HTTPResponse.html(html).with("Set-Cookie", cookie).with("Cache-Control", "no-store")
  }

  struct Problem: Error {
    var response: HTTPResponse
  }

  /// Redeems the code at the IdP's token endpoint over the back channel and validates the
  /// id_token against the published JWKS (signature, audience, expiry, nonce).
  func redeem(code: String, nonce: String?) -> Result<(user: String, idToken: String), Problem> {
    guard let endpoint = settings.oidcTokenEndpoint, let clientID = settings.oidcClientId,
      let secret = settings.oidcClientSecret
    else {
      return .failure(
        Problem(
          response: .problem(500, "OIDC token endpoint or client credentials are not configured.")))
    }
    // As mozilla-django-oidc does: the secret in the body unless OIDC_TOKEN_USE_BASIC_AUTH.
    var fields = [
      ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", callbackURL),
    ]
    var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
    if settings.oidcTokenUsesBasicAuth {
      headers.set("Authorization", "Basic \(Query.basicCredentials(id: clientID, secret: secret))")
    } else {
      fields += [("client_id", clientID), ("client_secret", secret)]
    }
    guard
      let response = backChannel(
        ClientRequest(
          method: "POST", url: endpoint, headers: headers,
          body: Array(Query.encode(fields).utf8)))
    else {
      return .failure(
        Problem(response: .problem(502, "The identity provider at \(endpoint) is unreachable.")))
    }
    guard response.status == 200, let json = response.jsonObject as? [String: Any],
      let idToken = json["id_token"] as? String
    else {
      event("token endpoint answered \(response.status): \(response.bodyText.prefix(200))")
      return .failure(
        Problem(
          response: .problem(401, "The identity provider refused the code (\(response.status)).")))
    }
    guard let (_, claims) = JWT.verify(idToken, keys: keys()) else {
      event("id_token signature does not verify against the JWKS")
      return .failure(Problem(response: .problem(401, "id_token signature invalid.")))
    }
    let now = (idTokensFromRealTime ? Date() : context.clock.now).timeIntervalSince1970
    var wrong: [String] = []
    if claims["aud"] as? String != clientID
      && !((claims["aud"] as? [String])?.contains(clientID) ?? false)
    {
      wrong.append("aud is \(claims["aud"].map { "\($0)" } ?? "missing"), not \(clientID)")
    }
    if (claims["exp"] as? Double ?? 0) <= now {
      wrong.append("expired (exp \(claims["exp"] ?? "missing"))")
    }
    if let nonce, claims["nonce"] as? String != nonce { wrong.append("the nonce differs") }
    guard wrong.isEmpty, let subject = claims["sub"] as? String else {
      event("id_token claims rejected: \(wrong.isEmpty ? "no sub" : wrong.joined(separator: "; "))")
      return .failure(Problem(response: .problem(401, "id_token claims invalid.")))
    }
    if let problem = userinfo(accessToken: json["access_token"] as? String, subject: subject) {
      return .failure(problem)
    }
    return .success((subject, idToken))
  }

  /// The user's claims from OIDC_OP_USER_ENDPOINT with the access token, as
  /// mozilla-django-oidc's `get_userinfo` asks them after the id_token: a JSON object, or a
  /// JWT signed with the provider's keys (ProConnect), whose `sub` must be the id_token's
  /// (OIDC Core §5.3.4). The setting has no default: unset, the login fails with
  /// ImproperlyConfigured.
  private func userinfo(accessToken: String?, subject: String) -> Problem? {
    guard let endpoint = settings.oidcUserinfoEndpoint, !endpoint.isEmpty else {
      event("OIDC_OP_USER_ENDPOINT is not set: mozilla-django-oidc raises ImproperlyConfigured")
      return Problem(response: .problem(500, "OIDC_OP_USER_ENDPOINT is not configured."))
    }
    guard let accessToken else {
      event("the token endpoint returned no access_token to ask userinfo with")
      return Problem(response: .problem(401, "No access token for userinfo."))
    }
    // A real provider's token was never minted here: the redactor learns it before it goes
    // into the userinfo request (the token response's field is redacted by name).
    context.redactor.register(accessToken)
    guard
      let response = backChannel(
        ClientRequest(url: endpoint, headers: ["Authorization": "Bearer \(accessToken)"]))
    else {
      return Problem(
        response: .problem(502, "The identity provider's userinfo at \(endpoint) is unreachable."))
    }
    let signed = (response.headers["Content-Type"] ?? "").hasPrefix("application/jwt")
    let claims =
      signed
      ? JWT.verify(response.bodyText.trimmingCharacters(in: .whitespacesAndNewlines), keys: keys())?
        .1
      : response.jsonObject as? [String: Any]
    guard response.status == 200, let claims else {
      event("userinfo answered \(response.status)\(signed ? " (a JWT that does not verify)" : "")")
      return Problem(
        response: .problem(401, "The identity provider's userinfo refused (\(response.status))."))
    }
    guard claims["sub"] as? String == subject else {
      event("userinfo's sub is not the id_token's")
      return Problem(response: .problem(401, "userinfo belongs to another subject."))
    }
    return nil
  }

  private func keys() -> [String: Key] {
    if jwks == nil, let endpoint = settings.oidcJWKSEndpoint,
      let response = backChannel(ClientRequest(url: endpoint)),
      let json = response.jsonObject as? [String: Any]
    {
      jwks = json
    }
    var out: [String: Key] = [:]
    for key in (jwks?["keys"] as? [[String: Any]]) ?? [] {
      guard let kid = key["kid"] as? String,
        let n = (key["n"] as? String).flatMap(Base64URL.decode),
        let e = (key["e"] as? String).flatMap(Base64URL.decode),
        let rsa = try? Key.rsaPublicKey(modulus: Array(n), exponent: Array(e))
      else { continue }
      out[kid] = rsa
    }
    return out
  }

  /// `POST /api/v1.0/mobile/auth/exchange/ {token, code_verifier}` (rule 5).
  func exchange(_ request: HTTPRequest) -> HTTPResponse {
    let fields =
      request.jsonObject
      ?? Dictionary(request.form.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
    guard let token = fields["token"] as? String, let verifier = fields["code_verifier"] as? String
    else {
      return .problem(400, "token and code_verifier are required.")
    }
    // Deleted before verifying: a failed attempt burns the token (seed 000, step 5).
    let keep =
      context.behaviours.backendVerifiesBeforeDeleting || context.behaviours.backendTokenReusable
    let entry = keep ? tokens[token] : tokens.removeValue(forKey: token)
    guard let entry else {
      event("exchange refused: unknown or already used token")
      return .problem(403, "Invalid or expired token.")
    }
    guard context.behaviours.backendIgnoresTokenTTL || entry.expires > context.clock.now else {
      event("exchange refused: token expired")
      return .problem(403, "Invalid or expired token.")
    }
    if !context.behaviours.backendSkipsPKCE {
      let computed = Digest.pkceChallenge(verifier: verifier)
      guard Digest.constantTimeEqual(Array(computed.utf8), Array(entry.codeChallenge.utf8)) else {
        event("exchange refused: S256(code_verifier) does not match the code_challenge")
        // One answer for every refusal, as the app's backend gives it: a caller learns
        // nothing about which check failed.
        return .problem(403, "Invalid or expired token.")
      }
    }
    if !context.behaviours.backendTokenReusable { tokens[token] = nil }
    guard let session = sessions[entry.sessionKey], session.expires > context.clock.now,
      let user = session.user
    else {
      return .problem(403, "Session expired.")
    }
    event("mobile session handed to the app for \(user)")
    return HTTPResponse.json(["csrf_token": session.csrfSecret])
      .with("Set-Cookie", sessionCookieHeader(session))
      .with(
        "Set-Cookie",
        "csrftoken=\(session.csrfSecret); Path=/; Max-Age=31449600; SameSite=Lax"
          + (origin.isSecure ? "; Secure" : ""))
  }

  /// `GET /api/v1.0/logout/[?mobile_scheme=S]`: RP-initiated logout in the system browser
  /// (rule 9). Ends the backend session, then the IdP's, and ends on `S://logout`.
  func logout(_ request: HTTPRequest) -> HTTPResponse {
    let scheme = request.query("mobile_scheme")
    if let scheme,
      !(context.behaviours.backendSkipsSchemeAllowlist || settings.callbackSchemes.contains(scheme))
    {
      return .problem(400, "Unknown mobile scheme.")
    }
    let done = scheme.map { "\($0)://logout" } ?? origin.url("/")
    guard let session = session(of: request), session.user != nil else {
      event("logout: no backend session in this browser; nothing to end")
      return .redirect(to: done)
    }
    endSession(session)
    event("logout: backend session of \(session.user ?? "?") ended")
    if context.behaviours.backendSkipsIdPLogout {
      return HTTPResponse.redirect(to: done).with("Set-Cookie", sessionCookieHeader(nil))
    }
    guard let endpoint = settings.oidcLogoutEndpoint else {
      return HTTPResponse.redirect(to: done).with("Set-Cookie", sessionCookieHeader(nil))
    }
    var anonymous = newSession()
    let state = context.secret(byteCount: 16)
    anonymous.logoutFlag = (scheme ?? "", state)
    sessions[anonymous.key] = anonymous
    var parameters = [("post_logout_redirect_uri", logoutCallbackURL), ("state", state)]
    if let hint = session.idToken { parameters.insert(("id_token_hint", hint), at: 0) }
    if let clientID = settings.oidcClientId { parameters.append(("client_id", clientID)) }
    let location = endpoint + (endpoint.contains("?") ? "&" : "?") + Query.encode(parameters)
    return HTTPResponse.redirect(to: location).with("Set-Cookie", sessionCookieHeader(anonymous))
  }

  /// `GET /api/v1.0/logout-callback/?state`: back from the IdP, on to the scheme.
  func logoutCallback(_ request: HTTPRequest) -> HTTPResponse {
    guard let session = session(of: request), let flag = session.logoutFlag,
      request.query("state") == flag.state
    else {
      return .redirect(to: origin.url("/"))
    }
    sessions[session.key] = nil
    return HTTPResponse.redirect(
      to: flag.scheme.isEmpty ? origin.url("/") : "\(flag.scheme)://logout"
    )
    .with("Set-Cookie", sessionCookieHeader(nil))
  }

  /// Django's `logout()`: it flushes this session alone, so the user's other devices stay
  /// signed in and keep their push registrations (a second actor the scenarios exercise).
  func endSession(_ session: Session) {
    sessions[session.key] = nil
    if context.behaviours.backendLogoutEndsEverySession, let user = session.user {
      sessions = sessions.filter { $0.value.user != user }
    }
    logoutDeletesChannels(of: session)
  }

  /// `POST /api/v1.0/mobile/auth/logout/`: the safety net (rule 9).
  func mobileLogout(_ request: HTTPRequest, _ session: Session) -> HTTPResponse {
    if !context.behaviours.backendIgnoresMobileLogout {
      endSession(session)
      event("mobile logout: session of \(session.user ?? "?") ended")
    }
    return HTTPResponse(status: 204).with("Set-Cookie", sessionCookieHeader(nil))
  }
}
