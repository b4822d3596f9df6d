import COpenSSL
import Foundation

/// The per-run test certificate authority that makes the mocks' HTTPS real.
///
/// Its private key lives in memory only and dies with the process; the simulated clients
/// trust its certificate (and nothing else) for the mocks' host names. `qualify serve` writes
/// the CA *certificate* to disk so that a real device or curl can trust it too.
public final class CertificateAuthority: @unchecked Sendable {
  private let key: Key
  private let certificate: OpaquePointer
  /// The CA certificate, PEM.
  public let certificatePEM: String
  private let lock = NSLock()
  private var issued: [Set<String>: ServerCredentials] = [:]
  private var serial: Int = 1

  public init(commonName: String = "qualify test CA") throws {
    key = try Key.generateP256()
    let cert = try check(X509_new(), "X509_new")
    do {
      try CertificateAuthority.fill(
        cert, subjectKey: key, commonName: commonName, serial: 1, issuer: nil, issuerKey: key,
        hosts: [], isCA: true)
      certificatePEM = try CertificateAuthority.pem(cert)
    } catch {
      X509_free(cert)
      throw error
    }
    certificate = cert
  }

  deinit {
    X509_free(certificate)
  }

  /// A server certificate and key for `hosts` (DNS names or IP literals), issued once per set
  /// of names and then shared read-only.
  public func credentials(for hosts: Set<String>) throws -> ServerCredentials {
    lock.lock()
    defer { lock.unlock() }
    if let existing = issued[hosts] { return existing }
    serial += 1
    let serverKey = try Key.generateP256()
    let cert = try check(X509_new(), "X509_new")
    defer { X509_free(cert) }
    try CertificateAuthority.fill(
      cert, subjectKey: serverKey, commonName: hosts.sorted().first ?? "localhost",
      serial: serial, issuer: certificate, issuerKey: key, hosts: hosts.sorted(), isCA: false)
    let credentials = ServerCredentials(
      certificatePEM: try CertificateAuthority.pem(cert) + certificatePEM,
      privateKeyPEM: try serverKey.pkcs8PrivatePEM(), hosts: hosts)
    issued[hosts] = credentials
    return credentials
  }

  private static func fill(
    _ cert: OpaquePointer, subjectKey: Key, commonName: String, serial: Int,
    issuer: OpaquePointer?, issuerKey: Key, hosts: [String], isCA: Bool
  ) throws {
    try check(X509_set_version(cert, 2), "X509_set_version")
    try check(ASN1_INTEGER_set(X509_get_serialNumber(cert), serial), "ASN1_INTEGER_set")
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
    var extensions: [(Int32, String)] = []
    if isCA {
      extensions.append((NID_basic_constraints, "critical,CA:TRUE"))
      extensions.append((NID_key_usage, "critical,keyCertSign,cRLSign"))
      extensions.append((NID_subject_key_identifier, "hash"))
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
