import Artifacts
import Devices
import Foundation
import HTTP
import MockStack
import OTA
import QualifyCore
import QualifyCrypto
import ResultModel
import StackPorts

/// What one runner worker reuses from world to world: the listeners the worlds mount their
/// virtual hosts on and the client pool the devices share. State never crosses worlds;
/// sockets and TLS connections do.
///
/// Each execution draws from the current lease. A timeout abandons the execution, whose
/// thread may still be running: `reset()` gives the worker a new lease and leaves the old one
/// to that thread alone, so the two never share a listener or a client.
final class WorkerTransport: Sendable {
  private let current = Locked(TransportLease())

  var lease: TransportLease { current.withLock { $0 } }

  func reset() {
    current.withLock { $0 = TransportLease() }
  }
}

/// The listeners and the client of one line of executions, made on first use.
final class TransportLease: Sendable {
  private let listeners = Locked<StackListeners?>(nil)
  private let pool = Locked<HTTPClient?>(nil)
  private let observerPool = Locked<HTTPClient?>(nil)

  func listeners(_ material: StackMaterial) throws -> StackListeners {
    try listeners.withLock { shared in
      if let shared { return shared }
      let made = try StackListeners(material: material)
      shared = made
      return made
    }
  }

  /// The harness's own client for the ports: it trusts the run's CA and the certificate an
  /// untrusted-CA mutation serves, so observing never depends on what the devices are shown.
  func observer(_ material: StackMaterial, origins: [String: UInt16]) throws -> HTTPClient {
    let client = try observerPool.withLock { pool in
      if let pool { return pool }
      let made = try TransportLease.makeObserver(material, origins: origins)
      pool = made
      return made
    }
    client.update(origins: origins)
    return client
  }

  static func makeObserver(_ material: StackMaterial, origins: [String: UInt16]) throws
    -> HTTPClient
  {
    // The harness asks the real systems (`--stack`) too: a real backend whose sessions it
    // checks.
    var configuration = HTTPClient.Configuration(
      trustedCertificatesPEM: material.authority.certificatePEM
        + material.untrustedCredentials.certificatePEM
        + (material.real?.trustedCertificatesPEM ?? ""),
      origins: origins, userAgent: "qualify-observer")
    configuration.realAuthorities = material.real?.authorities ?? []
    if let real = material.real { configuration.timeout = real.timeout }
    return try HTTPClient(configuration: configuration)
  }

  func client(_ material: StackMaterial) throws -> HTTPClient {
    try pool.withLock { pool in
      if let pool { return pool }
      // The devices trust the run's CA, and the real systems' (`--stack`) which they reach
      // over the network.
      var configuration = HTTPClient.Configuration(
        trustedCertificatesPEM: material.authority.certificatePEM
          + (material.real?.trustedCertificatesPEM ?? ""), userAgent: "qualify")
      configuration.realAuthorities = material.real?.authorities ?? []
      if let real = material.real { configuration.timeout = real.timeout }
      let made = try HTTPClient(configuration: configuration)
      pool = made
      return made
    }
  }
}
