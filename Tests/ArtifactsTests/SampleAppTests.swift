import Artifacts
import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

/// The bundled sample app, laid out like the real La Suite Messages repository: build
/// variables resolved as Xcode and Gradle resolve them, a realm array with hashed users,
/// per-platform banner keys, split dev origins, release env supplied by a pipeline.
@Suite struct SampleAppTests {
  let app: AppRepository

  init() throws {
    app = try AppRepository(directory: Fixtures.sampleApp)
  }

  @Test func theCapacitorProjectIsFoundUnderSrcFrontend() {
    #expect(app.profile.capacitorRoot == "src/frontend")
    #expect(app.profile.paths["ios.infoPlist"] == "src/frontend/ios/App/App/Info.plist")
    #expect(app.profile.title == "Messages")
  }

  @Test func buildVariablesResolveAsTheBuildResolvesThem() throws {
    let builds = try app.builds(for: .prod)
    let ios = try #require(builds[.ios])
    let android = try #require(builds[.android])
    // Info.plist registers $(AUTH_CALLBACK_SCHEME:default=stmessages); the generated xcconfig
    // writes AUTH_CALLBACK_SCHEME from MOBILE_AUTH_SCHEME, unset in the prod env.
    let scheme = try #require(ios.registeredSchemes.first)
    #expect(scheme.value == "stmessages")
    #expect(scheme.origin.hasSuffix("src/frontend/ios/App/App/Info.plist:32"))
    #expect(scheme.derivation.contains { $0.contains("MOBILE_AUTH_SCHEME is unset") })
    // The manifest's ${authCallbackScheme} comes from build.gradle's manifestPlaceholders.
    let androidScheme = try #require(android.registeredSchemes.first)
    #expect(androidScheme.value == "stmessages")
    #expect(androidScheme.derivation.contains { $0.contains("build.gradle") })
    // The bundle id: $(MOBILE_APP_ID:default=…) in project.pbxproj, MOBILE_APP_ID from the
    // pipeline's frontend.local.
    #expect(ios.appId.value == "local.suitenumerique.messages")
    #expect(ios.appId.origin.contains("ci/env/prod/frontend.local"))
    #expect(android.appId.value == "local.suitenumerique.messages")
    #expect(android.appId.origin.contains("ci/env/prod/frontend.local"))
  }

  @Test func prodBuildsDescribeWhatAnArchiveWouldShip() throws {
    let builds = try app.builds(for: .prod)
    let ios = try #require(builds[.ios])
    let android = try #require(builds[.android])
    #expect(ios.capacitor?.serverURL == nil)
    #expect(android.capacitor?.cleartext?.value == false)
    #expect(ios.guards.iosStripATSPhase?.value == true)
    #expect(ios.transport.atsShipped == nil)
    #expect(ios.transport.atsInSource?.allowsLocalNetworking?.value == true)
    #expect(ios.authSession.prefersEphemeral?.value == false)
    #expect(ios.authSession.pluginRegistered?.value == true)
    #expect(ios.push.apsEnvironment?.value == "production")
    #expect(android.push.firebaseProjectId?.value == "messages-prod")
    #expect(android.guards.androidReleaseGuard?.value == true)
    #expect(ios.frontend.apiOrigin.value == "https://messages.example")
    #expect(ios.identityProvider == "proconnect")
    #expect(ios.environment.backend == .supplied && ios.environment.frontend == .supplied)
    #expect(ios.features.ota.enabled && ios.features.push.enabled)
    #expect(BuildGuards.findings(for: ios).isEmpty && BuildGuards.findings(for: android).isEmpty)
  }

  @Test func bannerKeysArePerPlatform() throws {
    let builds = try app.builds(for: .prod)
    let ios = try #require(builds[.ios])
    let android = try #require(builds[.android])
    #expect(ios.push.requiredBannerKeys == ["NEW_MESSAGE"])
    #expect(android.push.requiredBannerKeys == ["new_message_title", "new_message_body"])
    #expect(ios.push.bannerStrings["fr"]?["NEW_MESSAGE"] == "Nouveau message")
    #expect(android.push.bannerStrings["fr"]?["new_message_body"] == "Nouveau message")
    #expect(ios.push.bannerLines["en"]?["NEW_MESSAGE"] == 4)
  }

  @Test func devBuildsAreSyncedWithTheDevEnv() throws {
    let builds = try app.builds(for: .dev)
    let ios = try #require(builds[.ios])
    let android = try #require(builds[.android])
    #expect(ios.capacitor?.serverURL?.value == "http://localhost:8900")
    #expect(ios.capacitor?.serverURL?.origin.hasSuffix("deploy/env/frontend.defaults:10") == true)
    #expect(android.transport.androidCleartext(host: "localhost").value)
    #expect(ios.transport.atsShipped?.allowsLocalNetworking?.value == true)
    #expect(ios.push.apsEnvironment?.value == "development")
    #expect(ios.identityProvider == "keycloak-dev")
    #expect(!ios.features.push.enabled && ios.features.push.use == .used)
  }

  @Test func theRealmArrayGivesTheAppsRealmAndItsHashedUsers() throws {
    let realm = try #require(try app.realm(clientID: "messages"))
    #expect(realm.realm == "messages")
    #expect(realm.rememberMe)
    #expect(realm.client("messages")?.acrLevels == ["eidas1": 1])
    #expect(
      realm.users.map(\.username) == [
        "user1@example.local", "user2@example.local", "user3@example.local",
      ])
    #expect(realm.users.allSatisfy { $0.password == nil })
  }

  @Test func devOIDCEndpointsSitOnTwoOrigins() throws {
    let ios = try #require(try app.builds(for: .dev)[.ios])
    #expect(ios.backend?.oidcAuthorizationEndpoint?.hasPrefix("http://localhost:8902/") == true)
    #expect(ios.backend?.oidcTokenEndpoint?.hasPrefix("http://keycloak:8802/") == true)
  }
}

/// The same app in the simple Capacitor layout: literal schemes and ids, one realm object
/// with plain test passwords. Both shapes must read.
@Suite struct SimpleSampleAppTests {
  @Test func theSimpleLayoutReadsToo() throws {
    let app = try AppRepository(directory: Fixtures.root + "/Scenarios/apps/messages-simple")
    #expect(app.profile.capacitorRoot == ".")
    let builds = try app.builds(for: .prod)
    let ios = try #require(builds[.ios])
    let android = try #require(builds[.android])
    #expect(ios.registers(scheme: "stmessages") && android.registers(scheme: "stmessages"))
    #expect(ios.registeredSchemes.first?.derivation.isEmpty == true)
    let realm = try #require(try app.realm())
    #expect(realm.users.map(\.username) == ["alice", "bob"])
    #expect(realm.users.first?.password == "alice-Passw0rd")
    #expect(BuildGuards.findings(for: ios).isEmpty && BuildGuards.findings(for: android).isEmpty)
  }
}

/// Fixtures of the real project's shapes, each read for what it changes.
@Suite struct RealShapeFixtureTests {
  private func builds(_ name: String, _ channel: Channel = .prod) throws -> [Platform: AppBuild] {
    try AppRepository(directory: Fixtures.file("apps/" + name)).builds(for: channel)
  }

  @Test func anXcconfigOnDiskDecidesTheScheme() throws {
    let ios = try #require(try builds("xcconfig-on-disk")[.ios])
    let scheme = try #require(ios.registeredSchemes.first)
    #expect(scheme.value == "stmessages.staging")
    #expect(scheme.derivation.contains { $0.contains("generated.xcconfig:5") })
    let finding = try #require(
      BuildGuards.findings(for: ios).first { $0.rule == "callback-scheme-registered" })
    #expect(finding.message.contains("stmessages.staging"))
    #expect(finding.message.contains("generated.xcconfig:5"))
  }

  @Test func aSceneDelegateBackToABareBridgeLosesThePlugin() throws {
    let ios = try #require(try builds("scene-bare-bridge")[.ios])
    #expect(ios.authSession.pluginRegistered?.value == false)
    #expect(ios.authSession.pluginRegistered?.origin.hasSuffix("SceneDelegate.swift:13") == true)
    let finding = try #require(
      BuildGuards.findings(for: ios).first { $0.rule == "auth-plugin-registered" })
    #expect(finding.message.contains("CAPBridgeViewController"))
  }

  @Test func aReleaseChannelWithoutItsEnvFallsBackLoudly() throws {
    let ios = try #require(try builds("no-release-env")[.ios])
    #expect(ios.environment.backend == .fallback)
    #expect(ios.environment.fallbackWarning(channel: .prod)?.contains("backend.defaults") == true)
    let findings = BuildGuards.findings(for: ios)
    // Dev values are not failed as if they were prod's: the rules over the env say unverified.
    #expect(findings.allSatisfy { $0.severity != .error })
    #expect(findings.contains { $0.rule == "https-origins" && $0.severity == .unverified })
  }

  @Test func aBuildWithoutOTASaysWhatDecidesIt() throws {
    let ios = try #require(try builds("ota-unused")[.ios])
    #expect(!ios.features.ota.enabled)
    #expect(ios.features.ota.use == .unused)
    #expect(ios.features.ota.decidedBy.contains("MOBILE_OTA_MANIFEST_URL is unset"))
    #expect(ios.features.ota.decidedBy.contains("ci/env/prod/backend.env"))
  }
}
