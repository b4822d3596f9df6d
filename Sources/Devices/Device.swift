import Artifacts
import Foundation
import HTTP
import QualifyCore

/// A simulated phone: a platform, its system browser and the system cookie store that
/// browser shares between apps (Safari's on iOS, Chrome's on Android).
public final class Device {
  public let name: String
  public let platform: Platform
  public let environment: DeviceEnvironment
  /// The system browser's cookie store (shared across apps where the browser kind shares it).
  public let systemCookies: CookieJar

  /// Every cookie store on the device: the system browser's and each app's (native stack,
  /// in-app browser, WebView).
  public var cookieStores: [CookieJar] {
    [systemCookies] + apps.flatMap { [$0.native.jar, $0.inAppBrowserCookies, $0.webViewCookies] }
  }
  /// Whether Google Play services are installed (Android): without them Custom Tabs are
  /// unavailable and the auth flow falls back to an isolated WebView.
  public let hasPlayServices: Bool
  /// A browser kind the scenario imposes on every app of the device.
  public let forcedBrowser: BrowserKind?
  public private(set) var apps: [App] = []
  /// No network (airplane mode, a tunnel): every request of the device's apps and browser
  /// fails before reaching a server, which is the lifecycle edge a logout must survive.
  public var offline = false
  public init(
    name: String, platform: Platform, hasPlayServices: Bool = true, browser: BrowserKind? = nil,
    environment: DeviceEnvironment
  ) {
    self.name = name
    self.platform = platform
    self.hasPlayServices = hasPlayServices
    self.forcedBrowser = browser
    self.environment = environment
    systemCookies = CookieJar(clock: environment.clock)
  }

  /// Installs a multi-instance shell (seed 004) on this device.
  public func installInstanceShell(_ build: AppBuild, name: String, behaviours: ShellBehaviours)
    throws -> InstanceShell
  {
    try InstanceShell(name: name, build: build, behaviours: behaviours, environment: environment)
  }

  /// Installs a session-contract app (seed 002) on this device.
  public func installSessionClient(_ build: AppBuild, name: String, behaviours: ShellBehaviours)
    throws -> SessionClient
  {
    let client = try SessionClient(
      name: name, build: build, behaviours: behaviours, environment: environment)
    client.native.isOffline = { [unowned self] in self.offline }
    return client
  }

  /// Installs `build` on this device.
  @discardableResult
  public func install(_ build: AppBuild, name: String? = nil, behaviours: ShellBehaviours) throws
    -> App
  {
    let app = try App(name: name ?? build.name, build: build, device: self, behaviours: behaviours)
    apps.append(app)
    return app
  }
}

/// A simulated app on a device: its build, native HTTP stack, local storage.
public final class App {
  public let name: String
  public let build: AppBuild
  public unowned let device: Device
  public let native: NativeHTTPStack
  public let behaviours: ShellBehaviours
  /// WebView `localStorage` (the cached CSRF token lives here).
  public var localStorage: [String: String] = [:]
  /// The verifier of the login in progress (`generateCodeVerifier`).
  public internal(set) var pendingVerifier: String?
  /// The `S://auth?token=…` link the last login delivered, not yet exchanged.
  public internal(set) var pendingDeepLink: String?
  /// The last deep link the app exchanged (for replays).
  public internal(set) var lastExchangedDeepLink: String?
  /// The authorization URL of a login that stopped on the IdP's form.
  public internal(set) var abandonedLoginPage: String?
  /// The OTA side of the app.
  public private(set) lazy var updater = OTAUpdater(app: self)
  /// The push side of the app.
  public private(set) lazy var push = PushClient(app: self)
  /// `SFSafariViewController`'s cookie store: the app's own.
  let inAppBrowserCookies: CookieJar
  /// The fallback WebView's cookie store (Android without Play services).
  let webViewCookies: CookieJar

  init(name: String, build: AppBuild, device: Device, behaviours: ShellBehaviours) throws {
    self.name = name
    self.build = build
    self.device = device
    self.behaviours = behaviours
    inAppBrowserCookies = CookieJar(clock: device.environment.clock)
    webViewCookies = CookieJar(clock: device.environment.clock)
    native = try NativeHTTPStack(
      source: "\(device.platform.rawValue)/\(name)",
      policy: TransportPolicy(build: build, behaviours: behaviours),
      environment: device.environment,
      keepsCookies: !behaviours.nativeJarDisabled)
    native.isOffline = { [unowned device] in device.offline }
  }

  /// The API origin the build calls.
  public var apiOrigin: Origin? { Origin(url: build.frontend.apiOrigin.value) }

  /// Resolves `pathOrURL` against the API origin; `scheme` forces http or https.
  public func apiURL(_ pathOrURL: String, scheme: String? = nil) -> String {
    if pathOrURL.contains("://") { return pathOrURL }
    guard var origin = apiOrigin else { return pathOrURL }
    if let scheme, scheme != origin.scheme {
      origin = Origin(
        scheme: scheme, host: origin.host, port: origin.hasDefaultPort ? nil : origin.port)
    }
    return origin.url(pathOrURL)
  }

  /// `GET /api/v1.0/config/` through the native stack, as `bootstrap.tsx` does.
  public func fetchConfig() -> NativeHTTPStack.Result {
    native.send(ClientRequest(url: apiURL("/api/v1.0/config/")))
  }
}

/// What the WebView shows after a launch.
public enum WebViewContent: Sendable, Equatable {
  /// The embedded `dist/` bundle (`capacitor://localhost` / `https://localhost`).
  case embedded
  /// The dev server at this URL (hot reload).
  case devServer(String)
  /// Nothing: the configured source could not be loaded.
  case blank(String)
}

extension App {
  /// What a launch did.
  public struct Launch: Sendable {
    public var webView: WebViewContent
    /// Whether the running bundle crashed before `notifyAppReady()`.
    public var crashed: Bool
    /// The startup OTA check's decision, when it ran.
    public var update: OTAUpdater.Decision?
    /// The bundle running after the launch.
    public var running: String
  }

  /// Launches the app (seed 000, *OTA updates*): the plugin rolls back an unconfirmed bundle,
  /// the WebView loads the dev server (`server.url`) or the current bundle, and the bundle's
  /// startup calls `notifyAppReady()` then `checkAndApplyOtaUpdate()` — unless it crashes first.
  public func launch() -> Launch {
    let source = "\(device.platform.rawValue)/\(name)"
    updater.pluginStart()
    let webView = loadWebView()
    if updater.crashesOnBoot {
      device.environment.decision(
        source, "the bundle \(updater.current) crashed on boot: notifyAppReady() was never called")
      return Launch(webView: webView, crashed: true, update: nil, running: updater.current)
    }
    updater.notifyAppReady()
    push.refreshOnLaunch()
    let update = updater.check()
    // An applied bundle reloads the WebView: it may die before notifyAppReady() too.
    let crashed = updater.crashesOnBoot
    if crashed {
      device.environment.decision(
        source,
        "the new bundle \(updater.current) crashed on boot: notifyAppReady() was never called")
    }
    return Launch(webView: webView, crashed: crashed, update: update, running: updater.current)
  }

  private func loadWebView() -> WebViewContent {
    let source = "\(device.platform.rawValue)/\(name)"
    guard let url = build.capacitor?.serverURL?.value else {
      device.environment.decision(
        source,
        "the WebView loads the bundle \(updater.current)\(updater.current == updater.builtin ? " (embedded)" : "")"
      )
      return .embedded
    }
    switch native.send(ClientRequest(url: url)) {
    case .refused(let reason):
      device.environment.decision(
        source, "launched: the WebView is blank, \(url) was refused: \(reason)")
      return .blank("\(url) refused: \(reason)")
    case .sent(let exchange):
      guard let response = exchange.response, response.status == 200 else {
        let why = exchange.error?.message ?? "HTTP \(exchange.response?.status ?? 0)"
        device.environment.decision(
          source, "launched: the WebView is blank, the dev server \(url) is unreachable: \(why)")
        return .blank("dev server \(url) unreachable: \(why)")
      }
      device.environment.decision(
        source, "launched: the WebView loads the dev server \(url) (hot reload)")
      return .devServer(url)
    }
  }
}

extension Device {
  /// Installs a hybrid WebView app (seed 003) on this device.
  public func installHybridShell(_ build: AppBuild, name: String) throws -> HybridShell {
    try HybridShell(
      name: name, build: build, hasPlayServices: hasPlayServices, environment: environment)
  }
}

extension Device {
  /// Installs a React Native bridge shell (seed 001) on this device.
  public func installBridgeShell(_ build: AppBuild, name: String, behaviours: ShellBehaviours)
    throws -> BridgeShell
  {
    try BridgeShell(name: name, build: build, behaviours: behaviours, environment: environment)
  }
}
