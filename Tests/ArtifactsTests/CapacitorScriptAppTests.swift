import Artifacts
import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

/// The sample app as the real Messages repository keeps it (issue 26): no synced
/// `capacitor.config.json` (gitignored), the project's `capacitor.config.ts` and
/// `package.json` at the Capacitor root. A release is judged on what the script computes with
/// the channel's env.
@Suite struct CapacitorScriptAppTests {
  /// A copy of the sample with the synced files removed and the script in their place, with
  /// `edit` applied to the script's text; removed by the caller.
  private func app(editing edit: (String) -> String = { $0 }) throws -> URL {
    let directory = try Fixtures.temporaryApp("capacitor-script")
    let copy = directory.appendingPathComponent("messages")
    try FileManager.default.copyItem(at: URL(fileURLWithPath: Fixtures.sampleApp), to: copy)
    let frontend = copy.appendingPathComponent("src/frontend")
    for synced in [
      "ios/App/App/capacitor.config.json", "android/app/src/main/assets/capacitor.config.json",
    ] {
      try FileManager.default.removeItem(at: frontend.appendingPathComponent(synced))
    }
    let script = try String(
      contentsOfFile: Fixtures.file("capacitor-script/capacitor.config.ts"), encoding: .utf8)
    try Data(edit(script).utf8).write(to: frontend.appendingPathComponent("capacitor.config.ts"))
    try FileManager.default.copyItem(
      at: URL(fileURLWithPath: Fixtures.file("capacitor-script/package.json")),
      to: frontend.appendingPathComponent("package.json"))
    return copy
  }

  private func builds(_ app: URL, _ channel: Channel = .prod, frontendEnv: [String] = [])
    throws -> [Platform: AppBuild]
  {
    var extra = AppRepository.ExtraEnv()
    extra.frontend = frontendEnv
    return try AppRepository(directory: app.path).builds(for: channel, extraEnv: extra)
  }

  @Test func aReleaseBuildIsWhatTheScriptComputesWithTheReleaseEnv() throws {
    let app = try app()
    defer { try? FileManager.default.removeItem(at: app.deletingLastPathComponent()) }
    let sample = try #require(
      try AppRepository(directory: Fixtures.sampleApp).builds(for: .prod)[.ios])
    for (platform, build) in try builds(app) {
      let capacitor = try #require(build.capacitor, "\(platform)")
      #expect(capacitor.file.hasSuffix("src/frontend/capacitor.config.ts"))
      #expect(capacitor.serverURL == nil)
      #expect(capacitor.cleartext?.value == false)
      #expect(capacitor.updaterPublicKey?.value == sample.capacitor?.updaterPublicKey?.value)
      #expect(capacitor.updaterAutoUpdate?.value == false)
      #expect(
        capacitor.packageClassList == [
          "AppPlugin", "BrowserPlugin", "PushNotificationsPlugin", "CapacitorUpdaterPlugin",
        ])
      #expect(BuildGuards.findings(for: build).map(\.rule).isEmpty, "\(platform)")
    }
  }

  /// The displayed version is the script's `appVersion` on both platforms: Gradle reads it
  /// back from the synced config, and the generated xcconfig copies it (the profile's
  /// `{"syncedConfig": "appVersion"}`), as the real repository's build scripts do.
  @Test func bothPlatformsShowTheScriptsAppVersion() throws {
    let app = try app()
    defer { try? FileManager.default.removeItem(at: app.deletingLastPathComponent()) }
    for (platform, build) in try builds(app) {
      let version = try #require(build.storeVersion, "\(platform)")
      #expect(version.marketing.value == "2.4.0", "\(platform)")
      #expect(version.marketing.derivation.joined().contains("capacitor.config"), "\(platform)")
    }
  }

  /// A release env that keeps the dev server (frontend.defaults sets it, the release file
  /// does not empty it) is caught at the line of the script that bakes it, naming the env line.
  @Test func aReleaseEnvKeepingTheDevServerIsNamedAtTheScriptsLine() throws {
    let app = try app()
    defer { try? FileManager.default.removeItem(at: app.deletingLastPathComponent()) }
    let keepsDev = app.appendingPathComponent("ci/env/prod/keeps-dev.local")
    try Data("MOBILE_DEV_SERVER_URL=http://localhost:8900\n".utf8).write(to: keepsDev)
    let build = try #require(try builds(app, frontendEnv: [keepsDev.path])[.android])
    let url = try #require(build.capacitor?.serverURL)
    #expect(url.value == "http://localhost:8900")
    #expect(url.location?.file.hasSuffix("capacitor.config.ts") == true)
    #expect(url.derivation.joined().contains("MOBILE_DEV_SERVER_URL = \"http://localhost:8900\""))
    #expect(url.derivation.joined().contains("keeps-dev.local:1"))
    let rules = BuildGuards.findings(for: build).map(\.rule)
    #expect(rules.contains("dev-server-url"))
    #expect(rules.contains("server-cleartext"))
  }

  /// `plugins` keys are judged against the plugins package.json installs: a misspelt block is
  /// named, a correct one is not.
  @Test func aMisspeltPluginBlockIsNamedFromPackageJSON() throws {
    let app = try app {
      $0.replacingOccurrences(of: "CapacitorUpdater: {", with: "CapacitorUpdate: {")
    }
    defer { try? FileManager.default.removeItem(at: app.deletingLastPathComponent()) }
    let build = try #require(try builds(app)[.ios])
    let finding = try #require(
      BuildGuards.findings(for: build).first { $0.rule == "plugin-config" })
    #expect(finding.message.contains("plugins.CapacitorUpdate configures no plugin"))
  }

  /// The script's own guard refusing the env is an error at its line: the release cannot be
  /// built, and qualify says why instead of judging a build that does not exist.
  @Test func aScriptRefusingTheEnvIsAnErrorAtItsThrow() throws {
    let app = try app()
    defer { try? FileManager.default.removeItem(at: app.deletingLastPathComponent()) }
    let env = app.appendingPathComponent("ci/env/prod/no-key.local")
    try Data(
      "NEXT_PUBLIC_MOBILE_OTA_MANIFEST_URL=https://ota.example/m.json\nMOBILE_OTA_SIGNING_PUBLIC_KEY_B64=\n"
        .utf8
    ).write(to: env)
    #expect {
      _ = try builds(app, frontendEnv: [env.path])
    } throws: { error in
      (error as? InputError)?.diagnostics.contains {
        $0.message.contains("cap sync fails with the prod env")
          && $0.location?.file.hasSuffix("capacitor.config.ts") == true && $0.location?.line == 15
      } == true
    }
  }
}
