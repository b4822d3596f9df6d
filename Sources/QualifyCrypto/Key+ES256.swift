import COpenSSL

/// ES256 (ECDSA P-256 with SHA-256) as JWS writes it (RFC 7518 §3.4): the signature is the
/// two 32-byte integers r and s side by side, not OpenSSL's DER sequence.
extension Key {
  /// An ES256 signature of `data` (64 bytes, r‖s).
  public func signES256(_ data: [UInt8]) throws -> [UInt8] {
    let der = try signSHA256(data)
    guard let raw = ECDSASignature.raw(fromDER: der) else {
      throw CryptoError("OpenSSL returned an ECDSA signature that is not a DER sequence")
    }
    return raw
  }

  /// Whether `signature` (r‖s) is a valid ES256 signature of `data` under this key.
  public func verifyES256(_ data: [UInt8], signature: [UInt8]) -> Bool {
    guard let der = ECDSASignature.der(fromRaw: signature) else { return false }
    return verifySHA256(data, signature: der)
  }

  /// Whether the key is an EC key.
  public var isEC: Bool { EVP_PKEY_is_a(pointer, "EC") == 1 }
}

/// Conversions between the DER `ECDSA-Sig-Value` OpenSSL speaks and JWS's fixed-width form.
enum ECDSASignature {
  static let width = 32

  /// `SEQUENCE { INTEGER r, INTEGER s }` → r‖s, each left-padded to 32 bytes.
  static func raw(fromDER der: [UInt8]) -> [UInt8]? {
    var index = 0
    func length() -> Int? {
      guard index < der.count else { return nil }
      let first = Int(der[index])
      index += 1
      if first < 0x80 { return first }
      let count = first & 0x7F
      guard count > 0, count <= 2, index + count <= der.count else { return nil }
      var value = 0
      for _ in 0..<count {
        value = value << 8 | Int(der[index])
        index += 1
      }
      return value
    }
    func integer() -> [UInt8]? {
      guard index < der.count, der[index] == 0x02 else { return nil }
      index += 1
      guard let count = length(), index + count <= der.count else { return nil }
      var bytes = Array(der[index..<index + count])
      index += count
      while bytes.count > width, bytes.first == 0 { bytes.removeFirst() }
      guard bytes.count <= width else { return nil }
      return [UInt8](repeating: 0, count: width - bytes.count) + bytes
    }
    guard der.first == 0x30 else { return nil }
    index = 1
    guard length() != nil, let r = integer(), let s = integer() else { return nil }
    return r + s
  }

  /// r‖s → the DER sequence, each integer minimal and positive.
  static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
    guard raw.count == 2 * width else { return nil }
    func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
      var trimmed = Array(bytes.drop { $0 == 0 })
      if trimmed.isEmpty { trimmed = [0] }
      if trimmed[0] & 0x80 != 0 { trimmed.insert(0, at: 0) }
      return [0x02, UInt8(trimmed.count)] + trimmed
    }
    let body = integer(raw[0..<width]) + integer(raw[width...])
    return [0x30, UInt8(body.count)] + body
  }
}
