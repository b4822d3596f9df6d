import Artifacts
import Foundation
import HTTP
import MockStack
import QualifyCore
import QualifyCrypto
import QualifyTestSupport
import Testing

/// The mock IdP against an OpenID Connect client written by someone else: a Python relying
/// party on the `cryptography` package (Tests/Fixtures/interop/oidc_rp.py) logs in through
/// the login form and validates the id_token against the published JWKS.
@Suite struct InteroperabilityTests {
  static let python = "/usr/bin/python3"

  @Test(arguments: [Channel.prod, Channel.dev])
  func anIndependentRelyingPartyLogsIn(channel: Channel) throws {
    let build = try #require(
      try AppRepository(directory: Fixtures.sampleApp).builds(for: channel)[.ios])
    let topology = try StackTopology(build: build)
    let material = try StackMaterial(hosts: topology.secureHosts, seed: 7)
    let context = StackContext(
      clock: .realTime(), random: RandomSource(seed: 7), evidence: EvidenceLog(),
      redactor: Redactor(), channel: channel,
      behaviours: StackBehaviours())
    let stack = try Stack(build: build, material: material, context: context)
    defer { stack.stop() }
    let idp = try #require(stack.identityProvider)
    let alice = try #require(idp.testUsers.first)

    let scratch = try Fixtures.temporaryDirectory("qualify-interop")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let ca = scratch.appendingPathComponent("ca.pem")
    try Data(material.authority.certificatePEM.utf8).write(to: ca)
    // The RP is the app's backend client, as registered at the IdP.
    let input: [String: Any] = [
      "issuer": idp.issuer, "client_id": build.backend?.oidcClientId ?? "",
      "client_secret": build.backend?.oidcClientSecret ?? "",
      "redirect_uri": topology.backend.url("/api/v1.0/callback/"), "username": alice.username,
      "password": alice.password ?? "",
      "acr": build.backend?.oidcExtraParams["acr_values"] ?? "", "ca": ca.path,
      "expect_pkce": idp.profile != .proconnect,
      "connect": stack.origins,
    ]
    let result = try Programs.run(
      InteroperabilityTests.python, [Fixtures.file("interop/oidc_rp.py")],
      input: try JSONSerialization.data(withJSONObject: input))
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    let output = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    #expect(output["ok"] as? Bool == true)
    #expect(output["form_seen"] as? Bool == true)
    #expect(output["sub"] as? String == alice.username)
    #expect(output["acr"] as? String == "eidas1")
    #expect(output["issuer"] as? String == idp.issuer)
    // The events endpoint recorded the flow as Keycloak would.
    #expect(idp.events.map(\.type) == ["LOGIN", "CODE_TO_TOKEN"])
  }

  /// Python's `ssl` with strict X.509 checks (Python 3.13's default) accepts the run's
  /// certificates, each run's CA has its own name and serials, and TLS 1.0/1.1 are refused.
  @Test func strictTLSClientsAcceptTheRunsCertificatesAndLegacyVersionsAreRefused() throws {
    let build = try #require(
      try AppRepository(directory: Fixtures.sampleApp).builds(for: .prod)[.ios])
    let topology = try StackTopology(build: build)
    var seen: [[String: String]] = []
    for seed in [1, 2] as [UInt64] {
      let material = try StackMaterial(hosts: topology.secureHosts, seed: seed)
      let context = StackContext(
        clock: .realTime(), random: RandomSource(seed: seed), evidence: EvidenceLog(),
        redactor: Redactor(), channel: .prod, behaviours: StackBehaviours())
      let stack = try Stack(build: build, material: material, context: context)
      defer { stack.stop() }
      let scratch = try Fixtures.temporaryDirectory("qualify-tls")
      defer { try? FileManager.default.removeItem(at: scratch) }
      let ca = scratch.appendingPathComponent("ca.pem")
      try Data(material.authority.certificatePEM.utf8).write(to: ca)
      let input: [String: Any] = [
        "port": Int(stack.ports.https), "host": topology.backend.host, "ca": ca.path,
      ]
      let result = try Programs.run(
        InteroperabilityTests.python, [Fixtures.file("interop/tls_peer.py")],
        input: try JSONSerialization.data(withJSONObject: input))
      #expect(result.status == 0, "\(result.stderr)")
      let output = try #require(
        try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String])
      #expect(output["strict"] == "ok", "\(output)")
      #expect(output["TLSv1"] == "refused")
      #expect(output["TLSv1.1"] == "refused")
      seen.append(output)
    }
    #expect(seen[0]["issuer"] != seen[1]["issuer"])
    #expect(seen[0]["serial"] != seen[1]["serial"])
    #expect(seen[0]["issuer"]?.hasPrefix("qualify run CA ") == true)
  }

  /// The push gateways against a provider written by someone else (Tests/Fixtures/interop/
  /// push_provider.py): its ES256 provider tokens and RS256 service-account assertions are
  /// accepted, the answers are Apple's and Google's, and the provider tokens qualify's backend
  /// signs verify with `cryptography`. (The Android build: its google-services.json gives FCM
  /// the project the device registers with; APNs knows the same app id.)
  @Test func anIndependentPushProviderIsAnsweredAsAppleAndGoogleDocument() throws {
    let build = try #require(
      try AppRepository(directory: Fixtures.sampleApp).builds(for: .prod)[.android])
    let topology = try StackTopology(build: build)
    let material = try StackMaterial(hosts: topology.secureHosts, seed: 7)
    let context = StackContext(
      clock: .realTime(), random: RandomSource(seed: 7), evidence: EvidenceLog(),
      redactor: Redactor(), channel: .prod, behaviours: StackBehaviours())
    let stack = try Stack(build: build, material: material, context: context)
    defer { stack.stop() }
    let credentials = try #require(stack.pushCredentials)
    let client = try HTTPClient(
      configuration: .init(
        trustedCertificatesPEM: material.authority.certificatePEM, origins: stack.origins))
    func register(_ url: String, _ body: [String: Any]) throws -> String {
      let response = try client.response(
        to: ClientRequest(
          method: "POST", url: url, headers: ["Content-Type": "application/json"],
          body: Array(try JSONSerialization.data(withJSONObject: body))))
      return try #require((response.jsonObject as? [String: Any])?["token"] as? String)
    }
    let appId = build.appId.value
    let project = try #require(build.backend?.fcmProjectId)
    let qualifyJWT = try JWT.sign(
      ["iss": credentials.apnsTeamId, "iat": Int(Date().timeIntervalSince1970)],
      key: credentials.apnsKey, keyID: credentials.apnsKeyId, algorithm: .es256)

    let scratch = try Fixtures.temporaryDirectory("qualify-interop")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let ca = scratch.appendingPathComponent("ca.pem")
    try Data(material.authority.certificatePEM.utf8).write(to: ca)
    let input: [String: Any] = [
      "apns": [
        "key_pem": try credentials.apnsKey.pkcs8PrivatePEM(), "key_id": credentials.apnsKeyId,
        "team_id": credentials.apnsTeamId, "topic": appId,
        "production_token": try register(
          "https://api.push.apple.com/_device/register", ["bundleId": appId]),
        "sandbox_token": try register(
          "https://api.sandbox.push.apple.com/_device/register", ["bundleId": appId]),
        "qualify_jwt": qualifyJWT, "public_pem": try credentials.apnsKey.spkiPublicPEM(),
      ],
      "fcm": [
        "client_email": credentials.fcmClientEmail,
        "key_pem": try credentials.fcmKey.pkcs8PrivatePEM(),
        "key_id": credentials.fcmKeyId, "project": project,
        "token": try register(
          "https://fcm.googleapis.com/_device/register", ["projectId": project, "package": appId]),
      ],
      "ca": ca.path, "connect": stack.origins,
    ]
    let result = try Programs.run(
      InteroperabilityTests.python, [Fixtures.file("interop/push_provider.py")],
      input: try JSONSerialization.data(withJSONObject: input))
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    let checks = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: [String: Any]])
    for name in [
      "apns_delivered", "apns_other_environment", "apns_sandbox_delivered", "apns_expired",
      "apns_topic", "apns_id_echoed", "apns_bad_id", "apns_token_updates", "qualify_jwt",
      "google_oauth", "fcm_delivered", "fcm_invalid_token",
    ] {
      #expect(checks[name]?["ok"] as? Bool == true, "\(name): \(checks[name] ?? [:])")
    }
  }
}
