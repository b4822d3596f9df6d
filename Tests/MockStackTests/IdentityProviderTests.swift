import Artifacts
import Foundation
import HTTP
import MockStack
import QualifyCore
import QualifyCrypto
import QualifyTestSupport
import StackPorts
import Testing

/// The IdP's endpoints driven directly, without a browser.
@Suite struct IdentityProviderTests {
  static let key: Key = {
    do { return try Key.generateRSA(bits: 2048) } catch { fatalError("\(error)") }
  }()

  func provider(_ profile: IdentityProviderProfile, acr: [String: Int] = ["eidas1": 1])
    -> IdentityProvider
  {
    let context = StackContext(
      clock: VirtualClock(), random: RandomSource(seed: 1), evidence: EvidenceLog(),
      redactor: Redactor(), channel: .prod,
      behaviours: StackBehaviours())
    let realm = RealmSettings(
      file: "realm.json", realm: "messages", rememberMe: true, clients: [], users: [])
    return IdentityProvider(
      origin: Origin(scheme: "https", host: "idp.test"), profile: profile,
      realm: profile == .keycloakDev ? realm : nil,
      clients: [
        .init(
          id: "rp", secret: "rp-secret-value", redirectURIs: ["https://rp.test/cb"],
          postLogoutRedirectURIs: ["https://rp.test/bye"], acrLevels: acr)
      ],
      users: [
        .init(
          username: "alice", password: "alice-password", email: nil, firstName: nil, lastName: nil)
      ],
      context: context, signingKey: IdentityProviderTests.key, keyID: "k1")
  }

  func get(_ idp: IdentityProvider, _ target: String, cookies: String? = nil) -> HTTPResponse {
    var headers: HTTPHeaders = ["Host": "idp.test"]
    if let cookies { headers.add("Cookie", cookies) }
    return idp.handle(HTTPRequest(method: "GET", target: target, headers: headers))
  }

  func authorize(_ idp: IdentityProvider, _ extra: String = "") -> String {
    let base =
      idp.profile == .proconnect
      ? "/api/v2/authorize" : "/realms/messages/protocol/openid-connect/auth"
    return base
      + "?response_type=code&client_id=rp&redirect_uri=https%3A%2F%2Frp.test%2Fcb&scope=openid+email"
      + "&state=\(String(repeating: "s", count: 32))&nonce=\(String(repeating: "n", count: 32))"
      + extra
  }

  @Test func unknownClientsAndRedirectURIsAreRefused() {
    let idp = provider(.keycloakDev)
    #expect(
      get(idp, authorize(idp).replacingOccurrences(of: "client_id=rp", with: "client_id=other"))
        .status == 400)
    #expect(
      get(idp, authorize(idp).replacingOccurrences(of: "rp.test%2Fcb", with: "evil.test%2Fcb"))
        .status == 400)
  }

  @Test func proconnectRequiresEidas1() {
    let idp = provider(.proconnect)
    let response = get(idp, authorize(idp))
    #expect(response.status == 302)
    #expect(response.headers["Location"]?.contains("error=invalid_request") == true)
    #expect(get(idp, authorize(idp, "&acr_values=eidas1")).status == 302)
  }

  @Test func proconnectLoginPageCarriesTheFormActionPolicy() throws {
    let idp = provider(.proconnect)
    let redirect = try #require(get(idp, authorize(idp, "&acr_values=eidas1")).headers["Location"])
    let page = get(idp, String(redirect.dropFirst("https://idp.test".count)))
    #expect(page.status == 200)
    #expect(page.headers["Content-Security-Policy"]?.contains("form-action 'self' *") == true)
    #expect(page.bodyText.contains("name=\"form_token\""))
  }

  @Test func keycloakShowsItsFormWithoutAFormActionPolicy() throws {
    let idp = provider(.keycloakDev)
    let page = get(idp, authorize(idp))
    #expect(page.status == 200)
    let policy = try #require(page.headers["Content-Security-Policy"])
    #expect(!policy.contains("form-action"))
    #expect(policy.contains("default-src 'none'"))
    #expect(page.bodyText.contains("rememberMe"))
  }

  func post(_ idp: IdentityProvider, _ target: String, _ form: String, headers: HTTPHeaders = [:])
    -> HTTPResponse
  {
    var all = headers
    all.add("Host", "idp.test")
    all.add("Content-Type", "application/x-www-form-urlencoded")
    return idp.handle(
      HTTPRequest(method: "POST", target: target, headers: all, body: Array(form.utf8)))
  }

  /// RFC 6749 §5.2: a failed client authentication says the scheme (WWW-Authenticate), and
  /// no token answer is cached (§5.1: no-store, and Pragma: no-cache for HTTP/1.0 caches).
  @Test func aTokenRequestWithAWrongSecretIsRefusedWithItsScheme() {
    let idp = provider(.keycloakDev)
    let basic = Data("rp:wrong".utf8).base64EncodedString()
    let response = post(
      idp, "/realms/messages/protocol/openid-connect/token",
      "grant_type=authorization_code&code=x", headers: ["Authorization": "Basic \(basic)"])
    #expect(response.status == 401)
    #expect(response.headers["WWW-Authenticate"]?.hasPrefix("Basic realm=") == true)
    #expect(response.headers["Pragma"] == "no-cache")
    #expect(response.headers["Cache-Control"] == "no-store")
    let missing = post(
      idp, "/realms/messages/protocol/openid-connect/token",
      "grant_type=authorization_code&redirect_uri=https%3A%2F%2Frp.test%2Fcb",
      headers: ["Authorization": "Basic \(Data("rp:rp-secret-value".utf8).base64EncodedString())"])
    #expect(missing.status == 400)
    let answer = try? JSONSerialization.jsonObject(with: Data(missing.body)) as? [String: Any]
    #expect(answer?["error"] as? String == "invalid_request")
  }

  /// OIDC Core: the authorization endpoint (§3.1.2.1), userinfo (§5.3.1) and RP-initiated
  /// logout take POST as well as GET.
  @Test func authorizeUserinfoAndLogoutTakePOST() throws {
    let idp = provider(.keycloakDev)
    let query = try #require(authorize(idp).split(separator: "?", maxSplits: 1).last)
    let form = post(idp, "/realms/messages/protocol/openid-connect/auth", String(query))
    #expect(form.status == 200)
    #expect(form.bodyText.contains("name=\"password\""))
    let userinfo = post(
      idp, "/realms/messages/protocol/openid-connect/userinfo", "access_token=nope")
    #expect(userinfo.status == 401)
    #expect(userinfo.headers["WWW-Authenticate"]?.contains("invalid_token") == true)
    let logout = post(idp, "/realms/messages/protocol/openid-connect/logout", "client_id=rp")
    #expect(logout.status == 200)
  }

  @Test func discoveryAndJWKSAgree() throws {
    let idp = provider(.proconnect)
    let discovery = try #require(
      get(idp, "/api/v2/.well-known/openid-configuration").jsonObject as? [String: Any])
    #expect(discovery["issuer"] as? String == "https://idp.test/api/v2")
    #expect(discovery["jwks_uri"] as? String == "https://idp.test/api/v2/jwks")
    let jwks = try #require(get(idp, "/api/v2/jwks").jsonObject as? [String: Any])
    let keys = try #require(jwks["keys"] as? [[String: Any]])
    #expect(keys.first?["kid"] as? String == "k1")
    #expect(keys.first?["alg"] as? String == "RS256")
    #expect(discovery["authorization_response_iss_parameter_supported"] as? Bool == true)
  }

  /// ProConnect answers end_session with a 303 back to the client ("303 — Redirection vers le
  /// FI pour déconnexion, puis redirection vers le FS", doc_fs/implementation_technique.md
  /// §2.4.1.3); Keycloak with a 302.
  @Test(arguments: [(IdentityProviderProfile.proconnect, 303), (.keycloakDev, 302)])
  func logoutRedirectsBackWithTheProfilesStatus(profile: IdentityProviderProfile, status: Int)
    throws
  {
    let idp = provider(profile)
    let hint = try JWT.sign(
      ["iss": idp.issuer, "aud": "rp", "sub": "alice"], key: IdentityProviderTests.key,
      keyID: "k1")
    let path =
      profile == .proconnect
      ? "/api/v2/session/end" : "/realms/messages/protocol/openid-connect/logout"
    let answer = get(
      idp,
      path + "?id_token_hint=\(hint)&state=\(String(repeating: "s", count: 32))"
        + "&post_logout_redirect_uri=https%3A%2F%2Frp.test%2Fbye")
    #expect(answer.status == status)
    #expect(answer.headers["Location"]?.hasPrefix("https://rp.test/bye?state=") == true)
  }

  /// RFC 9207 §2: an error response names its issuer too, and a parameter sent twice is an
  /// error (RFC 6749 §3.1), answered at the client's redirect URI.
  @Test func anErrorRedirectCarriesTheIssuer() throws {
    let idp = provider(.keycloakDev)
    let answer = get(idp, authorize(idp, "&scope=profile"))
    let location = try #require(answer.headers["Location"])
    let items = URLComponents(string: location)?.queryItems ?? []
    #expect(location.hasPrefix("https://rp.test/cb?"), "\(location)")
    #expect(items.first { $0.name == "error" }?.value == "invalid_request")
    #expect(items.first { $0.name == "iss" }?.value == idp.issuer)
  }

  /// The harness reads the IdP's events as a Keycloak admin-events client would: over HTTP,
  /// from the events endpoint, oldest first after reversing what it serves.
  @Test func theEventFeedIsReadOverHTTPThroughThePort() throws {
    let idp = provider(.keycloakDev)
    let server = try TestServer(tls: false) { idp.handle($0) }
    defer { server.stop() }
    let client = try HTTPClient(configuration: .init(allowsOutsideOrigins: true))
    let port = HTTPIdentityProvider(
      issuer: idp.issuer,
      eventsURL: "http://127.0.0.1:\(server.port)\(idp.paths.events)", testUsers: idp.testUsers,
      client: client)
    #expect(try port.events().isEmpty)
    // Two failed logins on the form a browser was given.
    let page = get(idp, authorize(idp))
    let action = try #require(
      page.bodyText.components(separatedBy: "action=\"").dropFirst().first?.components(
        separatedBy: "\""
      ).first?.replacingOccurrences(of: "&amp;", with: "&"))
    for user in ["alice", "mallory"] {
      _ = idp.handle(
        HTTPRequest(
          method: "POST", target: action,
          headers: ["Host": "idp.test", "Content-Type": "application/x-www-form-urlencoded"],
          body: Array("username=\(user)&password=wrong&form_token=x".utf8)))
    }
    let events = try port.events()
    #expect(events.map(\.type) == ["LOGIN_ERROR", "LOGIN_ERROR"])
    #expect(events.allSatisfy { $0.clientId == "rp" })
    #expect(port.user(named: "alice")?.password == "alice-password")
  }
}
