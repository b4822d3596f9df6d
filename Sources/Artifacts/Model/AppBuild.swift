import QualifyCore

/// One platform build of the app for one channel: the typed model the simulated shells are
/// configured from (scenarios never read files themselves).
///
/// Release channels describe what an archive of the repository would ship today (the iOS
/// "strip dev ATS exception" phase applied when present); the dev channel describes a dev
/// build, synced with the channel's frontend env as `cap sync` would (dev server URL,
/// cleartext flag).
public struct AppBuild: Sendable {
  public var platform: Platform
  public var channel: Channel
  /// The app's short name (`messages`).
  public var name: String
  public var appId: Sourced<String>
  /// The deep-link scheme the app's login/logout flows return on (`AUTH_CALLBACK_SCHEME`).
  public var callbackScheme: Sourced<String>
  /// Schemes registered natively: `CFBundleURLTypes` (iOS) or intent-filters (Android).
  public var registeredSchemes: [Sourced<String>]
  public var capacitor: CapacitorConfig
  public var transport: TransportSettings
  public var authSession: AuthSessionSettings
  public var push: PushShellSettings
  public var guards: BuildGuardSettings
  public var frontend: FrontendSettings
  /// The backend the build talks to, as its env files configure it.
  public var backend: BackendSettings
  /// The Keycloak realm export configuring the dev IdP, when the app has one.
  public var realm: RealmSettings?
  /// Which IdP profile serves this channel (`keycloak-dev`, `proconnect`).
  public var identityProvider: String
  /// The files this build was read from, by artifact name (`ios.infoPlist` → path).
  public var files: [String: String]

  /// Whether `scheme` is registered natively.
  public func registers(scheme: String) -> Bool {
    registeredSchemes.contains { $0.value.lowercased() == scheme.lowercased() }
  }
}

/// The synced `capacitor.config.json` of one platform.
public struct CapacitorConfig: Sendable {
  public var file: String
  /// `server.url`: the dev server the WebView loads from (hot reload).
  public var serverURL: Sourced<String>?
  /// `server.cleartext`.
  public var cleartext: Sourced<Bool>?
  /// `plugins.CapacitorHttp.enabled`: `fetch` through the native HTTP stack.
  public var nativeHTTP: Sourced<Bool>?
  /// `plugins.CapacitorUpdater.publicKey`: the baked OTA verification key.
  public var updaterPublicKey: Sourced<String>?
  /// `plugins.CapacitorUpdater.version`: the stamped builtin bundle version.
  public var updaterVersion: Sourced<String>?
  /// `plugins.CapacitorUpdater.autoUpdate`.
  public var updaterAutoUpdate: Sourced<Bool>?

  public init(file: String) {
    self.file = file
  }
}

/// An iOS `NSAppTransportSecurity` dictionary.
public struct ATSSettings: Sendable {
  /// Where the dictionary starts in Info.plist.
  public var location: FileLocation?
  public var allowsArbitraryLoads: Sourced<Bool>?
  public var allowsLocalNetworking: Sourced<Bool>?
  /// Exception domains allowing insecure HTTP loads.
  public var insecureExceptionDomains: [Sourced<String>] = []

  public init(location: FileLocation?) {
    self.location = location
  }

  /// The exceptions it grants, as `key = value` with where each is written.
  public var exceptions: [(String, FileLocation?)] {
    var out: [(String, FileLocation?)] = []
    if let v = allowsArbitraryLoads, v.value {
      out.append(("NSAllowsArbitraryLoads = true", v.location))
    }
    if let v = allowsLocalNetworking, v.value {
      out.append(("NSAllowsLocalNetworking = true", v.location))
    }
    for domain in insecureExceptionDomains {
      out.append(("NSExceptionAllowsInsecureHTTPLoads for \(domain.value)", domain.location))
    }
    return out
  }
}

/// What the platform's transport security lets through.
public struct TransportSettings: Sendable {
  /// iOS: the Info.plist's ATS dictionary as written in the repository.
  public var atsInSource: ATSSettings?
  /// iOS: the ATS dictionary the built product carries (nil when a build phase strips it).
  public var atsShipped: ATSSettings?
  /// Android `android:usesCleartextTraffic` (or Capacitor's `server.cleartext`, which sets it).
  public var usesCleartextTraffic: Sourced<Bool>?

  public init() {}
}

/// How the app opens its login and logout flows in the system browser.
public struct AuthSessionSettings: Sendable {
  /// The iOS plugin's `prefersEphemeralWebBrowserSession` value (nil when not found).
  public var prefersEphemeral: Sourced<Bool>?
  /// Whether the iOS auth-session plugin is registered in the view controller.
  public var pluginRegistered: Sourced<Bool>?
  /// `ASWebAuthenticationSession` (the plugin) or `SFSafariViewController` (the default
  /// Browser plugin a "simplification" falls back to).
  public var usesWebAuthenticationSession: Bool = true

  public init() {}
}

/// The push side of the shell.
public struct PushShellSettings: Sendable {
  /// iOS `aps-environment` as the build is signed (release exports rewrite it to production).
  public var apsEnvironment: Sourced<String>?
  /// Android `google-services.json`: the Firebase project and the packages it has clients for.
  public var firebaseProjectId: Sourced<String>?
  public var firebasePackages: [Sourced<String>] = []
  /// Android `POST_NOTIFICATIONS` permission.
  public var postNotificationsPermission: Sourced<Bool>?
  /// Banner loc-key strings by locale.
  public var bannerStrings: [String: [String: String]] = [:]
  /// Where each locale's strings came from.
  public var bannerFiles: [String: String] = [:]
  /// The loc-keys the backend's payloads name.
  public var requiredBannerKeys: [String] = []

  public init() {}
}

/// Build-time guards of the native projects.
public struct BuildGuardSettings: Sendable {
  /// Android: `preReleaseBuild` fails on a synced `server.url` / `server.cleartext`.
  public var androidReleaseGuard: Sourced<Bool>?
  /// iOS: the "Strip dev ATS exception" build phase.
  public var iosStripATSPhase: Sourced<Bool>?

  public init() {}
}

/// The frontend build env of a channel (what `cap sync` and Vite inline).
public struct FrontendSettings: Sendable {
  /// `NEXT_PUBLIC_API_ORIGIN`: the backend the app calls.
  public var apiOrigin: Sourced<String>
  /// `MOBILE_DEV_SERVER_URL`.
  public var devServerURL: Sourced<String>?
  /// `MOBILE_ALLOW_CLEARTEXT_FOR_DEV`.
  public var allowCleartextForDev: Sourced<Bool>?
  /// `MOBILE_OTA_SIGNING_PUBLIC_KEY_B64` inlined by Vite.
  public var otaPublicKey: Sourced<String>?
  /// `MOBILE_OTA_CHANNEL`: where `ota-publish` targets.
  public var otaChannel: Sourced<String>?
  /// `MOBILE_OTA_SIGNING_PRIVATE_KEY_B64`, when the app's test env provides one.
  public var otaPrivateKey: Sourced<String>?
  /// Whether this is a Vite dev build (`import.meta.env.DEV`).
  public var isDevBuild: Bool
  /// The env files these settings were read from, in order.
  public var envFiles: [String] = []

  public init(apiOrigin: Sourced<String>, isDevBuild: Bool) {
    self.apiOrigin = apiOrigin
    self.isDevBuild = isDevBuild
  }
}
