import Artifacts
import Foundation
import HTTP
import MockStack
import QualifyCore
import QualifyTestSupport
import StackPorts
import Testing

/// The hybrid and bridge packs observe their worlds through ports, as DESIGN asks: these are
/// the ports' HTTP implementations against the embedded servers (what the packs use), and
/// what they say about a server without the operator hooks.
@Suite struct ShellPortsTests {
  static func build(_ app: String) throws -> AppBuild {
    try #require(try AppRepository(directory: app).builds(for: .prod)[.android])
  }

  static func context() -> StackContext {
    StackContext(
      clock: VirtualClock(), random: RandomSource(seed: 5), evidence: EvidenceLog(),
      redactor: Redactor(), channel: .prod, behaviours: StackBehaviours())
  }

  static func client(_ material: StackMaterial, _ origins: [String: UInt16]) throws -> HTTPClient {
    try HTTPClient(
      configuration: .init(
        trustedCertificatesPEM: material.authority.certificatePEM, origins: origins))
  }

  @Test func theHybridSitePortNamesUsersNotifiesAndCountsTokens() throws {
    let build = try Self.build(Fixtures.hybridApp)
    let material = try StackMaterial(hosts: HybridServers.secureHosts(build), seed: 3)
    let servers = try HybridServers(build: build, material: material, context: Self.context())
    defer { servers.stop() }
    let site = HTTPHybridSite(
      origin: servers.backend.origin, client: try Self.client(material, servers.origins))
    let first = try #require(servers.backend.users.first)
    let account = try #require(try site.account(login: first.login))
    #expect(account == SiteAccount(id: first.id, salt: first.salt))
    #expect(try site.account(login: "nobody@appplatform.example") == nil)
    #expect(try site.tokenCount(userId: first.id) == 0)
    let answer = try site.notify(
      userId: first.id, title: "t", body: "b", targetUrl: servers.backend.origin.url("/"))
    #expect(answer.status == 200)
  }

  @Test func theHandoffPortRacesRedemptionsAndReadsTheTableAndTheRefusals() throws {
    let build = try Self.build(Fixtures.bridgeApp)
    let material = try StackMaterial(hosts: BridgeServers.secureHosts(build), seed: 3)
    let servers = try BridgeServers(build: build, material: material, context: Self.context())
    defer { servers.stop() }
    let server = servers.server
    let port = HTTPHandoffServer(
      origin: server.origin, login: server.login, password: server.password,
      client: try Self.client(material, servers.origins))
    #expect(try port.storedKeys().isEmpty)
    #expect(try port.refusals().isEmpty)
    let verifier = String(repeating: "v", count: 43)
    let answers = try port.redeemTogether([
      ("unknown", verifier, "s"), ("unknown", verifier, "s"),
    ])
    #expect(answers.map(\.status) == [400, 400])
    #expect(answers.allSatisfy { $0.bodyText.contains("invalid_handoff") })
    #expect(try port.refusals().count == 2)
  }

  @Test func aServerWithoutTheHooksIsUnsupportedNotWrong() throws {
    // The hybrid site answers neither handoff hook: the port says it cannot ask.
    let build = try Self.build(Fixtures.hybridApp)
    let material = try StackMaterial(hosts: HybridServers.secureHosts(build), seed: 3)
    let servers = try HybridServers(build: build, material: material, context: Self.context())
    defer { servers.stop() }
    let port = HTTPHandoffServer(
      origin: servers.backend.origin, login: "a", password: "b",
      client: try Self.client(material, servers.origins))
    #expect(throws: PortUnsupported.self) { try port.storedKeys() }
    #expect(throws: PortUnsupported.self) { try port.redeemTogether([("c", "v", "s")]) }
  }
}
