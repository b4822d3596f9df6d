import Artifacts
import Foundation
import HTTP
import QualifyCore

/// The parts of the stack that are real systems (`--stack FILE`, docs/stack-file.md): what a
/// run reaches over the network instead of the in-process mocks. What the stack file does not
/// name stays mocked.
public struct RealSystems: Sendable {
  /// A real OpenID Connect provider, with the endpoints its discovery document gives.
  public struct IdentityProvider: Sendable {
    public struct Client: Sendable {
      public var id: String
      public var secret: String

      public init(id: String, secret: String) {
        self.id = id
        self.secret = secret
      }
    }

    public var issuer: String
    /// `keycloak`, `proconnect` or `generic`.
    public var profile: String
    public var authorizationEndpoint: String
    public var tokenEndpoint: String
    public var jwksURI: String
    public var userinfoEndpoint: String?
    public var endSessionEndpoint: String?
    /// The app's client and the companion app's, as registered at the IdP.
    public var app: Client
    public var companion: Client
    /// The test accounts the harness signs in as, in the order of the scenarios' roles.
    public var testUsers: [RealmSettings.User]
    /// Keycloak's admin API, when the stack file gives admin credentials: the IdP's own event
    /// feed, the objective proof of single sign-on (CODE_TO_TOKEN without LOGIN).
    public var admin: KeycloakAdmin?
    /// What could not be checked before the run (a client the token endpoint did not judge):
    /// said as the run's caveats.
    public var unchecked: [String] = []

    public init(
      issuer: String, profile: String, authorizationEndpoint: String, tokenEndpoint: String,
      jwksURI: String, userinfoEndpoint: String?, endSessionEndpoint: String?, app: Client,
      companion: Client, testUsers: [RealmSettings.User]
    ) {
      self.issuer = issuer
      self.profile = profile
      self.authorizationEndpoint = authorizationEndpoint
      self.tokenEndpoint = tokenEndpoint
      self.jwksURI = jwksURI
      self.userinfoEndpoint = userinfoEndpoint
      self.endSessionEndpoint = endSessionEndpoint
      self.app = app
      self.companion = companion
      self.testUsers = testUsers
    }
  }

  /// A real deployment of the app's backend: the devices call it instead of the mock.
  public struct Backend: Sendable {
    /// Its origin (`https://messages.staging.example.org`): the build's API origin in this run.
    public var origin: Origin
    /// The name of its session cookie (`sessionid`).
    public var sessionCookie: String

    public init(origin: Origin, sessionCookie: String) {
      self.origin = origin
      self.sessionCookie = sessionCookie
    }
  }

  /// A real OTA channel: the manifest the devices of this channel read, and every origin its
  /// bundles download from (a CDN may serve them from another host).
  public struct OTAChannel: Sendable {
    public var manifestURL: String
    public var origins: [Origin]

    public init(manifestURL: String, origins: [Origin]) {
      self.manifestURL = manifestURL
      self.origins = origins
    }
  }

  public var identityProvider: IdentityProvider?
  /// Real instances of a multi-instance shell, by the world's site name (`work`): the
  /// scenarios that add and load them reach these origins instead of the mock instances.
  public var instances: [String: Origin] = [:]
  /// The site names a stack file may make real: the https instances of the multi-instance
  /// world (`InstanceServers.catalogue`).
  public static let instanceSiteNames = ["work", "home", "unlisted"]
  public var backend: Backend?
  /// A session-contract backend's test accounts (`testUsers` at the top of the stack file).
  public var contractTestUsers: [RealmSettings.User] = []
  public var ota: OTAChannel?
  /// The CA certificates the harness and the simulated devices trust for the real systems:
  /// the CA file the stack names, or the system's trust store (its bundle file).
  public var trustedCertificatesPEM: String
  /// Seconds a request to a real system may take.
  public var timeout: TimeInterval
  /// The stack file, for messages.
  public var file: String

  public init(
    identityProvider: IdentityProvider?, trustedCertificatesPEM: String, timeout: TimeInterval,
    file: String
  ) {
    self.identityProvider = identityProvider
    self.trustedCertificatesPEM = trustedCertificatesPEM
    self.timeout = timeout
    self.file = file
  }

  /// How a client reaches the real systems: their trust, their timeout, their authorities
  /// (plus `extra`, for a URL found before the systems are all known).
  public static func clientConfiguration(
    trusted: String?, timeout: TimeInterval, authorities: Set<String>
  ) -> HTTPClient.Configuration {
    var configuration = HTTPClient.Configuration(
      trustedCertificatesPEM: trusted?.isEmpty == false ? trusted : nil, timeout: timeout,
      userAgent: "qualify", maxResponseBytes: 4 << 20)
    configuration.realAuthorities = authorities
    return configuration
  }

  /// The harness's client for the real systems.
  public func client() throws -> HTTPClient {
    try HTTPClient(
      configuration: RealSystems.clientConfiguration(
        trusted: trustedCertificatesPEM, timeout: timeout, authorities: authorities))
  }

  /// The parts of the stack that are real, as `MockPower.part` names them.
  public var parts: Set<String> {
    var parts: Set<String> = []
    if identityProvider != nil { parts.insert("identity provider") }
    if backend != nil { parts.insert("backend") }
    if ota != nil { parts.insert("OTA bucket") }
    return parts
  }

  /// `host:port` of every real system: what clients reach over the network.
  public var authorities: Set<String> {
    var out: Set<String> = []
    if let idp = identityProvider {
      let urls =
        [idp.issuer, idp.authorizationEndpoint, idp.tokenEndpoint, idp.jwksURI]
        + [idp.userinfoEndpoint, idp.endSessionEndpoint, idp.admin?.url].compactMap { $0 }
      out.formUnion(urls.compactMap { Origin(url: $0)?.authority })
    }
    if let backend { out.insert(backend.origin.authority) }
    for origin in instances.values { out.insert(origin.authority) }
    for origin in ota?.origins ?? [] { out.insert(origin.authority) }
    return out
  }

  /// The real system `url` is on, in words ("the real identity provider at https://…"); nil
  /// when it is on none.
  public func system(at url: String) -> String? {
    guard let origin = Origin(url: url), authorities.contains(origin.authority) else { return nil }
    if let idp = identityProvider,
      ([idp.issuer, idp.authorizationEndpoint, idp.tokenEndpoint, idp.jwksURI]
        + [idp.userinfoEndpoint, idp.endSessionEndpoint, idp.admin?.url].compactMap { $0 })
        .contains(where: { Origin(url: $0)?.authority == origin.authority })
    {
      return "the real identity provider at \(idp.issuer)"
    }
    if let backend, backend.origin.authority == origin.authority {
      return "the real backend at \(backend.origin)"
    }
    if let (name, _) = instances.first(where: { $0.value.authority == origin.authority }) {
      return "the real instance \(name) at \(origin)"
    }
    return "the real OTA channel at \(ota?.manifestURL ?? origin.description)"
  }

  /// Whether `url` is on the real backend: the product's own server, whose failures are the
  /// app's.
  public func isBackend(_ url: String) -> Bool {
    guard let backend, let origin = Origin(url: url) else { return false }
    return backend.origin.authority == origin.authority
  }

  /// Whether `url` is on a real system.
  public func isReal(_ url: String) -> Bool {
    Origin(url: url).map { authorities.contains($0.authority) } ?? false
  }

  /// `build` as it runs against the real systems: its backend (and so the companion's, which
  /// copies it) talks to the real IdP with the client the stack file names, and the scenarios'
  /// users are the stack's test accounts.
  public func applied(to build: AppBuild) -> AppBuild {
    var build = build
    let source = EnvLayers.stackSource(file)
    // The devices call the real backend, as a build made for that deployment would; the
    // static guards still judge the API origin the app's own env gives.
    if let backend {
      if build.frontend.ownAPIOrigin == nil {
        build.frontend.ownAPIOrigin = build.frontend.apiOrigin
      }
      build.frontend.apiOrigin = Sourced(
        backend.origin.description, at: FileLocation(file: source, line: 0, column: 1))
    }
    // The (mock) backend's /config names the real channel's manifest.
    if let ota {
      build.backend?.env.set("MOBILE_OTA_MANIFEST_URL", ota.manifestURL, source: source)
    }
    guard let idp = identityProvider else { return build }
    build.backend?.env.set(
      "OIDC_OP_AUTHORIZATION_ENDPOINT", idp.authorizationEndpoint, source: source)
    build.backend?.env.set("OIDC_OP_TOKEN_ENDPOINT", idp.tokenEndpoint, source: source)
    build.backend?.env.set("OIDC_OP_JWKS_ENDPOINT", idp.jwksURI, source: source)
    // What the real IdP's discovery does not offer is not left pointing at the channel's own
    // IdP: a logout with no end_session endpoint ends the backend's session only.
    if let userinfo = idp.userinfoEndpoint {
      build.backend?.env.set("OIDC_OP_USER_ENDPOINT", userinfo, source: source)
    } else {
      build.backend?.env.remove("OIDC_OP_USER_ENDPOINT")
    }
    if let logout = idp.endSessionEndpoint {
      build.backend?.env.set("OIDC_OP_LOGOUT_ENDPOINT", logout, source: source)
    } else {
      build.backend?.env.remove("OIDC_OP_LOGOUT_ENDPOINT")
    }
    build.backend?.env.set("OIDC_RP_CLIENT_ID", idp.app.id, source: source)
    build.backend?.env.set("OIDC_RP_CLIENT_SECRET", idp.app.secret, source: source)
    build.testUsers = idp.testUsers.map(\.username)
    // The realm export stays: the static guards still read it (acr.loa.map); the mock IdP
    // that would serve it is not started.
    return build
  }
}

/// Keycloak's admin API: where it is and the credentials of an admin the harness signs in as
/// (`admin-cli`, master realm) to read the realm's events.
public struct KeycloakAdmin: Sendable {
  /// The server's base URL (`https://sso.example.org`), and the realm whose events are read.
  public var url: String
  public var realm: String
  public var username: String
  public var password: String

  public init(url: String, realm: String, username: String, password: String) {
    self.url = url
    self.realm = realm
    self.username = username
    self.password = password
  }

  /// An admin access token (the master realm's password grant for `admin-cli`).
  public func token(_ client: HTTPClient) throws -> String {
    let body = Query.encode([
      ("grant_type", "password"), ("client_id", "admin-cli"), ("username", username),
      ("password", password),
    ])
    let endpoint = url + "/realms/master/protocol/openid-connect/token"
    let answer = client.send(
      ClientRequest(
        method: "POST", url: endpoint,
        headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array(body.utf8)))
    guard let response = answer.response, response.status == 200,
      let token = (response.jsonObject as? [String: Any])?["access_token"] as? String
    else {
      throw InputError(
        "Keycloak's admin API at \(endpoint) refuses the admin credentials (\(answer.response.map { String($0.status) } ?? answer.error?.message ?? "no answer"))",
        hint: "check identityProvider.admin and the variables it names")
    }
    return token
  }

  /// The realm's events, oldest first, as the admin API serves them (newest first).
  public func events(_ client: HTTPClient) throws -> [IdentityEvent] {
    let token = try self.token(client)
    let answer = client.send(
      ClientRequest(
        url: url + "/admin/realms/\(realm)/events?max=10000",
        headers: ["Authorization": "Bearer \(token)"]))
    guard let response = answer.response, response.status == 200,
      let list = response.jsonObject as? [[String: Any]]
    else {
      throw HTTPClientError(
        .transport,
        "Keycloak's admin events at \(url)/admin/realms/\(realm)/events answered \(answer.response.map { String($0.status) } ?? "nothing")"
      )
    }
    return list.reversed().map { entry in
      IdentityEvent(
        type: entry["type"] as? String ?? "", clientId: entry["clientId"] as? String,
        userId: entry["userId"] as? String, sessionId: entry["sessionId"] as? String,
        username: (entry["details"] as? [String: Any])?["username"] as? String)
    }
  }
}

/// A real identity provider as the harness may see it: its issuer and the test accounts the
/// stack file names, and — with Keycloak admin credentials — its event feed. Without them the
/// proof of single sign-on is browser-side (the form not shown, a code issued).
public struct RealIdentityProvider: IdentityProviderPort {
  public let issuer: String
  public let testUsers: [RealmSettings.User]
  let admin: KeycloakAdmin?
  let client: HTTPClient?

  public init(
    issuer: String, testUsers: [RealmSettings.User], admin: KeycloakAdmin? = nil,
    client: HTTPClient? = nil
  ) {
    self.issuer = issuer
    self.testUsers = testUsers
    self.admin = admin
    self.client = client
  }

  public var providesEvents: Bool { admin != nil && client != nil }

  public func events() throws -> [IdentityEvent] {
    guard let admin, let client else {
      throw PortUnsupported(
        "the identity provider at \(issuer) gives the harness no event feed (a real IdP without admin credentials)"
      )
    }
    return try admin.events(client)
  }
}
