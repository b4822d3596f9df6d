extension BrowserKind {
  /// iOS `ASWebAuthenticationSession`, non-ephemeral: shares Safari's persistent cookies;
  /// delivers the callback only for a scheme registered in `CFBundleURLTypes`; intercepts the
  /// scheme even after a 302.
  public static let webAuthSession = BrowserKind(
    rawValue: "web-auth-session", cookieStore: .devicePersistentCookies,
    enforcesFormActionOnRedirects: false, delivery: .registeredCallbackScheme)

  /// iOS `ASWebAuthenticationSession` with `prefersEphemeralWebBrowserSession = true`: an
  /// empty cookie store that is thrown away.
  public static let ephemeralWebAuthSession = BrowserKind(
    rawValue: "ephemeral-web-auth-session", cookieStore: .fresh,
    enforcesFormActionOnRedirects: false, delivery: .callbackScheme)
}
