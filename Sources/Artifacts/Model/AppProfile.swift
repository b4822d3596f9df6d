import Foundation
import QualifyCore

/// `qualify.json` at the app root: where the Capacitor project and the platform files are
/// when they are not at the conventional paths, the app's identity, its channels and their
/// env files, its test users and the features it uses. Documented in docs/app-profile.md.
public struct AppProfile: Sendable {
  public struct ChannelFiles: Sendable {
    public var backendEnv: [String]
    public var frontendEnv: [String]
    public var identityProvider: String
    /// Whether `qualify.json` declares the channel (rather than the conventional defaults).
    public var declared: Bool
  }

  /// Whether the app uses an optional feature of seed 000's shell.
  public enum FeatureUse: String, Sendable {
    /// Decided by the build: a feature the build does not enable is "not applicable", and the
    /// run is then partial (nobody said the feature is unused).
    case auto
    /// The app ships it: a build that does not enable it fails.
    case used
    /// The app does not use it: its checks are "not applicable" and the run can qualify.
    case unused
  }

  public enum Feature: String, Sendable, CaseIterable {
    case ota, push
    /// A multi-instance shell's deep links (`sovereign://<host>/<path>`).
    case deepLinks
    /// The native capabilities a multi-instance shell gives a loaded instance
    /// (`sovereignBridge`).
    case deviceBridge

    /// How the scenario language names it (`requires deep-links`).
    public var word: String {
      switch self {
      case .deepLinks: "deep-links"
      case .deviceBridge: "device-bridge"
      default: rawValue
      }
    }
    /// How messages name it.
    public var title: String {
      switch self {
      case .ota: "OTA"
      case .push: "push"
      case .deepLinks: "deep links"
      case .deviceBridge: "device bridge"
      }
    }
  }

  /// A `.xcconfig` the build writes from its environment (seed 000's `generated.xcconfig`,
  /// written by `make mobile-build`), so qualify writes it the same way for each channel.
  public struct GeneratedXcconfig: Sendable {
    /// Relative to the app root.
    public var path: String
    /// Setting → expression over the build environment (`$(MOBILE_AUTH_SCHEME:default=x)`).
    public var settings: [(key: String, expression: String)]
    /// Setting → key path of the synced `capacitor.config.json` it copies (`appVersion`), as
    /// seed 000's script copies the synced `appVersion` into `MOBILE_VERSION_NAME`.
    public var syncedSettings: [(key: String, path: String)] = []
    public var location: FileLocation?
  }

  public var name: String
  /// The kind of shell the app is (`shell`): which readers, guards, scenarios and checklist
  /// apply.
  public var shell: ShellKind = .default
  /// The URL scheme a multi-instance shell opens deep links on (`deepLinkScheme`,
  /// `sovereign://<host>/<path>`).
  public var deepLinkScheme: String?
  /// A hybrid WebView app's site and link settings (`hybrid`).
  public var hybrid: HybridProfile?
  /// Where the app keeps a part its kind's reader looks for (`parts`: `handoffServer` →
  /// `apps/api/src/services`), with the line that says so.
  public var parts: [String: Sourced<String>] = [:]
  /// A session-contract app's backend API origin (`session.api`).
  public var sessionAPI: String?
  /// How long in the background makes the app reload its bootstrap on return
  /// (`session.foregroundReload`, seconds).
  public var sessionForegroundReload: Double?
  /// How the app orders OTA releases (`ota.ordering`): `count`, seed 000's `<count>-<sha>`
  /// ids, or `sequence`, the channel manifest's release counter over bare commit ids.
  public var otaOrdering = "count"
  public static let otaOrderings = ["count", "sequence"]
  /// The name reports show (`displayName`, else `name`).
  public var displayName: String?
  public var appId: String?
  /// The callback scheme the app's code falls back to (`AUTH_CALLBACK_SCHEME`).
  public var callbackScheme: String?
  /// The build variable that overrides the callback scheme per environment.
  public var callbackSchemeVariable: String
  /// The folder holding `ios/` and `android/`, relative to the app root.
  public var capacitorRoot: String
  /// Artifact name → path relative to the app root.
  public var paths: [String: String]
  public var channels: [Channel: ChannelFiles]
  /// Push banner loc-keys per platform (iOS and Android name them differently).
  public var bannerKeys: [Platform: [String]]
  public var locales: [String]
  /// The users scenarios call `first`, `second`, `third`, by username or email.
  public var testUsers: [String]
  /// Where the app's built web bundle is and which page shows a thread (`render`), for the
  /// checks a real engine makes; nil when the profile says nothing.
  public var render: RenderProfile?
  public var features: [Feature: FeatureUse]
  public var generatedXcconfig: GeneratedXcconfig?
  /// Another app directory this one overlays: files not found here are read from there.
  public var base: String?
  /// The profile file, when there is one.
  public var file: String?
  /// Where each key of the profile is written, for findings about it.
  public var keyLines: [String: Int] = [:]

  /// The Capacitor conventional layout, relative to the Capacitor root.
  public static let conventionalPaths: [String: String] = [
    "ios.infoPlist": "ios/App/App/Info.plist",
    "web.auth": "src/features/native/auth.ts",
    "web.ota": "src/features/native/ota.ts",
    "ios.capacitorConfig": "ios/App/App/capacitor.config.json",
    "ios.entitlements": "ios/App/App/App.entitlements",
    "ios.authPlugin": "ios/App/App/WebAuthSessionPlugin.swift",
    "ios.viewController": "ios/App/App/MainViewController.swift",
    "ios.sceneDelegate": "ios/App/App/SceneDelegate.swift",
    "ios.appDelegate": "ios/App/App/AppDelegate.swift",
    "ios.storyboard": "ios/App/App/Base.lproj/Main.storyboard",
    "ios.project": "ios/App/App.xcodeproj/project.pbxproj",
    "ios.strings.en": "ios/App/App/en.lproj/Localizable.strings",
    "ios.strings.fr": "ios/App/App/fr.lproj/Localizable.strings",
    "android.manifest": "android/app/src/main/AndroidManifest.xml",
    "android.capacitorConfig": "android/app/src/main/assets/capacitor.config.json",
    "android.googleServices": "android/app/google-services.json",
    "android.buildGradle": "android/app/build.gradle",
    "android.variablesGradle": "android/variables.gradle",
    "android.gradleProperties": "android/gradle.properties",
    "android.strings.en": "android/app/src/main/res/values/strings.xml",
    "android.strings.fr": "android/app/src/main/res/values-fr/strings.xml",
  ]

  /// Where a realm export usually is, relative to the app root.
  public static let conventionalRealmPaths = ["keycloak/realm.json", "src/keycloak/realm.json"]

  /// Where a Capacitor project usually is, relative to the app root.
  public static let conventionalCapacitorRoots = [".", "src/frontend", "frontend", "mobile", "app"]

  /// Every artifact name the profile's `paths` accepts.
  public static var artifactNames: [String] { (conventionalPaths.keys + ["realm"]).sorted() }

  /// The identity-provider profiles the mock IdP implements.
  public static let identityProviders = ["keycloak-dev", "proconnect"]

  /// The profile of an app directory without a `qualify.json`.
  public static func conventional(name: String, capacitorRoot: String = ".") -> AppProfile {
    var channels: [Channel: ChannelFiles] = [:]
    for channel in Channel.allCases {
      channels[channel] = ChannelFiles(
        backendEnv: ["deploy/env/backend.defaults", "deploy/env/backend.\(channel.rawValue)"],
        frontendEnv: ["deploy/env/frontend.defaults", "deploy/env/frontend.\(channel.rawValue)"],
        identityProvider: channel == .dev ? "keycloak-dev" : "proconnect", declared: false)
    }
    var profile = AppProfile(
      name: name, displayName: nil, appId: nil, callbackScheme: nil,
      callbackSchemeVariable: "MOBILE_AUTH_SCHEME", capacitorRoot: capacitorRoot, paths: [:],
      channels: channels, bannerKeys: [:], locales: ["en", "fr"], testUsers: [],
      features: [.ota: .auto, .push: .auto], generatedXcconfig: nil, base: nil, file: nil)
    profile.paths = profile.rootedConventionalPaths
    profile.paths["realm"] = conventionalRealmPaths[0]
    return profile
  }

  /// The conventional platform paths below this profile's Capacitor root.
  var rootedConventionalPaths: [String: String] {
    AppProfile.conventionalPaths.mapValues { XcodeProject.join(capacitorRoot, $0) }
  }

  /// The name reports show.
  public var title: String { displayName ?? name }

  public func use(of feature: Feature) -> FeatureUse { features[feature] ?? .auto }

  /// The role names scenarios use for test users, in order.
  public static let userRoles = ["first", "second", "third"]

  /// Reads `qualify.json`; every unknown key or wrong type is a diagnostic.
  /// - Parameters:
  ///   - inheriting: the profile of the app this one overlays (its `base`): keys this file
  ///     does not set keep the base's values.
  ///   - detected: the Capacitor root found on disk, used when the file names none.
  public static func parse(
    text: String, file: String, directoryName: String, inheriting: AppProfile? = nil,
    capacitorRoot detected: String = "."
  ) throws -> AppProfile {
    var parser = try Parser(
      text: text, file: file, directoryName: directoryName, inheriting: inheriting,
      capacitorRoot: detected)
    return try parser.parse()
  }
}

/// `hybrid` in qualify.json: what a hybrid WebView app (seed 003) does not say in its own
/// files in a form qualify can read — the site its containers load, example links of the
/// paths it claims, and the signing certificates (public halves) its builds are signed with.
public struct HybridProfile: Sendable {
  /// The site's origin (`https://host`).
  public var webOrigin: String?
  /// Paths of the site that must open in the app (`/booking/123`).
  public var links: [String] = []
  /// The native link the page offers when notifications are denied.
  public var settingsLink: String?
  /// The PEM certificate release builds are signed with (the upload or app-signing key's).
  public var releaseCertificate: String?
  /// The PEM certificate debug builds are signed with, when the team shares one.
  public var debugCertificate: String?
  /// The backend's folder (Symfony: `public/.well-known/`, `.env`, `src/`).
  public var backend = "backend"
  /// The line of each key in qualify.json.
  public var lines: [String: Int] = [:]

  public init() {}
}

/// `render` in `qualify.json`: the built web bundle a real engine loads (checklist item 3).
public struct RenderProfile: Sendable, Equatable {
  /// The bundle's folder relative to the app root (default: `dist` under the Capacitor root,
  /// Capacitor's `webDir`).
  public var webDir: String?
  /// The page that shows a thread, with `{thread}` for its id (`/index.html#/thread/{thread}`);
  /// nil when the app has no thread view.
  public var threadPath: String?

  public init(webDir: String? = nil, threadPath: String? = nil) {
    self.webDir = webDir
    self.threadPath = threadPath
  }
}
