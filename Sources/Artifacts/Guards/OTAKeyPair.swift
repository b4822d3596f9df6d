import Foundation
import QualifyCore
import QualifyCrypto

/// Comparing the halves of an OTA signing key pair as env files write them (base64 PEMs).
enum OTAKeyPair {
  /// The public half, as PKCS#1 PEM, of a base64 PEM private key; nil when it does not parse.
  static func publicHalf(ofPrivate base64: String) -> String? {
    guard let pem = Base64PEM.decode(base64), let key = try? Key.privateKey(pem: pem) else {
      return nil
    }
    return try? key.pkcs1PublicPEM()
  }

  /// Whether a public key (PEM, or base64 of a PEM) parses.
  static func parses(_ key: String) -> Bool {
    Base64PEM.decode(key).flatMap { try? Key.publicKey(pem: $0) } != nil
  }

  /// Whether two public keys (PEM, or base64 of a PEM) are the same key.
  static func sameKey(_ a: String, _ b: String) -> Bool {
    guard let first = Base64PEM.decode(a).flatMap({ try? Key.publicKey(pem: $0) }),
      let second = Base64PEM.decode(b).flatMap({ try? Key.publicKey(pem: $0) }),
      let x = try? first.rsaPublicNumbers(), let y = try? second.rsaPublicNumbers()
    else { return false }
    return x.modulus == y.modulus && x.exponent == y.exponent
  }
}
