import Artifacts
import Foundation
import QualifyTestSupport
import Testing

@Suite struct SampleAppTests {
  let app: AppRepository

  init() throws {
    app = try AppRepository(directory: Fixtures.sampleApp)
  }

  @Test func prodBuildsDescribeWhatAnArchiveWouldShip() throws {
    let builds = try app.builds(for: .prod)
    let ios = try #require(builds[.ios])
    let android = try #require(builds[.android])
    #expect(ios.appId.value == "local.suitenumerique.messages")
    #expect(ios.registers(scheme: "stmessages"))
    #expect(android.registers(scheme: "stmessages"))
    #expect(ios.capacitor.serverURL == nil)
    #expect(android.capacitor.cleartext == nil)
    // The strip phase removes the dev ATS exception from release products.
    #expect(ios.guards.iosStripATSPhase?.value == true)
    #expect(ios.transport.atsShipped == nil)
    #expect(ios.transport.atsInSource?.allowsLocalNetworking?.value == true)
    #expect(ios.authSession.prefersEphemeral?.value == false)
    #expect(ios.authSession.pluginRegistered?.value == true)
    #expect(ios.authSession.usesWebAuthenticationSession)
    #expect(ios.push.apsEnvironment?.value == "production")
    #expect(android.push.firebaseProjectId?.value == "messages-prod")
    #expect(android.guards.androidReleaseGuard?.value == true)
    #expect(ios.frontend.apiOrigin.value == "https://messages.example")
    #expect(ios.backend.callbackSchemes == ["stmessages"])
    #expect(ios.backend.oidcExtraParams["acr_values"] == "eidas1")
    #expect(ios.identityProvider == "proconnect")
    #expect(ios.capacitor.updaterPublicKey?.value.isEmpty == false)
    #expect(ios.push.bannerStrings["fr"]?["push_new_message_title"] == "Nouveau message")
  }

  @Test func devBuildsAreSyncedWithTheDevEnv() throws {
    let builds = try app.builds(for: .dev)
    let ios = try #require(builds[.ios])
    let android = try #require(builds[.android])
    #expect(ios.capacitor.serverURL?.value == "http://localhost:8900")
    #expect(ios.capacitor.serverURL?.origin.hasSuffix("frontend.dev:3") == true)
    #expect(android.transport.usesCleartextTraffic?.value == true)
    // Debug keeps the ATS exception.
    #expect(ios.transport.atsShipped?.allowsLocalNetworking?.value == true)
    #expect(ios.push.apsEnvironment?.value == "development")
    #expect(ios.identityProvider == "keycloak-dev")
  }

  @Test func realmExportGivesClientsUsersAndTheACRMap() throws {
    let realm = try #require(try app.realm())
    #expect(realm.realm == "messages")
    #expect(realm.rememberMe)
    #expect(realm.client("messages")?.acrLevels == ["eidas1": 1])
    #expect(realm.users.map(\.username) == ["alice", "bob"])
  }

  @Test func valuesRememberTheirFileAndLine() throws {
    let ios = try #require(try app.builds(for: .prod)[.ios])
    let flag = try #require(ios.authSession.prefersEphemeral)
    #expect(flag.origin.hasSuffix("WebAuthSessionPlugin.swift:35"))
    let scheme = try #require(ios.registeredSchemes.first)
    #expect(scheme.origin.hasSuffix("Info.plist:28"))
  }
}

/// An app no one here wrote: another layout, another name, described only by its profile.
@Suite struct ForeignLayoutTests {
  @Test func readersFindEveryFileThroughTheProfile() throws {
    let app = try AppRepository(directory: Fixtures.file("apps/agenda"))
    #expect(app.profile.name == "agenda")
    let builds = try app.builds(for: .prod)
    let ios = try #require(builds[.ios])
    let android = try #require(builds[.android])
    #expect(ios.registers(scheme: "stagenda") && android.registers(scheme: "stagenda"))
    #expect(ios.authSession.pluginRegistered?.value == true)
    #expect(ios.authSession.pluginRegistered?.origin.contains("AgendaViewController.swift") == true)
    #expect(
      ios.authSession.prefersEphemeral?.origin.contains("SystemBrowserAuthPlugin.swift") == true)
    #expect(ios.guards.iosStripATSPhase?.value == true)
    #expect(android.guards.androidReleaseGuard?.value == true)
    #expect(android.push.firebaseProjectId?.value == "agenda-prod")
    #expect(ios.frontend.apiOrigin.value == "https://agenda.example")
    #expect(ios.frontend.apiOrigin.origin.contains("ops/env/web-prod.env"))
    #expect(try app.realm()?.file.contains("idp/realm-export.json") == true)
    #expect(BuildGuards.findings(for: ios).isEmpty && BuildGuards.findings(for: android).isEmpty)
  }
}
