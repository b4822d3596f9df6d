/// Behaviours of the simulated shells that a negative control can switch off, each breaking
/// one fidelity rule of DESIGN.md on purpose.
public struct ShellBehaviours: Sendable, Hashable {
  /// The native stack ignores ATS / the Android cleartext policy.
  public var ignoresTransportPolicy = false
  /// The native stack keeps no cookies (the session would not live in the native jar).
  public var nativeJarDisabled = false
  /// `nativeLogout()` skips the RP-initiated logout in the system browser.
  public var logoutSkipsBrowser = false
  /// `nativeLogout()` skips the safety-net POST.
  public var logoutSkipsSafetyNet = false
  /// `getHeaders()` does not echo the cached CSRF token.
  public var csrfTokenNotSent = false
  /// The fetch wrapper does not inject a trusted `Origin`.
  public var originNotSent = false

  // The OTA updater (rules 11 and 12).
  /// Applies any manifest that differs, lower counts included.
  public var updaterSkipsDowngradeGuard = false
  /// The updater compares counts as text, not as numbers.
  public var updaterComparesCountsAsText = false
  /// Applies a bundle without verifying its checksum and session key.
  public var updaterSkipsVerification = false
  /// Forgets failed boots: a broken bundle is downloaded again.
  public var updaterForgetsFailedBoots = false
  /// Records a transient download failure like a failed boot.
  public var updaterRecordsTransientFailures = false
  /// Checks for updates even when a dev server URL is baked in.
  public var updaterIgnoresDevServer = false
  /// Rolls a failed boot back to the builtin bundle instead of the last good one.
  public var updaterRollsBackToBuiltin = false
  /// Keeps no sequence floor: a stale or replayed manifest looks new to a sequence-ordered app.
  public var updaterForgetsSequenceFloor = false
  public var updaterIgnoresNativeFloor = false
  /// Unpacks a bundle without checking that its entries stay inside the bundle's folder.
  public var updaterUnpacksAnyPath = false

  // Push (checklist item 8).
  /// The app does not re-register its push token on launch (a rotated token is never sent).
  public var pushSkipsRefreshOnLaunch = false
  /// A notification tap opens the app on its home, not on the thread (the tap listener is
  /// added too late to catch the tap that cold-started the app).
  public var pushTapsNotRouted = false
  /// The enable flow registers the device even when the user refused notifications.
  public var pushRegistersWithoutPermission = false

  // The multi-instance shell (seed 004).
  /// A same-origin navigation goes to Capacitor's default handler, which opens it outside.
  public var sameOriginToDefaultHandler = false
  /// No navigation policy: every origin loads in the primary WebView.
  public var noNavigationPolicy = false
  /// Android's back key trusts `canGoBack()` / `goBack()`.
  public var trustsCanGoBack = false
  /// The local page has no `pageshow` handler for a back-forward cache restore.
  public var noPageshowHandler = false
  /// Deep links are parsed through `URL`'s authority (empty for `sovereign:` in Chromium).
  public var deepLinkViaURLAuthority = false
  /// A known-host deep link navigates with `location.replace()`.
  public var deepLinkReplaces = false
  /// An unknown-host deep link forgets its path once the instance is added.
  public var dropsPendingPath = false
  /// The pending path outlives its onboarding (kept in storage, never deleted once used).
  public var keepsPendingPath = false
  /// Onboarding validates against the admin-gated `/api/admin/health`.
  public var validatesAgainstAdminHealth = false
  /// Switching navigates and never saves the active instance.
  public var opensWithoutSavingActive = false
  /// Switching navigates before the active instance is saved.
  public var switchesBeforeSavingActive = false
  /// The instance list is kept in the WebView's localStorage instead of Preferences.
  public var instancesInWebViewStorage = false
  /// iOS: the local page's user scripts are kept by reference, and emptied in remote mode.
  public var localScriptsNotSnapshotted = false
  /// The local page's boot() redirects to the active instance on a back-forward load too.
  public var bootIgnoresBackForward = false
  /// The local page's boot() reads the manager parameter and redirects anyway.
  public var bootIgnoresManager = false
  /// The native navigation policy reads the active instance under another key than the web
  /// code writes it: it never sees one.
  public var policySeesNoActiveInstance = false
  /// Remote content reaches Capacitor's bridge (iOS: its scripts and handler not removed;
  /// Android: the legacy bridge, a JavaScript interface every origin reaches).
  public var remoteKeepsCapacitorBridge = false
  /// The device bridge answers every frame of the instance's page, whatever its origin.
  public var deviceBridgeAnyFrame = false
  /// `normalizeInstanceUrl` accepts `http:` in a release build.
  public var acceptsHTTPInstances = false

  // The session-contract client (seed 002).
  /// Concurrent refreshes are not serialised: each sends the same refresh token.
  public var sessionClientNoSingleFlight = false
  /// The client makes up a deviceId of its own at first login.
  public var sessionClientMakesDeviceId = false
  /// After a refresh the client keeps the old refresh token (the envelope not replaced).
  public var sessionClientKeepsOldRefreshToken = false
  /// A terminal refresh error leaves the local state in place.
  public var sessionClientKeepsStateOnTerminalError = false
  /// Sign-out wipes the local state only when the backend answered it (no network: nothing).
  public var sessionClientWipesOnlyAfterConfirmedLogout = false
  /// The wipe deletes the session's keys but the refresh token.
  public var sessionClientWipeKeepsRefreshToken = false
  /// The bootstrap is reloaded on each navigation.
  public var sessionClientReloadsOnNavigation = false
  /// The foreground threshold the client uses instead of the profile's (seconds).
  public var sessionClientForegroundThreshold: Double?
  /// The bootstrap is reloaded after every refresh, changed version or not.
  public var sessionClientReloadsOnRefresh = false

  // A React Native bridge shell (seed 001).
  /// Receiver checks the shell skips (`BridgeReceiver.Check` raw values).
  public var bridgeSkipsChecks: Set<String> = []
  /// What a control makes the message-body renderer set on its frames (`RenderBodies.edits`).
  public var renderEdits: [String] = []
  /// The shell answers every refusal with `native.error`, an unauthenticated sender's too.
  public var bridgeAnswersEveryRefusal = false
  /// The page applies every snapshot delta as it comes.
  public var bridgeAppliesAnyDelta = false
  /// The handoff attempt (verifier and state) is written to native storage.
  public var bridgePersistsAttempt = false
  /// The shell trusts any callback of its scheme, whatever its state.
  public var bridgeIgnoresCallbackState = false

  public init() {}
}
