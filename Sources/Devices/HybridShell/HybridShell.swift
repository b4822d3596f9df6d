import Artifacts
import Foundation
import HTTP
import QualifyCore

/// A hybrid WebView container on a device (seed 003): a WebView on the site, the JS bridge
/// (`window.AndroidBridge` on Android, the `notify` message handler on iOS), the notification
/// permission and its answer sent back to the page, the FCM token (on iOS through the APNs
/// token handed to Firebase Messaging) registered with the site, pushes whose tap opens their
/// `targetUrl`, and the OS's part in Universal Links / App Links: verifying the site's
/// `.well-known` file at install, then opening a tapped link in the app or in the browser.
///
/// The container behaves as its own code reads (`HybridShellCode`): one whose code lacks a
/// rule behaves as that code would.
public final class HybridShell {
  public enum Screen: Equatable, Sendable {
    case closed
    /// A page of the site, by URL.
    case page(String)
    /// The system browser, opened on a URL the app did not take.
    case browser(String)
    /// The system's notification settings of the app.
    case settings
  }

  public enum Permission: String, Sendable {
    case notAsked = "not-asked"
    case granted, denied
  }

  /// A push as the device shows it.
  public struct Notification: Sendable {
    public var title: String
    public var body: String
    public var targetUrl: String?
  }

  public let name: String
  public let build: AppBuild
  let environment: DeviceEnvironment
  /// The WebView: its cookie jar is the site session.
  let web: NativeHTTPStack
  /// Native requests (the token registration), sent with the WebView's cookies.
  let native: NativeHTTPStack
  /// The OS's own fetches (swcd, Android's intent-filter verifier): no cookies.
  let system: NativeHTTPStack
  /// Firebase Messaging's side on the device (Play services / the iOS SDK).
  let firebase: NativeHTTPStack
  /// Android: Google Play services on the phone (FCM has no token without them).
  let hasPlayServices: Bool
  var source: String { "\(build.platform.rawValue)/\(name)" }
  var code: HybridShellCode { build.hybrid?.code ?? HybridShellCode() }

  /// Android's API level (33 is Android 13, where POST_NOTIFICATIONS became a runtime
  /// permission).
  public var apiLevel = 34
  /// What the user answers when the system asks about notifications.
  public var answersAllow = true

  public internal(set) var screen: Screen = .closed
  /// The HTML of the page shown.
  public internal(set) var html = ""
  /// Which WebView shows the page: a new one at each cold start, and whenever the container
  /// makes one for a link. What a page holds in memory (a draft, its history, its
  /// sessionStorage) lives and dies with it.
  public internal(set) var webView = 0
  /// The WebView whose page holds the user's unsent draft, if any.
  public internal(set) var draftIn: Int?
  /// Why the last link the app took was not loaded (the code's fact and where), if it was not.
  public internal(set) var linkNotRouted: String?
  /// The OS's notification permission (`NotificationPermissionMachine`).
  private var permissions: NotificationPermissionMachine
  public var permission: Permission { Permission(rawValue: permissions.state.rawValue) ?? .denied }
  /// How many times the system showed its permission dialog.
  public var dialogs: Int { permissions.dialogs }
  /// Events dispatched to pages (`onNativePermissionResult granted=true`), oldest first.
  public private(set) var pageEvents: [String] = []
  /// What the page got back from its last bridge call.
  public private(set) var bridgeAnswer: String?
  /// Texts handed to the system share sheet.
  public private(set) var shares: [String] = []
  public private(set) var apnsToken: String?
  public private(set) var fcmToken: String?
  /// Why the app has no FCM token, when it has none.
  public private(set) var tokenProblem: String?
  /// Pushes shown, newest last; `received` counts every push that reached the device.
  public private(set) var notifications: [Notification] = []
  /// Why a tapped notification is still in the tray, when one is.
  public private(set) var stayedInTray: String?
  public private(set) var received = 0
  /// The OS's verdict on each claimed host, taken at install: nil when verified, else why
  /// not. The text fetched from a verified host is kept to match paths.
  public internal(set) var verification: [String: String?] = [:]
  var verifiedText: [String: String] = [:]
  var installed = false
  /// The page finished loading since the permission was last asked on iOS.
  private var iosAskedThisLaunch = false

  init(name: String, build: AppBuild, hasPlayServices: Bool, environment: DeviceEnvironment) throws
  {
    self.name = name
    self.build = build
    self.hasPlayServices = hasPlayServices
    self.environment = environment
    permissions = NotificationPermissionMachine(
      facts: .init(
        platform: build.platform, targetSdk: build.hybrid?.targetSdk?.value,
        // Unread, the manifest is taken to declare it: the dialog's rules then decide.
        declaresPostNotifications: build.hybrid?.declaresPostNotifications?.value != false))
    let policy = TransportPolicy(build: build, behaviours: ShellBehaviours())
    let prefix = "\(build.platform.rawValue)/\(name)"
    web = try NativeHTTPStack(source: "\(prefix) webview", policy: policy, environment: environment)
    native = try NativeHTTPStack(
      source: "\(prefix) native", policy: policy, environment: environment, keepsCookies: false)
    system = try NativeHTTPStack(
      source: "\(build.platform.displayName) link verifier", policy: policy,
      environment: environment, keepsCookies: false)
    firebase = try NativeHTTPStack(
      source: "\(prefix) firebase", policy: policy, environment: environment, keepsCookies: false)
  }

  public var origin: String { build.hybrid?.webOrigin.value ?? "" }
  public var isRunning: Bool { screen != .closed && !isInBrowser }
  private var isInBrowser: Bool {
    if case .browser = screen { return true }
    return false
  }

  /// The path of the page shown, nil when no page of the site is.
  public var pagePath: String? {
    guard case .page(let url) = screen, let components = URLComponents(string: url) else {
      return nil
    }
    return components.path.isEmpty ? "/" : components.path
  }

  /// Whether the page shown is signed in (it carries the user's id for the container).
  public var signedInUser: String? {
    guard case .page = screen, let range = html.range(of: "name=\"app-user\" content=\"")
    else { return nil }
    return html[range.upperBound...].split(separator: ":").first.map(String.init)
  }

  // MARK: Lifecycle

  /// Opens the app (a cold start when it is not running) on `url`, else the home page.
  public func launch(at url: String? = nil) {
    if !isRunning { webView += 1 }
    if !installed {
      installed = true
      verifyLinks()
      obtainToken()
      legacyNotificationPrompt()
    }
    iosAskedThisLaunch = false
    load(url ?? origin + "/")
  }

  /// An app targeting API 32 or lower on Android 13+: the system itself asks when the app
  /// creates its first notification channel (at first start), manifest or not.
  private func legacyNotificationPrompt() {
    guard build.platform == .android, apiLevel >= 33,
      permissions.firstChannelCreated(userGrants: answersAllow)
    else { return }
    environment.decision(
      source,
      "targetSdk \(permissions.facts.targetSdk ?? 0): Android asks itself at the first notification channel; the user answered \(permission.rawValue)"
    )
  }

  public func close() {
    screen = .closed
    html = ""
  }

  // MARK: The WebView

  /// Loads `url` in the WebView, following redirects as a WebView does, then runs what the
  /// container does when a page finishes loading.
  public func load(_ url: String) {
    var target = url
    for _ in 0..<10 {
      guard case .sent(let exchange) = web.send(ClientRequest(url: target)),
        let response = exchange.response
      else {
        screen = .page(target)
        html = ""
        return
      }
      if (300..<400).contains(response.status), let location = response.headers["Location"] {
        target = URL(string: location, relativeTo: URL(string: target))?.absoluteString ?? location
        continue
      }
      screen = .page(target)
      html = response.bodyText
      break
    }
    pageFinished()
  }

  /// The site's login form, filled and posted.
  public func signIn(login: String, password: String) {
    if pagePath != "/login" { load(origin + "/login") }
    let form = Query.encode([
      ("_username", login), ("_password", password), ("_target_path", "/"),
    ])
    post("/login", form: form)
  }

  /// The page's logout button.
  public func signOut() {
    post("/logout", form: "")
  }

  private func post(_ path: String, form: String) {
    let result = web.send(
      ClientRequest(
        method: "POST", url: origin + path,
        headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array(form.utf8)))
    guard case .sent(let exchange) = result, let response = exchange.response else { return }
    if (300..<400).contains(response.status), let location = response.headers["Location"] {
      load(
        URL(string: location, relativeTo: URL(string: origin + path))?.absoluteString ?? location)
    } else {
      screen = .page(origin + path)
      html = response.bodyText
      pageFinished()
    }
  }

  /// `onPageFinished` / `didFinish`: Android asks for the permission; the page on iOS asks
  /// through its message handler; the container registers its token for a signed-in page.
  private func pageFinished() {
    switch build.platform {
    case .android:
      if code.asksPermissionOnPageLoad?.value ?? true, apiLevel >= 33, permission != .granted {
        askPermission()
      }
    case .ios:
      if signedInUser != nil, !iosAskedThisLaunch {
        iosAskedThisLaunch = true
        _ = callBridge("notify")
      }
    }
    registerToken()
  }

  // MARK: The bridge

  /// The page calls the bridge: `window.AndroidBridge.<method>(args)` on Android,
  /// `window.webkit.messageHandlers.<method>.postMessage({type: 'request'})` on iOS.
  /// Answers what the page gets back (a value, or the JavaScript error).
  @discardableResult
  public func callBridge(_ method: String, arguments: [String] = []) -> String {
    let answer: String
    switch build.platform {
    case .android:
      if code.bridgeName?.value ?? "AndroidBridge" != "AndroidBridge" {
        answer = "TypeError: window.AndroidBridge is undefined"
      } else if !code.bridgeMethods.isEmpty && !code.bridgeMethods.contains(method) {
        answer = "TypeError: window.AndroidBridge.\(method) is not a function"
      } else if method == "getAppVersion" {
        answer = build.hybrid?.versionName?.value ?? "?"
      } else if method == "openNativeShare" {
        let text = arguments.joined(separator: " ")
        shares.append(text)
        answer = "the share sheet opened with \"\(text)\""
      } else {
        answer = "TypeError: window.AndroidBridge.\(method) is not a function"
      }
    case .ios:
      if (code.bridgeName?.value ?? "notify") != method {
        answer = "TypeError: window.webkit.messageHandlers.\(method) is undefined"
      } else {
        askPermission()
        answer = "posted {type: 'request'} to \(method)"
      }
    }
    bridgeAnswer = answer
    environment.decision(source, "the page called the bridge \(method): \(answer)")
    return answer
  }

  /// The system's permission request: Android's dialog (refused without one when the
  /// manifest does not declare POST_NOTIFICATIONS, or after two refusals), iOS's (shown once,
  /// its answer kept); the answer is dispatched to the page when the code does so.
  private func askPermission() {
    switch permissions.request(userGrants: answersAllow) {
    case .legacy(let target):
      environment.decision(
        source, "targetSdk \(target): the request returns \(permission.rawValue)")
    case .undeclared:
      environment.decision(
        source,
        "POST_NOTIFICATIONS requested but not declared in the manifest: refused without a dialog")
    case .deniedTwice:
      environment.decision(source, "denied twice before: Android shows no dialog any more")
    case .dialog:
      environment.decision(
        source, "the notification dialog: the user answered \(permission.rawValue)")
    case .decided:
      break
    }
    let granted = permission == .granted
    if code.permissionEvent?.value ?? true {
      pageEvents.append("onNativePermissionResult granted=\(granted)")
    } else {
      environment.decision(source, "the answer (\(granted)) is never dispatched to the page")
    }
  }

  /// The page's "enable notifications" link (`appplatform://settings/notifications`): the
  /// app's own activity opens the system settings when the scheme is registered.
  public func tapSettingsLink() -> String {
    guard let link = build.hybrid?.settingsLink?.value,
      let scheme = link.split(separator: ":").first.map(String.init)
    else { return "the page has no settings link" }
    guard build.registers(scheme: scheme) else {
      environment.decision(source, "\(link): no activity takes \(scheme)://, nothing opens")
      return "net::ERR_UNKNOWN_URL_SCHEME"
    }
    screen = .settings
    environment.decision(source, "\(link) opened the app's notification settings")
    return "the notification settings opened"
  }

  // MARK: FCM

  /// Firebase Messaging's token: on Android from Play services with the package of
  /// google-services.json; on iOS only once the APNs token reaches Firebase Messaging.
  func obtainToken() {
    guard let hybrid = build.hybrid, let project = hybrid.firebaseProject?.value else {
      tokenProblem = "no Firebase config in the app"
      return
    }
    // The platform's own rules come first, the same for every shell
    // (`PushRegistrationStateMachine`): Apple issues an APNs token only to a build signed with
    // aps-environment, FCM on Android needs Play services and a google-services.json client
    // for the package. Firebase on iOS then needs the APNs token handed to it.
    // The config's client for the package is checked below, naming the file and what it holds.
    if case .impossible(let reason) = platformTokenRules(hybrid).tokenRequest(),
      build.platform == .ios || !hasPlayServices
    {
      tokenProblem =
        build.platform == .ios
        ? "\(hybrid.entitlementsFile.map { "\($0) have no aps-environment" } ?? "\(build.files["ios.project"] ?? "the Xcode project") sets no CODE_SIGN_ENTITLEMENTS: the build signs with no entitlements, so no aps-environment"): registerForRemoteNotifications fails, no APNs token, so no FCM token"
        : "\(reason): no FCM token"
      environment.decision(source, tokenProblem ?? "")
      return
    }
    if build.platform == .ios {
      apnsToken = environment.random.hex(byteCount: 32)
      let proxy = hybrid.firebaseProxyEnabled?.value ?? true
      if !proxy, let handoff = code.apnsHandoff, !handoff.value {
        tokenProblem =
          "FirebaseAppDelegateProxyEnabled is NO (\(hybrid.firebaseProxyEnabled?.origin ?? "Info.plist")) and \(handoff.origin) never sets Messaging.messaging().apnsToken: Firebase Messaging has no APNs token, so no FCM token"
        environment.decision(source, tokenProblem ?? "")
        return
      }
    }
    guard hybrid.firebaseApps.contains(where: { $0.value == build.appId.value }) else {
      let config = build.platform == .ios ? "GoogleService-Info.plist" : "google-services.json"
      tokenProblem =
        "\(config) (\(hybrid.firebaseApps.first?.origin ?? hybrid.firebaseProject?.origin ?? "?")) registers \(hybrid.firebaseApps.map(\.value).joined(separator: ", ")), not \(build.appId.value): no FCM token"
      environment.decision(source, tokenProblem ?? "")
      return
    }
    let body =
      (try? JSONSerialization.data(
        withJSONObject: ["projectId": project, "package": build.appId.value]))
      .map(Array.init) ?? []
    guard
      case .sent(let exchange) = firebase.send(
        ClientRequest(
          method: "POST", url: "https://fcm.googleapis.com/_device/register",
          headers: ["Content-Type": "application/json"], body: body)),
      let token = (exchange.response?.jsonObject as? [String: Any])?["token"] as? String
    else {
      tokenProblem = "Firebase refused to register \(build.appId.value) in \(project)"
      return
    }
    environment.redactor.register(token)
    fcmToken = token
  }

  /// The platform's rules for a push token, over what this build and phone have.
  private func platformTokenRules(_ hybrid: HybridShellSettings) -> PushRegistrationStateMachine {
    var facts = PushRegistrationStateMachine.Facts(
      platform: build.platform, appId: build.appId.value,
      apsEnvironment: hybrid.apsEnvironment?.value, hasPlayServices: hasPlayServices,
      firebaseProject: hybrid.firebaseProject?.value,
      firebasePackages: hybrid.firebaseApps.map(\.value),
      declaresPostNotifications: hybrid.declaresPostNotifications?.value ?? true)
    facts.entitlementsFile = hybrid.entitlementsFile
    return PushRegistrationStateMachine(facts: facts, behaviours: .init())
  }

  /// The container posts its token with the signed-in page's user id and salt, and the
  /// WebView's session cookie.
  private func registerToken() {
    guard let token = fcmToken, code.registersToken?.value ?? true,
      case .page = screen, let range = html.range(of: "name=\"app-user\" content=\"")
    else { return }
    let value = html[range.upperBound...].prefix { $0 != "\"" }
    let parts = value.split(separator: ":", maxSplits: 1).map(String.init)
    guard parts.count == 2 else { return }
    environment.redactor.register(parts[1])
    registerToken(userId: parts[0], salt: parts[1], token: token)
  }

  /// `POST /api/<platform>-register` with these fields (nil: left out). Answers the status.
  @discardableResult
  public func registerToken(userId: String?, salt: String?, token: String?) -> HTTPResponse? {
    let path = build.platform == .ios ? "/api/ios-register" : "/api/android-register"
    // The field names and the writing the container's own code uses (seed 003's otherwise).
    let form = code.registrationForm?.value ?? RegistrationForm()
    var fields: [(String, String)] = []
    if let userId { fields.append((form.userId, userId)) }
    if let salt { fields.append((form.salt, salt)) }
    if let token { fields.append((form.token, token)) }
    let body = fields.map { $0.0 + form.separator + Query.escape($0.1) }.joined(separator: "&")
    var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
    if let cookie = web.jar.header(for: origin + path) { headers.set("Cookie", cookie) }
    guard
      case .sent(let exchange) = native.send(
        ClientRequest(
          method: "POST", url: origin + path, headers: headers,
          body: Array(body.utf8))),
      let response = exchange.response
    else { return nil }
    return response
  }

  /// The pushes that reached the device since the last look: shown when notifications are
  /// allowed (Android 13+ and iOS need the permission; Android 12 shows them by default).
  public func receivePushes() {
    guard let token = fcmToken,
      case .sent(let exchange) = firebase.send(
        ClientRequest(
          url: "https://fcm.googleapis.com/_device/notifications?token="
            + Query.escape(token))),
      let list = (exchange.response?.jsonObject as? [String: Any])?["notifications"] as? [String]
    else { return }
    let shown =
      permission == .granted || (build.platform == .android && apiLevel < 33)
    for text in list {
      received += 1
      guard let message = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
      else { continue }
      let notification = message["notification"] as? [String: Any]
      let data = message["data"] as? [String: Any]
      if shown {
        notifications.append(
          Notification(
            title: notification?["title"] as? String ?? "",
            body: notification?["body"] as? String ?? "",
            targetUrl: data?["targetUrl"] as? String))
      } else {
        environment.decision(source, "a push arrived; notifications are not allowed, none shown")
      }
    }
  }

  /// The user taps the newest notification: the app opens its `targetUrl` (a page of the
  /// site) when the code routes it, else the home page. False when there is none to tap.
  public func tapNotification() -> Bool {
    receivePushes()
    guard let notification = notifications.popLast() else { return false }
    // Android removes a tapped notification only when the builder set auto-cancel; iOS
    // always does.
    if build.platform == .android, code.autoCancels?.value == false {
      notifications.append(notification)
      stayedInTray =
        "the tapped notification stayed: setAutoCancel is not true (\(code.autoCancels?.origin ?? "the messaging service"))"
      environment.decision(source, stayedInTray ?? "")
    }
    var url: String?
    if code.opensTargetUrl?.value ?? true, let target = notification.targetUrl,
      target.hasPrefix(origin + "/")
    {
      url = target
    }
    environment.decision(
      source,
      "tapped \"\(notification.title)\": \(url.map { "opens \($0)" } ?? "no targetUrl routed, the app opens as it was")"
    )
    if let url {
      isRunning ? load(url) : launch(at: url)
    } else if !isRunning {
      launch()
    }
    return true
  }

}
