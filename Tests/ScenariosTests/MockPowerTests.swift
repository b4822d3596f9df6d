import Artifacts
import Foundation
import QualifyTestSupport
import StackPorts
import Testing

@testable import Scenarios

/// Each scenario and control says what it needs that only a mock gives (issue 14): against a
/// real part of the stack, what needs a power over that part does not run there.
@Suite struct MockPowerTests {
  static let catalogue: [String: Scenario] = {
    let all = (try? ScenarioCatalogue.load(directory: Fixtures.root + "/Scenarios")) ?? []
    return Dictionary(all.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
  }()

  @Test func scenariosAndControlsDeclareTheirMockOnlyPowers() throws {
    let update = try #require(Self.catalogue["ota/update-applies"])
    #expect(update.needs == [.writesBucket])
    let cross = try #require(Self.catalogue["sso/cross-app"])
    #expect(cross.needs.isEmpty)
    #expect(cross.controls.allSatisfy { $0.needs.isEmpty })
    let receive = try #require(Self.catalogue["push/receive"])
    #expect(receive.needs.contains(.backendHook))
    let logout = try #require(Self.catalogue["logout/ends-both-sessions"])
    #expect(logout.controls.contains { $0.needs.contains(.changesIdentityProvider) })
  }

  static let realIdP = RealSystems(
    identityProvider: .init(
      issuer: "https://idp.example/o", profile: "generic",
      authorizationEndpoint: "https://idp.example/o/authorize/",
      tokenEndpoint: "https://idp.example/o/token/", jwksURI: "https://idp.example/o/jwks",
      userinfoEndpoint: nil, endSessionEndpoint: nil, app: .init(id: "a", secret: "s"),
      companion: .init(id: "b", secret: "t"), testUsers: []),
    trustedCertificatesPEM: "", timeout: 5, file: "stack.json")

  @Test func aPowerOverARealPartIsForbiddenAndNoOther() {
    #expect(
      Runner.forbidden([.changesIdentityProvider, .writesBucket], by: Self.realIdP)
        == [.changesIdentityProvider])
    #expect(Runner.forbidden([.changesIdentityProvider], by: nil).isEmpty)
    #expect(Self.realIdP.parts == [MockPower.changesIdentityProvider.part])
  }

  /// A build run against a real IdP talks to it with the stack's client and signs in as the
  /// stack's test accounts.
  @Test func aBuildAgainstARealIdPUsesItsEndpointsClientAndAccounts() throws {
    let build = try #require(
      try AppRepository(directory: Fixtures.sampleApp).builds(for: .prod)[.ios])
    let applied = Self.realIdP.applied(to: build)
    #expect(applied.backend?.oidcAuthorizationEndpoint == "https://idp.example/o/authorize/")
    #expect(applied.backend?.oidcTokenEndpoint == "https://idp.example/o/token/")
    #expect(applied.backend?.oidcClientId == "a")
    // The realm export stays for the static guards; the stack's accounts are the users.
    #expect(applied.realm != nil)
    #expect(applied.testUsers.isEmpty)
    #expect(Self.realIdP.isReal("https://idp.example/o/token/?x=1"))
    #expect(!Self.realIdP.isReal("https://messages.example/"))
  }
}
