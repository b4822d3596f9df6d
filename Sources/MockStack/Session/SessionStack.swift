import Artifacts
import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

/// The world of a session-contract app: its backend at the app's API origin.
public final class SessionStack: Sendable {
  public let backend: SessionBackend
  private let mounted: MountedHosts

  public init(
    apiOrigin: Origin, material: StackMaterial, context: StackContext, accounts: [String] = [],
    sharing listeners: StackListeners? = nil
  ) throws {
    backend = SessionBackend(origin: apiOrigin, context: context, accounts: accounts)
    mounted = try MountedHosts(
      serving: backend, at: apiOrigin, material: material, context: context, sharing: listeners)
  }

  /// Public authority (`host:port`) → loopback port.
  public var origins: [String: UInt16] { mounted.origins }

  public func stop() { mounted.stop() }

  deinit {
    stop()
  }
}
