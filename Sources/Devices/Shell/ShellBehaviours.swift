/// Behaviours of the simulated shells that a negative control can switch off, each breaking
/// one fidelity rule of DESIGN.md on purpose.
public struct ShellBehaviours: Sendable, Hashable {
  /// The native stack ignores ATS / the Android cleartext policy.
  public var ignoresTransportPolicy = false
  /// The native stack keeps no cookies (the session would not live in the native jar).
  public var nativeJarDisabled = false
  /// `nativeLogout()` skips the RP-initiated logout in the system browser.
  public var logoutSkipsBrowser = false
  /// `nativeLogout()` skips the safety-net POST.
  public var logoutSkipsSafetyNet = false
  /// `getHeaders()` does not echo the cached CSRF token.
  public var csrfTokenNotSent = false
  /// The fetch wrapper does not inject a trusted `Origin`.
  public var originNotSent = false

  public init() {}
}
