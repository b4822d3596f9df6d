import Foundation
import QualifyCore
import QualifyCrypto

/// The seeded RSA keys of a run (the IdP's, the OTA and FCM harness keys), kept between runs:
/// the same seed and label give the same key, and finding its primes costs tens of
/// milliseconds a key — most of a one-scenario run's start. A reproduction (`qualify run X
/// --seed N`) finds them made.
///
/// The cache is kept out of the report folder, which CI publishes: `$QUALIFY_KEY_CACHE`, else
/// `$XDG_CACHE_HOME/qualify/seeded-keys`, else `~/.cache/qualify/seeded-keys`. A file is named
/// by a digest of the seed, the label, the size and the generator's version, so another seed
/// or another way of generating never reads it; one that does not parse is made again. Where
/// nothing can be written, each key is generated as before.
enum SeededKeys {
  static func rsa(bits: Int, seed: UInt64, label: String) throws -> Key {
    try rsa(bits: bits, seed: seed, label: label, in: directory)
  }

  static func rsa(bits: Int, seed: UInt64, label: String, in directory: URL?) throws -> Key {
    let name = Hex.encode(
      Digest.sha256(Array("v\(Key.seededGeneratorVersion)|rsa\(bits)|\(seed)|\(label)".utf8)))
    let file = directory?.appendingPathComponent(name + ".pem")
    if let file, isOwnersOnly(file), let pem = try? String(contentsOf: file, encoding: .utf8),
      let key = try? Key.privateKey(pem: pem), key.isRSA, key.bits == bits
    {
      return key
    }
    var generator = SeededGenerator(seed: seed, label: label)
    let key = try Key.generateRSA(bits: bits, seededBy: &generator)
    if let file { store(key, at: file) }
    return key
  }

  /// Written whole or not at all (a temporary file renamed), readable by its owner only.
  private static func store(_ key: Key, at file: URL) {
    guard let pem = try? key.pkcs8PrivatePEM() else { return }
    let folder = file.deletingLastPathComponent()
    let manager = FileManager.default
    try? manager.createDirectory(
      at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let temporary = folder.appendingPathComponent(".\(UUID().uuidString).tmp")
    guard
      manager.createFile(
        atPath: temporary.path, contents: Data(pem.utf8), attributes: [.posixPermissions: 0o600])
    else { return }
    if rename(temporary.path, file.path) != 0 { try? manager.removeItem(at: temporary) }
  }

  /// A kept key is believed only in a file of this user that no one else can write, in a
  /// folder no one else can write (a shared `QUALIFY_KEY_CACHE` is not trusted).
  static func isOwnersOnly(_ file: URL) -> Bool {
    let manager = FileManager.default
    for path in [file.path, file.deletingLastPathComponent().path] {
      guard let attributes = try? manager.attributesOfItem(atPath: path),
        let owner = (attributes[.ownerAccountID] as? NSNumber)?.uint32Value,
        let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue,
        owner == getuid(), mode & 0o022 == 0
      else { return false }
    }
    return true
  }

  static var directory: URL? {
    let environment = ProcessInfo.processInfo.environment
    if let explicit = environment["QUALIFY_KEY_CACHE"] {
      return explicit.isEmpty ? nil : URL(fileURLWithPath: explicit)
    }
    if let cache = environment["XDG_CACHE_HOME"], !cache.isEmpty {
      return URL(fileURLWithPath: cache).appendingPathComponent("qualify/seeded-keys")
    }
    guard let home = environment["HOME"], !home.isEmpty else { return nil }
    return URL(fileURLWithPath: home).appendingPathComponent(".cache/qualify/seeded-keys")
  }
}
