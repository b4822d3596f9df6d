extension BrowserKind {
  /// Android Chrome Custom Tabs: Chrome's cookie store, shared by every app; enforces the
  /// page's CSP `form-action` on the whole redirect chain of a form submission.
  public static let customTabs = BrowserKind(
    rawValue: "custom-tabs", cookieStore: .device, enforcesFormActionOnRedirects: true,
    delivery: .registeredScheme(
      refusal: "no activity handles the intent for SCHEME:// (no intent-filter)"))
}
