import COpenSSL
import Foundation
import QualifyCore

/// The per-run test certificate authority that makes the mocks' HTTPS real.
///
/// Its private key lives in memory only and dies with the process; the simulated clients
/// trust its certificate (and nothing else) for the mocks' host names. `qualify serve` writes
/// the CA *certificate* to disk so that a real device or curl can trust it too.
public final class CertificateAuthority: Sendable {
  private let key: Key
  /// The CA's `X509` and what it issued; OpenSSL objects are not shared between threads, so
  /// issuing happens under the lock.
  private struct Issuer {
    let certificate: OpaquePointer
    var issued: [Set<String>: ServerCredentials] = [:]
  }

  private let issuer: Locked<Issuer>
  /// The CA certificate, PEM.
  public let certificatePEM: String
  /// The CA's subject common name: the name given plus a random suffix, so that two runs'
  /// authorities are never mistaken for one another in a trust store or a browser.
  public let commonName: String

  public init(commonName: String = "qualify test CA") throws {
    key = try Key.generateP256()
    self.commonName =
      "\(commonName) " + (try SecureRandom.bytes(4)).map { String(format: "%02x", $0) }.joined()
    let cert = try check(X509_new(), "X509_new")
    do {
      try CertificateAuthority.fill(
        cert, subjectKey: key, commonName: self.commonName, issuer: nil, issuerKey: key,
        hosts: [], isCA: true)
      certificatePEM = try CertificateAuthority.pem(cert)
    } catch {
      X509_free(cert)
      throw error
    }
    issuer = Locked(Issuer(certificate: cert))
  }

  deinit {
    issuer.withLock { X509_free($0.certificate) }
  }

  /// A server certificate and key for `hosts` (DNS names or IP literals), issued once per set
  /// of names and then shared read-only.
  public func credentials(for hosts: Set<String>) throws -> ServerCredentials {
    try issuer.withLock { state in
      if let existing = state.issued[hosts] { return existing }
      let serverKey = try Key.generateP256()
      let cert = try check(X509_new(), "X509_new")
      defer { X509_free(cert) }
      try CertificateAuthority.fill(
        cert, subjectKey: serverKey, commonName: hosts.sorted().first ?? "localhost",
        issuer: state.certificate, issuerKey: key, hosts: hosts.sorted(), isCA: false)
      let credentials = ServerCredentials(
        certificatePEM: try CertificateAuthority.pem(cert) + certificatePEM,
        privateKeyPEM: try serverKey.pkcs8PrivatePEM(), hosts: hosts)
      state.issued[hosts] = credentials
      return credentials
    }
  }

  private static func fill(
    _ cert: OpaquePointer, subjectKey: Key, commonName: String,
    issuer: OpaquePointer?, issuerKey: Key, hosts: [String], isCA: Bool
  ) throws {
    try check(X509_set_version(cert, 2), "X509_set_version")
    try setRandomSerial(cert)
    // Real time, not virtual: the TLS stacks check validity against the system clock.
    try check(X509_gmtime_adj(X509_getm_notBefore(cert), -3600), "X509_gmtime_adj")
    try check(X509_gmtime_adj(X509_getm_notAfter(cert), 86400 * 30), "X509_gmtime_adj")
    try check(X509_set_pubkey(cert, subjectKey.pointer), "X509_set_pubkey")
    let name = try check(X509_get_subject_name(cert), "X509_get_subject_name")
    try check(
      X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0),
      "X509_NAME_add_entry_by_txt")
    let issuerName = issuer.map { X509_get_subject_name($0) } ?? name
    try check(X509_set_issuer_name(cert, issuerName), "X509_set_issuer_name")

    var ctx = X509V3_CTX()
    X509V3_set_ctx(&ctx, issuer ?? cert, cert, nil, nil, 0)
    // Key identifiers on both certificates: strict verification (Python 3.13's default,
    // OpenSSL's X509_V_FLAG_X509_STRICT) refuses a chain without them. The subject key id
    // comes first, so that a self-signed CA's authority key id can point at it.
    var extensions: [(Int32, String)] = [
      (NID_subject_key_identifier, "hash"), (NID_authority_key_identifier, "keyid:always"),
    ]
    if isCA {
      extensions.append((NID_basic_constraints, "critical,CA:TRUE"))
      extensions.append((NID_key_usage, "critical,keyCertSign,cRLSign"))
    } else {
      extensions.append((NID_basic_constraints, "critical,CA:FALSE"))
      extensions.append((NID_key_usage, "critical,digitalSignature,keyEncipherment"))
      extensions.append((NID_ext_key_usage, "serverAuth"))
      let names = hosts.map { host in
        host.allSatisfy({ $0.isNumber || $0 == "." }) || host.contains(":")
          ? "IP:\(host)" : "DNS:\(host)"
      }
      if !names.isEmpty {
        extensions.append((NID_subject_alt_name, names.joined(separator: ",")))
      }
    }
    for (nid, value) in extensions {
      let ext = try check(X509V3_EXT_conf_nid(nil, &ctx, nid, value), "X509V3_EXT_conf_nid")
      defer { X509_EXTENSION_free(ext) }
      try check(X509_add_ext(cert, ext, -1), "X509_add_ext")
    }
    guard X509_sign(cert, issuerKey.pointer, EVP_sha256()) > 0 else {
      throw OpenSSLError(call: "X509_sign")
    }
  }

  /// A random 127-bit positive serial (RFC 5280 §4.1.2.2: unique per issuer, at most 20
  /// octets): issuers are per run, but a browser that cached one run's certificate must
  /// never meet another with the same issuer and serial.
  private static func setRandomSerial(_ cert: OpaquePointer) throws {
    var bytes = try SecureRandom.bytes(16)
    bytes[0] &= 0x7F
    bytes[0] |= 0x40
    let number = try check(BN_bin2bn(bytes, Int32(bytes.count), nil), "BN_bin2bn")
    defer { BN_free(number) }
    try check(
      BN_to_ASN1_INTEGER(number, X509_get_serialNumber(cert)) != nil ? 1 : 0, "BN_to_ASN1_INTEGER")
  }

  private static func pem(_ cert: OpaquePointer) throws -> String {
    let bytes = try withMemoryBIO("PEM_write_bio_X509") { bio in PEM_write_bio_X509(bio, cert) }
    return String(decoding: bytes, as: UTF8.self)
  }
}

/// A server certificate chain and its key, PEM, as the TLS server loads them.
public struct ServerCredentials: Sendable {
  /// The leaf certificate followed by the CA certificate.
  public let certificatePEM: String
  public let privateKeyPEM: String
  public let hosts: Set<String>
}
