import Artifacts
import Foundation
import QualifyCore
import Results

extension ReleaseRecord {
  /// The release the builds describe: each platform's store identity and version as the
  /// readers resolved them, the OTA bundle when the build enables OTA, and the checkout's
  /// commit.
  init(builds: [Platform: AppBuild], commit: String?) {
    var records: [Build] = []
    for platform in Platform.allCases {
      guard let build = builds[platform] else { continue }
      var sources: [String: String] = [:]
      if let location = build.appId.location { sources["appId"] = ReleaseRecord.place(location) }
      if let version = build.storeVersion {
        for (name, value) in [("version", version.marketing), ("buildNumber", version.build)] {
          let place = value.location.map(ReleaseRecord.place)
          let why = value.value == nil ? value.derivation.last : nil
          sources[name] = [place, why].compactMap { $0 }.joined(separator: ": ")
        }
      } else {
        sources["version"] = "no file of the build declares a store version"
      }
      records.append(
        Build(
          platform: platform, appId: build.appId.value, displayName: build.displayName,
          version: build.storeVersion?.marketing.value,
          buildNumber: build.storeVersion?.build.value, sources: sources))
    }
    let enabling = builds.values.sorted { $0.platform.rawValue < $1.platform.rawValue }.first {
      $0.features.ota.enabled
    }
    self.init(
      builds: records,
      ota: enabling.map {
        OTABundle(
          builtinVersion: $0.capacitor?.updaterVersion?.value,
          channel: $0.frontend.otaChannel?.value,
          manifest: $0.backend?.otaManifestURL.map(ReleaseRecord.withoutCredentials))
      }, commit: commit)
  }

  /// A URL without userinfo, query or fragment: a presigned or credentialled manifest URL
  /// names its channel without handing out its access.
  static func withoutCredentials(_ url: String) -> String {
    guard var parts = URLComponents(string: url) else { return "(not a URL)" }
    parts.user = nil
    parts.password = nil
    parts.query = nil
    parts.fragment = nil
    return parts.string ?? "(not a URL)"
  }

  /// `file:line`, as findings name a place.
  static func place(_ location: FileLocation) -> String {
    location.line > 0 ? "\(location.file):\(location.line)" : location.file
  }
}
