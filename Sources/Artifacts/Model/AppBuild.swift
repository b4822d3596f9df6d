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
  /// What the build of its kind of shell says beyond the common fields: the kind and its
  /// settings are one value, so a build cannot be of one kind with another kind's settings.
  public var parts: ShellParts
  /// The app's short name (`messages`).
  public var name: String
  /// The name reports show.
  public var displayName: String
  /// The bundle id / application id the native build resolves (build variables, xcconfig,
  /// Gradle), with where it came from.
  public var appId: Sourced<String>
  /// The `appId` `cap sync` wrote into this platform's `capacitor.config.json`.
  public var syncedAppId: Sourced<String>?
  /// The deep-link scheme the app's login/logout flows return on (`AUTH_CALLBACK_SCHEME`); nil
  /// for a kind whose login never leaves the app (a session contract, a hybrid site).
  public var callbackScheme: Sourced<String>?
  /// Schemes registered natively: `CFBundleURLTypes` (iOS) or intent-filters (Android), as
  /// the build resolves them.
  public var registeredSchemes: [Sourced<String>]
  /// Schemes declared natively where the system browser cannot deliver them (an Android
  /// intent-filter without `BROWSABLE`, on an activity that is not exported).
  public var undeliverableSchemes: [UndeliverableScheme] = []
  /// The synced Capacitor config; nil for a kind that is not a Capacitor app.
  public var capacitor: CapacitorConfig?
  public var transport: TransportSettings
  public var authSession: AuthSessionSettings
  public var push: PushShellSettings
  public var guards: BuildGuardSettings
  public var frontend: FrontendSettings
  /// Android: the activity the launcher starts (`MAIN` + `LAUNCHER`), nil when none is; and
  /// the manifest it was looked for in (nil when no manifest was read).
  public var launcherActivity: Sourced<String>?
  public var manifestFile: String?
  /// iOS: the bundle keys of the built Info.plist (`BundleInfo`); nil on Android or when no
  /// Info.plist was read.
  public var bundleInfo: BundleInfo?
  /// How the app orders OTA releases (`AppProfile.otaOrdering`).
  public var otaOrdering = "count"
  /// The store version and build number (`StoreVersion`), nil when no file declares them.
  public var storeVersion: StoreVersion?
  /// The files this build was read from, by artifact name (`ios.infoPlist` → path).
  public var files: [String: String]
  /// Whether the build enables OTA and push, and what the profile says about them.
  public var features = FeatureStates()
  /// Whether the channel's env came from files of its own or fell back to dev defaults.
  public var environment = ChannelEnvironment()
  /// The usernames the scenarios' `first`, `second`, `third` users are bound to.
  public var testUsers: [String] = []
  /// The built web bundle the shell serves, where a real engine reads it (nil: not read).
  public var webBundle: WebBundle?
  /// The OTA client's refusals as its `ota.ts` writes them (nil: no such file was read).
  public var otaClient: OTAClientCode?

  /// The kind of shell (qualify.json `shell`): which guards and scenarios apply.
  public var shell: ShellKind { parts.kind }

  /// The backend a single-origin app talks to, as its env files configure it; nil for other
  /// kinds (their servers are their packs' own). Setting it on another kind does nothing.
  public var backend: BackendSettings? {
    get { if case .singleOrigin(let settings) = parts { settings.backend } else { nil } }
    set {
      guard case .singleOrigin(var settings) = parts, let newValue else { return }
      settings.backend = newValue
      parts = .singleOrigin(settings)
    }
  }

  /// The Keycloak realm export configuring a single-origin app's dev IdP, when it has one.
  public var realm: RealmSettings? {
    get { if case .singleOrigin(let settings) = parts { settings.realm } else { nil } }
    set {
      guard case .singleOrigin(var settings) = parts else { return }
      settings.realm = newValue
      parts = .singleOrigin(settings)
    }
  }

  /// Which IdP profile serves a single-origin app on this channel (`keycloak-dev`,
  /// `proconnect`); nil for other kinds.
  public var identityProvider: String? {
    if case .singleOrigin(let settings) = parts { settings.identityProvider } else { nil }
  }

  /// What a multi-instance shell's build says; nil for other kinds. Setting it makes the
  /// build a multi-instance one.
  public var instanceShell: InstanceShellSettings? {
    get { if case .multiInstance(let settings) = parts { settings } else { nil } }
    set { if let newValue { parts = .multiInstance(newValue) } }
  }

  /// What a hybrid WebView app's build and site say; nil for other kinds.
  public var hybrid: HybridShellSettings? {
    get { if case .hybridWebView(let settings) = parts { settings } else { nil } }
    set { if let newValue { parts = .hybridWebView(newValue) } }
  }

  /// What a React Native bridge shell's build and code say; nil for other kinds.
  public var bridge: BridgeShellSettings? {
    get { if case .reactNativeBridge(let settings) = parts { settings } else { nil } }
    set { if let newValue { parts = .reactNativeBridge(newValue) } }
  }

  /// A session-contract app (seed 002): how long in the background makes it reload its
  /// bootstrap on return, in seconds; nil for other kinds.
  public var sessionForegroundReload: Double? {
    if case .sessionContract(let settings) = parts { settings.foregroundReload } else { nil }
  }

  /// A session-contract app's own client code; nil for other kinds.
  public var sessionClient: SessionClientCode? {
    get { if case .sessionContract(let settings) = parts { settings.client } else { nil } }
    set {
      if case .sessionContract(var settings) = parts, let newValue {
        settings.client = newValue
        parts = .sessionContract(settings)
      }
    }
  }

  /// Whether `scheme` is registered natively.
  public func registers(scheme: String) -> Bool {
    registeredSchemes.contains { $0.value.lowercased() == scheme.lowercased() }
  }

  /// `path:line` of the first scheme registration read from a file (Info.plist's
  /// CFBundleURLTypes, the manifest's intent filter), nil when none was.
  public var schemeRegistry: String? {
    registeredSchemes.first { $0.location != nil }?.origin
  }
}

/// A scheme declared natively that the system browser cannot hand back to the app.
public struct UndeliverableScheme: Sendable {
  public var scheme: Sourced<String>
  public var reason: String
}

/// Whether an optional feature is on in the build, what decides it, and what the profile says.
public struct FeatureState: Sendable {
  public var enabled: Bool
  public var use: AppProfile.FeatureUse
  /// The setting that decides it (`MOBILE_OTA_MANIFEST_URL is unset in deploy/env/…`).
  public var decidedBy: String
  /// Whether `use` is the profile's (`features` in qualify.json) rather than the kind's
  /// (a kind of shell that has no such feature at all).
  public var declaredByProfile = false

  public init(enabled: Bool, use: AppProfile.FeatureUse, decidedBy: String) {
    self.enabled = enabled
    self.use = use
    self.decidedBy = decidedBy
  }
}

public struct FeatureStates: Sendable {
  public var ota = FeatureState(enabled: true, use: .auto, decidedBy: "")
  public var push = FeatureState(enabled: false, use: .auto, decidedBy: "")
  public var deepLinks = FeatureState(enabled: true, use: .auto, decidedBy: "")
  public var deviceBridge = FeatureState(
    enabled: false, use: .unused, decidedBy: "no device bridge in this kind of app")

  public init() {}

  public subscript(feature: AppProfile.Feature) -> FeatureState {
    get {
      switch feature {
      case .ota: ota
      case .push: push
      case .deepLinks: deepLinks
      case .deviceBridge: deviceBridge
      }
    }
    set {
      switch feature {
      case .ota: ota = newValue
      case .push: push = newValue
      case .deepLinks: deepLinks = newValue
      case .deviceBridge: deviceBridge = newValue
      }
    }
  }
}

/// Where a channel's env came from.
public struct ChannelEnvironment: Sendable {
  public enum Supply: Sendable, Equatable {
    /// At least one file of the channel's own (or given on the command line).
    case supplied
    /// Only files the dev channel shares (`*.defaults`): nothing says what this channel runs.
    case fallback
  }

  public var backend: Supply = .supplied
  public var frontend: Supply = .supplied
  /// Whether qualify.json's `channels` can list the channel's files (seed 000's reader);
  /// other kinds take a pipeline's env on the command line only.
  public var profileListsFiles = true
  /// The files read, in order.
  public var backendFiles: [String] = []
  public var frontendFiles: [String] = []

  public init() {}

  /// A sentence for the run's header when the channel fell back, nil otherwise.
  public func fallbackWarning(channel: Channel) -> String? {
    var parts: [String] = []
    func read(_ files: [String]) -> String {
      files.isEmpty ? "no file is committed" : "only \(files.joined(separator: ", "))"
    }
    var options: [String] = []
    if backend == .fallback {
      parts.append("backend env (\(read(backendFiles)))")
      options.append("--backend-env")
    }
    if frontend == .fallback {
      parts.append("frontend env (\(read(frontendFiles)))")
      options.append("--frontend-env")
    }
    guard !parts.isEmpty else { return nil }
    let listed = profileListsFiles ? " or under channels.\(channel.rawValue) in qualify.json" : ""
    return
      "no \(channel.rawValue) env was supplied for the \(parts.joined(separator: " and ")): those are dev defaults, so the checks that read them are not applicable — give the release env with \(options.joined(separator: "/"))\(listed)"
  }
}

/// The synced `capacitor.config.json` of one platform.
public struct CapacitorConfig: Sendable {
  public var file: String
  /// `appId`: the identity `cap sync` wrote (the native build must resolve the same one).
  public var appId: Sourced<String>?
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
  /// The keys of `plugins`: the plugin each block of settings is for.
  public var pluginKeys: [Sourced<String>] = []
  /// `packageClassList`: the plugin classes `cap sync` found installed (nil when the synced
  /// file has none, as before Capacitor 5).
  public var packageClassList: [String]?
  /// The whole config as `cap sync` writes it, for the native builds that read it back
  /// (Gradle's `versionName` from its `appVersion`).
  public var synced: JSONValue?

  public init(file: String) {
    self.file = file
  }

  /// A line of the synced file, for a finding about a key it lacks.
  public func location(line: Int) -> FileLocation {
    FileLocation(file: file, line: line, column: 1)
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
  /// Android `android:usesCleartextTraffic` as the manifest declares it.
  public var usesCleartextTraffic: Sourced<Bool>?
  /// Capacitor's `server.cleartext` (Android: merged into the manifest as
  /// `usesCleartextTraffic`), with where it came from.
  public var capacitorCleartext: Sourced<Bool>?

  /// Android: the network security config the shipped manifest names
  /// (`android:networkSecurityConfig`), read as Android applies it.
  public var networkSecurityConfig: NetworkSecurityConfig?
  /// Android: whether the build is debuggable (the debug build type, the build type's
  /// `debuggable true`, or `android:debuggable="true"`): only then do `debug-overrides` apply.
  public var debuggable = false
  /// Android: what makes a release build debuggable (`debuggable true` in build.gradle's
  /// release block, or the manifest's attribute), with where it is written; nil otherwise.
  public var releaseDebuggable: Sourced<String>?
  /// Android: a release build type's `debuggable` that qualify cannot evaluate.
  public var unreadDebuggable: Sourced<String>?
  /// Android: `targetSdkVersion` as the build sets it (variables.gradle), nil when unread.
  public var targetSdk: Int?

  /// What Android allows when nothing says: cleartext below targetSdk 28 (Android 9), none
  /// from 28 on. An unread target is taken as a current one.
  public var androidPlatformCleartextDefault: Bool { (targetSdk ?? 28) < 28 }

  /// Whether Android lets the app speak plain HTTP to `host`, and what decided: Capacitor's
  /// `server.cleartext`, else the network security config when there is one (Android 7+
  /// ignores `usesCleartextTraffic` then), else the manifest attribute, else the platform's
  /// default.
  public func androidCleartext(host: String) -> Sourced<Bool> {
    if let capacitor = capacitorCleartext, capacitor.value { return capacitor }
    if let config = networkSecurityConfig {
      return config.cleartextPermitted(host: host, platformDefault: androidPlatformCleartextDefault)
    }
    if let attribute = usesCleartextTraffic { return attribute }
    return Sourced(
      androidPlatformCleartextDefault, at: nil,
      derivation: [
        "no usesCleartextTraffic and no network security config: targetSdk \(targetSdk.map(String.init) ?? "unread")'s default applies"
      ])
  }

  public init() {}
}

/// How the app opens its login and logout flows in the system browser.
public struct AuthSessionSettings: Sendable {
  /// The iOS plugin's `prefersEphemeralWebBrowserSession` value (nil when not found).
  public var prefersEphemeral: Sourced<Bool>?
  /// Whether the iOS auth-session plugin is registered on the bridge the app really shows:
  /// the registration is compiled into this build, and the root view controller (set by the
  /// scene delegate, or the storyboard) is the class that registers it.
  public var pluginRegistered: Sourced<Bool>?
  /// Why the registration does not count, when it does not.
  public var registrationProblem: String?
  /// `ASWebAuthenticationSession` (the plugin) or `SFSafariViewController` (the default
  /// Browser plugin a "simplification" falls back to).
  public var usesWebAuthenticationSession: Bool = true
  /// `nativeLogout()` as the web code writes it (`web.auth`), nil when the app ships no such
  /// file: the simulated logout then takes seed 000's steps, every one of them.
  public var nativeLogout: NativeLogoutFlow?
  /// The query parameter the web code's login reads the one-time token from, in the callback
  /// URL the browser hands back (`new URL(callbackUrl).searchParams.get("token")`); nil when
  /// the app ships no `auth.ts`: seed 000's `token` is then taken.
  public var callbackParameter: Sourced<String>?

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
  /// The line of each key, by locale.
  public var bannerLines: [String: [String: Int]] = [:]
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
  /// Why the Android guard does not guard, when it does not (it tests a key `cap sync`
  /// never writes, or never throws).
  public var androidReleaseGuardProblem: String?
  /// iOS: the "Strip dev ATS exception" build phase removes ATS from this configuration.
  public var iosStripATSPhase: Sourced<Bool>?
  /// Why the strip phase does not strip, when it does not (it runs only in Debug).
  public var iosStripATSProblem: String?

  public init() {}
}

/// The frontend build env of a channel (what `cap sync` and Vite inline).
public struct FrontendSettings: Sendable {
  /// `NEXT_PUBLIC_API_ORIGIN`: the backend the app calls.
  public var apiOrigin: Sourced<String>
  /// The app's own `NEXT_PUBLIC_API_ORIGIN` when a run re-points the build at a real backend
  /// (`--stack`): what the static guards judge.
  public var ownAPIOrigin: Sourced<String>?
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

/// One kind of shell's own part of a build: a case a kind (`ShellKind.all`), each with the
/// settings only that kind has.
public enum ShellParts: Sendable {
  /// Seed 000: a Capacitor app of one web app, its backend and its OpenID provider.
  case singleOrigin(SingleOriginSettings)
  /// Seed 004: a shell of instances the user adds.
  case multiInstance(InstanceShellSettings)
  /// Seed 002: a client of a first-party session contract.
  case sessionContract(SessionContractSettings)
  /// Seed 003: native WebView containers around a server-rendered site.
  case hybridWebView(HybridShellSettings)
  /// Seed 001: a React Native shell on a versioned bridge.
  case reactNativeBridge(BridgeShellSettings)

  public var kind: ShellKind {
    switch self {
    case .singleOrigin: .singleOrigin
    case .multiInstance: .multiInstance
    case .sessionContract: .sessionContract
    case .hybridWebView: .hybridWebView
    case .reactNativeBridge: .reactNativeBridge
    }
  }
}

/// What a single-origin app's env and realm say of the systems it signs in with (seed 000).
public struct SingleOriginSettings: Sendable {
  /// The backend the build talks to, as its env files configure it.
  public var backend: BackendSettings
  /// The Keycloak realm export configuring the dev IdP, when the app has one.
  public var realm: RealmSettings?
  /// Which IdP profile serves this channel (`keycloak-dev`, `proconnect`).
  public var identityProvider: String

  public init(backend: BackendSettings, realm: RealmSettings?, identityProvider: String) {
    self.backend = backend
    self.realm = realm
    self.identityProvider = identityProvider
  }
}

/// What a session-contract app's profile says of its client (seed 002).
public struct SessionContractSettings: Sendable, Equatable {
  /// How long in the background makes the app reload its bootstrap on return, in seconds.
  public var foregroundReload: Double
  /// What the app's own client code does about the contract's client rules.
  public var client = SessionClientCode()

  public init(foregroundReload: Double) { self.foregroundReload = foregroundReload }
}
