import COpenSSL
import Foundation

/// Signatures for attestations (DSSE): ECDSA P-256 with SHA-256 (DER, as sigstore and
/// in-toto write them) or Ed25519 (pure, over the whole message) — the two kinds a pipeline's
/// signing key is expected to be.
extension Key {
  /// Generates an Ed25519 key pair.
  public static func generateEd25519() throws -> Key {
    let ctx = try check(
      EVP_PKEY_CTX_new_from_name(nil, "ED25519", nil), "EVP_PKEY_CTX_new_from_name")
    defer { EVP_PKEY_CTX_free(ctx) }
    try check(EVP_PKEY_keygen_init(ctx), "EVP_PKEY_keygen_init")
    var key: OpaquePointer?
    try check(EVP_PKEY_generate(ctx, &key), "EVP_PKEY_generate")
    return Key(taking: try check(key, "EVP_PKEY_generate"), hasPrivateKey: true)
  }

  public var isEd25519: Bool { EVP_PKEY_is_a(pointer, "ED25519") == 1 }

  /// `ecdsa-p256` or `ed25519`, nil for a key of another kind.
  public var signatureAlgorithm: String? {
    if isEd25519 { return "ed25519" }
    if isEC && curveName == "prime256v1" { return "ecdsa-p256-sha256" }
    return nil
  }

  /// The EC key's curve (`prime256v1` for P-256), nil for another kind of key.
  var curveName: String? {
    guard isEC else { return nil }
    var name = [CChar](repeating: 0, count: 64)
    var length = 0
    guard
      EVP_PKEY_get_utf8_string_param(pointer, "group", &name, name.count, &length) == 1
    else { return nil }
    return String(decoding: name[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Signs `message` with the key's algorithm.
  /// - Throws: for a key that is neither P-256 nor Ed25519, or has no private half.
  public func signMessage(_ message: [UInt8]) throws -> [UInt8] {
    guard hasPrivateKey else { throw CryptoError("signing needs a private key") }
    guard signatureAlgorithm != nil else {
      throw CryptoError("an attestation key must be ECDSA P-256 or Ed25519")
    }
    if !isEd25519 { return try signSHA256(message) }
    let md = try check(EVP_MD_CTX_new(), "EVP_MD_CTX_new")
    defer { EVP_MD_CTX_free(md) }
    try check(EVP_DigestSignInit(md, nil, nil, nil, pointer), "EVP_DigestSignInit")
    var length = 0
    try check(EVP_DigestSign(md, nil, &length, message, message.count), "EVP_DigestSign")
    var out = [UInt8](repeating: 0, count: length)
    try check(EVP_DigestSign(md, &out, &length, message, message.count), "EVP_DigestSign")
    return Array(out[0..<length])
  }

  /// Whether `signature` is this key's signature of `message`.
  public func verifyMessage(_ message: [UInt8], signature: [UInt8]) -> Bool {
    guard signatureAlgorithm != nil else { return false }
    if !isEd25519 { return verifySHA256(message, signature: signature) }
    guard let md = EVP_MD_CTX_new() else { return false }
    defer { EVP_MD_CTX_free(md) }
    guard EVP_DigestVerifyInit(md, nil, nil, nil, pointer) == 1 else { return false }
    let ok = EVP_DigestVerify(md, signature, signature.count, message, message.count) == 1
    ERR_clear_error()
    return ok
  }

  /// `sha256:<hex>` of the public key's SPKI DER: the DSSE `keyid`.
  public func publicKeyID() throws -> String {
    let pem = try spkiPublicPEM()
    let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
    guard let der = Data(base64Encoded: body) else {
      throw CryptoError("the public key did not encode as PEM")
    }
    return "sha256:" + Digest.sha256Hex(der)
  }

  /// The public half alone (a key that can only verify).
  public func publicKey() throws -> Key {
    try Key.publicKey(pem: try spkiPublicPEM())
  }
}
