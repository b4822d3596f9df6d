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
    var settings = SessionContractSettings(
      foregroundReload: profile.sessionForegroundReload ?? 600)
    // The client's code: where the profile places it, else the TypeScript of the repository
    // that calls the contract's routes.
    let root = profile.parts["client"]?.value ?? ""
    let quotes: Set<Character> = ["\"", "'", "`"]
    var client = CodeSearch(repository, under: root, suffixes: [".ts", ".tsx"], quotes: quotes)
    if root.isEmpty {
      // The folders of the files that call the routes, whole (the store beside the client).
      let folders = Set(
        [".ts", ".tsx"].flatMap { repository.files(under: "", suffix: $0) }.filter { path in
          !path.contains("node_modules")
            && ((try? repository.text(path)).flatMap { $0 }?.text.contains("/v1/") ?? false)
        }.map { ($0 as NSString).deletingLastPathComponent })
      var seen: Set<String> = []
      client.files = folders.sorted().flatMap {
        CodeSearch(repository, under: $0, suffixes: [".ts", ".tsx"], quotes: quotes).files
      }.filter { seen.insert($0.file).inserted }
    }
    settings.client = SessionClientReader.read(
      client,
      looked: root.isEmpty
        ? "TypeScript files calling /v1/ routes anywhere in the repository (parts.client names the folder)"
        : "\(root) (parts.client)")
    var builds: [Platform: AppBuild] = [:]
    for platform in Platform.allCases {
      var build = AppBuild(
        platform: platform, channel: channel,
        parts: .sessionContract(settings),
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
