import QualifyCrypto

/// One CA for the whole test process: generating keys is the expensive part of a test.
public enum TestPKI {
  public static let authority: CertificateAuthority = {
    do {
      return try CertificateAuthority(commonName: "qualify tests CA")
    } catch {
      fatalError("the test CA could not be created: \(error)")
    }
  }()

  /// Server credentials for `hosts`, issued by the shared test CA.
  public static func credentials(_ hosts: Set<String>) throws -> ServerCredentials {
    try authority.credentials(for: hosts)
  }
}
