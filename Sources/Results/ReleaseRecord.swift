import Foundation
import QualifyCore

/// What was qualified, as a store and a release manager name it: the app's id, display name,
/// version and build number on each platform, the OTA bundle and channel when the run checked
/// one, and the commit of the sources. The report, JSON, JUnit, the summary and the
/// attestation all name the release from here.
public struct ReleaseRecord: Sendable, Codable, Equatable {
  /// One platform's store build.
  public struct Build: Sendable, Codable, Equatable {
    public var platform: Platform
    /// `CFBundleIdentifier` / `applicationId`.
    public var appId: String
    /// The name under the icon.
    public var displayName: String
    /// `CFBundleShortVersionString` / `versionName`, nil when qualify could not evaluate it.
    public var version: String?
    /// `CFBundleVersion` / `versionCode`, nil when qualify could not evaluate it.
    public var buildNumber: String?
    /// Where each value is written (`version` → `android/app/build.gradle:23`), and for a
    /// value not evaluated, why.
    public var sources: [String: String]

    public init(
      platform: Platform, appId: String, displayName: String, version: String?,
      buildNumber: String?, sources: [String: String] = [:]
    ) {
      self.platform = platform
      self.appId = appId
      self.displayName = displayName
      self.version = version
      self.buildNumber = buildNumber
      self.sources = sources
    }

    /// `iOS local.suitenumerique.messages 1.4.0 (41)`.
    public var text: String {
      "\(platform.displayName) \(appId) \(version ?? "?") (\(buildNumber ?? "?"))"
    }
  }

  /// The OTA bundle the run checked: the builtin bundle's stamp, the channel, and the live
  /// channel's manifest when it was a real one.
  public struct OTABundle: Sendable, Codable, Equatable {
    /// The builtin bundle's version (`CapacitorUpdater.version`), nil when the build stamps none.
    public var builtinVersion: String?
    /// The OTA channel the build follows (`MOBILE_OTA_CHANNEL`).
    public var channel: String?
    /// The manifest the build polls.
    public var manifest: String?

    public init(builtinVersion: String?, channel: String?, manifest: String?) {
      self.builtinVersion = builtinVersion
      self.channel = channel
      self.manifest = manifest
    }

    /// `OTA builtin 12-3f2a9c1e on channel prod`.
    public var text: String {
      "OTA builtin \(builtinVersion ?? "unstamped")"
        + (channel.map { " on channel \($0)" } ?? "")
    }
  }

  public var builds: [Build]
  public var ota: OTABundle?
  /// The full commit id of the app's checkout, nil when it is not a git checkout.
  public var commit: String?

  public init(builds: [Build], ota: OTABundle?, commit: String?) {
    self.builds = builds
    self.ota = ota
    self.commit = commit
  }

  /// The release in one line: each platform's id, version and build number, the OTA bundle
  /// and the commit.
  public var text: String {
    var parts = builds.map(\.text)
    if let ota { parts.append(ota.text) }
    if let commit { parts.append("commit \(commit.prefix(12))") }
    return parts.joined(separator: " · ")
  }

  /// Name → value pairs for JUnit properties and the Markdown summary (`release-ios-app-id`).
  public var properties: [(String, String)] {
    var out: [(String, String)] = []
    for build in builds {
      let prefix = "release-\(build.platform.rawValue)"
      out += [
        ("\(prefix)-app-id", build.appId), ("\(prefix)-display-name", build.displayName),
        ("\(prefix)-version", build.version ?? ""), ("\(prefix)-build", build.buildNumber ?? ""),
      ]
    }
    if let ota {
      out += [
        ("release-ota-builtin", ota.builtinVersion ?? ""),
        ("release-ota-channel", ota.channel ?? ""),
      ]
    }
    out.append(("release-commit", commit ?? ""))
    return out
  }
}
