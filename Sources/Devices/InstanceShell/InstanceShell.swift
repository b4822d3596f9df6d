import Artifacts
import Foundation
import HTTP
import QualifyCore

/// A multi-instance Capacitor shell on a device (seed 004): a local onboarding page, the
/// ordered instance list in Preferences, the primary WebView with its history, the native
/// navigation policy, back to the instance manager, and `sovereign://` deep links handed to
/// the local page by native code.
public final class InstanceShell {
  /// One stored instance, as `sovereign.instances` holds it.
  public struct Instance: Codable, Equatable, Sendable {
    public var url: String
    public var label: String
    public var addedAt: Double
  }

  /// What the primary WebView shows.
  public enum Screen: Equatable, Sendable {
    /// Not running (never started, or the back key left it).
    case closed
    /// The local page stuck on its static pre-boot placeholder.
    case placeholder(String)
    /// The local page's onboarding / instance manager, with the URL field's text.
    case onboarding(prefill: String)
    /// A remote page.
    case remote(String)
  }

  public static let instancesKey = "sovereign.instances"
  public static let activeKey = "sovereign.activeUrl"

  public let name: String
  public let build: AppBuild
  public let behaviours: ShellBehaviours
  let environment: DeviceEnvironment
  /// CapacitorHttp: the onboarding's instance check.
  let native: NativeHTTPStack
  /// The WebView's own page loads, under the same platform policy.
  let webLoads: NativeHTTPStack
  private var source: String { "\(build.platform.rawValue)/\(name)" }

  /// Preferences (UserDefaults / SharedPreferences): outlives a relaunch and the WebView's data.
  public internal(set) var preferences: [String: String] = [:]
  /// The WebView's localStorage: evicted under storage pressure, cleared with its data.
  public internal(set) var webStorage: [String: String] = [:]
  /// The WebView's history and where it stands.
  public internal(set) var history: [String] = []
  public internal(set) var index = 0
  public internal(set) var screen: Screen = .closed {
    didSet { if screen != .closed { closedBecause = nil } }
  }
  /// Why the app closed, when something other than the user closed it.
  public internal(set) var closedBecause: String?
  /// Why the remote page shown is shown, when the app's code put it there against the
  /// user's move (boot() redirecting a page reached by going back).
  public internal(set) var remoteBecause: String?
  /// The last navigation the policy sent out of the WebView, and the code that decided it:
  /// what a screen short of the instance expected is explained by.
  public internal(set) var leftBecause: String?
  /// The last call an instance page made to native code: answered, and why.
  public var lastNativeCall: (answered: Bool, why: String)?
  /// The labels the manager's page shows, in order, as rendered into its document.
  public private(set) var listed: [String] = []
  /// URLs handed to the system browser, oldest first.
  public private(set) var systemBrowser: [String] = []
  /// Why the last add was refused, nil when it was not.
  public internal(set) var addRefusal: String?
  /// Why the last add's instance check accepted the answer, as the app's read code decided.
  public internal(set) var lastAcceptance: String?
  /// The path an unknown-host deep link resumes to once its instance is added.
  var pendingPath: String?
  /// Android: `canGoBack()` is stale after the cold-launch JS redirect (seed 004, ADR 0006).
  var canGoBackStale = false
  /// iOS: the user scripts of the local page (Capacitor's bridge), gone after remote mode
  /// when they were kept by reference.
  var localScriptsLost = false
  var remoteModeEntered = false
  /// The WebView's back-forward cache was evicted since the page was left.
  var backForwardCacheEvicted = false
  /// History indices of local-page entries whose boot() went straight on to an instance: a
  /// back-forward restore of one shows what it showed then, the placeholder.
  var leftByBoot: Set<Int> = []

  init(
    name: String, build: AppBuild, behaviours: ShellBehaviours, environment: DeviceEnvironment
  ) throws {
    self.name = name
    self.build = build
    self.behaviours = InstanceShell.behaviours(behaviours, readFrom: build)
    self.environment = environment
    var build = build
    if behaviours.ignoresTransportPolicy { build.transport = TransportSettings() }
    let policy = TransportPolicy(build: build, behaviours: self.behaviours)
    native = try NativeHTTPStack(
      source: "\(build.platform.rawValue)/\(name) native", policy: policy,
      environment: environment)
    webLoads = try NativeHTTPStack(
      source: "\(build.platform.rawValue)/\(name) webview", policy: policy,
      environment: environment)
  }

  /// The behaviours the app's own code shows (`InstanceShellCode`), on top of a control's:
  /// a shell whose code lacks one of seed 004's rules behaves as that code would.
  static func behaviours(_ base: ShellBehaviours, readFrom build: AppBuild) -> ShellBehaviours {
    guard let code = build.instanceShell?.code else { return base }
    var out = base
    switch build.platform {
    case .android:
      // A handler that loads the local page without `manage` is followed as written (back());
      // no handler at all leaves the WebView's own goBack().
      if code.androidBackLoadsManager?.value == false, code.androidBackLoadsPlainLocal == nil {
        out.trustsCanGoBack = true
      }
      if code.androidNavigationPolicy?.value == false { out.sameOriginToDefaultHandler = true }
    case .ios:
      if code.iosNavigationPolicy?.value == false { out.sameOriginToDefaultHandler = true }
    }
    if code.pageshowHandler?.value == false { out.noPageshowHandler = true }
    switch code.managerOpen?.value {
    case .navigatesFirst?: out.switchesBeforeSavingActive = true
    case .never?: out.opensWithoutSavingActive = true
    default: break
    }
    if code.bootChecksBackForward?.value == false { out.bootIgnoresBackForward = true }
    if code.bootHonoursManager?.value == false { out.bootIgnoresManager = true }
    if code.activeKeyMismatch(on: build.platform) != nil { out.policySeesNoActiveInstance = true }
    if build.platform == .ios,
      code.iosSnapshotsLocalScripts?.value == false || code.iosRestoresLocalMode?.value == false
    {
      out.localScriptsNotSnapshotted = true
    }
    if code.validationEndpoint?.value == "/api/admin/health" {
      out.validatesAgainstAdminHealth = true
    }
    if code.replacesLocation?.value == true { out.deepLinkReplaces = true }
    if code.storesInLocalStorage?.value == true { out.instancesInWebViewStorage = true }
    return out
  }

  /// Why the native policy sees no active instance, when the app's code reads it under
  /// another key than its web code writes.
  public var policyBlindness: String? {
    guard let (reads, written) = build.instanceShell?.code.activeKeyMismatch(on: build.platform)
    else { return nil }
    return
      "the navigation policy reads the active instance from \(reads.value) (\(reads.origin)), which the web code never writes (it writes \(written))"
  }

  /// The native policy's same-origin decision as the app's code writes it, when it was read.
  public var sameOriginDecision: Sourced<ReadDecision<NavigationDecision>>? {
    let code = build.instanceShell?.code
    return build.platform == .ios ? code?.iosSameOrigin : code?.androidSameOrigin
  }

  /// The scheme test before the policy's decision, as the app's code writes it.
  public var schemeGate: Sourced<ReadDecision<SchemeGate>>? {
    let code = build.instanceShell?.code
    return build.platform == .ios ? code?.iosSchemeGate : code?.androidSchemeGate
  }

  /// Whether native code hands deep links to the local page (read from the app's code; as
  /// seed 004 describes when it was not found).
  var handsOffDeepLinks: Bool {
    let code = build.instanceShell?.code
    let fact = build.platform == .ios ? code?.iosDeepLinkHandoff : code?.androidDeepLinkHandoff
    return fact?.value ?? true
  }

  /// The local page's origin: Capacitor's default local scheme on each platform.
  public var localOrigin: String {
    build.platform == .ios ? "capacitor://localhost/" : "https://localhost/"
  }

  public var isRunning: Bool { screen != .closed }

  /// The instance list, as the shell stores it.
  public var instances: [Instance] {
    let raw =
      behaviours.instancesInWebViewStorage
      ? webStorage[Self.instancesKey] : preferences[Self.instancesKey]
    guard let raw, let list = try? JSONDecoder().decode([Instance].self, from: Data(raw.utf8))
    else { return [] }
    return list
  }

  public var activeURL: String? { preferences[Self.activeKey] }

  /// The remote page shown, nil on the local page or when closed.
  public var currentRemote: String? {
    if case .remote(let url) = screen { return url }
    return nil
  }

  func note(_ summary: String) { environment.decision(source, summary) }

  // MARK: Lifecycle

  /// A cold start: a new process and WebView; Preferences as stored.
  public func start(deepLink: String? = nil) {
    history = []
    leftBecause = nil
    index = 0
    leftByBoot = []
    listed = []
    canGoBackStale = false
    localScriptsLost = false
    // The page's memory goes with the process; a path kept in storage would not.
    if !behaviours.keepsPendingPath { pendingPath = nil }
    remoteModeEntered = false
    backForwardCacheEvicted = false
    systemBrowserMark = systemBrowser.count
    if build.platform == .android, build.instanceShell?.launcherActivity == nil {
      note("no launcher activity: the app does not open")
      screen = .closed
      return
    }
    if build.platform == .ios,
      let missing = build.instanceShell?.uncompiledSwiftFiles.first(where: {
        $0.value.hasSuffix("/MainViewController.swift")
      })
    {
      // The storyboard names a class the build left out (seed 004, task 20.1).
      screen = .placeholder(
        "a black screen: Unknown class MainViewController in Interface Builder file (\(missing.value) is not compiled)"
      )
      note("the root view controller's class is not in the build: a black screen")
      return
    }
    // A dev build's server.url serves the local page itself (live reload); in a release build
    // it replaces the local page: the WebView starts there.
    if build.channel.isRelease, let baked = build.capacitor?.serverURL?.value, !baked.isEmpty {
      note("server.url is baked in: the WebView starts at \(baked), not the local page")
      load(baked, cold: true, push: true)
      return
    }
    loadLocal(query: deepLink.map { "deeplink=" + Query.escape($0) }, cold: true)
  }

  /// The process ends; nothing is shown until the app is opened again.
  public func close() {
    note("the process ends")
    screen = .closed
  }

  /// Force-stopped (or killed in the background) and opened again.
  public func restartCold() {
    note("the process is killed; the app is opened again")
    screen = .closed
    start()
  }

  /// The WebView's data is evicted (storage pressure, long disuse): localStorage and its
  /// caches go; Preferences stay.
  public func evictWebViewData() {
    webStorage = [:]
    note("the WebView's website data was evicted (Preferences kept)")
  }

  private var systemBrowserMark = 0
  /// URLs handed to the system browser since `markStep()`.
  public var systemBrowserThisStep: [String] { Array(systemBrowser.dropFirst(systemBrowserMark)) }
  public func markStep() { systemBrowserMark = systemBrowser.count }

  // MARK: The local page

  func loadLocal(query: String?, cold: Bool = false, backForward: Bool = false) {
    let url = localOrigin + (query.map { "?" + $0 } ?? "")
    if !backForward { pushHistory(url) }
    if build.platform == .ios && localScriptsLost {
      // The page reloads without Capacitor's bridge: Preferences "is not implemented",
      // boot() never leaves the placeholder (seed 004, deep links, bug 1).
      screen = .placeholder(
        "\"Preferences\" plugin is not implemented on ios" + localScriptsLostWhere)
      note("the local page reloaded without its user scripts: Preferences is not implemented")
      return
    }
    boot(query: query, backForward: backForward, cold: cold)
  }

  /// `main.ts`'s boot(): a deep link first, then the stored active instance, else onboarding.
  private func boot(query: String?, backForward: Bool, cold: Bool) {
    let parameters = Query.parse(query ?? "")
    if let raw = parameters.first(where: { $0.name == "deeplink" })?.value,
      handleDeepLink(raw, cold: cold)
    {
      return
    }
    let asked = parameters.contains { $0.name == "manage" }
    let manage = asked && !behaviours.bootIgnoresManager
    if let active = activeURL, !manage, !backForward || behaviours.bootIgnoresBackForward {
      leftByBoot.insert(index)
      loadInstance(active, cold: cold)
      if !instances.contains(where: { $0.url == active }),
        let remove = build.instanceShell?.code.managerRemove, remove.value != .whenRemoved
      {
        remoteBecause =
          "boot() loaded the active instance the user removed: removeInstance kept it at \(remove.origin)"
        return
      }
      if asked, let honours = build.instanceShell?.code.bootHonoursManager {
        remoteBecause = "\(honours.origin): \(honours.derivation.first ?? "boot() ignores ?manage")"
      } else if backForward {
        remoteBecause =
          "boot() redirected a back_forward load"
          + (build.instanceShell?.code.bootChecksBackForward.flatMap {
            $0.value ? nil : " (\($0.origin): it redirects on a back_forward load)"
          } ?? "")
      }
      return
    }
    renderOnboarding(prefill: "")
  }

  /// Renders the manager; in the same document (✕, a page restored from the back-forward
  /// cache) what the last render appended stays unless the code empties the root first.
  /// `pendingPath` is the render's own option: a render without it (the manager again, a ✕,
  /// a new process) resumes nowhere.
  func renderOnboarding(prefill: String, pendingPath: String? = nil, sameDocument: Bool = false) {
    if !behaviours.keepsPendingPath || pendingPath != nil { self.pendingPath = pendingPath }
    let labels = instances.map(\.label)
    let clears = build.instanceShell?.code.managerClearsRoot?.value ?? true
    listed = sameDocument && !clears ? listed + labels : labels
    screen = .onboarding(prefill: prefill)
    note(
      instances.isEmpty
        ? "onboarding: \"Connect to your instance\" (no instance stored)"
        : "the instance manager lists \(instances.map(\.label).joined(separator: ", "))")
  }

  /// `loadInstance()`: `location.assign()` (history keeps the local page).
  func loadInstance(_ url: String, replace: Bool = false, cold: Bool = false) {
    navigate(url, mainFrame: true, replace: replace, cold: cold)
  }

  // MARK: Deep links

  /// What `resolveDeepLink` makes of a raw link: the host and path, nil when unparsed.
  func resolve(_ raw: String) -> (host: String, path: String)? {
    guard let scheme = build.instanceShell?.deepLinkScheme?.value.lowercased() else { return nil }
    if behaviours.deepLinkViaURLAuthority {
      // `new URL(raw).hostname`: WebKit parses a non-special scheme's authority, Chromium
      // WebView folds it into the pathname and leaves the host empty (seed 004, bug 2).
      guard build.platform == .ios, let components = URLComponents(string: raw),
        components.scheme?.lowercased() == scheme, let host = components.host, !host.isEmpty
      else { return nil }
      return (host.lowercased(), components.path.isEmpty ? "/" : components.path)
    }
    let prefix = scheme + "://"
    guard raw.lowercased().hasPrefix(prefix) else { return nil }
    let rest = raw.dropFirst(prefix.count)
    let host = rest.prefix { !"/?#".contains($0) }.lowercased()
    guard !host.isEmpty else { return nil }
    let after = rest.dropFirst(host.count)
    let path = after.prefix { !"?#".contains($0) }
    return (host, path.isEmpty ? "/" : String(path))
  }

  private func handleDeepLink(_ raw: String, cold: Bool) -> Bool {
    guard let (host, path) = resolve(raw) else {
      note("deep link \(raw) not understood: ignored")
      return false
    }
    if let instance = instances.first(where: {
      Origin(url: $0.url)?.hostHeader.lowercased() == host
    }) {
      note("deep link to a known instance: \(instance.url)\(path)")
      preferences[Self.activeKey] = instance.url
      if let handler = build.instanceShell?.code.deepLinkHandlerNavigates, !handler.value {
        // boot() returned on the link: nothing replaces the page's static placeholder.
        screen = .placeholder("the deep link's handler at \(handler.origin) opens no instance")
        return true
      }
      loadInstance(instance.url + path, replace: behaviours.deepLinkReplaces, cold: cold)
    } else {
      note("deep link to an unknown host \(host): onboarding pre-filled, resuming to \(path)")
      renderOnboarding(prefill: "https://" + host, pendingPath: path)
    }
    return true
  }

  /// The OS hands `sovereign://…` to the app: native code loads the local page with the raw
  /// link (Android: `handleDeepLinkIntent` from `load()` or `onNewIntent`; iOS:
  /// `application(_:open:)` → `loadDeepLink`).
  public func openDeepLink(_ raw: String) {
    guard let scheme = build.instanceShell?.deepLinkScheme?.value, build.registers(scheme: scheme)
    else {
      note("the OS has no app for \(raw.prefix { $0 != ":" })://: the link goes nowhere")
      return
    }
    guard handsOffDeepLinks else {
      // Capacitor's proxy raises appUrlOpen, which no listener of a remote page receives.
      note("no native code hands \(raw) to the local page: nothing handles it")
      if !isRunning { start() }
      return
    }
    guard isRunning else {
      note("cold launch from \(raw)")
      start(deepLink: raw)
      return
    }
    note("warm: native code loads the local page with ?deeplink=")
    if build.platform == .ios && remoteModeEntered && behaviours.localScriptsNotSnapshotted {
      localScriptsLost = true
    }
    loadLocal(query: "deeplink=" + Query.escape(raw))
  }

  // MARK: The WebView

  /// A link tapped in the page shown.
  public func followLink(_ target: String) {
    guard let current = currentRemote, let base = URL(string: current) else {
      note("no remote page to follow \(target) from")
      return
    }
    let url = URL(string: target, relativeTo: base)?.absoluteString ?? target
    navigate(url, mainFrame: true)
  }

  /// The native navigation policy, then the load. `cold`: a JS redirect of the launch.
  private func navigate(_ url: String, mainFrame: Bool, replace: Bool = false, cold: Bool = false) {
    guard let origin = Origin(url: url) else { return }
    // The policy's scheme test comes first: what it turns away goes to Capacitor's handler,
    // which keeps its own local content only and opens a remote origin outside.
    if !behaviours.noNavigationPolicy, let read = schemeGate, let gate = read.value.value,
      !gate.admits(url)
    {
      systemBrowser.append(url)
      leftBecause =
        "\(url) went to the system browser — \(read.location.map { "\($0.file):\($0.line): " } ?? "")the policy's scheme test `\(gate.written)` turns it away"
      note(
        "navigation policy: \(url) fails the scheme test (\(gate.written)): handed to Capacitor's handler, opened in the system browser"
      )
      return
    }
    // The policy reads the active instance where the native side looks for it.
    let seen = behaviours.policySeesNoActiveInstance ? nil : activeURL
    if !behaviours.noNavigationPolicy, let activeURL = seen, let active = Origin(url: activeURL) {
      let same: Bool
      if let decision = sameOriginDecision?.value.value {
        // The condition the app's code writes, evaluated: a component it leaves out or a
        // comparison written the wrong way behaves here as on the device.
        same = decision.keeps(url, active: activeURL)
      } else {
        same =
          origin.scheme == active.scheme && origin.host == active.host
          && origin.port == active.port
      }
      if !same {
        systemBrowser.append(url)
        leftBecause =
          "\(url) went to the system browser — \(sameOriginDecision.flatMap { read in read.value.value.map { (read.location.map { "\($0.file):\($0.line): " } ?? "") + "by `\($0.written)`, " } } ?? "")it is not the active instance \(activeURL)"
        note(
          "navigation policy: \(url) is not the active instance: cancelled, opened in the system browser"
        )
        return
      }
      if behaviours.sameOriginToDefaultHandler {
        // Capacitor's handler assumes bundled content: a remote origin goes outside.
        systemBrowser.append(url)
        note(
          "same-origin \(url) handed to Capacitor's default handler: opened in the system browser")
        return
      }
    }
    load(url, cold: cold, push: !replace)
  }

  private func load(_ url: String, cold: Bool, push: Bool) {
    remoteBecause = nil
    leftBecause = nil
    if push {
      pushHistory(url)
    } else if !history.isEmpty {
      history[index] = url
    } else {
      pushHistory(url)
    }
    if build.platform == .android && cold && index > 0 { canGoBackStale = true }
    remoteModeEntered = true
    switch webLoads.send(ClientRequest(url: url)) {
    case .refused(let reason):
      screen = .remote(url)
      note("the WebView could not load \(url): \(reason)")
    case .sent(let exchange):
      screen = .remote(url)
      note(
        "the WebView shows \(url) (\(exchange.response.map { String($0.status) } ?? "no response"))"
      )
    }
  }

  private func pushHistory(_ url: String) {
    if !history.isEmpty && index < history.count - 1 { history.removeSubrange((index + 1)...) }
    history.append(url)
    index = history.count - 1
  }
}
