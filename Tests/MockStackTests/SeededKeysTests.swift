import Foundation
import QualifyCore
import QualifyCrypto
import QualifyTestSupport
import Testing

@testable import MockStack

/// A seeded key kept between runs is the key the seed gives: a cache that changed a key would
/// change a run's verdict evidence (the IdP's kid) between a first run and its reproduction.
@Suite struct SeededKeysTests {
  @Test func aKeptKeyIsTheKeyTheSeedGives() throws {
    let folder = try Fixtures.temporaryDirectory("seeded-keys")
    defer { try? FileManager.default.removeItem(at: folder) }
    var generator = SeededGenerator(seed: 42, label: "idp-signing-key")
    let direct = try Key.generateRSA(bits: 2048, seededBy: &generator).rsaPublicNumbers().modulus
    let made = try SeededKeys.rsa(bits: 2048, seed: 42, label: "idp-signing-key", in: folder)
    #expect(try made.rsaPublicNumbers().modulus == direct)
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    #expect(files.count == 1 && files[0].hasSuffix(".pem"))
    let path = folder.appendingPathComponent(files[0]).path
    let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    #expect(mode == 0o600)
    // Read back, not made again: a file that holds another key is believed, so it must be the
    // one the name says — replace it by another and that one comes back.
    let other = try Key.generateRSA(bits: 2048)
    try other.pkcs8PrivatePEM().write(toFile: path, atomically: true, encoding: .utf8)
    let read = try SeededKeys.rsa(bits: 2048, seed: 42, label: "idp-signing-key", in: folder)
    #expect(try read.rsaPublicNumbers().modulus == other.rsaPublicNumbers().modulus)
    // Unless someone else could have written it.
    try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: path)
    let distrusted = try SeededKeys.rsa(bits: 2048, seed: 42, label: "idp-signing-key", in: folder)
    #expect(try distrusted.rsaPublicNumbers().modulus == direct)
    // Another seed or label is another file.
    _ = try SeededKeys.rsa(bits: 2048, seed: 43, label: "idp-signing-key", in: folder)
    _ = try SeededKeys.rsa(bits: 2048, seed: 42, label: "ota-harness-key", in: folder)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 3)
  }

  @Test func aFileThatDoesNotParseIsMadeAgain() throws {
    let folder = try Fixtures.temporaryDirectory("seeded-keys")
    defer { try? FileManager.default.removeItem(at: folder) }
    let first = try SeededKeys.rsa(bits: 2048, seed: 7, label: "fcm-harness-key", in: folder)
    let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first)
    try "not a key".write(
      to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
    let again = try SeededKeys.rsa(bits: 2048, seed: 7, label: "fcm-harness-key", in: folder)
    #expect(try again.rsaPublicNumbers().modulus == first.rsaPublicNumbers().modulus)
    #expect(
      try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8).contains(
        "PRIVATE KEY"))
  }

  @Test func nowhereToWriteStillGivesTheKey() throws {
    var generator = SeededGenerator(seed: 9, label: "x")
    let direct = try Key.generateRSA(bits: 2048, seededBy: &generator).rsaPublicNumbers().modulus
    let key = try SeededKeys.rsa(bits: 2048, seed: 9, label: "x", in: nil)
    #expect(try key.rsaPublicNumbers().modulus == direct)
  }
}
