import Foundation
import HTTP
import QualifyCore

/// What every device of one world shares: time, randomness, the evidence log, and how to
/// reach the stack.
public final class DeviceEnvironment {
  public let clock: VirtualClock
  public let random: RandomSource
  public let evidence: EvidenceLog
  public let redactor: Redactor
  /// The CA the devices trust (the run's test CA), nil for the system store.
  public let trustedCertificatesPEM: String?
  /// Public authority → loopback port.
  public let origins: [String: UInt16]
  public let allowsOutsideOrigins: Bool
  /// `host:port` of real systems (`--stack`) the devices reach over the network.
  public let realAuthorities: Set<String>
  public let requestTimeout: TimeInterval

  public init(
    clock: VirtualClock, random: RandomSource, evidence: EvidenceLog, redactor: Redactor,
    trustedCertificatesPEM: String?, origins: [String: UInt16], allowsOutsideOrigins: Bool = false,
    realAuthorities: Set<String> = [], requestTimeout: TimeInterval = 10, pool: HTTPClient? = nil
  ) {
    self.realAuthorities = realAuthorities
    self.clock = clock
    self.random = random
    self.evidence = evidence
    self.redactor = redactor
    self.trustedCertificatesPEM = trustedCertificatesPEM
    self.origins = origins
    self.allowsOutsideOrigins = allowsOutsideOrigins
    self.requestTimeout = requestTimeout
    pool?.update(origins: origins)
    self.pool = pool
  }

  private let lock = NSLock()
  private var pool: HTTPClient?

  /// The world's connection pool. Every simulated stack trusts the same CA and reaches the
  /// same loopback listeners, so sharing connections changes nothing a server can observe
  /// but the number of TLS handshakes; cookies, transport policy and evidence stay with each
  /// app and browser session.
  public func client() throws -> HTTPClient {
    lock.lock()
    defer { lock.unlock() }
    if let pool { return pool }
    var configuration = HTTPClient.Configuration(
      trustedCertificatesPEM: trustedCertificatesPEM, origins: origins,
      allowsOutsideOrigins: allowsOutsideOrigins, timeout: requestTimeout, userAgent: "qualify")
    configuration.realAuthorities = realAuthorities
    let client = try HTTPClient(configuration: configuration)
    pool = client
    return client
  }

  /// Records a decision of a shell component.
  public func decision(_ source: String, _ summary: String, detail: String = "") {
    evidence.append(
      Evidence(
        kind: .decision, source: source, summary: redactor.redact(summary),
        detail: redactor.redact(detail), time: clock.now))
  }
}
