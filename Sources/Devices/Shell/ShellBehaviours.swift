/// Behaviours of the simulated shells that a negative control can switch off, each breaking
/// one fidelity rule of DESIGN.md on purpose.
public struct ShellBehaviours: Sendable, Hashable {
  /// The native stack ignores ATS / the Android cleartext policy.
  public var ignoresTransportPolicy = false

  public init() {}
}
