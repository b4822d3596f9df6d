import COpenSSL

/// AES-128-CBC with PKCS#7 padding, the cipher of Capgo v2 bundles.
public enum AES128CBC {
  public static func encrypt(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
    try run(plaintext, key: key, iv: iv, encrypt: true)
  }

  public static func decrypt(_ ciphertext: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
    try run(ciphertext, key: key, iv: iv, encrypt: false)
  }

  private static func run(_ input: [UInt8], key: [UInt8], iv: [UInt8], encrypt: Bool) throws
    -> [UInt8]
  {
    guard key.count == 16, iv.count == 16 else {
      throw CryptoError("AES-128-CBC needs a 16-byte key and IV (got \(key.count) and \(iv.count))")
    }
    let ctx = try check(EVP_CIPHER_CTX_new(), "EVP_CIPHER_CTX_new")
    defer { EVP_CIPHER_CTX_free(ctx) }
    try check(
      EVP_CipherInit_ex(ctx, EVP_aes_128_cbc(), nil, key, iv, encrypt ? 1 : 0), "EVP_CipherInit_ex")
    var out = [UInt8](repeating: 0, count: input.count + 16)
    var written: Int32 = 0
    var total = 0
    try out.withUnsafeMutableBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return }
      try check(
        EVP_CipherUpdate(ctx, base, &written, input, Int32(input.count)), "EVP_CipherUpdate")
      total = Int(written)
      try check(EVP_CipherFinal_ex(ctx, base + total, &written), "EVP_CipherFinal_ex")
      total += Int(written)
    }
    return Array(out[0..<total])
  }
}

/// A crypto failure that is not an OpenSSL call failing: a wrong size, a bad encoding.
public struct CryptoError: Error, CustomStringConvertible, Sendable {
  public var description: String
  public init(_ description: String) { self.description = description }
}
