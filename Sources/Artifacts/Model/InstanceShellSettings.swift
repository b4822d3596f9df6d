import QualifyCore

/// What a multi-instance shell's build says (seed 004): the deep-link scheme it must receive,
/// where Android delivers it, the Swift files the iOS target really compiles, and whether the
/// Capacitor config bakes an instance in. The instances themselves are chosen at run time.
public struct InstanceShellSettings: Sendable {
  /// The scheme deep links arrive on (`sovereign://<host>/<path>`), from `deepLinkScheme` in
  /// qualify.json.
  public var deepLinkScheme: Sourced<String>?
  /// Android: the launch mode of the activity whose intent filter receives the scheme
  /// (`singleTask` routes a warm link through `onNewIntent`); nil when no activity does.
  public var deepLinkLaunchMode: Sourced<String>?
  /// Android: the activity started from the launcher (`MAIN` + `LAUNCHER`), nil when none is.
  public var launcherActivity: Sourced<String>?
  /// iOS: Swift files in the app's folder that the app target's Sources phase does not
  /// compile — in a classic-format project they are silently left out of the build.
  public var uncompiledSwiftFiles: [Sourced<String>] = []
  /// iOS: the Swift files the app target compiles (for `check-app --explain`).
  public var compiledSwiftFiles: [String] = []
  /// The project file the Sources phase was read from.
  public var projectFile: String?
  /// `server.allowNavigation`: origins Capacitor's own policy would keep in the WebView.
  public var allowNavigation: [Sourced<String>] = []
  /// `server` itself is an expression (`isDev ? devServer : {}`): what it bakes in cannot be
  /// read.
  public var computedServer: Sourced<String>?
  /// Native source files that handle cookies, auth headers or sign-in endpoints themselves,
  /// with what was found: the shell must leave auth to the instance (seed 004).
  public var nativeAuthCode: [Sourced<String>] = []
  /// What the app's own code does about seed 004's rules, where qualify can read it.
  public var code = InstanceShellCode()

  public init() {}
}

/// What a multi-instance shell's own code does about seed 004's rules, read from its native
/// and web sources (comments blanked). Each fact decides how the simulated shell behaves, so
/// a shell whose code lacks a rule fails the scenario about it; nil when the code was not
/// found, and the shell then behaves as seed 004 describes.
public struct InstanceShellCode: Sendable {
  /// Android: the back key from a loaded instance loads the local manager itself
  /// (`dispatchKeyEvent` or a back callback with `loadUrl(…manage…)`); without it Capacitor
  /// goes back in WebView history, whose `canGoBack()` is stale after a cold relaunch.
  /// Android: a back URL qualify could not put together, with where (the back checks are
  /// then unverified).
  public var androidBackUnread: Sourced<String>?
  /// The query parameter boot() tests to show the manager rather than redirect (`manage`,
  /// as the web code names it; nil when not read).
  public var bootManagerParameter: Sourced<String>?
  /// boot() does not redirect to the active instance when that parameter is on the URL (its
  /// redirect's condition, or an earlier return the parameter takes); nil when not read.
  public var bootHonoursManager: Sourced<Bool>?
  /// Android: what the back handler loads when it is the local page without `manage` (the
  /// URL expression as written): boot() takes it for a cold start and redirects to the
  /// active instance again.
  public var androidBackLoadsPlainLocal: Sourced<String>?
  public var androidBackLoadsManager: Sourced<Bool>?
  /// The native navigation policy is installed: iOS `decidePolicyFor` with the view
  /// controller as navigation delegate; Android a `shouldOverrideUrlLoading` client set on the
  /// bridge. Without it Capacitor's own handler opens the runtime-chosen instance outside.
  public var iosNavigationPolicy: Sourced<Bool>?
  public var androidNavigationPolicy: Sourced<Bool>?
  /// The policy's same-origin decision, read from its condition: which navigations stay in
  /// the WebView (nil when the policy's function was not found).
  public var iosSameOrigin: Sourced<ReadDecision<NavigationDecision>>?
  public var androidSameOrigin: Sourced<ReadDecision<NavigationDecision>>?
  /// The scheme test before that decision, which hands what it turns away to Capacitor's
  /// handler (nil when the policy tests no scheme first).
  public var iosSchemeGate: Sourced<ReadDecision<SchemeGate>>?
  public var androidSchemeGate: Sourced<ReadDecision<SchemeGate>>?
  /// Native code hands deep links to the local page (iOS `application(_:open:)` checks the
  /// scheme; Android reads the intent's data in `onNewIntent` and loads it).
  public var iosDeepLinkHandoff: Sourced<Bool>?
  /// iOS: the WebView's edge swipe goes back (`allowsBackForwardNavigationGestures = true`;
  /// WKWebView's default is false). iOS has no back button: the swipe is how a user leaves an
  /// instance for the manager (ADR 0006). Nil without iOS sources.
  public var iosBackGesture: Sourced<Bool>?
  public var androidDeepLinkHandoff: Sourced<Bool>?
  /// The local page handles `pageshow` (a back-forward cache restore) and reaches its render
  /// when `event.persisted`.
  public var pageshowHandler: Sourced<Bool>?
  /// boot()'s redirect to the active instance is skipped when the load is `back_forward` (a
  /// page reloaded by going back, its back-forward cache evicted): without it, back from an
  /// instance lands on that instance again.
  public var bootChecksBackForward: Sourced<Bool>?
  /// boot()'s redirect condition, when it is found and qualify cannot evaluate it.
  public var bootRedirectUnread: Sourced<String>?
  /// Where qualify looked for the local page's entry (boot()) when it found none: what the
  /// page does on a load is then unverified.
  public var bootUnfound: Sourced<String>?
  /// iOS: the copy of the local page's user scripts is rebuilt from each script's parts;
  /// kept as the live array, it is emptied by `removeAllUserScripts()` and the local page,
  /// reloaded after remote content, has no Capacitor bridge (seed 004, bug #1).
  public var iosSnapshotsLocalScripts: Sourced<Bool>?
  /// The builds `normalizeInstanceUrl` respects an explicit `http://` in, as its protocol
  /// refusal reads (nil: not read; a dev build only, as seed 004's transport rule has it).
  public var normalizerAcceptsHTTP: Sourced<HTTPInstanceAcceptance>?
  /// iOS: Capacitor's user scripts and its `bridge` handler are removed before remote content
  /// loads (nil: no `decidePolicyFor` found).
  public var iosIsolatesRemoteContent: Sourced<Bool>?
  /// iOS: what isolation removed — Capacitor's user scripts and its `bridge` handler — is put
  /// back when the local page loads again (nil: the app does not isolate).
  public var iosRestoresLocalMode: Sourced<Bool>?
  /// The device bridge each platform gives a loaded instance, and the frames it refuses (nil:
  /// the app has none on that platform).
  public var iosDeviceBridge: Sourced<DeviceBridgeScope>?
  public var androidDeviceBridge: Sourced<DeviceBridgeScope>?

  /// The key the web code writes the active instance under, and where (nil: not found).
  public var webActiveKey: Sourced<String>?
  /// Capacitor Preferences' group the web code writes in (`CapacitorStorage` by default).
  public var webStorageGroup = "CapacitorStorage"
  /// The key each native navigation policy reads the active instance from: iOS's UserDefaults
  /// key, Android's `file/key` (nil: not found).
  public var iosActiveKey: Sourced<String>?
  public var androidActiveKey: Sourced<String>?

  /// The key a platform's policy must read to see what the web code wrote, when both sides
  /// were read and differ: what the native side reads instead (nil when they agree).
  public func activeKeyMismatch(on platform: Platform) -> (reads: Sourced<String>, written: String)?
  {
    guard let web = webActiveKey,
      let native = platform == .ios ? iosActiveKey : androidActiveKey
    else { return nil }
    let written =
      platform == .ios ? webStorageGroup + "." + web.value : webStorageGroup + "/" + web.value
    return native.value == written ? nil : (native, written)
  }
  /// The web code navigates to an instance (`location.assign(` or `location.href =`): without
  /// it, adding or opening one leaves the user on the local page.
  public var loadsInstance: Sourced<Bool>?
  /// The endpoint onboarding validates against, as the web code names it.
  public var validationEndpoint: Sourced<String>?
  /// `parseInstanceResponse`'s rejections, which the simulated onboarding evaluates against
  /// each answer (nil when the function was not found).
  public var responseCheck: Sourced<ReadDecision<InstanceResponseCheck>>?
  /// The submit handler's early returns on the origin and the checked instance.
  public var addGate: Sourced<ReadDecision<OnboardingAddGate>>?
  /// `renderOnboarding` empties its root (`root.innerHTML = ''`, `replaceChildren(`) before
  /// it appends the manager: without it, a re-render in the same document (✕, or the page
  /// shown again from the back-forward cache) keeps the entries it rendered before.
  public var managerClearsRoot: Sourced<Bool>?
  /// The handler boot() gives the `deeplink` parameter navigates to an instance: without it,
  /// a link to a known instance leaves the user on the local page (nil: no handler found).
  public var deepLinkHandlerNavigates: Sourced<Bool>?
  /// Where qualify looked for that handler when it found none.
  public var deepLinkHandlerUnread: Sourced<String>?
  /// The manager's open button: whether it saves the instance as active before navigating
  /// (nil: no click handler that navigates was found).
  public var managerOpen: Sourced<ManagerOpen>?
  /// The submit handler loads the instance it added (nil: no submit handler calling
  /// `addInstance(` was found).
  public var addLoadsInstance: Sourced<Bool>?
  /// When `removeInstance` clears the active instance (nil: no `removeInstance`).
  public var managerRemove: Sourced<ManagerRemove>?
  /// The manager's remove button shows something to tap (text, a child, or content its
  /// class's stylesheet rule draws); nil when no click handler calls `removeInstance(`.
  public var managerRemoveLabelled: Sourced<Bool>?
  /// The web code navigates with `location.replace(`.
  public var replacesLocation: Sourced<Bool>?
  /// The web code keeps the list in `localStorage` and never uses `@capacitor/preferences`.
  public var storesInLocalStorage: Sourced<Bool>?

  public init() {}
}

/// Whether onboarding's normaliser lets an `http://` instance through, per kind of build.
public struct HTTPInstanceAcceptance: Sendable, Equatable {
  public var dev: Bool
  public var release: Bool

  public init(dev: Bool, release: Bool) {
    self.dev = dev
    self.release = release
  }
}

/// Which frames of a loaded instance's page reach the device bridge the shell gives it.
public struct DeviceBridgeScope: Sendable, Equatable {
  /// The name the page reaches it by (`sovereignBridge`).
  public var name: String
  /// Only the instance's origin reaches it (Android's allowed origin rules, iOS's
  /// `frameInfo.securityOrigin` compared).
  public var originScoped: Bool
  /// A sub-frame is refused (`isMainFrame`): the main frame is the instance's own, as the
  /// navigation policy keeps only the instance in it.
  public var mainFrameOnly: Bool

  public init(name: String, originScoped: Bool, mainFrameOnly: Bool) {
    self.name = name
    self.originScoped = originScoped
    self.mainFrameOnly = mainFrameOnly
  }

  /// Whether a frame of another origin embedded in the instance's page reaches it.
  public var reachableFromOtherOrigins: Bool { !originScoped && !mainFrameOnly }
}
