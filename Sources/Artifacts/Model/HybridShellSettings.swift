import Foundation
import QualifyCore

/// What a hybrid WebView app (seed 003) ships, on one platform: the site its container loads,
/// what certifies its links (entitlements, the App Links intent filter, the site's
/// `.well-known` files, the signing certificate), its Firebase registration, and what its own
/// native and backend code do about the seed's rules.
public struct HybridShellSettings: Sendable {
  /// The site's origin (`https://appplatform.example`), from qualify.json `hybrid.webOrigin`.
  public var webOrigin: Sourced<String>
  /// Paths of the site that must open in the app (`hybrid.links`).
  public var links: [String] = []
  /// The native link the page offers when notifications are denied
  /// (`appplatform://settings/notifications`).
  public var settingsLink: Sourced<String>?

  // MARK: iOS

  /// `DEVELOPMENT_TEAM` of the app target: with the bundle id, the appID the site's
  /// apple-app-site-association must name.
  public var teamId: Sourced<String>?
  /// `com.apple.developer.associated-domains` of the entitlements the target signs with.
  public var associatedDomains: [Sourced<String>] = []
  /// `aps-environment` of those entitlements: without it iOS gives the app no APNs token.
  public var apsEnvironment: Sourced<String>?
  /// The entitlements file (`CODE_SIGN_ENTITLEMENTS`), nil when the target names none.
  public var entitlementsFile: String?
  /// `FirebaseAppDelegateProxyEnabled` of Info.plist: when false, the app must hand the APNs
  /// token to Firebase Messaging itself.
  public var firebaseProxyEnabled: Sourced<Bool>?

  // MARK: Android

  /// `versionName` of the app module (what `getAppVersion()` answers).
  public var versionName: Sourced<String>?
  /// `targetSdk` of the app module: from 33, notifications need the runtime permission.
  public var targetSdk: Sourced<Int>?
  /// `<uses-permission android:name="android.permission.POST_NOTIFICATIONS"/>`.
  public var declaresPostNotifications: Sourced<Bool>?
  /// The manifest's intent filters for http(s) links.
  public var linkFilters: [LinkIntentFilter] = []
  /// SHA-256 of the certificate this channel's build is signed with (release channels: the
  /// release certificate; dev: the debug one), `AA:BB:…`.
  public var signingCertificateSHA256: Sourced<String>?
  /// SHA-256 of the debug certificate, when the profile names it (to say so in messages).
  public var debugCertificateSHA256: String?

  // MARK: Firebase

  /// The Firebase project of the app's config (`google-services.json` project_id,
  /// `GoogleService-Info.plist` PROJECT_ID).
  public var firebaseProject: Sourced<String>?
  /// The app ids that config registers (Android package names; the iOS BUNDLE_ID).
  public var firebaseApps: [Sourced<String>] = []
  /// What Firebase Messaging needs of the config to get a token and that it lacks
  /// (`GoogleService-Info.plist`: GOOGLE_APP_ID, GCM_SENDER_ID, API_KEY, PROJECT_ID), with the
  /// config file.
  public var firebaseMissing: [String] = []
  public var firebaseConfigFile: String?
  /// The project the backend sends with (`FIREBASE_PROJECT_ID` of its env).
  public var backendFirebaseProject: Sourced<String>?

  // MARK: The site

  /// `public/.well-known/apple-app-site-association`, as committed.
  public var appleAssociation: AssociationFileText?
  /// `public/.well-known/assetlinks.json`, as committed.
  public var assetLinks: AssociationFileText?

  public var code = HybridShellCode()
  public var backendCode = HybridBackendCode()

  public init(webOrigin: Sourced<String>) {
    self.webOrigin = webOrigin
  }

  /// The site's host.
  public var host: String {
    URLComponents(string: webOrigin.value)?.host?.lowercased() ?? ""
  }
}

/// A `.well-known` file: its text as committed, and where.
public struct AssociationFileText: Sendable {
  public var path: String
  public var text: String

  public init(path: String, text: String) {
    self.path = path
    self.text = text
  }
}

/// An Android intent filter that takes http(s) links.
public struct LinkIntentFilter: Sendable {
  public var activity: String
  public var autoVerify: Bool
  public var schemes: [String]
  public var hosts: [String]
  /// `path`, `pathPrefix` and `pathPattern` entries, by kind.
  public var paths: [String] = []
  public var pathPrefixes: [String] = []
  public var pathPatterns: [String] = []
  public var isBrowsable: Bool
  public var location: FileLocation?
  /// The activity's `android:launchMode` (`standard` when not written), where the activity is.
  public var launchMode: Sourced<String>?

  public init(
    activity: String, autoVerify: Bool, schemes: [String], hosts: [String], isBrowsable: Bool,
    location: FileLocation?
  ) {
    self.activity = activity
    self.autoVerify = autoVerify
    self.schemes = schemes
    self.hosts = hosts
    self.isBrowsable = isBrowsable
    self.location = location
  }

  /// Whether the filter takes `https://host/path` (no path rules: every path).
  public func takes(host: String, path: String) -> Bool {
    guard schemes.contains("https"), hosts.contains(host.lowercased()) else { return false }
    if paths.isEmpty && pathPrefixes.isEmpty && pathPatterns.isEmpty { return true }
    return paths.contains(path) || pathPrefixes.contains { path.hasPrefix($0) }
      || pathPatterns.contains { AssociationFiles.androidPatternMatches($0, path) }
  }
}

/// What a hybrid container's native code does about seed 003's rules, on its platform, read
/// from its sources (comments blanked). Each fact decides how the simulated container
/// behaves; nil when the code was not found, and the container then behaves as the seed
/// describes.
public struct HybridShellCode: Sendable {
  /// Where the reader looked for the container's sources when it found none: nothing of the
  /// code was read (nil when it read some).
  public var unread: String?
  /// The JS bridge's name: Android `addJavascriptInterface(…, "AndroidBridge")`, iOS
  /// `userContentController.add(…, name: "notify")`.
  public var bridgeName: Sourced<String>?
  /// Android: the `@JavascriptInterface` methods.
  public var bridgeMethods: [String] = []
  /// Android: the class that exposes them, with where.
  public var bridgeClass: Sourced<String>?
  /// Android: the WebView runs JavaScript and keeps DOM storage (`settings.javaScriptEnabled`,
  /// `settings.domStorageEnabled`; WebSettings' defaults are false), seed 003's FirstFragment.
  public var enablesJavaScript: Sourced<Bool>?
  public var enablesDomStorage: Sourced<Bool>?
  /// iOS: the script message handler checks the message before acting on it — its name
  /// (`message.name == "notify"`) and its body's action (`action == "request"`), seed 003.
  public var validatesBridgeMessage: Sourced<Bool>?
  /// Android: the permission is asked when a page finishes loading.
  public var asksPermissionOnPageLoad: Sourced<Bool>?
  /// The permission answer is dispatched to the page (`onNativePermissionResult`).
  public var permissionEvent: Sourced<Bool>?
  /// iOS: `Messaging.messaging().apnsToken = deviceToken`.
  public var apnsHandoff: Sourced<Bool>?
  /// iOS: `willPresent` completes with a visible presentation (`.banner`, `.list` or
  /// `.alert`), so a push that arrives while the app is open is shown (seed 003, AppDelegate).
  public var presentsInForeground: Sourced<Bool>?
  /// The FCM token is posted to `/api/android-register` or `/api/ios-register`.
  public var registersToken: Sourced<Bool>?
  /// The fields the container posts the token with; nil when the code was not read.
  public var registrationForm: Sourced<RegistrationForm>?
  /// A push tap routes the WebView to its `targetUrl`.
  public var opensTargetUrl: Sourced<Bool>?
  /// A Universal Link / App Link routes the WebView to its URL.
  public var opensLinks: Sourced<Bool>?
  /// A link that arrives while the app runs is loaded in the WebView that runs (false: a new
  /// activity, fragment, WKWebView or root view controller shows it, and what the page held —
  /// a draft, the history — is lost). Seed 003: "sans perte d'état".
  public var linksKeepWebView: Sourced<Bool>?
  /// Android: a link that arrives while the app runs reaches the running activity's
  /// `onNewIntent`, which loads it (false: the app comes forward on the page it showed).
  public var routesRunningLinks: Sourced<Bool>?
  /// Android: the notification the container builds leaves the tray when tapped
  /// (`setAutoCancel(true)`); nil when the container builds none itself.
  public var autoCancels: Sourced<Bool>?
  /// The WebView starts on the live site (`webView.load(URLRequest(…))`, `loadUrl(…)` of the
  /// site), not a copy bundled in the app (`loadFileURL`, `loadHTMLString`,
  /// `file:///android_asset`, `loadDataWithBaseURL`, a `WebViewAssetLoader`): seed 003 reuses
  /// the site's Twig views and forms as they are served.
  public var loadsLiveSite: Sourced<Bool>?
  /// iOS: the script message handler opens the system share sheet (`UIActivityViewController`)
  /// — seed 003's native share, which Android exposes as `openNativeShare`.
  public var sharesNatively: Sourced<Bool>?

  public init() {}
}

/// The token registration's form (seed 003, 5.1) as one side's code writes or reads it: the
/// field name of each value, and what the writer puts between a name and its value (`=` in a
/// well-formed `application/x-www-form-urlencoded` body).
public struct RegistrationForm: Sendable, Equatable {
  public var userId: String
  public var salt: String
  public var token: String
  public var separator: String

  public init(
    userId: String = "userId", salt: String = "userToken", token: String = "appToken",
    separator: String = "="
  ) {
    self.userId = userId
    self.salt = salt
    self.token = token
    self.separator = separator
  }

  /// Which value a variable holds, by its name (`userSalt`, `$paramAppToken`, `userId`).
  static func role(of variable: String) -> WritableKeyPath<RegistrationForm, String>? {
    let name = variable.lowercased()
    if name.contains("salt") { return \.salt }
    if name.contains("token") { return \.token }
    if name.hasSuffix("id") { return \.userId }
    return nil
  }

  /// The form named by (field, variable) pairs; nil unless each value has exactly one field.
  static func named(_ pairs: [(field: String, variable: String)], separator: String = "=")
    -> RegistrationForm?
  {
    var form = RegistrationForm(userId: "", salt: "", token: "", separator: separator)
    for (field, variable) in pairs {
      guard let role = role(of: variable), form[keyPath: role].isEmpty else { return nil }
      form[keyPath: role] = field
    }
    return [form.userId, form.salt, form.token].contains("") ? nil : form
  }
}

/// What the backend's code does about seed 003's controller and logout rules (PHP sources
/// under `src/`, comments blanked); nil when the code was not found.
public struct HybridBackendCode: Sendable {
  /// `$user->getSalt() !== $paramUserSalt` → 401.
  public var checksUserSalt: Sourced<Bool>?
  /// A token registered to another user is removed before it is registered again.
  public var movesOtherUsersToken: Sourced<Bool>?
  /// The same user registering the same token again changes nothing.
  public var idempotentForSameUser: Sourced<Bool>?
  /// Logging out runs `DeleteDeviceTask`.
  public var logoutDeletesToken: Sourced<Bool>?
  /// The FCM payload carries `data.targetUrl`.
  public var sendsTargetUrl: Sourced<Bool>?
  /// `sendToDevice` returns early for a device whose notifications are off
  /// (`!$device->isNotificationActivated()`): the per-device opt-out (seed 003, 5.2).
  public var honoursDeviceOptOut: Sourced<Bool>?
  /// The fields `RegisterNotificationDeviceApi` reads (`$request->request->get('…')`).
  public var registrationForm: Sourced<RegistrationForm>?

  public init() {}
}
