import Artifacts
import Foundation
import HTTP
import MockStack
import QualifyCore
import QualifyTestSupport
import Testing

enum StackFixture {
  static let build: AppBuild = {
    do {
      guard let build = try AppRepository(directory: Fixtures.sampleApp).builds(for: .prod)[.ios]
      else { fatalError("no build") }
      return build
    } catch { fatalError("\(error)") }
  }()

  static let material: StackMaterial = {
    do {
      return try StackMaterial(hosts: try StackTopology(build: build).secureHosts, seed: 7)
    } catch {
      fatalError("\(error)")
    }
  }()

  static func start(_ behaviours: StackBehaviours = StackBehaviours()) throws -> (Stack, HTTPClient)
  {
    let context = StackContext(
      clock: VirtualClock(), random: RandomSource(seed: 3), evidence: EvidenceLog(),
      redactor: Redactor(), channel: .prod,
      behaviours: behaviours)
    let stack = try Stack(build: build, material: material, context: context)
    let client = try HTTPClient(
      configuration: .init(
        trustedCertificatesPEM: material.authority.certificatePEM, origins: stack.origins))
    return (stack, client)
  }
}

@Suite struct StackTests {
  /// `--seed` reaches the keys a verdict can depend on: the IdP's signing key (its `kid` and
  /// signatures) and the OTA harness key; TLS keys stay fresh per run.
  @Test func theRunSeedDecidesTheSigningKeys() throws {
    let hosts: Set<String> = ["messages.example"]
    let one = try StackMaterial(hosts: hosts, seed: 1)
    let again = try StackMaterial(hosts: hosts, seed: 1)
    let other = try StackMaterial(hosts: hosts, seed: 2)
    #expect(try one.idpSigningKey().id == again.idpSigningKey().id)
    #expect(try one.idpSigningKey().id != other.idpSigningKey().id)
    // Made once, and shared by the material's copies over other real systems.
    #expect(try one.with(real: nil).idpSigningKey().key === one.idpSigningKey().key)
    let harness = try one.otaSigningKey(appKey: nil).key.pkcs1PublicPEM()
    #expect(try again.otaSigningKey(appKey: nil).key.pkcs1PublicPEM() == harness)
    #expect(try other.otaSigningKey(appKey: nil).key.pkcs1PublicPEM() != harness)
    #expect(one.authority.certificatePEM != again.authority.certificatePEM)
  }

  @Test func topologyTakesTheAppsRealOrigins() throws {
    let topology = try StackTopology(build: StackFixture.build)
    #expect(topology.backend.description == "https://messages.example")
    #expect(topology.identityProvider?.description == "https://auth.proconnect.example")
    #expect(topology.bucket?.description == "https://ota.messages.example")
    #expect(topology.secureHosts.contains("api.push.apple.com"))
  }

  @Test func backendServesConfigAndHeartbeatOverHTTPS() throws {
    let (stack, client) = try StackFixture.start()
    defer { stack.stop() }
    let config = try client.response(
      to: ClientRequest(url: "https://messages.example/api/v1.0/config/"))
    #expect(config.status == 200)
    let json = try #require(config.jsonObject as? [String: Any])
    #expect(
      json["MOBILE_OTA_MANIFEST_URL"] as? String
        == "https://ota.messages.example/channels/prod/manifest.json")
    #expect(json["ENVIRONMENT"] as? String == "prod")
    let heartbeat = try client.response(
      to: ClientRequest(url: "https://messages.example/__heartbeat__/"))
    #expect(heartbeat.status == 200)
  }

  @Test func cleartextToAnHTTPSSiteIsRedirected() throws {
    let (stack, client) = try StackFixture.start()
    defer { stack.stop() }
    let response = try client.response(
      to: ClientRequest(url: "http://messages.example/__heartbeat__/?a=1"))
    #expect(response.status == 301)
    #expect(response.headers["Location"] == "https://messages.example/__heartbeat__/?a=1")
  }

  @Test func behavioursChangeWhatTheBackendSays() throws {
    var behaviours = StackBehaviours()
    behaviours.backendUnhealthy = true
    behaviours.configManifestURLOverride = "http://elsewhere.example/m.json"
    let (stack, client) = try StackFixture.start(behaviours)
    defer { stack.stop() }
    #expect(
      try client.response(to: ClientRequest(url: "https://messages.example/__heartbeat__/")).status
        == 503)
    let config = try client.response(
      to: ClientRequest(url: "https://messages.example/api/v1.0/config/"))
    #expect(
      (config.jsonObject as? [String: Any])?["MOBILE_OTA_MANIFEST_URL"] as? String
        == "http://elsewhere.example/m.json")
  }

  @Test func anUntrustedCertificateFailsVerification() throws {
    var behaviours = StackBehaviours()
    behaviours.untrustedCertificate = true
    let (stack, client) = try StackFixture.start(behaviours)
    defer { stack.stop() }
    let exchange = client.send(ClientRequest(url: "https://messages.example/api/v1.0/config/"))
    #expect(exchange.error?.kind == .transport)
    #expect(exchange.error?.message.contains("certificate") == true)
  }

  /// A host the run's certificate covers but no mock serves is answered 421.
  @Test func unknownHostsGetMisdirectedRequest() throws {
    let hosts = try StackTopology(build: StackFixture.build).secureHosts
    let material = try StackMaterial(hosts: hosts.union(["unmounted.example"]), seed: 7)
    let context = StackContext(
      clock: VirtualClock(), random: RandomSource(seed: 3), evidence: EvidenceLog(),
      redactor: Redactor(), channel: .prod, behaviours: StackBehaviours())
    let stack = try Stack(build: StackFixture.build, material: material, context: context)
    defer { stack.stop() }
    let port = try #require(stack.origins["messages.example:443"])
    let client = try HTTPClient(
      configuration: .init(
        trustedCertificatesPEM: material.authority.certificatePEM,
        origins: ["unmounted.example:443": port]))
    #expect(
      try client.response(to: ClientRequest(url: "https://unmounted.example/3/device/x")).status
        == 421)
  }
}
