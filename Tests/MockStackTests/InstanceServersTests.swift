import Foundation
import HTTP
import QualifyCore
import QualifyTestSupport
import StackPorts
import Testing

@testable import MockStack

/// The sites of a multi-instance shell's world answer as seed 004 describes.
@Suite struct InstanceServersTests {
  @Test func instancesAnswerTheirPublicContractAndRefuseTheAdminEndpoint() throws {
    let material = try StackMaterial(hosts: InstanceServers.secureHosts, seed: 4)
    let servers = try InstanceServers(material: material)
    defer { servers.stop() }
    let client = try HTTPClient(
      configuration: .init(
        trustedCertificatesPEM: material.authority.certificatePEM, origins: servers.origins))
    let instance = try #require(
      client.send(ClientRequest(url: "https://work.example/api/instance")).response)
    let body = try #require(instance.jsonObject as? [String: Any])
    #expect(instance.status == 200)
    #expect(body["status"] as? String == "ok" && body["product"] as? String == "sovereign")
    #expect(body["instanceName"] as? String == "Work" && body["platformVersion"] is String)
    #expect(
      client.send(ClientRequest(url: "https://work.example/api/health")).response?.status == 200)
    #expect(
      client.send(ClientRequest(url: "https://work.example/api/admin/health")).response?.status
        == 403)
    // A website that is not an instance has no such API.
    #expect(
      client.send(ClientRequest(url: "https://blog.example/api/instance")).response?.status
        == 404)
    // The http instance is served in clear, the https ones redirect their cleartext port.
    #expect(
      client.send(ClientRequest(url: "http://plain.example/api/instance")).response?.status
        == 200)
    #expect(
      client.send(ClientRequest(url: "http://work.example/")).response?.status == 301)
  }

  /// The names a stack file may make real are the world's https instances.
  @Test func theNamesAStackFileMayMakeRealAreInstances() {
    for name in RealSystems.instanceSiteNames {
      let site = InstanceServers.catalogue.first { $0.name == name }
      #expect(site?.isInstance == true && site?.origin.isSecure == true, "\(name)")
    }
  }
}
