import Foundation
import OTA
import QualifyCore
import QualifyCrypto
import StackPorts

/// The expensive, read-only material of a run — the test CA, the mocks' certificate, the
/// IdP's signing key — made once and shared by every scenario's fresh stack.
public final class StackMaterial: Sendable {
  public let authority: CertificateAuthority
  public let credentials: ServerCredentials
  /// Credentials from a CA no client trusts, for the "untrusted certificate" control.
  public let untrustedCredentials: ServerCredentials
  /// The IdP's RS256 id_token signing key and the key id the JWKS publishes, made on first
  /// use (a seeded RSA key costs tens of milliseconds; a run without an identity provider
  /// needs none) and shared by every copy of the material.
  private let idpKey: Locked<(key: Key, id: String)?>
  private let seed: UInt64
  /// The parts of the stack that are real systems (`--stack`), nil when all are mocked.
  public let real: RealSystems?
  private struct OTAKeys {
    var parsed: [String: Key] = [:]
    var harness: Key?
  }

  private let otaKeys = Locked(OTAKeys())
  /// The harness's push credentials, made on first use.
  let pushKeys = Locked<PushCredentials?>(nil)
  /// The push credentials read from each distinct backend env.
  let pushCache = Locked<[String: PushCredentials]>([:])
  var seedValue: UInt64 { seed }

  /// - Parameters:
  ///   - hosts: every host name the mocks will serve over HTTPS in this run.
  ///   - seed: the run's seed; the IdP's signing key and the OTA harness key derive from it.
  public init(hosts: Set<String>, seed: UInt64, real: RealSystems? = nil) throws {
    self.real = real
    authority = try CertificateAuthority(commonName: "qualify run CA")
    credentials = try authority.credentials(for: hosts.union(["localhost", "127.0.0.1"]))
    untrustedCredentials = try CertificateAuthority(commonName: "an untrusted CA")
      .credentials(for: hosts.union(["localhost", "127.0.0.1"]))
    self.seed = seed
    idpKey = Locked(nil)
  }

  /// The IdP's signing key and its key id, derived from the run's seed.
  public func idpSigningKey() throws -> (key: Key, id: String) {
    let seed = seed
    return try idpKey.withLock { made in
      if let made { return made }
      let key = try SeededKeys.rsa(bits: 2048, seed: seed, label: "idp-signing-key")
      let (modulus, _) = try key.rsaPublicNumbers()
      let pair = (key: key, id: String(Hex.encode(Digest.sha256(modulus)).prefix(16)))
      made = pair
      return pair
    }
  }

  private init(_ other: StackMaterial, real: RealSystems?) {
    authority = other.authority
    credentials = other.credentials
    untrustedCredentials = other.untrustedCredentials
    idpKey = other.idpKey
    seed = other.seed
    self.real = real
  }

  /// The same material over other real systems: the certificates and keys are shared.
  public func with(real: RealSystems?) -> StackMaterial { StackMaterial(self, real: real) }

  /// The OTA signing key a world's pipeline publishes with: the app's own private key when
  /// its env provides one (parsed once per run), else a harness key derived from the run's
  /// seed — the world then bakes its public half into the simulated build.
  public func otaSigningKey(appKey base64: String?) throws -> (key: Key, isAppKey: Bool) {
    let seed = seed
    return try otaKeys.withLock { keys in
      if let base64 {
        if let known = keys.parsed[base64] { return (known, true) }
        let key = try CapgoBundle.key(base64: base64, isPrivate: true)
        keys.parsed[base64] = key
        return (key, true)
      }
      if let harness = keys.harness { return (harness, false) }
      let key = try SeededKeys.rsa(bits: 2048, seed: seed, label: "ota-harness-key")
      keys.harness = key
      return (key, false)
    }
  }

  /// A key pair the OTA pipeline never signs with, for a build whose baked key is not the
  /// pipeline's: the IdP's, since generating another costs tens of milliseconds.
  public func foreignOTAKey() throws -> Key { try idpSigningKey().key }
}
