import Foundation

/// How an app shows the login and logout flows (DESIGN.md fidelity rule 7), as a value: which
/// cookies the session sees, whether it checks `form-action` on redirects, and which
/// custom-scheme navigations it hands to an app. Each kind is one file under `Kinds/`.
public struct BrowserKind: Sendable, Hashable, CustomStringConvertible {
  /// Where a session's cookies come from and go back to.
  public enum CookieStore: Sendable, Hashable {
    /// A store of its own seeded with the device's persistent cookies; persistent cookies it
    /// sets go back to the device; session cookies stay in the session.
    case devicePersistentCookies
    /// An empty store, thrown away.
    case fresh
    /// The app's own in-app browser store; session cookies end with the session.
    case appBrowser
    /// The device's shared browser store.
    case device
    /// The app's WebView store.
    case appWebView
  }

  /// Which custom-scheme navigations reach an app.
  public enum Delivery: Sendable, Hashable {
    /// Only the session's callback scheme, and only when the app registers it natively.
    case registeredCallbackScheme
    /// Only the session's callback scheme, registered or not.
    case callbackScheme
    /// Any scheme an app registers; `refusal` says what the platform shows otherwise.
    case registeredScheme(refusal: String)
    /// The callback scheme or any registered one.
    case callbackOrRegisteredScheme
  }

  /// The name scenarios and mutations use (`custom-tabs`).
  public let rawValue: String
  public let cookieStore: CookieStore
  /// Whether the engine is Chromium, which checks the page's CSP `form-action` on the whole
  /// redirect chain of a form submission.
  public let enforcesFormActionOnRedirects: Bool
  public let delivery: Delivery

  public var description: String { rawValue }

  public static func == (a: BrowserKind, b: BrowserKind) -> Bool { a.rawValue == b.rawValue }
  public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

  /// Every kind the world knows.
  public static let allCases: [BrowserKind] = [
    .webAuthSession, .ephemeralWebAuthSession, .safariViewController, .customTabs, .webView,
  ]

  public init?(rawValue: String) {
    guard let known = BrowserKind.allCases.first(where: { $0.rawValue == rawValue }) else {
      return nil
    }
    self = known
  }

  init(
    rawValue: String, cookieStore: CookieStore, enforcesFormActionOnRedirects: Bool,
    delivery: Delivery
  ) {
    self.rawValue = rawValue
    self.cookieStore = cookieStore
    self.enforcesFormActionOnRedirects = enforcesFormActionOnRedirects
    self.delivery = delivery
  }

  /// Whether `scheme` (lowercased) is handed to an app, and why not when it is not.
  func delivers(_ scheme: String, callbackScheme: String?, registered: Bool) -> String? {
    let isCallback = scheme == callbackScheme?.lowercased()
    switch delivery {
    case .registeredCallbackScheme:
      guard isCallback else { return "\(scheme):// is not the session's callback scheme" }
      return registered
        ? nil
        : "ASWebAuthenticationSession (non-ephemeral) only delivers a callback scheme registered in CFBundleURLTypes; \(scheme) is not"
    case .callbackScheme:
      return isCallback ? nil : "\(scheme):// is not the session's callback scheme"
    case .registeredScheme(let refusal):
      return registered ? nil : refusal.replacingOccurrences(of: "SCHEME", with: scheme)
    case .callbackOrRegisteredScheme:
      return isCallback || registered ? nil : "the WebView cannot open \(scheme)://"
    }
  }
}
