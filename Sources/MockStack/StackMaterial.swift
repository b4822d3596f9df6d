import Foundation
import QualifyCore
import QualifyCrypto

/// The expensive, read-only material of a run — the test CA, the mocks' certificate, the
/// IdP's signing key — made once and shared by every scenario's fresh stack.
public final class StackMaterial: @unchecked Sendable {
  public let authority: CertificateAuthority
  public let credentials: ServerCredentials
  /// Credentials from a CA no client trusts, for the "untrusted certificate" control.
  public let untrustedCredentials: ServerCredentials
  /// The IdP's RS256 id_token signing key.
  public let signingKey: Key
  /// The key id published in the JWKS.
  public let signingKeyID: String

  /// - Parameters:
  ///   - hosts: every host name the mocks will serve over HTTPS in this run.
  ///   - seed: the run's seed; the IdP's key is derived from it.
  public init(hosts: Set<String>, seed: UInt64 = 0) throws {
    authority = try CertificateAuthority(commonName: "qualify run CA")
    credentials = try authority.credentials(for: hosts.union(["localhost", "127.0.0.1"]))
    untrustedCredentials = try CertificateAuthority(commonName: "an untrusted CA")
      .credentials(for: hosts.union(["localhost", "127.0.0.1"]))
    var generator = SeededGenerator(seed: seed, label: "idp-signing-key")
    signingKey = try Key.generateRSA(bits: 2048, seededBy: &generator)
    let (modulus, _) = try signingKey.rsaPublicNumbers()
    signingKeyID = String(Hex.encode(Digest.sha256(modulus)).prefix(16))
  }
}
