import Foundation
import HTTP
import OTA
import QualifyCore
import QualifyCrypto
import QualifyTestSupport
import Testing

@Suite struct BundleVersionTests {
  @Test(arguments: [
    ("1235-abc", "1234-def", true), ("1234-abc", "1234-def", false),
    ("1233-abc", "1234-def", false),
    ("1234-abc", "builtin", true), ("builtin", "1234-abc", true), ("pinned", "pinned", false),
    ("1234-abc", "1234-abc", false),
  ])
  func theStrictlyGreaterRule(manifest: String, current: String, applies: Bool) {
    #expect(BundleVersion(manifest).isUpdate(over: BundleVersion(current)).applies == applies)
  }

  @Test func countsAndShas() {
    #expect(BundleVersion("1234-a1b2c3d").count == 1234)
    #expect(BundleVersion("1234-a1b2c3d").sha == "a1b2c3d")
    #expect(BundleVersion("builtin").count == nil)
    #expect(BundleVersion("v1-2").count == nil)
  }
}

@Suite struct ZipTests {
  @Test func writtenZipsReadBackWithTheirContent() throws {
    let archive = ZipArchive(entries: [
      .init(name: "index.html", data: Array("<p>hi</p>".utf8)),
      .init(name: "a/b.js", data: [0, 1, 2]),
    ])
    let read = try ZipArchive(bytes: archive.bytes)
    #expect(read.entries == archive.entries)
  }

  @Test func pythonZipfileReadsOurZips() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let zip = directory.appendingPathComponent("b.zip")
    try Data(ZipArchive(entries: [.init(name: "index.html", data: Array("ok".utf8))]).bytes).write(
      to: zip)
    let result = try Programs.run(
      "/usr/bin/python3",
      [
        "-c",
        "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1]); print(z.testzip(), z.read('index.html').decode())",
        zip.path,
      ])
    #expect(
      result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "None ok", "\(result.stderr)"
    )
  }

  @Test func garbageIsNotAZip() {
    #expect(throws: ZipError.self) { try ZipArchive(bytes: Array(repeating: 7, count: 100)) }
  }

  @Test func crc32KnownValue() {
    #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
  }
}

@Suite struct CapgoBundleTests {
  static let key: Key = {
    var generator = SeededGenerator(seed: 5, label: "capgo-test")
    do { return try Key.generateRSA(bits: 2048, seededBy: &generator) } catch {
      fatalError("\(error)")
    }
  }()
  static var publicKey: Key { (try? Key.publicKey(pem: try key.pkcs1PublicPEM())) ?? key }
  let zip = ZipArchive(entries: [.init(name: "index.html", data: Array("<p>bundle</p>".utf8))])
    .bytes

  func seal(_ zip: [UInt8]) throws -> CapgoBundle.Sealed {
    try CapgoBundle.seal(zip: zip, privateKey: CapgoBundleTests.key) { try SecureRandom.bytes($0) }
  }

  @Test func sealedBundlesOpenWithThePublicKey() throws {
    let sealed = try seal(zip)
    #expect(sealed.checksum.count == 512)
    #expect(sealed.checksum == sealed.checksum.lowercased())
    #expect(sealed.sessionKey.split(separator: ":").count == 2)
    let opened = try CapgoBundle.open(
      encrypted: sealed.encrypted, checksum: sealed.checksum, sessionKey: sealed.sessionKey,
      publicKey: CapgoBundleTests.publicKey)
    #expect(opened == zip)
  }

  @Test func eachTamperingHasItsReason() throws {
    let sealed = try seal(zip)
    func reason(
      _ encrypted: [UInt8], _ checksum: String?, _ sessionKey: String?,
      key: Key = CapgoBundleTests.publicKey
    ) -> CapgoBundle.Refusal.Reason? {
      do {
        _ = try CapgoBundle.open(
          encrypted: encrypted, checksum: checksum, sessionKey: sessionKey, publicKey: key)
        return nil
      } catch {
        return error.reason
      }
    }
    var flipped = sealed.encrypted
    flipped[flipped.count / 2] ^= 1
    #expect(reason(flipped, sealed.checksum, sealed.sessionKey) == .checksumMismatch)
    #expect(reason(sealed.encrypted, nil, sealed.sessionKey) == .missingChecksum)
    #expect(
      reason(sealed.encrypted, Hex.encode(Digest.sha256(zip)), sealed.sessionKey)
        == .checksumNotEncrypted)
    var otherGenerator = SeededGenerator(seed: 6, label: "other")
    let other = try Key.generateRSA(bits: 2048, seededBy: &otherGenerator)
    #expect(
      reason(sealed.encrypted, sealed.checksum, sealed.sessionKey, key: other) == .badSessionKey)
  }

  /// The plugin reads a checksum of hex digits as hex and any other as base64, the format its
  /// CLI wrote before 5.30 (CryptoCipherV2.decryptChecksum): a bundle whose manifest carries
  /// the base64 form is taken; one whose checksum is neither is refused.
  @Test func aBase64ChecksumIsReadAsThePluginReadsIt() throws {
    let sealed = try seal(zip)
    let base64 = Data(try #require(Hex.decode(sealed.checksum))).base64EncodedString()
    let opened = try CapgoBundle.open(
      encrypted: sealed.encrypted, checksum: base64, sessionKey: sealed.sessionKey,
      publicKey: CapgoBundleTests.publicKey)
    #expect(opened == zip)
    #expect(throws: CapgoBundle.Refusal.self) {
      try CapgoBundle.open(
        encrypted: sealed.encrypted, checksum: "not a checksum!", sessionKey: sealed.sessionKey,
        publicKey: CapgoBundleTests.publicKey)
    }
  }

  /// A zip of the build folder itself (`dist/index.html`, `dist/assets/…`) is unpacked with that
  /// folder as the bundle's root, as the plugin does; files in two folders, or beside the one
  /// folder, leave no root to take.
  @Test func aBundleUnderOneFolderIsFlattened() throws {
    func entries(_ names: [String]) -> [UInt8] {
      ZipArchive(entries: names.map { .init(name: $0, data: Array($0.utf8)) }).bytes
    }
    let flat = try CapgoBundle.validate(zip: entries(["dist/index.html", "dist/assets/app.js"]))
    #expect(flat.entries.map(\.name) == ["index.html", "assets/app.js"])
    #expect(flat.entry("index.html")?.data == Array("dist/index.html".utf8))
    for names in [["a/index.html", "b/app.js"], ["dist/index.html", "README"], ["dist/app.js"]] {
      #expect(throws: CapgoBundle.Refusal.self, "\(names)") {
        try CapgoBundle.validate(zip: entries(names))
      }
    }
  }

  @Test func aSubstitutedZipUnderTheSameSessionKeyIsCaught() throws {
    // The public key is in every app: an attacker can recover the AES key and re-encrypt.
    let sealed = try seal(zip)
    let parts = sealed.sessionKey.split(separator: ":").map(String.init)
    let iv = Array(Data(base64Encoded: parts[0]) ?? Data())
    let aesKey = try CapgoBundleTests.publicKey.publicDecrypt(
      Array(Data(base64Encoded: parts[1]) ?? Data()))
    let evil = ZipArchive(entries: [
      .init(name: "index.html", data: Array("<script>steal()</script>".utf8))
    ]).bytes
    let reencrypted = try AES128CBC.encrypt(evil, key: aesKey, iv: iv)
    #expect(throws: CapgoBundle.Refusal.self) {
      try CapgoBundle.open(
        encrypted: reencrypted, checksum: sealed.checksum, sessionKey: sealed.sessionKey,
        publicKey: CapgoBundleTests.publicKey)
    }
  }
}

/// Capgo v2 against an implementation written by someone else (Python, `cryptography`).
@Suite struct CapgoInteroperabilityTests {
  let script = Fixtures.file("interop/capgo_v2.py")

  @Test func aBundleSealedInPythonVerifiesHere() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let zip = ZipArchive(entries: [
      .init(name: "index.html", data: Array("<p>from python</p>".utf8))
    ])
    try Data(zip.bytes).write(to: directory.appendingPathComponent("in.zip"))
    let privateB64 = Base64PEM.encode(try CapgoBundleTests.key.pkcs1PrivatePEM())
    let result = try Programs.run(
      "/usr/bin/python3",
      [
        script, "seal", privateB64, directory.appendingPathComponent("in.zip").path,
        directory.appendingPathComponent("out.bin").path,
      ])
    #expect(result.status == 0, "\(result.stderr)")
    let fields = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String])
    let encrypted = try Array(Data(contentsOf: directory.appendingPathComponent("out.bin")))
    let publicKey = try CapgoBundle.key(
      base64: Base64PEM.encode(try CapgoBundleTests.key.pkcs1PublicPEM()), isPrivate: false)
    let opened = try CapgoBundle.open(
      encrypted: encrypted, checksum: fields["checksum"], sessionKey: fields["sessionKey"],
      publicKey: publicKey)
    #expect(opened == zip.bytes)
  }

  @Test func ourBundlesOpenInPython() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let zip = ZipArchive(entries: [.init(name: "index.html", data: Array("<p>from swift</p>".utf8))]
    ).bytes
    let sealed = try CapgoBundle.seal(zip: zip, privateKey: CapgoBundleTests.key) {
      try SecureRandom.bytes($0)
    }
    let bundle = directory.appendingPathComponent("b.bin")
    try Data(sealed.encrypted).write(to: bundle)
    let publicB64 = Base64PEM.encode(try CapgoBundleTests.key.pkcs1PublicPEM())
    let out = directory.appendingPathComponent("out.zip")
    let result = try Programs.run(
      "/usr/bin/python3",
      [script, "open", publicB64, bundle.path, sealed.checksum, sealed.sessionKey, out.path])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(try Array(Data(contentsOf: out)) == zip)
  }
}

@Suite struct PublisherTests {
  func publisher(_ root: URL) -> Publisher {
    Publisher(store: DirectoryBucket(root: root), privateKey: CapgoBundleTests.key) {
      try SecureRandom.bytes($0)
    }
  }

  let zip = ZipArchive(entries: [.init(name: "index.html", data: Array("<p>v</p>".utf8))])

  @Test func theGuardRefusesADowngradeUnlessForced() throws {
    let root = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    let publisher = publisher(root)
    _ = try publisher.publish(zip: zip, channel: "prod", version: "1201-aaa")
    #expect(throws: Publisher.Refusal.self) {
      try publisher.publish(zip: zip, channel: "prod", version: "1200-bbb")
    }
    #expect(throws: Publisher.Refusal.self) {
      try publisher.publish(zip: zip, channel: "prod", version: "1201-ccc")
    }
    let forced = try publisher.publish(zip: zip, channel: "prod", version: "1200-bbb", force: true)
    #expect(forced.previous == "1201-aaa")
    // Nothing is pruned, channels stay apart.
    let store = DirectoryBucket(root: root)
    #expect(
      try store.list(prefix: "channels/prod/bundles/") == [
        "channels/prod/bundles/1200-bbb.zip", "channels/prod/bundles/1201-aaa.zip",
      ])
    _ = try publisher.publish(zip: zip, channel: "staging", version: "1100-ddd")
    #expect(try store.list(prefix: "channels/staging/").count == 2)
  }

  @Test func aBundleWithoutIndexIsBadInput() throws {
    let root = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    #expect(throws: InputError.self) {
      try publisher(root).publish(
        zip: ZipArchive(entries: [.init(name: "app.js", data: [1])]), channel: "prod",
        version: "1-a")
    }
  }
}

@Suite struct ManifestLocationTests {
  @Test func bundleLocationsResolveAgainstWhereTheManifestWasRead() {
    let https = "https://ota.example/app/channels/prod/manifest.json"
    #expect(
      Manifest.resolve("bundles/1300-abc.zip", against: https)
        == "https://ota.example/app/channels/prod/bundles/1300-abc.zip")
    // A host-absolute path stays on the manifest's host, as a device would fetch it.
    #expect(
      Manifest.resolve("/cdn/1300-abc.zip", against: https)
        == "https://ota.example/cdn/1300-abc.zip")
    #expect(
      Manifest.resolve("https://cdn.example/b.zip", against: https) == "https://cdn.example/b.zip")
    #expect(
      Manifest.resolve("bundles/b.zip", against: "/tmp/bucket/channels/prod/manifest.json")
        == "file:///tmp/bucket/channels/prod/bundles/b.zip")
    #expect(Manifest.resolve("/srv/b.zip", against: "/tmp/manifest.json") == "/srv/b.zip")
    #expect(Manifest.resolve("b.zip", against: nil) == "b.zip")
  }
}

/// What the audit found in `ota verify` and `ota publish`: zip-slip, unbounded downloads,
/// a channel or version that leaves the bucket.
@Suite struct OTAHardeningTests {
  let key = CapgoBundleTests.key

  func sealed(_ entries: [ZipArchive.Entry]) throws -> (Manifest, [UInt8]) {
    let sealed = try CapgoBundle.seal(
      zip: ZipArchive(entries: entries).bytes, privateKey: key,
      randomBytes: { try SecureRandom.bytes($0) })
    return (
      Manifest(
        version: "1300-abc", url: "bundles/1300-abc.zip", checksum: sealed.checksum,
        sessionKey: sealed.sessionKey), sealed.encrypted
    )
  }

  @Test(arguments: [
    "../evil.js", "/abs/evil.js", "assets/../../evil.js", "..\\evil.js", "C:/evil.js", "a/../..",
  ])
  func aSignedBundleWithAnEntryOutsideItsFolderIsRefused(name: String) throws {
    let (manifest, bundle) = try sealed([
      .init(name: "index.html", data: Array("<p>ok</p>".utf8)),
      .init(name: name, data: Array("alert(1)".utf8)),
    ])
    let publicKey = try Key.publicKey(pem: try key.pkcs1PublicPEM())
    let report = BundleVerifier.verify(
      manifest: manifest, bundle: bundle, publicKey: publicKey, current: nil)
    #expect(report.refusal?.reason == .unsafePath, "\(name)")
    #expect(report.refusal?.description.contains(name) == true)
  }

  @Test(arguments: ["assets/a..b.js", "index.html", "a/b/c.js", ".well-known/x"])
  func ordinaryNamesStayInside(name: String) {
    #expect(CapgoBundle.isContained(name))
  }

  @Test func aDownloadStopsAtItsBoundWithoutReadingTheRest() throws {
    let server = try TestServer(tls: false) { _ in
      HTTPResponse(status: 200, body: [UInt8](repeating: 0x41, count: 3 << 20))
    }
    defer { server.stop() }
    let fetcher = ObjectFetcher(
      client: try HTTPClient(configuration: .init(allowsOutsideOrigins: true)))
    #expect {
      _ = try fetcher.fetch("http://127.0.0.1:\(server.port)/bundle.zip", limit: 1 << 20)
    } throws: { error in
      "\(error)".contains("larger than \(1 << 20) bytes")
    }
    let whole = try fetcher.fetch("http://127.0.0.1:\(server.port)/bundle.zip", limit: 4 << 20)
    #expect(whole.bytes.count == 3 << 20)
  }

  @Test func aRemoteManifestCannotNameALocalFile() throws {
    let fetcher = ObjectFetcher(client: nil)
    #expect {
      _ = try fetcher.fetch(
        "file:///etc/passwd", relativeTo: "https://ota.example/channels/prod/manifest.json",
        limit: 1 << 20)
    } throws: { error in
      "\(error)".contains("may only name http(s) bundles")
    }
  }

  @Test func aLocalFileOverTheBoundOrNotRegularIsRefused() throws {
    let root = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    let big = root.appendingPathComponent("big.zip")
    try Data(count: 2048).write(to: big)
    let fetcher = ObjectFetcher(client: nil)
    #expect(throws: InputError.self) { try fetcher.fetch(big.path, limit: 1024) }
    #expect(throws: InputError.self) { try fetcher.fetch("/dev/zero", limit: 1024) }
    #expect(try fetcher.fetch(big.path, limit: 4096).bytes.count == 2048)
  }

  @Test(arguments: ["../../x", ".hidden", "a/b", "", "prod\u{0}", "pröd"])
  func aChannelThatIsNotAFolderNameIsBadInput(channel: String) throws {
    let root = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    let publisher = Publisher(store: DirectoryBucket(root: root), privateKey: key) {
      try SecureRandom.bytes($0)
    }
    #expect(throws: InputError.self) {
      try publisher.publish(
        zip: ZipArchive(entries: [.init(name: "index.html", data: [1])]), channel: channel,
        version: "1-a")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).isEmpty)
  }

  @Test func aPinnedVersionNeedsForceAndSoDoesEverythingAfterIt() throws {
    let root = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    let publisher = Publisher(store: DirectoryBucket(root: root), privateKey: key) {
      try SecureRandom.bytes($0)
    }
    let zip = ZipArchive(entries: [.init(name: "index.html", data: [1])])
    #expect(throws: Publisher.Refusal.self) {
      try publisher.publish(zip: zip, channel: "prod", version: "banana")
    }
    _ = try publisher.publish(zip: zip, channel: "prod", version: "banana", force: true)
    // Over a pinned id nothing can be ordered: a lower count would pass a device's
    // plain-inequality check, so the guard does not vouch for it.
    #expect(throws: Publisher.Refusal.self) {
      try publisher.publish(zip: zip, channel: "prod", version: "1-aaaaaaa")
    }
  }
}
