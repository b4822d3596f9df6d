import Foundation
import QualifyTestSupport
import Testing

/// `--stack` with a real backend and a real OTA channel (issue 14): the backend half of seed
/// 000's contract checked against a Django backend signing users in with mozilla-django-oidc
/// (Tests/Fixtures/interop/messages_backend.py) at the real provider, and the bundle live on
/// a real channel (Tests/Fixtures/interop/ota_channel.py) verified with the build's own key.
@Suite(.serialized) struct RealBackendCLITests {
  let scratch: URL

  init() throws {
    scratch = try Fixtures.temporaryDirectory("qualify-real-backend")
  }

  /// The provider, and a backend on `port` registered at it (the companion stays mocked, on
  /// the port ten above, as the stack file documents).
  func startBackend(verifyBeforeDelete: Bool = false) throws -> (
    provider: RealOIDCProvider, backend: TestPeer?, port: Int
  ) {
    let port = try TestPeer.freePort()
    let provider = try RealOIDCProvider(
      persistentSession: true, scratch: scratch,
      redirects: (
        "https://localhost:\(port)/api/v1.0/callback/",
        "https://localhost:\(port + 10)/api/v1.0/callback/"
      ))
    let backend = try TestPeer(
      python: try RealOIDCProvider.python(), script: "interop/messages_backend.py",
      input: [
        "port": port, "host": "localhost", "endpoints": provider.endpoints,
        "client_id": RealOIDCProvider.clients[0].0, "client_secret": RealOIDCProvider.clients[0].2,
        "schemes": ["stmessages"], "verify_before_delete": verifyBeforeDelete,
        "database": scratch.appendingPathComponent("backend.sqlite").path,
        "ca_file": scratch.appendingPathComponent("backend-ca.pem").path,
      ])
    guard backend.ready["origin"] as? String == "https://localhost:\(port)" else {
      backend.stop()
      provider.stop()
      throw RealOIDCProvider.Failure("the backend did not start: \(backend.ready)")
    }
    return (provider, backend, port)
  }

  func qualify(_ stack: (path: String, environment: [String: String]), filters: [String])
    throws -> ProcessResult
  {
    try CLI.run(
      ["--channel", "prod", "--stack", stack.path, "--app", Fixtures.sampleApp]
        + filters.flatMap { ["--filter", $0] }
        + ["--scenarios", CLI.scenarios, "--seed", "3", "--json"],
      in: scratch, environment: stack.environment)
  }

  @Test func theBackendHalfOfTheContractHoldsAgainstARealBackend() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let (provider, backend, port) = try startBackend()
    defer {
      backend?.stop()
      provider.stop()
    }
    let stack = try provider.stackFile(
      in: scratch,
      parts:
        "\"backend\": {\"baseURL\": \"https://localhost:\(port)\"}, \"caFile\": \"backend-ca.pem\","
    )
    let run = try qualify(
      stack,
      filters: ["sso/cross-app", "auth/wrong-verifier", "auth/expired-token", "logout/safety-net"])
    let results = try StackCLITests.results(run)
    for platform in ["ios", "android"] {
      let cross = try #require(results["sso/cross-app [\(platform)]"], "\(run.stderr.suffix(800))")
      #expect(cross["verdict"] as? String == "passed", "\(platform): \(cross["message"] ?? "")")
      #expect(cross["proof"] as? String == "real")
      // The backend's own rule, checked in the real backend; its controls, which break a
      // backend on purpose, bite in the embedded one at the same address.
      let verifier = try #require(results["auth/wrong-verifier [\(platform)]"])
      #expect(verifier["verdict"] as? String == "passed", "\(verifier["message"] ?? "")")
      let controls = verifier["controls"] as? [[String: Any]] ?? []
      #expect(controls.count == 2)
      for control in controls {
        #expect(control["outcome"] as? String == "bit")
        #expect(
          (control["message"] as? String)?.contains(
            "against the embedded backend at the real backend's address") == true)
      }
      // A real backend's tokens age with the wall clock: `advance` cannot expire them.
      let expired = try #require(results["auth/expired-token [\(platform)]"])
      #expect(expired["verdict"] as? String == "not-applicable")
      #expect((expired["message"] as? String)?.contains("backend-clock") == true)
    }
    #expect(results["logout/safety-net [ios]"]?["verdict"] as? String == "passed")
    #expect(run.stdout.contains("the backend is the real one at https://localhost:\(port)"))
    #expect(run.status == 0, "\(run.stderr.suffix(1500))")
  }

  /// Seed 000, step 5: the exchange burns the token before comparing the verifier. A real
  /// backend that compares first lets a failed attempt be retried, and the run says so.
  @Test func aRealBackendThatComparesBeforeBurningFails() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let (provider, backend, port) = try startBackend(verifyBeforeDelete: true)
    defer {
      backend?.stop()
      provider.stop()
    }
    let stack = try provider.stackFile(
      in: scratch,
      parts:
        "\"backend\": {\"baseURL\": \"https://localhost:\(port)\"}, \"caFile\": \"backend-ca.pem\","
    )
    let run = try qualify(stack, filters: ["auth/wrong-verifier"])
    let results = try StackCLITests.results(run)
    for platform in ["ios", "android"] {
      let verifier = try #require(results["auth/wrong-verifier [\(platform)]"])
      #expect(verifier["verdict"] as? String == "failed")
      #expect(
        (verifier["message"] as? String)?.hasPrefix(
          "step 3 \"the right verifier cannot use the burnt token\": expect status 403") == true,
        "\(verifier["message"] ?? "")")
    }
    #expect(run.status == 1)
  }

  @Test func anUnreachableRealBackendIsBadInputNamingIt() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let provider = try RealOIDCProvider(persistentSession: true, scratch: scratch)
    defer { provider.stop() }
    let stack = try provider.stackFile(
      in: scratch, parts: "\"backend\": {\"baseURL\": \"http://127.0.0.1:9\"},")
    let run = try qualify(stack, filters: ["sso/*"])
    #expect(run.status == 2)
    #expect(
      run.stderr.contains("the real backend is unreachable: http://127.0.0.1:9/api/v1.0/config/"),
      "\(run.stderr)")
  }

  /// A channel holding one bundle sealed (by an independent Capgo v2 implementation) with
  /// `privateKey`, served over HTTPS; returns the stack file naming it.
  /// - Parameter zipScript: Python that writes the bundle's zip to `sys.argv[1]` (a
  ///   two-file stored zip by default).
  func channel(sealedWith privateKey: String, zipScript: String? = nil) throws -> (
    peer: TestPeer, stack: String
  ) {
    let bucket = scratch.appendingPathComponent("bucket")
    try FileManager.default.createDirectory(
      at: bucket.appendingPathComponent("channels/prod"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(
      at: bucket.appendingPathComponent("bundles"), withIntermediateDirectories: true)
    let zip = try Programs.run(
      "/usr/bin/python3",
      [
        "-c",
        zipScript
          ?? "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n  z.writestr('index.html', '<!doctype html><title>live</title>')\n  z.writestr('assets/app.js', '/* live */')",
        scratch.appendingPathComponent("live.zip").path,
      ])
    #expect(zip.status == 0, "\(zip.stderr)")
    let sealed = try Programs.run(
      "/usr/bin/python3",
      [
        Fixtures.file("interop/capgo_v2.py"), "seal", privateKey,
        scratch.appendingPathComponent("live.zip").path,
        bucket.appendingPathComponent("bundles/1900-abcdef1.zip").path,
      ])
    let fields = try #require(
      try JSONSerialization.jsonObject(with: Data(sealed.stdout.utf8)) as? [String: String],
      "\(sealed.stderr)")
    let port = try TestPeer.freePort()
    let manifest: [String: String] = [
      "version": "1900-abcdef1", "url": "https://localhost:\(port)/bundles/1900-abcdef1.zip",
      "checksum": fields["checksum"] ?? "", "sessionKey": fields["sessionKey"] ?? "",
    ]
    try JSONSerialization.data(withJSONObject: manifest).write(
      to: bucket.appendingPathComponent("channels/prod/manifest.json"))
    let peer = try TestPeer(
      python: "/usr/bin/python3", script: "interop/ota_channel.py",
      input: [
        "port": port, "host": "localhost", "directory": bucket.path,
        "ca_file": scratch.appendingPathComponent("ota-ca.pem").path,
      ])
    let stack = scratch.appendingPathComponent("stack.json")
    try Data(
      """
      {"ota": {"manifestURL": "https://localhost:\(port)/channels/prod/manifest.json"},
       "caFile": "ota-ca.pem"}
      """.utf8
    ).write(to: stack)
    return (peer, stack.path)
  }

  /// The sample app's test key pair, as its env gives it.
  static func sampleAppKey() throws -> String {
    let env = try String(
      contentsOfFile: Fixtures.sampleApp + "/deploy/env/ota-signing.test", encoding: .utf8)
    let prefix = "MOBILE_OTA_SIGNING_PRIVATE_KEY_B64="
    let line = try #require(env.split(separator: "\n").first { $0.hasPrefix(prefix) })
    return String(line.dropFirst(prefix.count))
  }

  /// Item 3 on the OTA path against a real channel: the sample's own built bundle, zipped with
  /// its folder and deflated as Capgo's CLI zips it and sealed by an independent Capgo v2
  /// implementation, is fetched, verified with the build's key, unpacked and shown in both
  /// engines; the same channel serving a bundle without the message body's renderer fails.
  @Test func theBundleARealChannelServesRendersTheThread() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    func zipScript(leaving left: String) -> String {
      """
      import os, sys, zipfile
      root = \(String(reflecting: Fixtures.sampleApp + "/src/frontend/dist"))
      with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
        for folder, _, files in os.walk(root):
          for name in files:
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, root)
            if relative != \(String(reflecting: left)):
              z.write(path, 'dist/' + relative)
      """
    }
    let (peer, stack) = try channel(
      sealedWith: try Self.sampleAppKey(), zipScript: zipScript(leaving: "none"))
    let run = try qualify((stack, [:]), filters: ["render/ota-bundle"])
    peer.stop()
    let results = try StackCLITests.results(run)
    for platform in ["ios", "android"] {
      let result = try #require(
        results["render/ota-bundle [\(platform)]"], "\(run.stderr.suffix(800))")
      #expect(result["verdict"] as? String == "passed", "\(result["message"] ?? "")")
    }
    try? FileManager.default.removeItem(at: scratch.appendingPathComponent("bucket"))
    let (broken, brokenStack) = try channel(
      sealedWith: try Self.sampleAppKey(),
      zipScript: zipScript(leaving: "assets/message-body.js"))
    defer { broken.stop() }
    let failing = try StackCLITests.results(
      try qualify((brokenStack, [:]), filters: ["render/ota-bundle"]))
    let result = try #require(failing["render/ota-bundle [ios]"])
    #expect(result["verdict"] as? String == "failed")
    #expect(
      (result["message"] as? String)?.contains("step 2") == true, "\(result["message"] ?? "")")
  }

  @Test func theBundleLiveOnARealChannelVerifiesWithTheBuildsKey() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let (peer, stack) = try channel(sealedWith: try Self.sampleAppKey())
    defer { peer.stop() }
    let run = try qualify((stack, [:]), filters: ["ota/*"])
    let results = try StackCLITests.results(run)
    for platform in ["ios", "android"] {
      let live = try #require(results["ota/live-bundle [\(platform)]"], "\(run.stderr.suffix(800))")
      #expect(live["verdict"] as? String == "passed", "\(live["message"] ?? "")")
      #expect(live["proof"] as? String == "real")
      // Publishing would write to the real bucket: not run, and said.
      let applies = try #require(results["ota/update-applies [\(platform)]"])
      #expect(applies["verdict"] as? String == "not-applicable")
      #expect((applies["message"] as? String)?.contains("writes-bucket") == true)
    }
    #expect(run.status == 0, "\(run.stderr.suffix(1500))")
  }

  /// A channel whose bundle is signed with a key the build does not bake in: every device of
  /// this build would refuse it.
  @Test func aLiveBundleSignedWithAnotherKeyFails() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let other = try Programs.run(
      "/usr/bin/python3",
      [
        "-c",
        "import base64\nfrom cryptography.hazmat.primitives import serialization\nfrom cryptography.hazmat.primitives.asymmetric import rsa\nk = rsa.generate_private_key(public_exponent=65537, key_size=2048)\nprint(base64.b64encode(k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption())).decode())",
      ])
    let (peer, stack) = try channel(
      sealedWith: other.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    defer { peer.stop() }
    let run = try qualify((stack, [:]), filters: ["ota/live-bundle"])
    let results = try StackCLITests.results(run)
    for platform in ["ios", "android"] {
      let live = try #require(results["ota/live-bundle [\(platform)]"], "\(run.stderr.suffix(800))")
      #expect(live["verdict"] as? String == "failed")
      #expect(
        (live["message"] as? String)?.contains(
          "expected the live bundle to be verified, it was refused")
          == true, "\(live["message"] ?? "")")
    }
    #expect(run.status == 1)
  }

  @Test func mistakesInTheBackendAndChannelPartsNameTheirLines() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    try Data(
      """
      {
        "backend": {"baseURL": "https://api.example/api/"},
        "ota": {"manifestUrl": "https://cdn.example/channels/prod/manifest.json"}
      }
      """.utf8
    ).write(to: scratch.appendingPathComponent("stack.json"))
    let run = try CLI.run(["--stack", "stack.json"], in: scratch)
    #expect(run.status == 2)
    for message in [
      "stack.json:2:1: error: \"baseURL\" is the backend's origin (https://host[:port]), not https://api.example/api/",
      "stack.json:2:1: error: a real backend signs users in at its real identity provider",
      "stack.json:3:1: error: unknown key \"manifestUrl\" in ota",
      "did you mean \"manifestURL\"?",
      "stack.json:3:1: error: \"manifestURL\" is required",
    ] {
      #expect(run.stderr.contains(message), "\(message) in \(run.stderr)")
    }
  }

  @Test func anUnreachableRealChannelIsBadInputNamingIt() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    try Data(
      """
      {"ota": {"manifestURL": "http://127.0.0.1:9/channels/prod/manifest.json"}, "timeout": "2s"}
      """.utf8
    ).write(to: scratch.appendingPathComponent("stack.json"))
    let run = try CLI.run(
      ["--channel", "prod", "--stack", "stack.json", "--filter", "ota/*"], in: scratch)
    #expect(run.status == 2)
    #expect(
      run.stderr.contains(
        "the real OTA channel is unreachable: http://127.0.0.1:9/channels/prod/manifest.json"),
      "\(run.stderr)")
  }
}
