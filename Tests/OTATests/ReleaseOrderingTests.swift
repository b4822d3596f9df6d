import Foundation
import OTA
import QualifyCore
import QualifyCrypto
import QualifyTestSupport
import Testing

/// Issue 26, *Versions*: the real repository's bare commit ids ordered by the manifest's
/// `sequence` (its docs/mobile-release.md, *Bundle versioning*, *Release sequence*; ota.ts), beside
/// seed 000's `<count>-<sha>` ids.
@Suite struct ReleaseOrderingTests {
  func manifest(_ version: String, sequence: Int?) -> Manifest {
    Manifest(
      version: version, url: "u", checksum: "c", sessionKey: "s",
      sequence: sequence.map(Double.init))
  }

  /// ota.ts's decision table for a sequence-aware app.
  @Test(
    arguments: [
      // A higher sequence is followed, even to an older build: a rollback.
      ("0aa11bb2", 5, "9ff00ee1", "5e1f0c2a", 4, true, "greater than the applied 4"),
      // A stale or replayed manifest never moves the device back.
      ("0aa11bb2", 4, "9ff00ee1", "5e1f0c2a", 4, false, "not greater than the applied 4"),
      ("0aa11bb2", 3, "9ff00ee1", "5e1f0c2a", 4, false, "a stale or replayed manifest"),
      // No floor yet (a fresh install, a wiped storage): trust on first use.
      ("0aa11bb2", 1, "5e1f0c2a", "5e1f0c2a", nil, true, "trust on first use"),
      // The native floor, which only hybrid ids on both sides can express.
      ("1199-aaaaaaa", 9, "1300-bbbbbbb", "1200-ccccccc", 4, false, "older than the native build"),
      ("1250-aaaaaaa", 9, "1300-bbbbbbb", "1200-ccccccc", 4, true, "greater than the applied 4"),
    ] as [(String, Int, String, String, Int?, Bool, String)])
  func aSequencedManifestIsOrderedByItsSequence(
    version: String, sequence: Int, running: String, builtin: String, applied: Int?,
    applies: Bool, rule: String
  ) {
    let verdict = ReleaseOrdering.sequence.decide(
      manifest: manifest(version, sequence: sequence), running: running, builtin: builtin,
      applied: applied.map(Double.init))
    #expect(verdict.applies == applies, "\(verdict.rule)")
    #expect(verdict.rule.contains(rule), "\(verdict.rule)")
  }

  /// A manifest without a sequence (written before sequences, or with a malformed one) falls
  /// back to the count rule; a count-ordered app ignores the sequence altogether.
  @Test func withoutASequenceTheCountRuleDecides() {
    let legacy = manifest("1200-aaaaaaa", sequence: nil)
    #expect(
      !ReleaseOrdering.sequence.decide(
        manifest: legacy, running: "1201-bbbbbbb", builtin: "builtin", applied: 3
      ).applies)
    let sequenced = manifest("1200-aaaaaaa", sequence: 99)
    #expect(
      !ReleaseOrdering.count.decide(
        manifest: sequenced, running: "1201-bbbbbbb", builtin: "builtin", applied: 3
      ).applies)
    // Bare commits without a sequence cannot be ordered: plain inequality.
    #expect(
      ReleaseOrdering.sequence.decide(
        manifest: manifest("0aa11bb2", sequence: nil), running: "9ff00ee1", builtin: "b",
        applied: 3
      ).applies)
  }

  /// An app whose ota.ts refuses only a lower sequence (or count) lets an equal one apply:
  /// the rule the simulated updater keeps when the app's own code is written that way.
  @Test func anEqualReleaseAppliesOnlyWhereTheAppsCodeLetsIt() {
    let replayed = manifest("0aa11bb2", sequence: 4)
    #expect(
      !ReleaseOrdering.sequence.decide(
        manifest: replayed, running: "9ff00ee1", builtin: "b", applied: 4
      ).applies)
    let weak = ReleaseOrdering.sequence.decide(
      manifest: replayed, running: "9ff00ee1", builtin: "b", applied: 4,
      equalSequenceApplies: true)
    #expect(weak.applies)
    #expect(weak.rule.contains("refuses only a lower sequence"))
    // A lower one is still refused.
    #expect(
      !ReleaseOrdering.sequence.decide(
        manifest: manifest("0aa11bb2", sequence: 3), running: "9ff00ee1", builtin: "b",
        applied: 4, equalSequenceApplies: true
      ).applies)
    let sameCount = manifest("1200-aaaaaaa", sequence: nil)
    #expect(
      !ReleaseOrdering.count.decide(
        manifest: sameCount, running: "1200-bbbbbbb", builtin: "b", applied: nil
      ).applies)
    #expect(
      ReleaseOrdering.count.decide(
        manifest: sameCount, running: "1200-bbbbbbb", builtin: "b", applied: nil,
        equalCountApplies: true
      ).applies)
  }

  /// A count past 64 bits still orders: converting it overflowed and let a downgrade through.
  @Test func aCountPast64BitsStillOrders() {
    let huge = BundleVersion("99999999999999999999999-aaaaaaa")
    let small = BundleVersion("5-bbbbbbb")
    #expect(huge.count == nil)
    #expect(small.compareCount(with: huge) == -1)
    #expect(huge.compareCount(with: small) == 1)
    #expect(!small.isUpdate(over: huge).applies)
    #expect(huge.isUpdate(over: small).applies)
    #expect(!small.ordersAbove(huge).ok)
    #expect(BundleVersion("007-a").compareCount(with: BundleVersion("7-b")) == 0)
    #expect(
      BundleVersion("100000000000000000000-a").compareCount(
        with: BundleVersion("99999999999999999999-b")) == 1)
  }

  /// `sequence` is any finite JSON number, as ota.ts reads it; anything else demotes the
  /// manifest to the count rule.
  @Test(
    arguments: [
      (#""sequence": 7"#, 7), (#""sequence": true"#, nil), (#""sequence": false"#, nil),
      (#""sequence": "7""#, nil), (#""sequence": 7.5"#, 7.5), (#""sequence": 1e300"#, 1e300),
      (#""sequence": null"#, nil),
    ] as [(String, Double?)])
  func theSequenceIsAFiniteNumberOrNothing(member: String, sequence: Double?) throws {
    let text = #"{"version": "0aa11bb2", "url": "b.zip", \#(member)}"#
    let manifest = try Manifest.parse(Array(text.utf8), source: "manifest.json")
    #expect(manifest.sequence == sequence)
  }

  func publisher(_ root: URL) -> Publisher {
    Publisher(store: DirectoryBucket(root: root), privateKey: CapgoBundleTests.key) {
      try SecureRandom.bytes($0)
    }
  }

  let zip = ZipArchive(entries: [.init(name: "index.html", data: Array("<p>v</p>".utf8))])

  /// The real pipeline: bare 8-character commit ids publish without force, every manifest write
  /// bumps the sequence, a redeploy of an older commit is a rollback under a new sequence.
  @Test func bareCommitsPublishUnderABumpedSequence() throws {
    let root = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    let publisher = publisher(root)
    let first = try publisher.publish(
      zip: zip, channel: "prod", version: "a1b2c3d4", ordering: .sequence)
    #expect(first.manifest.sequence == 1)
    let second = try publisher.publish(
      zip: zip, channel: "prod", version: "e5f6a7b8", ordering: .sequence)
    #expect(second.manifest.sequence == 2)
    let rollback = try publisher.publish(
      zip: zip, channel: "prod", version: "a1b2c3d4", ordering: .sequence)
    #expect(rollback.manifest.sequence == 3)
    #expect(rollback.previous == "e5f6a7b8")
    let served = try Manifest.parse(
      try #require(try DirectoryBucket(root: root).get(Manifest.key(channel: "prod"))),
      source: "manifest")
    #expect(served.sequence == 3 && served.version == "a1b2c3d4")
    // Seed 000's count ordering refuses the same id: devices could not order it.
    #expect(throws: Publisher.Refusal.self) {
      try publisher.publish(zip: zip, channel: "prod", version: "c9d0e1f2")
    }
  }

  /// Under sequence ordering a hybrid id over a hybrid channel is still held to its count (the
  /// real publish-side accident guard); a broken pipeline that keeps the sequence is visible.
  @Test func aHybridIdOverAHybridChannelKeepsTheCountGuard() throws {
    let root = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    let publisher = publisher(root)
    _ = try publisher.publish(
      zip: zip, channel: "prod", version: "1201-aaaaaaa", ordering: .sequence)
    #expect(throws: Publisher.Refusal.self) {
      try publisher.publish(zip: zip, channel: "prod", version: "1200-bbbbbbb", ordering: .sequence)
    }
    // A redeploy of the channel's own version is a release again, not a downgrade.
    let again = try publisher.publish(
      zip: zip, channel: "prod", version: "1201-aaaaaaa", ordering: .sequence)
    #expect(again.manifest.sequence == 2)
    #expect(throws: Publisher.Refusal.self) {
      try publisher.publish(zip: zip, channel: "prod", version: "1201-aaaaaaa", ordering: .count)
    }
    // Over a sequence no counter reaches, a publish could write a floor devices are already
    // past: refused unless forced.
    let root2 = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root2) }
    let odd = Manifest(version: "0aa11bb2", url: "u", checksum: "c", sessionKey: "s", sequence: 7.5)
    try DirectoryBucket(root: root2).put(
      Manifest.key(channel: "prod"), odd.json, contentType: "application/json")
    #expect(throws: Publisher.Refusal.self) {
      try self.publisher(root2).publish(
        zip: zip, channel: "prod", version: "e5f6a7b8", ordering: .sequence)
    }
    let forced = try self.publisher(root2).publish(
      zip: zip, channel: "prod", version: "e5f6a7b8", force: true, ordering: .sequence)
    #expect(forced.manifest.sequence == 9)
    let kept = try publisher.publish(
      zip: zip, channel: "prod", version: "1202-ccccccc", ordering: .sequence, keepsSequence: true)
    #expect(kept.manifest.sequence == 2)
  }
}

/// The key forms a device's updater can use (issue 26): PKCS#1 RSA-2048, raw or in base64.
@Suite struct CapgoPublicKeyTests {
  @Test func onlyAPKCS1RSA2048KeyIsUsable() throws {
    let key = CapgoBundleTests.key
    let pkcs1 = try key.pkcs1PublicPEM()
    #expect(CapgoPublicKey.problem(pkcs1) == nil)
    #expect(CapgoPublicKey.problem(Base64PEM.encode(pkcs1)) == nil)
    let spki = try #require(CapgoPublicKey.problem(try key.spkiPublicPEM()))
    #expect(spki.contains("BEGIN PUBLIC KEY PEM"))
    #expect(CapgoPublicKey.problem("not a key")?.contains("neither a PEM") == true)
    let small = try Key.generateRSA(bits: 1024)
    #expect(CapgoPublicKey.problem(try small.pkcs1PublicPEM())?.contains("RSA-1024") == true)
  }

  /// Baked into the app's config, the key must be the PEM text: Android's plugin checks that
  /// it starts with -----BEGIN RSA PUBLIC KEY----- (CryptoCipherV2.decryptFile). Base64 of the
  /// PEM — the CI secret's form, right for --public-key — is refused there.
  @Test func theBakedKeyIsThePEMTextNotItsBase64() throws {
    let pkcs1 = try CapgoBundleTests.key.pkcs1PublicPEM()
    #expect(CapgoPublicKey.bakedProblem(pkcs1) == nil)
    #expect(CapgoPublicKey.bakedProblem("\n" + pkcs1) == nil)
    let wrapped = try #require(CapgoPublicKey.bakedProblem(Base64PEM.encode(pkcs1)))
    #expect(wrapped.contains("base64 of a PEM"))
    #expect(
      CapgoPublicKey.bakedProblem(try CapgoBundleTests.key.spkiPublicPEM())?.contains(
        "BEGIN PUBLIC KEY PEM") == true)
  }
}
