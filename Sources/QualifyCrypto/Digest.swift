import COpenSSL
import Foundation
import QualifyCore

/// SHA-256 and HMAC-SHA-256.
public enum Digest {
  /// The SHA-256 of `data`.
  public static func sha256<D: DataProtocol>(_ data: D) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 32)
    let bytes = Array(data)
    _ = bytes.withUnsafeBufferPointer { SHA256($0.baseAddress, $0.count, &out) }
    return out
  }

  /// The SHA-256 of `data` in lowercase hex (file digests, key ids).
  public static func sha256Hex<D: DataProtocol>(_ data: D) -> String { Hex.encode(sha256(data)) }

  /// HMAC-SHA-256 of `data` under `key`.
  public static func hmacSHA256<K: DataProtocol, D: DataProtocol>(key: K, _ data: D) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 32
    let keyBytes = Array(key)
    let dataBytes = Array(data)
    _ = keyBytes.withUnsafeBufferPointer { k in
      dataBytes.withUnsafeBufferPointer { d in
        HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), d.baseAddress, d.count, &out, &length)
      }
    }
    return out
  }

  /// PKCE S256 (RFC 7636 §4.2): base64url(SHA-256(ASCII(verifier))).
  public static func pkceChallenge(verifier: String) -> String {
    Base64URL.encode(sha256(Array(verifier.utf8)))
  }

  /// Compares two byte strings in time independent of where they differ.
  public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    if a.isEmpty { return true }
    return a.withUnsafeBytes { x in
      b.withUnsafeBytes { y in
        CRYPTO_memcmp(x.baseAddress, y.baseAddress, a.count) == 0
      }
    }
  }
}
