import Foundation
import QualifyCore

/// The mobile-relevant backend settings of one channel, read from its env files.
public struct BackendSettings: Sendable {
  public var env: EnvLayers

  public init(env: EnvLayers) {
    self.env = env
  }

  /// `MOBILE_AUTH_CALLBACK_SCHEMES`: a JSON list; empty disables mobile login.
  public var callbackSchemes: [String] {
    guard let raw = env["MOBILE_AUTH_CALLBACK_SCHEMES"] else { return [] }
    return BackendSettings.list(raw)
  }

  /// `MOBILE_AUTH_TOKEN_TTL` in seconds (default 60).
  public var tokenTTL: TimeInterval { env["MOBILE_AUTH_TOKEN_TTL"].flatMap(Double.init) ?? 60 }

  /// `SESSION_COOKIE_AGE` in seconds (Django's default: 12 h here, as seed 000 says).
  public var sessionAge: TimeInterval { env["SESSION_COOKIE_AGE"].flatMap(Double.init) ?? 43_200 }

  public var appId: String? { env["MOBILE_APP_ID"] }

  /// `MOBILE_OTA_MANIFEST_URL`, served through `/config`; unset disables OTA.
  public var otaManifestURL: String? {
    env["MOBILE_OTA_MANIFEST_URL"].flatMap { $0.isEmpty ? nil : $0 }
  }

  public var oidcAuthorizationEndpoint: String? { env["OIDC_OP_AUTHORIZATION_ENDPOINT"] }
  public var oidcTokenEndpoint: String? { env["OIDC_OP_TOKEN_ENDPOINT"] }
  public var oidcJWKSEndpoint: String? { env["OIDC_OP_JWKS_ENDPOINT"] }
  public var oidcUserinfoEndpoint: String? { env["OIDC_OP_USER_ENDPOINT"] }
  public var oidcLogoutEndpoint: String? { env["OIDC_OP_LOGOUT_ENDPOINT"] }
  public var oidcClientId: String? { env["OIDC_RP_CLIENT_ID"] }
  public var oidcClientSecret: String? { env["OIDC_RP_CLIENT_SECRET"] }
  /// `OIDC_RP_SCOPES`, space-separated (mozilla-django-oidc's default: `openid email`).
  public var oidcScopes: String { env["OIDC_RP_SCOPES"] ?? "openid email" }
  /// `OIDC_TOKEN_USE_BASIC_AUTH`: the token request authenticates with HTTP Basic
  /// (client_secret_basic) instead of the secret in its body (client_secret_post,
  /// mozilla-django-oidc's default).
  public var oidcTokenUsesBasicAuth: Bool {
    BackendSettings.flag(env["OIDC_TOKEN_USE_BASIC_AUTH"]) ?? false
  }

  /// `OIDC_AUTH_REQUEST_EXTRA_PARAMS` (JSON object), e.g. `{"acr_values": "eidas1"}`.
  public var oidcExtraParams: [String: String] {
    guard let raw = env["OIDC_AUTH_REQUEST_EXTRA_PARAMS"],
      let object = try? JSONSerialization.jsonObject(with: Data(raw.utf8)) as? [String: Any]
    else { return [:] }
    return object.compactMapValues { "\($0)" }
  }

  /// `CSRF_TRUSTED_ORIGINS`: comma-separated or a JSON list.
  public var csrfTrustedOrigins: [String] {
    env["CSRF_TRUSTED_ORIGINS"].map(BackendSettings.list) ?? []
  }

  public var pushEnabled: Bool { BackendSettings.flag(env["PUSH_ENABLED"]) ?? false }
  public var apnsUseSandbox: Bool? { BackendSettings.flag(env["PUSH_APNS_USE_SANDBOX"]) }
  public var apnsBundleId: String? { env["PUSH_APNS_BUNDLE_ID"] }
  public var fcmProjectId: String? { env["PUSH_FCM_PROJECT_ID"] }
  /// `PUSH_APNS_KEY`: the `.p8` PEM (an env file may write its newlines as `\n`).
  public var apnsKeyPEM: String? {
    env["PUSH_APNS_KEY"].flatMap {
      $0.isEmpty ? nil : $0.replacingOccurrences(of: "\\n", with: "\n")
    }
  }
  public var apnsKeyId: String? { env["PUSH_APNS_KEY_ID"].flatMap { $0.isEmpty ? nil : $0 } }
  public var apnsTeamId: String? { env["PUSH_APNS_TEAM_ID"].flatMap { $0.isEmpty ? nil : $0 } }
  /// `PUSH_FCM_CREDENTIALS`: the service account's JSON, on one line.
  public var fcmCredentials: String? {
    env["PUSH_FCM_CREDENTIALS"].flatMap { $0.isEmpty ? nil : $0 }
  }

  /// The Firebase project the service account of `PUSH_FCM_CREDENTIALS` belongs to: its
  /// JSON's `project_id`, else its address's (`…@<project>.iam.gserviceaccount.com`).
  public var fcmCredentialsProject: String? {
    guard let json = fcmCredentials, let data = json.data(using: .utf8),
      let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    else { return nil }
    if let project = object["project_id"] as? String { return project }
    guard let email = object["client_email"] as? String,
      let domain = email.split(separator: "@").last,
      domain.hasSuffix(".iam.gserviceaccount.com")
    else { return nil }
    return String(domain.dropLast(".iam.gserviceaccount.com".count))
  }

  /// A Django-style boolean (`True`, `1`, `yes`, `on`).
  public static func flag(_ raw: String?) -> Bool? {
    guard let raw else { return nil }
    switch raw.lowercased() {
    case "1", "true", "yes", "on": return true
    case "0", "false", "no", "off", "": return false
    default: return nil
    }
  }

  /// A JSON list, or comma-separated values.
  public static func list(_ raw: String) -> [String] {
    let trimmed = raw.trimmingCharacters(in: .whitespaces)
    if trimmed.hasPrefix("["),
      let array = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [Any]
    {
      return array.map { "\($0)" }
    }
    return trimmed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }
  }
}

/// What the mock IdP takes from a Keycloak realm export.
public struct RealmSettings: Sendable {
  public struct Client: Sendable {
    public var clientId: String
    public var secret: String?
    public var redirectURIs: [String]
    public var postLogoutRedirectURIs: [String]
    /// `acr.loa.map`: ACR value → level of assurance; empty forces re-authentication.
    public var acrLevels: [String: Int]
    public var acrMapLine: Int?
    public var enabled: Bool = true
  }

  public struct User: Sendable {
    public var username: String
    /// The plain test password, nil when the export holds only a hash (the mock IdP then
    /// sets a test password of its own).
    public var password: String?
    public var email: String?
    public var firstName: String?
    public var lastName: String?
    /// The id_token `sub` the IdP gives this user, when it is not the username (a real IdP's
    /// opaque or UUID subjects; `--stack`).
    public var subject: String?

    public init(
      username: String, password: String?, email: String?, firstName: String?, lastName: String?
    ) {
      self.username = username
      self.password = password
      self.email = email
      self.firstName = firstName
      self.lastName = lastName
    }
  }

  public var file: String
  public var realm: String
  public var rememberMe: Bool
  public var clients: [Client]
  public var users: [User]

  public init(file: String, realm: String, rememberMe: Bool, clients: [Client], users: [User]) {
    self.file = file
    self.realm = realm
    self.rememberMe = rememberMe
    self.clients = clients
    self.users = users
  }

  public func client(_ id: String) -> Client? { clients.first { $0.clientId == id } }
}
