import Foundation
import HTTP
import QualifyCore

/// The clients' credentials, checked against a real IdP before the run: a wrong secret would
/// otherwise surface mid-run as the app's failure.
///
/// The probe is a `refresh_token` grant with a token that cannot be valid, authenticated with
/// HTTP Basic, or with the secret in the body when the provider's discovery does not offer
/// Basic (ProConnect). Providers authenticate the client before
/// they look at the grant (RFC 6749 §6: "authenticate the client if client authentication is
/// included"), so `invalid_client` means the credentials, and `invalid_grant` means they were
/// accepted. An `authorization_code` probe would need a redirect URI: an invented one is
/// refused by providers that check it first (django-oidc-provider answers `invalid_client`
/// to any redirect URI the client did not register), which reads as wrong credentials.
enum ClientProbe {
  /// What the token endpoint's answer says of the client's credentials.
  enum Reading: Equatable {
    /// Accepted: the provider went on to judge the (invalid) grant.
    case accepted
    /// Refused, with the OAuth error code (or the status) it answered.
    case refused(String)
    /// The provider did not say: it refused the grant type before authenticating the client,
    /// or answered something that is not an OAuth error.
    case undecided(String)
  }

  /// Only an RFC 6749 §5.2 code is quoted: a provider's own text may echo what it was sent,
  /// the secret included.
  static let codes: Set<String> = [
    "invalid_request", "invalid_client", "invalid_grant", "unauthorized_client",
    "unsupported_grant_type", "invalid_scope",
  ]

  static func read(status: Int, error: String?) -> Reading {
    let code = error.map { codes.contains($0) ? $0 : "an error that is not an OAuth code" }
    if status == 401 || code == "invalid_client" { return .refused(code ?? "HTTP 401") }
    switch code {
    // invalid_grant and invalid_scope judge the grant, after the client; unauthorized_client
    // says this (authenticated) client may not use the grant. invalid_request may come
    // before authentication (RFC 6749 §5.2), so it says nothing of the secret.
    case "invalid_grant", "invalid_scope", "unauthorized_client": return .accepted
    case let code?: return .undecided(code)
    case nil: return .undecided("HTTP \(status) without an OAuth error")
    }
  }

  static let body = "grant_type=refresh_token&refresh_token=qualify-credentials-probe"

  /// The method the probe authenticates with: Basic when offered (the default when discovery
  /// names none, OpenID Connect Discovery §3), else the secret in the body.
  static func method(offered: [String]?) -> String {
    guard let offered, !offered.contains("client_secret_basic"),
      offered.contains("client_secret_post")
    else { return "client_secret_basic" }
    return "client_secret_post"
  }

  /// Checks each client; throws an input error naming the refused one.
  static func check(
    _ clients: [(role: String, client: RealSystems.IdentityProvider.Client)],
    at tokenEndpoint: String, offered: [String]?,
    configuration: HTTPClient.Configuration
  ) throws -> [String] {
    var notes: [String] = []
    let method = ClientProbe.method(offered: offered)
    for (role, credentials) in clients {
      var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
      var fields = body
      if method == "client_secret_basic" {
        let basic = Query.basicCredentials(id: credentials.id, secret: credentials.secret)
        Redactor.process.register(basic)
        headers.set("Authorization", "Basic \(basic)")
      } else {
        fields +=
          "&"
          + Query.encode([("client_id", credentials.id), ("client_secret", credentials.secret)])
      }
      var probe = configuration
      probe.realAuthorities.insert(Origin(url: tokenEndpoint)?.authority ?? "")
      let answer = try HTTPClient(configuration: probe).send(
        ClientRequest(
          method: "POST", url: tokenEndpoint, headers: headers, body: Array(fields.utf8)))
      guard let response = answer.response else {
        throw InputError(
          "the real identity provider's token endpoint is unreachable: \(tokenEndpoint): \(answer.error?.message ?? "no answer")"
        )
      }
      if response.status >= 500 {
        throw InputError(
          "the real identity provider's token endpoint answers HTTP \(response.status) at \(tokenEndpoint): it is failing, not refusing a client",
          hint: "the run would blame the app for the provider's outage; try again when it serves")
      }
      let error = (response.jsonObject as? [String: Any])?["error"] as? String
      switch read(status: response.status, error: error) {
      case .accepted:
        continue
      case .refused(let code):
        throw InputError(
          "the real identity provider refuses the \(role) client \(credentials.id): it answered \(code) at \(tokenEndpoint) to a refresh_token grant authenticated with \(method), so the client id or its secret is wrong",
          hint: "check identityProvider.\(role).clientId and the variable its clientSecretEnv names"
        )
      case .undecided(let what):
        notes.append(
          "the \(role) client \(credentials.id) could not be checked before the run: the token endpoint answered \(what) to a refresh_token grant; a wrong secret would show as the login's failure"
        )
      }
    }
    return notes
  }
}
