extension BrowserKind {
  /// iOS `SFSafariViewController` (the default Browser plugin): a cookie store of the app's
  /// own, isolated from Safari and the other apps.
  public static let safariViewController = BrowserKind(
    rawValue: "safari-view-controller", cookieStore: .appBrowser,
    enforcesFormActionOnRedirects: false,
    delivery: .registeredScheme(refusal: "Safari cannot open SCHEME:// (no app registered it)"))
}
