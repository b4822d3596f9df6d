/// Behaviours of the mocks that a negative control can switch off or on, each breaking one
/// fidelity rule of DESIGN.md on purpose.
public struct StackBehaviours: Sendable, Hashable {
  /// The servers present a certificate from a CA the clients do not trust.
  public var untrustedCertificate = false
  /// `/config` advertises this manifest URL instead of the env's.
  public var configManifestURLOverride: String?
  /// The heartbeat answers 503.
  public var backendUnhealthy = false

  public init() {}
}
