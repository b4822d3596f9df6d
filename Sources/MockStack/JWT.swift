import Foundation
import QualifyCore
import QualifyCrypto

/// Compact JWS (RFC 7515): RS256 as id_tokens and Google service-account assertions are
/// signed, ES256 as APNs provider tokens are.
public enum JWT {
  public enum Algorithm: String, Sendable {
    case rs256 = "RS256"
    case es256 = "ES256"
  }

  /// Signs `claims` with `key`, naming `keyID` in the header (none when nil).
  public static func sign(
    _ claims: [String: Any], key: Key, keyID: String?, algorithm: Algorithm = .rs256
  ) throws -> String {
    var header: [String: Any] = ["alg": algorithm.rawValue, "typ": "JWT"]
    if let keyID { header["kid"] = keyID }
    let encodedHeader = Base64URL.encode(try json(header))
    let encodedClaims = Base64URL.encode(try json(claims))
    let input = "\(encodedHeader).\(encodedClaims)"
    let signature =
      algorithm == .es256
      ? try key.signES256(Array(input.utf8)) : try key.signSHA256(Array(input.utf8))
    return "\(input).\(Base64URL.encode(signature))"
  }

  /// The header and claims of a compact JWS signed with `algorithm` whose signature verifies
  /// with one of `keys` (by `kid`); nil when malformed or not signed by them.
  public static func verify(_ token: String, keys: [String: Key], algorithm: Algorithm = .rs256)
    -> (header: [String: Any], claims: [String: Any])?
  {
    guard let (header, claims, signed, signature) = parse(token),
      header["alg"] as? String == algorithm.rawValue, let kid = header["kid"] as? String,
      let key = keys[kid]
    else { return nil }
    let holds =
      algorithm == .es256
      ? key.verifyES256(signed, signature: signature)
      : key.verifySHA256(signed, signature: signature)
    return holds ? (header, claims) : nil
  }

  /// The header, the claims, the signed bytes and the signature of a compact JWS, unverified.
  public static func parse(_ token: String) -> (
    header: [String: Any], claims: [String: Any], signed: [UInt8], signature: [UInt8]
  )? {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard parts.count == 3, let headerData = Base64URL.decode(parts[0]),
      let claimsData = Base64URL.decode(parts[1]),
      let signature = Base64URL.decode(parts[2]),
      let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
      let claims = (try? JSONSerialization.jsonObject(with: claimsData)) as? [String: Any]
    else { return nil }
    return (header, claims, Array("\(parts[0]).\(parts[1])".utf8), Array(signature))
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
    guard let data = JSONText.data(object, escapingSlashes: false) else {
      throw InputError("a token's header or claims are not JSON")
    }
    return data
  }
}
