extension BrowserKind {
  /// Android without Google Play services: an in-app WebView with isolated cookies (the
  /// checklist's "false negative" of cross-app SSO).
  public static let webView = BrowserKind(
    rawValue: "webview", cookieStore: .appWebView, enforcesFormActionOnRedirects: true,
    delivery: .callbackOrRegisteredScheme)
}
