import Foundation
import QualifyCore

/// A session-contract app (seed 002): its backend's API origin and the client's policy, as
/// qualify.json declares them. What the contract checks happens at run time, between the
/// client and the backend.
extension BuildReader {
  mutating func readSessionContract() -> [Platform: AppBuild] {
    let location = FileLocation(
      file: profile.file ?? "qualify.json", line: profile.keyLines["session"] ?? 1, column: 1)
    guard let api = profile.sessionAPI else {
      diagnostics.append(
        .error(
          at: location, "a session-contract app names its backend's API origin",
          hint: "add \"session\": {\"api\": \"https://api.example.org\"} to qualify.json"))
      return [:]
    }
    // An origin: https (http only for a dev build), a host, nothing after it.
    guard let origin = URLComponents(string: api), origin.host?.isEmpty == false,
      origin.scheme == "https" || (origin.scheme == "http" && channel == .dev),
      ["", "/"].contains(origin.path), origin.query == nil, origin.fragment == nil
    else {
      diagnostics.append(
        .error(
          at: location,
          "session.api must be the backend's https origin (https://host[:port]), not \(api)",
          hint: "the contract's paths (/v1/mobile/…) are added by the client"))
      return [:]
    }
    var builds: [Platform: AppBuild] = [:]
    for platform in Platform.allCases {
      var build = AppBuild(
        platform: platform, channel: channel,
        parts: .sessionContract(
          SessionContractSettings(foregroundReload: profile.sessionForegroundReload ?? 600)),
        name: profile.name, displayName: profile.title,
        appId: Sourced(profile.appId ?? profile.name, at: nil), syncedAppId: nil,
        callbackScheme: nil, registeredSchemes: [], capacitor: nil, transport: TransportSettings(),
        authSession: AuthSessionSettings(), push: PushShellSettings(),
        guards: BuildGuardSettings(),
        frontend: FrontendSettings(
          apiOrigin: Sourced(api, at: location), isDevBuild: channel == .dev),
        files: [:])
      build.features.ota = FeatureState(
        enabled: false, use: .unused, decidedBy: "a session-contract app has no OTA channel here")
      build.testUsers = profile.testUsers
      builds[platform] = build
    }
    return builds
  }
}
