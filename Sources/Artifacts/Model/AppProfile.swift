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
  }

  /// A `.xcconfig` the build writes from its environment (seed 000's `generated.xcconfig`,
  /// written by `make mobile-build`), so qualify writes it the same way for each channel.
  public struct GeneratedXcconfig: Sendable {
    /// Relative to the app root.
    public var path: String
    /// Setting → expression over the build environment (`$(MOBILE_AUTH_SCHEME:default=x)`).
    public var settings: [(key: String, expression: String)]
    public var location: FileLocation?
  }

  public var name: String
  /// The kind of shell the app is (`shell`): which readers, guards, scenarios and checklist
  /// apply.
  public var shell: ShellKind = .singleOrigin
  /// The URL scheme a multi-instance shell opens deep links on (`deepLinkScheme`,
  /// `sovereign://<host>/<path>`).
  public var deepLinkScheme: String?
  /// A hybrid WebView app's site and link settings (`hybrid`).
  public var hybrid: HybridProfile?
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
    let document = try JSONDocument(text: text, file: file).value
    let lines = TextLines.split(text)
    var diagnostics: [Diagnostic] = []
    func report(_ line: Int?, _ message: String, hint: String? = nil) {
      let l = line ?? 1
      diagnostics.append(
        .error(
          at: FileLocation(file: file, line: l, column: 1), message, hint: hint,
          sourceLine: l - 1 < lines.count ? lines[l - 1] : nil))
    }
    guard let members = document.members else {
      throw Diagnostic.error(
        at: FileLocation(file: file, line: 1, column: 1), "qualify.json must be a JSON object")
    }
    let known = [
      "name", "displayName", "appId", "callbackScheme", "callbackSchemeVariable",
      "capacitorRoot", "paths", "channels", "push", "testUsers", "features", "ios", "base",
      "shell", "deepLinkScheme", "session", "hybrid", "ota", "$comment",
    ]
    for member in members where !known.contains(member.key) {
      report(
        member.line, "unknown key \"\(member.key)\"",
        hint: Suggestions.closest(to: member.key, among: known).map { "did you mean \"\($0)\"?" })
    }
    func string(_ value: JSONValue?, _ key: String, line: Int?) -> String? {
      guard let value else { return nil }
      guard let s = value.string else {
        report(line, "\"\(key)\" must be a string")
        return nil
      }
      return s
    }
    func strings(_ value: JSONValue?, _ key: String, line: Int?) -> [String]? {
      guard let value else { return nil }
      guard let items = value.array, items.allSatisfy({ $0.string != nil }) else {
        report(line, "\"\(key)\" must be a list of strings")
        return nil
      }
      return items.compactMap(\.string)
    }
    func top(_ key: String) -> String? {
      string(document[key], key, line: document.line(of: key))
    }
    let declaredRoot = top("capacitorRoot")
    let root = declaredRoot ?? inheriting?.capacitorRoot ?? detected
    var profile = inheriting ?? conventional(name: directoryName, capacitorRoot: root)
    if let declaredRoot, inheriting != nil {
      // Conventional paths follow a root the overlay moves.
      let old = profile.rootedConventionalPaths
      profile.capacitorRoot = declaredRoot
      let new = profile.rootedConventionalPaths
      for (key, path) in old where profile.paths[key] == path { profile.paths[key] = new[key] }
    }
    profile.file = file
    profile.keyLines = [:]
    for member in members { profile.keyLines[member.key] = member.line }
    if let name = top("name") { profile.name = name }
    if let id = top("shell") {
      if let kind = ShellKind.named(id) {
        profile.shell = kind
      } else {
        report(
          document.line(of: "shell"), "unknown shell kind \"\(id)\"",
          hint: "shell kinds are \(ShellKind.all.map(\.id).joined(separator: ", "))")
      }
    }
    if let scheme = top("deepLinkScheme") { profile.deepLinkScheme = scheme }
    if let ota = document["ota"] {
      for member in ota.members ?? [] where member.key != "ordering" {
        report(member.line, "unknown key \"\(member.key)\" in ota", hint: "ota has ordering")
      }
      if let ordering = string(ota["ordering"], "ota.ordering", line: ota.line(of: "ordering")) {
        if AppProfile.otaOrderings.contains(ordering) {
          profile.otaOrdering = ordering
        } else {
          report(
            ota.line(of: "ordering"), "ota.ordering must be count or sequence, not \"\(ordering)\"",
            hint:
              "count: <count>-<sha> ids ordered by their count (seed 000); sequence: the manifest's sequence orders releases (bare commit ids)"
          )
        }
      }
    }
    if let session = document["session"] {
      for member in session.members ?? [] where !["api", "foregroundReload"].contains(member.key) {
        report(
          member.line, "unknown key \"\(member.key)\" in session",
          hint: "session has api and foregroundReload")
      }
      profile.sessionAPI = string(session["api"], "session.api", line: session.line(of: "api"))
      if let text = string(
        session["foregroundReload"], "session.foregroundReload",
        line: session.line(of: "foregroundReload"))
      {
        if let seconds = Durations.parse(text) {
          profile.sessionForegroundReload = seconds
        } else {
          report(
            session.line(of: "foregroundReload"),
            "\"session.foregroundReload\" must be a duration such as 10m")
        }
      }
    }
    if let hybrid = document["hybrid"] {
      let keys = [
        "webOrigin", "links", "settingsLink", "releaseCertificate", "debugCertificate", "backend",
      ]
      for member in hybrid.members ?? [] where !keys.contains(member.key) {
        report(
          member.line, "unknown key \"\(member.key)\" in hybrid",
          hint: Suggestions.closest(to: member.key, among: keys).map { "did you mean \"\($0)\"?" }
            ?? "hybrid has \(keys.joined(separator: ", "))")
      }
      var settings = HybridProfile()
      func value(_ key: String) -> String? {
        string(hybrid[key], "hybrid.\(key)", line: hybrid.line(of: key))
      }
      settings.webOrigin = value("webOrigin")
      settings.links =
        strings(hybrid["links"], "hybrid.links", line: hybrid.line(of: "links")) ?? []
      for link in settings.links where !link.hasPrefix("/") {
        report(
          hybrid.line(of: "links"), "\"hybrid.links\" holds paths of the site, not \(link)",
          hint: "write them as /booking/123")
      }
      settings.settingsLink = value("settingsLink")
      settings.releaseCertificate = value("releaseCertificate")
      settings.debugCertificate = value("debugCertificate")
      settings.backend = value("backend") ?? settings.backend
      for key in keys { settings.lines[key] = hybrid.line(of: key) }
      profile.hybrid = settings
    }
    if let displayName = top("displayName") { profile.displayName = displayName }
    if let appId = top("appId") { profile.appId = appId }
    if let scheme = top("callbackScheme") { profile.callbackScheme = scheme }
    if let variable = top("callbackSchemeVariable") { profile.callbackSchemeVariable = variable }
    profile.base = top("base") ?? profile.base
    if let paths = document["paths"] {
      for member in paths.members ?? [] {
        guard
          AppProfile.conventionalPaths[member.key] != nil || member.key == "realm"
            || member.key.hasPrefix("ios.strings.") || member.key.hasPrefix("android.strings.")
        else {
          report(
            member.line, "unknown artifact \"\(member.key)\"",
            hint: Suggestions.closest(to: member.key, among: artifactNames).map {
              "did you mean \"\($0)\"?"
            }
              ?? "known artifacts: \(artifactNames.joined(separator: ", "))")
          continue
        }
        guard let path = member.value.string else {
          report(member.line, "the path of \"\(member.key)\" must be a string")
          continue
        }
        profile.paths[member.key] = path
        profile.keyLines["paths.\(member.key)"] = member.line
      }
    }
    if let channels = document["channels"] {
      for member in channels.members ?? [] {
        guard let channel = Channel(rawValue: member.key) else {
          report(
            member.line, "unknown channel \"\(member.key)\"",
            hint: "channels are dev, staging and prod")
          continue
        }
        var files =
          profile.channels[channel]
          ?? ChannelFiles(
            backendEnv: [], frontendEnv: [], identityProvider: "keycloak-dev", declared: true)
        files.declared = true
        for field in member.value.members ?? [] {
          switch field.key {
          case "backendEnv", "frontendEnv":
            let list = field.value.string.map { [$0] } ?? field.value.array?.compactMap(\.string)
            guard let list else {
              report(field.line, "\"\(field.key)\" must be a path or a list of paths")
              continue
            }
            if field.key == "backendEnv" {
              files.backendEnv = list
            } else {
              files.frontendEnv = list
            }
          case "idp":
            guard let idp = field.value.string, identityProviders.contains(idp) else {
              report(
                field.line, "unknown identity provider profile",
                hint: "use one of: \(identityProviders.joined(separator: ", "))")
              continue
            }
            files.identityProvider = idp
          default:
            report(
              field.line, "unknown channel setting \"\(field.key)\"",
              hint: "use backendEnv, frontendEnv or idp")
          }
        }
        profile.channels[channel] = files
      }
    }
    if let push = document["push"] {
      for member in push.members ?? [] {
        switch member.key {
        case "bannerKeys":
          // One list for both platforms, or one per platform (iOS and Android apps usually
          // name their banner keys differently: NEW_MESSAGE vs new_message_title).
          if member.value.array != nil {
            if let list = strings(member.value, "push.bannerKeys", line: member.line) {
              for platform in Platform.allCases { profile.bannerKeys[platform] = list }
            }
          } else if let perPlatform = member.value.members {
            for entry in perPlatform {
              guard let platform = Platform(rawValue: entry.key) else {
                report(entry.line, "unknown platform \"\(entry.key)\"", hint: "use ios or android")
                continue
              }
              if let list = strings(entry.value, "push.bannerKeys.\(entry.key)", line: entry.line) {
                profile.bannerKeys[platform] = list
              }
            }
          } else {
            report(
              member.line,
              "\"push.bannerKeys\" must be a list of loc-keys, or one list per platform ({\"ios\": [...], \"android\": [...]})"
            )
          }
          profile.keyLines["push.bannerKeys"] = member.line
        case "locales":
          if let list = strings(member.value, "push.locales", line: member.line) {
            profile.locales = list
          }
        default:
          report(
            member.line, "unknown push setting \"\(member.key)\"", hint: "use bannerKeys or locales"
          )
        }
      }
    }
    if let users = strings(document["testUsers"], "testUsers", line: document.line(of: "testUsers"))
    {
      profile.testUsers = users
    }
    if let features = document["features"] {
      for member in features.members ?? [] {
        guard let feature = Feature(rawValue: member.key) else {
          report(
            member.line, "unknown feature \"\(member.key)\"",
            hint: "features are \(Feature.allCases.map(\.rawValue).joined(separator: ", "))")
          continue
        }
        if member.value.string == "auto" {
          profile.features[feature] = .auto
          continue
        }
        guard let used = member.value.bool else {
          report(
            member.line,
            "feature \"\(member.key)\" must be true (used), false (not used) or \"auto\" (as the build says)"
          )
          continue
        }
        profile.features[feature] = used ? .used : .unused
        profile.keyLines["features.\(member.key)"] = member.line
      }
    }
    if let ios = document["ios"] {
      // An overlay that says "ios" without a generated xcconfig reads the one on disk.
      profile.generatedXcconfig = nil
      for member in ios.members ?? [] {
        guard member.key == "generatedXcconfig" else {
          report(
            member.line, "unknown ios setting \"\(member.key)\"", hint: "use generatedXcconfig")
          continue
        }
        guard let path = member.value["path"]?.string,
          let settings = member.value["settings"]?.members
        else {
          report(
            member.line,
            "\"generatedXcconfig\" needs \"path\" (relative to the Capacitor root) and \"settings\" (setting → expression)"
          )
          continue
        }
        var pairs: [(key: String, expression: String)] = []
        for setting in settings {
          guard let expression = setting.value.string else {
            report(setting.line, "the expression of \"\(setting.key)\" must be a string")
            continue
          }
          pairs.append((key: setting.key, expression: expression))
        }
        profile.generatedXcconfig = GeneratedXcconfig(
          path: XcodeProject.join(root, path), settings: pairs,
          location: FileLocation(file: file, line: member.line, column: 1))
      }
    }
    if !diagnostics.isEmpty {
      throw InputError("\(file) is not a valid app profile", diagnostics: diagnostics)
    }
    return profile
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
