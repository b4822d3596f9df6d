import Foundation
import HTTP
import QualifyCore
import QualifyCrypto
import QualifyTestSupport
import Testing

/// `qualify ota keygen | publish | verify`, as a release manager runs them.
@Suite struct OTACommandTests {
  let scratch: URL

  init() throws {
    scratch = try Fixtures.temporaryDirectory("qualify-ota")
    let dist = scratch.appendingPathComponent("dist/assets")
    try FileManager.default.createDirectory(at: dist, withIntermediateDirectories: true)
    try Data("<!doctype html><title>app</title>".utf8).write(
      to: scratch.appendingPathComponent("dist/index.html"))
    try Data("console.log('app')".utf8).write(to: dist.appendingPathComponent("app.js"))
  }

  func keys() throws -> (public: String, private: String) {
    let result = try CLI.run(["ota", "keygen"], in: scratch)
    #expect(result.status == 0)
    #expect(result.stderr.contains("CI secret"))
    var found: [String: String] = [:]
    for line in result.stdout.split(separator: "\n") {
      let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
      if parts.count == 2 { found[parts[0]] = parts[1] }
    }
    let publicKey = try #require(found["MOBILE_OTA_SIGNING_PUBLIC_KEY_B64"])
    let privateKey = try #require(found["MOBILE_OTA_SIGNING_PRIVATE_KEY_B64"])
    #expect(
      String(decoding: Data(base64Encoded: publicKey) ?? Data(), as: UTF8.self).hasPrefix(
        "-----BEGIN RSA PUBLIC KEY-----"))
    #expect(
      String(decoding: Data(base64Encoded: privateKey) ?? Data(), as: UTF8.self).hasPrefix(
        "-----BEGIN RSA PRIVATE KEY-----"))
    #expect(result.stdout.split(separator: "\n").count == 2, "stdout holds the pair alone")
    return (publicKey, privateKey)
  }

  func publish(_ version: String, _ privateKey: String, force: Bool = false) throws -> ProcessResult
  {
    try CLI.run(
      [
        "ota", "publish", "--dir", "dist", "--channel", "prod", "--version", version, "--bucket",
        "bucket", "--private-key", privateKey,
      ]
        + (force ? ["--force"] : []), in: scratch)
  }

  @Test func publishThenVerifyAcceptsRefusesAFlippedByteAndExplainsADowngrade() throws {
    let (publicKey, privateKey) = try keys()
    #expect(try publish("1201-abcdef0", privateKey).status == 0)
    let verify = [
      "ota", "verify", "--manifest", "bucket/channels/prod/manifest.json", "--public-key",
      publicKey,
    ]
    let accepted = try CLI.run(verify + ["--current", "1200-0000000"], in: scratch)
    #expect(accepted.status == 0, "\(accepted.stdout)\(accepted.stderr)")
    #expect(accepted.stdout.contains("verified"))
    #expect(accepted.stdout.contains("would apply"))

    let lower = try CLI.run(verify + ["--current", "1202-0000000"], in: scratch)
    #expect(lower.status == 1)
    #expect(lower.stdout.contains("would not apply"))
    #expect(lower.stdout.contains("strictly-greater rule"))

    let bundle = scratch.appendingPathComponent("bucket/channels/prod/bundles/1201-abcdef0.zip")
    var bytes = try Array(Data(contentsOf: bundle))
    bytes[bytes.count / 2] ^= 0x01
    try Data(bytes).write(to: bundle)
    let flipped = try CLI.run(verify, in: scratch)
    #expect(flipped.status == 1)
    #expect(flipped.stdout.contains("checksum"), "\(flipped.stdout)")
  }

  /// Issue 26, *Keys and bundles as devices accept them*: a bundle whose signature holds is still
  /// refused when the key is one Capgo's plugin cannot use — an SPKI PEM, an RSA-4096 pair.
  @Test func aKeyTheDeviceCannotUseIsRefusedThoughTheSignatureHolds() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let (publicKey, privateKey) = try keys()
    #expect(try publish("1201-abcdef0", privateKey).status == 0)
    func verify(_ key: String) throws -> ProcessResult {
      try CLI.run(
        [
          "ota", "verify", "--manifest", "bucket/channels/prod/manifest.json", "--public-key", key,
          "--current", "1200-0000000",
        ], in: scratch)
    }
    #expect(try verify(publicKey).status == 0)
    let pem = try #require(Base64PEM.decode(publicKey))
    let spki = Base64PEM.encode(try Key.publicKey(pem: pem).spkiPublicPEM())
    let refused = try verify(spki)
    #expect(refused.status == 1, "\(refused.stdout)")
    #expect(
      refused.stdout.contains("a device would refuse it: the public key is a BEGIN PUBLIC KEY PEM"))
    #expect(!refused.stdout.contains("verified:"))
    #expect(refused.stdout.contains("and then refuse it"), "\(refused.stdout)")
    // An RSA-4096 pair signs and verifies in OpenSSL, and no device takes its bundles.
    let large = try Key.generateRSA(bits: 4096)
    let republished = try CLI.run(
      [
        "ota", "publish", "--dir", "dist", "--channel", "prod", "--version", "1202-abcdef1",
        "--bucket", "bucket", "--private-key", Base64PEM.encode(try large.pkcs1PrivatePEM()),
      ], in: scratch)
    #expect(republished.status == 0, "\(republished.stderr)")
    let rsa4096 = try verify(Base64PEM.encode(try large.pkcs1PublicPEM()))
    #expect(rsa4096.status == 1)
    #expect(rsa4096.stdout.contains("the public key is RSA-4096"), "\(rsa4096.stdout)")
  }

  @Test func publishRefusesADowngradeUnlessForced() throws {
    let (_, privateKey) = try keys()
    #expect(try publish("1201-abcdef0", privateKey).status == 0)
    let refused = try publish("1200-1111111", privateKey)
    #expect(refused.status == 1)
    #expect(refused.stderr.contains("does not order above"))
    #expect(try publish("1200-1111111", privateKey, force: true).status == 0)
    let bundles = try FileManager.default.contentsOfDirectory(
      atPath: scratch.appendingPathComponent("bucket/channels/prod/bundles").path)
    #expect(bundles.sorted() == ["1200-1111111.zip", "1201-abcdef0.zip"], "nothing is pruned")
  }

  @Test func aWrongKeyIsNamed() throws {
    let (_, privateKey) = try keys()
    let (otherPublic, _) = try keys()
    #expect(try publish("1201-abcdef0", privateKey).status == 0)
    let result = try CLI.run(
      [
        "ota", "verify", "--manifest", "bucket/channels/prod/manifest.json", "--public-key",
        otherPublic,
      ], in: scratch)
    #expect(result.status == 1)
    #expect(result.stdout.contains("session key"))
  }

  @Test(arguments: [
    (["ota", "publish", "--dir", "dist"], "needs --channel"),
    (["ota", "verify", "--manifest", "nowhere.json", "--public-key", "aGVsbG8="], "public key"),
    (["ota", "unpublish"], "did you mean"),
  ])
  func badInputIsExit2(arguments: [String], message: String) throws {
    let result = try CLI.run(arguments, in: scratch)
    #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
    #expect(result.stderr.contains(message), "\(result.stderr)")
  }

  /// Publishing to and verifying from an HTTPS bucket: the one `qualify serve` runs.
  @Test func publishAndVerifyOverHTTPS() throws {
    let (publicKey, privateKey) = try keys()
    let (serve, document) = try CLI.serve(in: scratch)
    defer {
      serve.interrupt()
      serve.waitUntilExit()
    }
    let port = try #require(document["https"] as? Int)
    let connect = "ota.messages.example:443:127.0.0.1:\(port)"
    let published = try CLI.run(
      [
        "ota", "publish", "--dir", "dist", "--channel", "prod", "--version", "1300-feedbee",
        "--bucket", "https://ota.messages.example/",
        "--private-key", privateKey, "--ca", "ca.pem", "--connect-to", connect,
      ], in: scratch)
    #expect(published.status == 0, "\(published.stdout)\(published.stderr)")
    let verified = try CLI.run(
      [
        "ota", "verify", "--manifest", "https://ota.messages.example/channels/prod/manifest.json",
        "--public-key", publicKey,
        "--ca", "ca.pem", "--connect-to", connect, "--current", "1200-0000000",
      ], in: scratch)
    #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
    #expect(
      verified.stdout.contains(
        "https://ota.messages.example/channels/prod/bundles/1300-feedbee.zip"))
  }

  @Test func aRefusedBundleIsNeverSaidToApply() throws {
    let (publicKey, privateKey) = try keys()
    #expect(try publish("1201-abcdef0", privateKey).status == 0)
    let bundle = scratch.appendingPathComponent("bucket/channels/prod/bundles/1201-abcdef0.zip")
    var bytes = try Array(Data(contentsOf: bundle))
    bytes[bytes.count / 2] ^= 0x01
    try Data(bytes).write(to: bundle)
    let result = try CLI.run(
      [
        "ota", "verify", "--manifest", "bucket/channels/prod/manifest.json", "--public-key",
        publicKey, "--current", "1200-0000000",
      ], in: scratch)
    #expect(result.status == 1)
    #expect(result.stdout.contains("refused:"))
    #expect(!result.stdout.contains("would apply"))
    #expect(result.stdout.contains("and then refuse it"))
  }

  @Test(arguments: ["../../x", ".hidden", "a/b"])
  func aChannelOutsideTheBucketIsExit2AndWritesNothing(channel: String) throws {
    let (_, privateKey) = try keys()
    let result = try CLI.run(
      [
        "ota", "publish", "--dir", "dist", "--channel", channel, "--version", "1-abc",
        "--bucket", "bucket", "--private-key", privateKey,
      ], in: scratch)
    #expect(result.status == 2, "\(result.stderr)")
    #expect(result.stderr.contains("not a channel name"))
    #expect(!FileManager.default.fileExists(atPath: scratch.appendingPathComponent("x").path))
    #expect(!FileManager.default.fileExists(atPath: scratch.appendingPathComponent("bucket").path))
  }

  @Test func aPinnedVersionIsRefusedWithoutForce() throws {
    let (_, privateKey) = try keys()
    let refused = try publish("banana", privateKey)
    #expect(refused.status == 1)
    #expect(refused.stderr.contains("not a <count>-<sha> id"))
    #expect(try publish("banana", privateKey, force: true).status == 0)
    #expect(try publish("1-abcdef0", privateKey).status == 1, "nothing orders over a pinned id")
  }

  /// The real repository's pipeline: bare 8-character commit ids, ordered by the manifest's
  /// sequence (`--ordering sequence`), publish without force, and a redeploy of an older commit
  /// bumps the sequence: a rollback devices follow.
  @Test func bareCommitIdsPublishUnderSequenceOrdering() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let (publicKey, privateKey) = try keys()
    func publish(_ version: String, _ ordering: String) throws -> ProcessResult {
      try CLI.run(
        [
          "ota", "publish", "--dir", "dist", "--channel", "prod", "--version", version,
          "--bucket", "bucket", "--private-key", privateKey, "--ordering", ordering,
        ], in: scratch)
    }
    let first = try publish("a1b2c3d4", "sequence")
    #expect(first.status == 0, "\(first.stderr)")
    #expect(first.stdout.contains("sequence 1"))
    #expect(try publish("e5f6a7b8", "sequence").status == 0)
    let rollback = try publish("a1b2c3d4", "sequence")
    #expect(rollback.stdout.contains("sequence 3"), "\(rollback.stdout)")
    let manifest =
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: scratch.appendingPathComponent("bucket/channels/prod/manifest.json"))
      )
      as? [String: Any]
    #expect(manifest?["sequence"] as? Int == 3)
    #expect(manifest?["version"] as? String == "a1b2c3d4")
    // A device on the second release follows the rollback unless it already staged sequence 3.
    func verify(_ extra: [String]) throws -> ProcessResult {
      try CLI.run(
        [
          "ota", "verify", "--manifest", "bucket/channels/prod/manifest.json", "--public-key",
          publicKey, "--current", "e5f6a7b8",
        ] + extra, in: scratch)
    }
    let follows = try verify(["--ordering", "sequence", "--applied-sequence", "2"])
    #expect(follows.status == 0, "\(follows.stdout)")
    #expect(
      follows.stdout.contains("would apply a1b2c3d4: sequence 3 is greater than the applied 2"))
    let stale = try verify(["--ordering", "sequence", "--applied-sequence", "3"])
    #expect(stale.status == 1)
    #expect(
      stale.stdout.contains("sequence 3 is not greater than the applied 3"), "\(stale.stdout)")
    let fresh = try verify(["--ordering", "sequence"])
    #expect(fresh.stdout.contains("trust on first use"), "\(fresh.stdout)")
    // Under seed 000's count ordering the same id is refused.
    let count = try publish("c9d0e1f2", "count")
    #expect(count.status == 1)
    #expect(count.stderr.contains("not a <count>-<sha> id"))
    let bad = try publish("c9d0e1f2", "semver")
    #expect(bad.status == 2)
    #expect(bad.stderr.contains("--ordering must be count or sequence"))
  }

  @Test func aBucketThatDoesNotAnswerIsExit4() throws {
    let (_, privateKey) = try keys()
    // A port nothing listens on: bind one, note it, close it.
    let probe = try HTTPServer(handler: ClosureHandler { _ in .text("") })
    let port = probe.port
    probe.stop()
    let result = try CLI.run(
      [
        "ota", "publish", "--dir", "dist", "--channel", "prod", "--version", "1-abc", "--bucket",
        "http://127.0.0.1:\(port)/bucket/", "--private-key", privateKey,
      ], in: scratch)
    #expect(result.status == 4, "\(result.stdout)\(result.stderr)")
    #expect(result.stderr.contains("127.0.0.1:\(port)"))
    #expect(!result.stderr.contains("bug in qualify"))
  }

  @Test func anEndlessBundleStopsAtTheBound() throws {
    let (publicKey, _) = try keys()
    let server = try TestServer(tls: false) { request in
      request.path.hasSuffix("manifest.json")
        ? .json([
          "version": "2-abc", "url": "bundle.zip", "checksum": "00", "sessionKey": "AA==:AA==",
        ])
        : HTTPResponse(status: 200, body: [UInt8](repeating: 0, count: 3 << 20))
    }
    defer { server.stop() }
    let result = try CLI.run(
      [
        "ota", "verify", "--manifest", "http://127.0.0.1:\(server.port)/manifest.json",
        "--public-key", publicKey, "--max-bundle-size", "1M",
      ], in: scratch)
    #expect(result.status == 4, "\(result.stdout)\(result.stderr)")
    #expect(result.stderr.contains("larger than 1048576 bytes"))
  }

  @Test(arguments: ["0", "-1", "1T", "lots", "99999999999G"])
  func aBadBundleSizeIsExit2(size: String) throws {
    let result = try CLI.run(
      [
        "ota", "verify", "--manifest", "m.json", "--public-key", "aGVsbG8=", "--max-bundle-size",
        size,
      ], in: scratch)
    #expect(result.status == 2, "\(result.stderr)")
    #expect(result.stderr.contains("--max-bundle-size must be a positive size"))
  }
}
