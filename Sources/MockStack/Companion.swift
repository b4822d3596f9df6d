/// The second La Suite app a cross-app SSO proof needs (seed 000's "throwaway second app"):
/// its own backend, its own OIDC client at the same identity provider, its own scheme.
public enum Companion {
  public static let name = "companion"
  public static let scheme = "qualify-companion"
  public static let clientID = "qualify-companion"
  /// Its own session cookie name, so that on `localhost` (where cookies ignore ports) it does
  /// not overwrite the app's backend session.
  public static let sessionCookie = "companion_sessionid"
}
