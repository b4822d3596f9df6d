import Foundation
import QualifyCore
import QualifyCrypto

/// Compact JWS (RFC 7515) with RS256, as id_tokens are signed.
public enum JWT {
  /// Signs `claims` with `key`, naming `keyID` in the header.
  public static func sign(_ claims: [String: Any], key: Key, keyID: String) throws -> String {
    let header: [String: Any] = ["alg": "RS256", "typ": "JWT", "kid": keyID]
    let encodedHeader = Base64URL.encode(try json(header))
    let encodedClaims = Base64URL.encode(try json(claims))
    let input = "\(encodedHeader).\(encodedClaims)"
    let signature = try key.signSHA256(Array(input.utf8))
    return "\(input).\(Base64URL.encode(signature))"
  }

  /// The header and claims of a compact JWS whose signature verifies with one of `keys`
  /// (by `kid`); nil when malformed or not signed by them.
  public static func verify(_ token: String, keys: [String: Key]) -> (
    header: [String: Any], claims: [String: Any]
  )? {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard parts.count == 3, let headerData = Base64URL.decode(parts[0]),
      let claimsData = Base64URL.decode(parts[1]),
      let signature = Base64URL.decode(parts[2]),
      let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
      let claims = (try? JSONSerialization.jsonObject(with: claimsData)) as? [String: Any],
      header["alg"] as? String == "RS256", let kid = header["kid"] as? String, let key = keys[kid]
    else { return nil }
    guard key.verifySHA256(Array("\(parts[0]).\(parts[1])".utf8), signature: Array(signature))
    else { return nil }
    return (header, claims)
  }

  /// The JWK of an RSA public key.
  public static func jwk(_ key: Key, keyID: String) throws -> [String: Any] {
    let (n, e) = try key.rsaPublicNumbers()
    return [
      "kty": "RSA", "kid": keyID, "use": "sig", "alg": "RS256", "n": Base64URL.encode(n),
      "e": Base64URL.encode(e),
    ]
  }

  static func json(_ object: Any) throws -> [UInt8] {
    Array(
      try JSONSerialization.data(
        withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
  }
}
