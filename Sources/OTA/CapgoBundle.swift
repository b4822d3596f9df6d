import Foundation
import QualifyCore
import QualifyCrypto

/// Capgo v2 bundle encryption, wire-compatible with what `capgo bundle encrypt` produces and
/// `@capgo/capacitor-updater` verifies (rule 10): AES-128-CBC with PKCS#7 padding over the
/// zip; `sessionKey` = `base64(iv):base64(RSA private-key encryption of the AES key)`;
/// `checksum` = lowercase hex of the RSA private-key encryption of the SHA-256 of the
/// decrypted zip.
public enum CapgoBundle {
  /// An encrypted bundle and the manifest fields that go with it.
  public struct Sealed: Sendable {
    public var encrypted: [UInt8]
    public var checksum: String
    public var sessionKey: String
  }

  /// Why a bundle is refused.
  public struct Refusal: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Reason: String, Sendable {
      case missingChecksum = "missing-checksum"
      case checksumNotEncrypted = "checksum-not-encrypted"
      case checksumMismatch = "checksum-mismatch"
      case badSessionKey = "bad-session-key"
      case undecryptable
      case notAZip = "not-a-zip"
      case noIndex = "no-index"
      case unsafePath = "unsafe-path"
      /// A zip a device's unzip would read otherwise than qualify does (`ZipError.isUnsafe`).
      case unsafeArchive = "unsafe-archive"
    }

    public var reason: Reason
    public var description: String

    public init(reason: Reason, description: String) {
      self.reason = reason
      self.description = description
    }
  }

  /// Encrypts `zip` with a fresh AES key and IV from `randomBytes`, signing both with
  /// `privateKey`.
  public static func seal(zip: [UInt8], privateKey: Key, randomBytes: (Int) throws -> [UInt8])
    throws -> Sealed
  {
    let aesKey = try randomBytes(16)
    let iv = try randomBytes(16)
    let encrypted = try AES128CBC.encrypt(zip, key: aesKey, iv: iv)
    let encryptedKey = try privateKey.privateEncrypt(aesKey)
    let checksum = Hex.encode(try privateKey.privateEncrypt(Digest.sha256(zip)))
    let sessionKey = Data(iv).base64EncodedString() + ":" + Data(encryptedKey).base64EncodedString()
    return Sealed(encrypted: encrypted, checksum: checksum, sessionKey: sessionKey)
  }

  /// Verifies and decrypts a downloaded bundle with the app's public key, as the plugin does:
  /// the session key and the checksum must decrypt with the public key, and the checksum
  /// must be the SHA-256 of the decrypted zip.
  public static func open(
    encrypted: [UInt8], checksum: String?, sessionKey: String?, publicKey: Key
  ) throws(Refusal) -> [UInt8] {
    guard let checksum, !checksum.isEmpty else {
      throw Refusal(
        reason: .missingChecksum,
        description: "the manifest carries no checksum: an unverifiable bundle is refused")
    }
    guard let (iv, encryptedKey) = sessionKey.flatMap(sessionKeyParts), iv.count == 16 else {
      throw Refusal(
        reason: .badSessionKey,
        description: "the sessionKey is not base64(iv):base64(encrypted key)")
    }
    let aesKey: [UInt8]
    do {
      aesKey = try publicKey.publicDecrypt(encryptedKey)
    } catch {
      throw Refusal(
        reason: .badSessionKey,
        description:
          "the session key does not decrypt with the app's public key (signed by another key?)")
    }
    guard aesKey.count == 16 else {
      throw Refusal(reason: .badSessionKey, description: "the session key is not a 16-byte AES key")
    }
    // The plugin reads a checksum of hex digits as hex (its CLI's format since 5.30) and any
    // other as base64 (the older format it still accepts): CryptoCipherV2.decryptChecksum.
    guard let signedChecksum = CapgoBundle.checksumBytes(checksum) else {
      throw Refusal(
        reason: .checksumNotEncrypted, description: "the checksum is neither hex nor base64")
    }
    let expected: [UInt8]
    do {
      expected = try publicKey.publicDecrypt(Array(signedChecksum))
    } catch {
      throw Refusal(
        reason: .checksumNotEncrypted,
        description:
          "the checksum is not RSA-encrypted with the signing key (a bare SHA-256 is \(64) hex characters; this one has \(checksum.count))"
      )
    }
    let zip: [UInt8]
    do {
      zip = try AES128CBC.decrypt(encrypted, key: aesKey, iv: iv)
    } catch {
      throw Refusal(
        reason: .undecryptable,
        description: "the bundle does not decrypt with the session key (substituted or corrupted)")
    }
    guard Digest.constantTimeEqual(Digest.sha256(zip), expected) else {
      throw Refusal(
        reason: .checksumMismatch,
        description:
          "the checksum does not match the decrypted bundle (substituted or corrupted zip)")
    }
    return zip
  }

  /// The bytes of a manifest's checksum: hex when every character is a hex digit, else
  /// base64; nil when it is neither.
  static func checksumBytes(_ checksum: String) -> [UInt8]? {
    if checksum.allSatisfy(\.isHexDigit) { return Hex.decode(checksum).map { Array($0) } }
    return Data(base64Encoded: checksum).map { Array($0) }.flatMap { $0.isEmpty ? nil : $0 }
  }

  /// Checks that a decrypted zip is a bundle: a real zip whose entries all stay inside the
  /// bundle's folder, with `index.html` at its root — or under the one folder every entry sits
  /// in (`dist/index.html`, as zipping the build folder itself gives), which the plugin takes
  /// as the bundle's root.
  public static func validate(zip: [UInt8]) throws(Refusal) -> ZipArchive {
    let archive = try unpackable(zip: zip)
    if archive.entry("index.html") != nil { return archive }
    if let flat = flattened(archive), flat.entry("index.html") != nil { return flat }
    throw Refusal(reason: .noIndex, description: "the bundle has no index.html at its root")
  }

  /// The archive with its single top folder removed, when every entry sits in that one folder
  /// (directory entries aside); nil otherwise.
  static func flattened(_ archive: ZipArchive) -> ZipArchive? {
    let files = archive.entries.filter { !$0.name.hasSuffix("/") }
    guard let first = files.first?.name.split(separator: "/").first, !first.isEmpty else {
      return nil
    }
    let prefix = first + "/"
    guard files.allSatisfy({ $0.name.hasPrefix(prefix) && $0.name.count > prefix.count }) else {
      return nil
    }
    return ZipArchive(
      entries: files.map {
        var entry = $0
        entry.name = String($0.name.dropFirst(prefix.count))
        return entry
      })
  }

  /// Reads a zip the way the plugin unpacks one: an entry whose name would land outside the
  /// bundle's folder (zip-slip) refuses the whole bundle, signed or not, as the plugin's
  /// canonical-path check does.
  public static func unpackable(zip: [UInt8]) throws(Refusal) -> ZipArchive {
    let archive: ZipArchive
    do {
      archive = try ZipArchive(bytes: zip)
    } catch let error as ZipError where error.isUnsafe {
      throw Refusal(reason: .unsafeArchive, description: "the bundle's zip is refused: \(error)")
    } catch {
      throw Refusal(reason: .notAZip, description: "the decrypted bundle is not a zip: \(error)")
    }
    if let entry = archive.entries.first(where: { !isContained($0.name) }) {
      throw Refusal(
        reason: .unsafePath,
        description:
          "the bundle has an entry that would be written outside its folder: \"\(entry.name)\" (zip-slip)"
      )
    }
    return archive
  }

  /// Whether an entry name stays below the folder it is unpacked into: relative, no `..`
  /// component, no backslash or drive letter a Windows-made zip could smuggle in, no NUL.
  public static func isContained(_ name: String) -> Bool {
    guard !name.isEmpty, !name.hasPrefix("/"), !name.contains("\\"), !name.contains("\u{0}")
    else { return false }
    let components = name.split(separator: "/", omittingEmptySubsequences: false)
    if let first = components.first, first.count == 2, first.last == ":" { return false }
    return !components.contains("..")
  }

  /// The halves of a manifest's `sessionKey`: the IV and the RSA-encrypted AES key.
  public static func sessionKeyParts(_ sessionKey: String) -> (iv: [UInt8], encryptedKey: [UInt8])?
  {
    guard let colon = sessionKey.firstIndex(of: ":"),
      let iv = Data(base64Encoded: String(sessionKey[..<colon])),
      let encryptedKey = Data(base64Encoded: String(sessionKey[sessionKey.index(after: colon)...]))
    else { return nil }
    return (Array(iv), Array(encryptedKey))
  }

  /// Parses a base64 PEM key (public or private), or a PEM as is.
  /// Why a device's updater cannot use `text`, the key baked into the app's config, as its
  /// public key (`CapgoPublicKey.bakedProblem`).
  public static func deviceKeyProblem(_ text: String) -> String? {
    CapgoPublicKey.bakedProblem(text)
  }

  public static func key(base64 text: String, isPrivate: Bool) throws -> Key {
    guard let pem = Base64PEM.decode(text), pem.hasPrefix("-----BEGIN") else {
      throw InputError(
        "the \(isPrivate ? "private" : "public") key is neither a PEM nor base64 of a PEM")
    }
    do {
      return isPrivate ? try Key.privateKey(pem: pem) : try Key.publicKey(pem: pem)
    } catch {
      throw InputError("the \(isPrivate ? "private" : "public") key does not parse: \(error)")
    }
  }
}
