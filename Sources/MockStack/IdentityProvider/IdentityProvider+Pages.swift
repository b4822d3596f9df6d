import Foundation
import HTTP
import QualifyCore

/// What the state machine decided, as HTTP: pages, redirects, cookies and signed tokens.
extension IdentityProvider {
  typealias Decision = AuthorizationStateMachine.Decision

  func response(to decision: Decision) -> HTTPResponse {
    switch decision.action {
    case .errorPage(let message):
      return .html(
        page("Error", "<p class=\"error\">\(HTMLText.escape(message))</p>"), status: 400)
    case .redirectError(let redirectURI, let error, let description, let state, let fragment):
      // RFC 9207 §2: an error response carries `iss` too, so the client can tell which
      // provider answered (mix-up attacks).
      let parameters = [
        "error": error, "error_description": description, "state": state, "iss": issuer,
      ]
      return .redirect(
        to: fragment
          ? redirectURI + "#" + Query.encode(pairs(parameters)) : redirect(redirectURI, parameters))
    case .loginForm(let tab, let pending, let error, let cookies):
      return with(cookies, loginForm(tab: tab, pending: pending, error: error))
    case .interaction(let tab, let cookies):
      return with(cookies, .redirect(to: origin.url(paths.interaction + tab)))
    case .authorized(let redirectURI, let parameters, let cookies):
      return with(cookies, .redirect(to: redirect(redirectURI, parameters)))
    case .tokenError(let code, let description, let status):
      var answer = HTTPResponse.json(
        ["error": code, "error_description": description], status: status
      )
      .with("Cache-Control", "no-store").with("Pragma", "no-cache")
      // A failed client authentication names the scheme to use (RFC 6749 §5.2).
      if status == 401 { answer = answer.with("WWW-Authenticate", "Basic realm=\"\(realm)\"") }
      return answer
    case .tokens(let accessToken, let claims, let sessionID):
      let payload = claims.mapValues { claim -> Any in
        switch claim {
        case .string(let text): return text
        case .int(let number): return number
        }
      }
      guard let idToken = try? JWT.sign(payload, key: signingKey, keyID: keyID) else {
        return .json(
          ["error": "server_error", "error_description": "signing failed"], status: 500)
      }
      context.redactor.register(idToken)
      // Tokens are never cached (RFC 6749 §5.1): no-store, and Pragma for HTTP/1.0 caches.
      return HTTPResponse.json([
        "access_token": accessToken, "token_type": "Bearer",
        "expires_in": Int(profile.accessTokenLifetime),
        "id_token": idToken, "scope": "openid email profile", "session_state": sessionID,
      ]).with("Cache-Control", "no-store").with("Pragma", "no-cache")
    case .userinfo(let claims, let audience):
      guard let audience else { return .json(claims) }
      var payload: [String: Any] = claims
      payload["iss"] = issuer
      payload["aud"] = audience
      guard let token = try? JWT.sign(payload, key: signingKey, keyID: keyID) else {
        return .json(["error": "server_error", "error_description": "signing failed"], status: 500)
      }
      var answer = HTTPResponse(status: 200, body: Array(token.utf8))
      answer.headers.add("Content-Type", "application/jwt")
      return answer
    case .invalidToken:
      return HTTPResponse.json(["error": "invalid_token"], status: 401).with(
        "WWW-Authenticate", "Bearer error=\"invalid_token\"")
    case .loggedOut(let target, let state, let cookies):
      let answer: HTTPResponse =
        target.map {
          .redirect(to: redirect($0, ["state": state]), status: profile.logoutRedirectStatus)
        }
        ?? .html(page("Logging out", "<p>You are logged out.</p>"))
      return with(cookies, answer)
    }
  }

  private func with(
    _ cookies: [AuthorizationStateMachine.CookieChange], _ response: HTTPResponse
  ) -> HTTPResponse {
    var response = response
    for cookie in cookies {
      response.headers.add(
        "Set-Cookie",
        SetCookie.header(
          cookie.name, cookie.value, path: paths.base + "/", secure: origin.isSecure,
          persistent: cookie.maxAge))
    }
    return response
  }

  private func loginForm(tab: String, pending: AuthorizationStateMachine.Pending, error: String?)
    -> HTTPResponse
  {
    let action = profile.loginAction(paths, tab, pending.client.id)
    var body = "<h1>\(HTMLText.escape(profile.heading(realm)))</h1>\n"
    if let error { body += "<p class=\"error\" id=\"input-error\">\(HTMLText.escape(error))</p>\n" }
    body += """
      <form id="kc-form-login" action="\(HTMLText.escape(action))" method="post">
        <label for="username">Username or email</label><input id="username" name="username" type="text" autocomplete="username">
        <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password">

      """
    if profile.rememberMe == .checkbox && machineAllowsRememberMe {
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
    if let policy = profile.loginPagePolicy { headers.add("Content-Security-Policy", policy) }
    headers.add("Cache-Control", "no-store")
    return .html(page("Sign in", body), headers: headers)
  }

  private func pairs(_ parameters: [String: String?]) -> [(String, String)] {
    parameters.compactMap { key, value in value.map { (key, $0) } }.sorted { $0.0 < $1.0 }
  }

  private func redirect(_ base: String, _ parameters: [String: String?]) -> String {
    base + (base.contains("?") ? "&" : "?") + Query.encode(pairs(parameters))
  }

  private func page(_ title: String, _ body: String) -> String {
    "<!doctype html><html><head><meta charset=\"utf-8\"><title>\(HTMLText.escape(title))</title></head><body>\n\(body)\n</body></html>"
  }
}
