import Foundation
import QualifyCore

/// `qualify.json` at the app root: where the platform files are when they are not at the
/// Capacitor conventional paths, the app's identity, its channels and their env files.
/// Documented in docs/app-profile.md.
public struct AppProfile: Sendable {
  public struct ChannelFiles: Sendable {
    public var backendEnv: [String]
    public var frontendEnv: [String]
    public var identityProvider: String
  }

  public var name: String
  public var appId: String?
  public var callbackScheme: String?
  /// Artifact name → path relative to the app root.
  public var paths: [String: String]
  public var channels: [Channel: ChannelFiles]
  public var bannerKeys: [String]
  public var locales: [String]
  /// Another app directory this one overlays: files not found here are read from there.
  public var base: String?

  /// The Capacitor conventional layout.
  public static let conventionalPaths: [String: String] = [
    "ios.infoPlist": "ios/App/App/Info.plist",
    "ios.capacitorConfig": "ios/App/App/capacitor.config.json",
    "ios.entitlements": "ios/App/App/App.entitlements",
    "ios.authPlugin": "ios/App/App/WebAuthSessionPlugin.swift",
    "ios.viewController": "ios/App/App/MainViewController.swift",
    "ios.project": "ios/App/App.xcodeproj/project.pbxproj",
    "ios.strings.en": "ios/App/App/en.lproj/Localizable.strings",
    "ios.strings.fr": "ios/App/App/fr.lproj/Localizable.strings",
    "android.manifest": "android/app/src/main/AndroidManifest.xml",
    "android.capacitorConfig": "android/app/src/main/assets/capacitor.config.json",
    "android.googleServices": "android/app/google-services.json",
    "android.buildGradle": "android/app/build.gradle",
    "android.strings.en": "android/app/src/main/res/values/strings.xml",
    "android.strings.fr": "android/app/src/main/res/values-fr/strings.xml",
    "realm": "keycloak/realm.json",
  ]

  /// Every artifact name the profile's `paths` accepts.
  public static var artifactNames: [String] { conventionalPaths.keys.sorted() }

  public static let defaultBannerKeys = ["push_new_message_title", "push_new_message_body"]

  /// The profile of an app directory without a `qualify.json`.
  public static func conventional(name: String) -> AppProfile {
    var channels: [Channel: ChannelFiles] = [:]
    for channel in Channel.allCases {
      channels[channel] = ChannelFiles(
        backendEnv: ["deploy/env/backend.defaults", "deploy/env/backend.\(channel.rawValue)"],
        frontendEnv: ["deploy/env/frontend.defaults", "deploy/env/frontend.\(channel.rawValue)"],
        identityProvider: channel == .dev ? "keycloak-dev" : "proconnect")
    }
    return AppProfile(
      name: name, appId: nil, callbackScheme: nil, paths: conventionalPaths, channels: channels,
      bannerKeys: defaultBannerKeys, locales: ["en", "fr"], base: nil)
  }

  /// The identity-provider profiles the mock IdP implements.
  public static let identityProviders = ["keycloak-dev", "proconnect"]

  /// Reads `qualify.json`; every unknown key or wrong type is a diagnostic.
  public static func parse(text: String, file: String, directoryName: String) throws -> AppProfile {
    let document = try JSONDocument(text: text, file: file).value
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
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
    var profile = conventional(name: directoryName)
    let known = [
      "name", "appId", "callbackScheme", "paths", "channels", "push", "base", "$comment",
    ]
    for member in members where !known.contains(member.key) {
      report(
        member.line, "unknown key \"\(member.key)\"",
        hint: Suggestions.closest(to: member.key, among: known).map { "did you mean \"\($0)\"?" })
    }
    func string(_ key: String) -> String? {
      guard let value = document[key] else { return nil }
      guard let s = value.string else {
        report(document.line(of: key), "\"\(key)\" must be a string")
        return nil
      }
      return s
    }
    if let name = string("name") { profile.name = name }
    profile.appId = string("appId")
    profile.callbackScheme = string("callbackScheme")
    profile.base = string("base")
    if let paths = document["paths"] {
      for member in paths.members ?? [] {
        guard
          AppProfile.conventionalPaths[member.key] != nil || member.key.hasPrefix("ios.strings.")
            || member.key.hasPrefix("android.strings.")
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
          ?? ChannelFiles(backendEnv: [], frontendEnv: [], identityProvider: "keycloak-dev")
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
      if let keys = push["bannerKeys"]?.array?.compactMap(\.string) { profile.bannerKeys = keys }
      if let locales = push["locales"]?.array?.compactMap(\.string) { profile.locales = locales }
    }
    if !diagnostics.isEmpty {
      throw InputError("\(file) is not a valid app profile", diagnostics: diagnostics)
    }
    return profile
  }
}
