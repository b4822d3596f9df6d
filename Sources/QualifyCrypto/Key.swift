import COpenSSL
import Foundation

/// An asymmetric key (RSA or EC) owning its `EVP_PKEY`; freed when the value goes.
///
/// RSA keys serve three roles in the simulated world: the IdP's id_token signing key (RS256),
/// the OTA bundle signing key pair (Capgo v2: raw PKCS#1 v1.5 private-key encryption), and
/// keys a user pastes as base64 PEM. EC P-256 keys back the TLS certificates of the mocks,
/// because they are far cheaper to load and to handshake with than RSA.
///
/// Sendable by construction, not by the compiler's proof: the `EVP_PKEY` is never modified
/// after `init` (every method reads it through a fresh `EVP_PKEY_CTX` or BIO of its own), and
/// OpenSSL 3 documents concurrent use of a key that no thread modifies as safe.
public final class Key: @unchecked Sendable {
  let pointer: OpaquePointer
  /// Whether the private half is present (a parsed public key has none).
  public let hasPrivateKey: Bool

  init(taking pointer: OpaquePointer, hasPrivateKey: Bool) {
    self.pointer = pointer
    self.hasPrivateKey = hasPrivateKey
  }

  deinit {
    EVP_PKEY_free(pointer)
  }

  /// Generates an RSA key pair of `bits` bits with OpenSSL's CSPRNG.
  public static func generateRSA(bits: Int = 2048) throws -> Key {
    let ctx = try check(EVP_PKEY_CTX_new_from_name(nil, "RSA", nil), "EVP_PKEY_CTX_new_from_name")
    defer { EVP_PKEY_CTX_free(ctx) }
    try check(EVP_PKEY_keygen_init(ctx), "EVP_PKEY_keygen_init")
    try check(
      EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, Int32(bits)), "EVP_PKEY_CTX_set_rsa_keygen_bits")
    var key: OpaquePointer?
    try check(EVP_PKEY_generate(ctx, &key), "EVP_PKEY_generate")
    return Key(taking: try check(key, "EVP_PKEY_generate"), hasPrivateKey: true)
  }

  /// Generates an EC P-256 key pair.
  public static func generateP256() throws -> Key {
    let ctx = try check(EVP_PKEY_CTX_new_from_name(nil, "EC", nil), "EVP_PKEY_CTX_new_from_name")
    defer { EVP_PKEY_CTX_free(ctx) }
    try check(EVP_PKEY_keygen_init(ctx), "EVP_PKEY_keygen_init")
    try check(EVP_PKEY_CTX_set_group_name(ctx, "P-256"), "EVP_PKEY_CTX_set_group_name")
    var key: OpaquePointer?
    try check(EVP_PKEY_generate(ctx, &key), "EVP_PKEY_generate")
    return Key(taking: try check(key, "EVP_PKEY_generate"), hasPrivateKey: true)
  }

  /// Parses a PEM private key: PKCS#8 (`BEGIN PRIVATE KEY`), PKCS#1 (`BEGIN RSA PRIVATE KEY`),
  /// or an encrypted one with `passphrase`.
  ///
  /// OpenSSL is never left to ask for a passphrase itself: its default callback reads the
  /// terminal or standard input, which in CI waits for ever. Without `passphrase`, an encrypted
  /// key fails at once.
  public static func privateKey(pem: String, passphrase: String? = nil) throws -> Key {
    let bytes = Array(pem.utf8)
    let secret = Array((passphrase ?? "").utf8)
    // The callback's context: the passphrase's bytes, cleared and freed after the read.
    let context = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, secret.count))
    _ = context.initialize(from: secret)
    let holder = UnsafeMutablePointer<UnsafeMutableBufferPointer<UInt8>>.allocate(capacity: 1)
    holder.initialize(to: UnsafeMutableBufferPointer(rebasing: context[0..<secret.count]))
    defer {
      context.update(repeating: 0)
      context.deallocate()
      holder.deallocate()
    }
    let key = try withReadBIO(bytes) { bio in
      PEM_read_bio_PrivateKey(
        bio, nil,
        { out, size, _, pointer in
          // The passphrase's length; none (0) makes the decryption fail, as OpenSSL expects.
          guard let out, let pointer else { return 0 }
          let given = pointer.assumingMemoryBound(to: UnsafeMutableBufferPointer<UInt8>.self)
            .pointee
          guard given.count > 0, given.count <= Int(size) else { return 0 }
          for index in 0..<given.count { out[index] = CChar(bitPattern: given[index]) }
          return Int32(given.count)
        }, UnsafeMutableRawPointer(holder))
    }
    return Key(taking: try check(key, "PEM_read_bio_PrivateKey"), hasPrivateKey: true)
  }

  /// Whether `pem` holds an encrypted private key (PKCS#8 or a legacy `Proc-Type` header).
  public static func isEncrypted(pem: String) -> Bool {
    pem.contains("BEGIN ENCRYPTED PRIVATE KEY") || pem.contains("Proc-Type: 4,ENCRYPTED")
  }

  /// Parses a PEM public key: SPKI (`BEGIN PUBLIC KEY`) or PKCS#1 (`BEGIN RSA PUBLIC KEY`).
  public static func publicKey(pem: String) throws -> Key {
    // The decoder keeps both the out-pointer and the input type until it is freed, so both
    // need storage that outlives the creating call.
    let slot = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: 1)
    slot.initialize(to: nil)
    defer { slot.deallocate() }
    let decoder = try check(
      OSSL_DECODER_CTX_new_for_pkey(
        slot, cString("PEM"), nil, nil, COpenSSL_selection_public_key(), nil, nil),
      "OSSL_DECODER_CTX_new_for_pkey")
    defer { OSSL_DECODER_CTX_free(decoder) }
    let bytes = Array(pem.utf8)
    try withReadBIO(bytes) { bio in
      try check(OSSL_DECODER_from_bio(decoder, bio), "OSSL_DECODER_from_bio")
    }
    return Key(taking: try check(slot.pointee, "OSSL_DECODER_from_bio"), hasPrivateKey: false)
  }

  /// The key size in bits.
  public var bits: Int { Int(EVP_PKEY_get_bits(pointer)) }

  /// The largest input `privateEncrypt` accepts / the output size of an RSA operation.
  public var size: Int { Int(EVP_PKEY_get_size(pointer)) }

  public var isRSA: Bool { EVP_PKEY_is_a(pointer, "RSA") == 1 }

  // MARK: PEM

  /// The private key as PKCS#8 PEM (what TLS servers load).
  public func pkcs8PrivatePEM() throws -> String {
    guard hasPrivateKey else { throw CryptoError("no private key to export") }
    let bytes = try withMemoryBIO("PEM_write_bio_PrivateKey") { bio in
      PEM_write_bio_PrivateKey(bio, pointer, nil, nil, 0, nil, nil)
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The private key as PKCS#1 PEM (`BEGIN RSA PRIVATE KEY`), the format Capgo expects.
  public func pkcs1PrivatePEM() throws -> String {
    guard hasPrivateKey else { throw CryptoError("no private key to export") }
    return try encode(selection: COpenSSL_selection_keypair(), structure: "type-specific")
  }

  /// The public key as PKCS#1 PEM (`BEGIN RSA PUBLIC KEY`), the format Capgo expects.
  public func pkcs1PublicPEM() throws -> String {
    try encode(selection: COpenSSL_selection_public_key(), structure: "type-specific")
  }

  /// The public key as SPKI PEM (`BEGIN PUBLIC KEY`).
  public func spkiPublicPEM() throws -> String {
    try encode(selection: COpenSSL_selection_public_key(), structure: "SubjectPublicKeyInfo")
  }

  private func encode(selection: Int32, structure: StaticString) throws -> String {
    // OpenSSL 3.0 keeps these pointers until the encoder is freed: they must outlive the
    // call, which a bridged Swift string does not.
    let encoder = try check(
      OSSL_ENCODER_CTX_new_for_pkey(
        pointer, selection, cString("PEM"), cString(structure), nil),
      "OSSL_ENCODER_CTX_new_for_pkey")
    defer { OSSL_ENCODER_CTX_free(encoder) }
    let bytes = try withMemoryBIO("OSSL_ENCODER_to_bio") { bio in
      OSSL_ENCODER_to_bio(encoder, bio)
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  // MARK: RSA operations

  /// RSA PKCS#1 v1.5 "private-key encryption" (type-1 padding, no DigestInfo): what Node's
  /// `crypto.privateEncrypt` and Capgo v2 produce for the session key and the checksum.
  public func privateEncrypt(_ data: [UInt8]) throws -> [UInt8] {
    guard hasPrivateKey, isRSA else {
      throw CryptoError("private-key encryption needs an RSA private key")
    }
    let ctx = try check(EVP_PKEY_CTX_new(pointer, nil), "EVP_PKEY_CTX_new")
    defer { EVP_PKEY_CTX_free(ctx) }
    try check(EVP_PKEY_sign_init(ctx), "EVP_PKEY_sign_init")
    try check(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING), "EVP_PKEY_CTX_set_rsa_padding")
    var length = size
    var out = [UInt8](repeating: 0, count: length)
    try check(EVP_PKEY_sign(ctx, &out, &length, data, data.count), "EVP_PKEY_sign")
    return Array(out[0..<length])
  }

  /// The inverse of `privateEncrypt`: recovers the data with the public key, or throws when the
  /// input was not produced by the matching private key.
  public func publicDecrypt(_ data: [UInt8]) throws -> [UInt8] {
    guard isRSA else { throw CryptoError("public-key decryption needs an RSA key") }
    let ctx = try check(EVP_PKEY_CTX_new(pointer, nil), "EVP_PKEY_CTX_new")
    defer { EVP_PKEY_CTX_free(ctx) }
    try check(EVP_PKEY_verify_recover_init(ctx), "EVP_PKEY_verify_recover_init")
    try check(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING), "EVP_PKEY_CTX_set_rsa_padding")
    var length = size
    var out = [UInt8](repeating: 0, count: length)
    try check(
      EVP_PKEY_verify_recover(ctx, &out, &length, data, data.count), "EVP_PKEY_verify_recover")
    return Array(out[0..<length])
  }

  /// An RS256 (RSASSA-PKCS1-v1_5 with SHA-256) signature, as JWS uses it.
  public func signSHA256(_ data: [UInt8]) throws -> [UInt8] {
    guard hasPrivateKey else { throw CryptoError("signing needs a private key") }
    let md = try check(EVP_MD_CTX_new(), "EVP_MD_CTX_new")
    defer { EVP_MD_CTX_free(md) }
    try check(EVP_DigestSignInit(md, nil, EVP_sha256(), nil, pointer), "EVP_DigestSignInit")
    var length = 0
    try check(EVP_DigestSign(md, nil, &length, data, data.count), "EVP_DigestSign")
    var out = [UInt8](repeating: 0, count: length)
    try check(EVP_DigestSign(md, &out, &length, data, data.count), "EVP_DigestSign")
    return Array(out[0..<length])
  }

  /// Whether `signature` is a valid RS256 signature of `data` under this key.
  public func verifySHA256(_ data: [UInt8], signature: [UInt8]) -> Bool {
    guard let md = EVP_MD_CTX_new() else { return false }
    defer { EVP_MD_CTX_free(md) }
    guard EVP_DigestVerifyInit(md, nil, EVP_sha256(), nil, pointer) == 1 else { return false }
    let ok = EVP_DigestVerify(md, signature, signature.count, data, data.count) == 1
    ERR_clear_error()
    return ok
  }

  /// The RSA modulus and public exponent, big-endian, for a JWK.
  public func rsaPublicNumbers() throws -> (modulus: [UInt8], exponent: [UInt8]) {
    func number(_ name: String) throws -> [UInt8] {
      var bn: OpaquePointer?
      try check(EVP_PKEY_get_bn_param(pointer, name, &bn), "EVP_PKEY_get_bn_param(\(name))")
      let value = try check(bn, "EVP_PKEY_get_bn_param")
      defer { BN_free(value) }
      var out = [UInt8](repeating: 0, count: Int((BN_num_bits(value) + 7) / 8))
      BN_bn2bin(value, &out)
      return out
    }
    return (try number("n"), try number("e"))
  }

  /// Builds an RSA public key from its JWK numbers (an independent RP validating id_tokens).
  public static func rsaPublicKey(modulus: [UInt8], exponent: [UInt8]) throws -> Key {
    let n = try check(BN_bin2bn(modulus, Int32(modulus.count), nil), "BN_bin2bn")
    defer { BN_free(n) }
    let e = try check(BN_bin2bn(exponent, Int32(exponent.count), nil), "BN_bin2bn")
    defer { BN_free(e) }
    let builder = try check(OSSL_PARAM_BLD_new(), "OSSL_PARAM_BLD_new")
    defer { OSSL_PARAM_BLD_free(builder) }
    // The builder keeps the name pointers until it builds the parameters.
    try check(OSSL_PARAM_BLD_push_BN(builder, cString("n"), n), "OSSL_PARAM_BLD_push_BN")
    try check(OSSL_PARAM_BLD_push_BN(builder, cString("e"), e), "OSSL_PARAM_BLD_push_BN")
    let params = try check(OSSL_PARAM_BLD_to_param(builder), "OSSL_PARAM_BLD_to_param")
    defer { OSSL_PARAM_free(params) }
    let ctx = try check(EVP_PKEY_CTX_new_from_name(nil, "RSA", nil), "EVP_PKEY_CTX_new_from_name")
    defer { EVP_PKEY_CTX_free(ctx) }
    try check(EVP_PKEY_fromdata_init(ctx), "EVP_PKEY_fromdata_init")
    var key: OpaquePointer?
    try check(
      EVP_PKEY_fromdata(ctx, &key, COpenSSL_selection_public_key(), params), "EVP_PKEY_fromdata")
    return Key(taking: try check(key, "EVP_PKEY_fromdata"), hasPrivateKey: false)
  }
}

/// A C string with static storage, for OpenSSL calls that keep the pointer.
func cString(_ text: StaticString) -> UnsafePointer<CChar> {
  UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// Cryptographically secure random bytes, for material that leaves the simulated world
/// (`qualify ota keygen`). The simulated world itself draws from its seeded generator.
public enum SecureRandom {
  public static func bytes(_ count: Int) throws -> [UInt8] {
    var out = [UInt8](repeating: 0, count: count)
    try check(RAND_bytes(&out, Int32(count)), "RAND_bytes")
    return out
  }
}
