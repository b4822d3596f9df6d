import Artifacts
import HTTP

/// Where each mock component lives, as the app's build and backend env say: the mocks take
/// the app's real origins, so the URLs in evidence are the ones a release manager knows.
public struct StackTopology: Sendable {
  /// The backend the app calls (`NEXT_PUBLIC_API_ORIGIN`).
  public var backend: Origin
  /// The identity provider as browsers reach it (from `OIDC_OP_AUTHORIZATION_ENDPOINT`).
  public var identityProvider: Origin?
  /// Every origin the backend's env names for the identity provider: in a compose setup the
  /// browser reaches Keycloak on `localhost:8902` while the backend calls it on
  /// `keycloak:8802` (seed 000's dev stack); the mock answers on each.
  public var identityProviderOrigins: [Origin] = []
  /// The OTA bucket (from `MOBILE_OTA_MANIFEST_URL`).
  public var bucket: Origin?
  /// The backend of the companion La Suite app used to prove cross-app SSO.
  public var companionBackend: Origin
  /// The Vite dev server of a dev build (`server.url`), on the dev channel only.
  public var devServer: Origin?
  /// Apple's and Google's push gateways.
  public static let apnsSandbox = Origin(scheme: "https", host: "api.sandbox.push.apple.com")
  public static let apnsProduction = Origin(scheme: "https", host: "api.push.apple.com")
  public static let fcm = Origin(scheme: "https", host: "fcm.googleapis.com")
  /// Google's OAuth token endpoint, where the backend trades its service account for FCM.
  public static let googleOAuth = Origin(scheme: "https", host: "oauth2.googleapis.com")

  public init(build: AppBuild) throws {
    guard let backend = Origin(url: build.frontend.apiOrigin.value) else {
      throw StackError(
        "NEXT_PUBLIC_API_ORIGIN is not an http(s) origin: \(build.frontend.apiOrigin.value) (\(build.frontend.apiOrigin.origin))",
        isAppConfiguration: true)
    }
    let settings = try StackTopology.settings(of: build)
    self.backend = backend
    identityProvider = settings.oidcAuthorizationEndpoint.flatMap(Origin.init(url:))
    for endpoint in [
      settings.oidcAuthorizationEndpoint, settings.oidcTokenEndpoint, settings.oidcJWKSEndpoint,
      settings.oidcUserinfoEndpoint, settings.oidcLogoutEndpoint,
    ] {
      if let origin = endpoint.flatMap(Origin.init(url:)),
        !identityProviderOrigins.contains(origin)
      {
        identityProviderOrigins.append(origin)
      }
    }
    bucket = settings.otaManifestURL.flatMap(Origin.init(url:))
    companionBackend = StackTopology.companion(of: backend)
    if build.channel == .dev {
      devServer = build.capacitor?.serverURL.flatMap { Origin(url: $0.value) }
    }
  }

  /// The backend env of the single-origin app the mock stack serves: another kind's servers
  /// are its pack's own.
  static func settings(of build: AppBuild) throws -> BackendSettings {
    guard let settings = build.backend else {
      throw StackError(
        "the mock stack serves seed 000's single-origin apps; a \(build.shell.id) app's servers are its pack's own"
      )
    }
    return settings
  }

  /// The companion app's backend: a sibling host on https, the next dev port on localhost.
  static func companion(of backend: Origin) -> Origin {
    if backend.isLocal {
      return Origin(scheme: backend.scheme, host: backend.host, port: backend.port + 10)
    }
    return Origin(scheme: backend.scheme, host: "calendar." + backend.host, port: backend.port)
  }

  /// Every origin the stack serves.
  public var origins: [Origin] {
    var out = [
      backend, companionBackend, StackTopology.apnsSandbox, StackTopology.apnsProduction,
      StackTopology.fcm, StackTopology.googleOAuth,
    ]
    for origin in identityProviderOrigins where !out.contains(origin) { out.append(origin) }
    if let identityProvider, !out.contains(identityProvider) { out.append(identityProvider) }
    if let bucket { out.append(bucket) }
    if let devServer { out.append(devServer) }
    return out
  }

  /// Host names that need a certificate.
  public var secureHosts: Set<String> { Set(origins.filter(\.isSecure).map(\.host)) }
}

/// The stack could not be built or started.
public struct StackError: Error, CustomStringConvertible, Sendable {
  public var description: String
  /// The app's configuration is at fault (an origin that is not http(s)), not the harness.
  public var isAppConfiguration: Bool
  public init(_ description: String, isAppConfiguration: Bool = false) {
    self.description = description
    self.isAppConfiguration = isAppConfiguration
  }
}
