import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

@testable import Artifacts

/// Issue 28: a React Native bridge shell's build-time config read as the real OpenMapX
/// repository writes it — defaults that are named constants of the module, no env file
/// committed for a release, the release env given by the pipeline.
@Suite struct BridgeConfigReaderTests {
  /// `apps/mobile/config/mobileConfig.ts` in the real repository's idiom: exported constants
  /// for the official identity, `??` defaults naming them.
  static let config = """
    export const OFFICIAL_APP_ID = "org.example.maps";
    export const OFFICIAL_ORIGIN = "https://maps.example.org";

    export function readMobileConfig(env: MobileEnv): Readonly<MobileBuildConfig> {
      const release = env.EXAMPLE_MOBILE_RELEASE === "1";
      const web = exactOrigin(env.EXAMPLE_MOBILE_WEB_ORIGIN ?? OFFICIAL_ORIGIN, release);
      const api = exactOrigin(env.EXAMPLE_MOBILE_API_ORIGIN ?? web.origin, release);
      const baseId = env.EXAMPLE_MOBILE_APP_ID ?? OFFICIAL_APP_ID;
      const baseScheme = env.EXAMPLE_MOBILE_SCHEME ?? "examplemaps";
      return Object.freeze({
        release,
        webOrigin: web.origin,
        apiOrigin: api.origin,
        appId: release ? baseId : `${baseId}.dev`,
        scheme: release ? baseScheme : `${baseScheme}-dev`,
      });
    }
    """

  /// An app of that config, its release descriptor and protocol module, as a repository with
  /// no env file committed.
  static func app(config: String = config) throws -> URL {
    let directory = try Fixtures.temporaryApp("bridge-config")
    let files = [
      "qualify.json": #"{"name": "maps", "shell": "react-native-bridge"}"#,
      "apps/mobile/config/mobileConfig.ts": config,
      "apps/mobile/release/version.json": #"{"protocol": {"min": 3, "max": 3}}"#,
      "packages/core/src/navigation/mobileProtocol.ts": """
      export const MOBILE_PROTOCOL_MIN = 3;
      export const MOBILE_PROTOCOL_MAX = 3;
      """,
    ]
    for (path, text) in files {
      let url = directory.appendingPathComponent(path)
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text.utf8).write(to: url)
    }
    return directory
  }

  static func env(_ text: String) throws -> String {
    let url = try Fixtures.temporaryDirectory("bridge-env").appendingPathComponent("release.env")
    try Data(text.utf8).write(to: url)
    return url.path
  }

  @Test func aDefaultThatIsANamedConstantIsResolvedWithWhereItIsWritten() throws {
    let app = try Self.app()
    defer { try? FileManager.default.removeItem(at: app) }
    let build = try #require(try AppRepository(directory: app.path).builds(for: .dev)[.ios])
    let bridge = try #require(build.bridge)
    #expect(bridge.webOrigin.value == "https://maps.example.org")
    #expect(bridge.apiOrigin.value == "https://maps.example.org", "?? web.origin")
    #expect(bridge.webOrigin.derivation.contains { $0.hasPrefix("OFFICIAL_ORIGIN = ") })
    #expect(bridge.webOrigin.location?.line == 6, "the ?? default's line")
    #expect(bridge.appId.value == "org.example.maps.dev")
    #expect(bridge.scheme.value == "examplemaps-dev")
    #expect(bridge.officialOrigin?.value == "https://maps.example.org")
  }

  /// A constant that is not a string the module declares is not guessed at: the origin is
  /// then unknown, and the reader says so naming the file.
  @Test func anUnresolvedConstantIsNotTakenForAnOrigin() throws {
    let app = try Self.app(
      config: Self.config.replacingOccurrences(
        of: "?? OFFICIAL_ORIGIN", with: "?? ORIGIN_FROM_ELSEWHERE"))
    defer { try? FileManager.default.removeItem(at: app) }
    #expect {
      try AppRepository(directory: app.path).builds(for: .dev)
    } throws: { error in
      (error as? InputError)?.diagnostics.contains {
        $0.message.contains("mobileConfig.ts names no web origin")
      } == true
    }
  }

  /// As committed, no env says what a release sets: the checks that read the build env are
  /// not checked (rather than failed for a development flag), and the run says why.
  @Test func aReleaseChannelWithoutItsEnvIsNotJudgedOnDevDefaults() throws {
    let app = try Self.app()
    defer { try? FileManager.default.removeItem(at: app) }
    let build = try #require(try AppRepository(directory: app.path).builds(for: .prod)[.ios])
    #expect(build.environment.frontend == .fallback)
    #expect(build.environment.fallbackWarning(channel: .prod) != nil)
    let findings = BuildGuards.findings(for: build)
    for rule in ["dev-scheme", "release-origin", "official-origin"] {
      let finding = try #require(findings.first { $0.rule == rule }, "\(rule)")
      #expect(finding.severity == .unverified, "\(rule): \(finding.message)")
    }
  }

  /// The pipeline's release env (`--frontend-env`) is read over the committed files: the
  /// release flag and its origin are the file's, and a wrong one is found at its line.
  @Test func theReleaseEnvGivenOnTheCommandLineIsRead() throws {
    let app = try Self.app()
    defer { try? FileManager.default.removeItem(at: app) }
    let good = try Self.env("EXAMPLE_MOBILE_RELEASE=1\n")
    let build = try #require(
      try AppRepository(directory: app.path).builds(
        for: .prod, extraEnv: .init(frontend: [good], process: [:]))[.android])
    #expect(build.environment.frontend == .supplied)
    #expect(build.bridge?.release.value == true)
    #expect(build.bridge?.scheme.value == "examplemaps")
    let envRules: Set<String> = ["dev-scheme", "release-origin", "official-origin"]
    let judged = BuildGuards.findings(for: build).filter { envRules.contains($0.rule) }
    #expect(judged.allSatisfy { $0.severity != .error && $0.severity != .unverified }, "\(judged)")

    let wrong = try Self.env(
      "EXAMPLE_MOBILE_RELEASE=1\nEXAMPLE_MOBILE_WEB_ORIGIN=https://staging.example.org\n")
    let repointed = try #require(
      try AppRepository(directory: app.path).builds(
        for: .prod, extraEnv: .init(frontend: [wrong], process: [:]))[.ios])
    let finding = try #require(
      BuildGuards.findings(for: repointed).first { $0.rule == "official-origin" })
    #expect(finding.severity == .error)
    #expect(finding.location?.file.hasSuffix("release.env") == true)
    #expect(finding.location?.line == 2)
  }

  /// A kind that reads no backend env refuses one rather than ignore it; the bridge kind reads
  /// it as the handoff server's env (OriginAllowlistTests judges what it reads).
  @Test func anEnvFileTheKindDoesNotReadIsRefused() throws {
    let file = try Self.env("OIDC_RP_CLIENT_ID=x\n")
    #expect {
      try AppRepository(directory: Fixtures.instanceShellApp).builds(
        for: .prod, extraEnv: .init(backend: [file], process: [:]))
    } throws: { error in
      guard let input = error as? InputError else { return false }
      return input.message.contains("--backend-env") && input.message.contains("ignored")
    }
    let bridge = try #require(
      try AppRepository(directory: Fixtures.bridgeApp).builds(
        for: .prod, extraEnv: .init(backend: [file], process: [:]))[.ios])
    #expect(bridge.environment.backendFiles.count == 1)
  }
}
