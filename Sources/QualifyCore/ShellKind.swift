/// The kind of native shell an app is: which readers, guards, scenarios and release checklist
/// apply. A new kind is one more static member, added to `all` (docs/architecture.md).
public struct ShellKind: Sendable, Hashable {
  /// One line of the kind's release checklist: what the report's matrix rows are.
  public struct ChecklistItem: Sendable, Hashable {
    public let number: Int
    public let title: String
    /// The platforms the item is about (one platform's launch, or both).
    public let platforms: [Platform]
    /// What a person must check, and why, where no check of qualify covers the item: the
    /// report shows it in the item's "not covered" cells.
    public let manualCheck: String?
    /// The item guards what a store build ships (no dev server, no cleartext, push pairing): a
    /// waiver of its checks needs `allowOnRelease` on a release channel.
    public let guardsStoreBuild: Bool

    public init(
      _ number: Int, _ title: String, platforms: [Platform] = Platform.allCases,
      manualCheck: String? = nil, guardsStoreBuild: Bool = false
    ) {
      self.number = number
      self.title = title
      self.platforms = platforms
      self.manualCheck = manualCheck
      self.guardsStoreBuild = guardsStoreBuild
    }
  }

  /// What a `--stack` file names for the kind beside `$comment`, `caFile` and `timeout`.
  public struct StackSchema: Sendable {
    /// The real parts it may name (top-level keys).
    public let parts: [String]
    /// Those it must name.
    public let required: [String]
    /// Why a stack file names nothing for the kind (its parts are empty), and what to do
    /// instead.
    public let nothing: String?
    public let nothingHint: String?
    /// What a real `backend` of this kind answers, and so how it is checked before a run.
    public let backend: Backend?

    /// The API a real backend is checked against before a run.
    public enum Backend: Sendable, Equatable {
      /// Seed 000's: a cookie session (`/api/v1.0/users/me/`) signed in at the real identity
      /// provider, which the stack file must then name.
      case cookieSession
      /// Seed 002's session contract (`/v1/mobile/...`), with its own test accounts at the
      /// top level of the stack file (`testUsers`).
      case sessionContract
    }

    public init(
      parts: [String], required: [String] = [], nothing: String? = nil, nothingHint: String? = nil,
      backend: Backend? = nil
    ) {
      self.parts = parts
      self.required = required
      self.nothing = nothing
      self.nothingHint = nothingHint
      self.backend = backend
    }

    /// The keys every stack file may carry.
    public static let common = ["$comment", "caFile", "timeout"]
  }

  /// `single-origin`, `multi-instance`: what `qualify.json` and a scenario's `shell` line say.
  public let id: String
  public let summary: String
  /// Where the checklist comes from.
  public let source: String
  public let checklist: [ChecklistItem]
  /// What a release-channel run must say about the items a simulation cannot settle, nil
  /// when there is nothing to say.
  public let releaseCaveat: String?
  /// Whether a run against the real identity provider settles what the release caveat says
  /// the simulation cannot (seed 000's items 1 and 2).
  public let realIdentityProviderSettlesCaveat: Bool
  public let stack: StackSchema
  /// The commands besides a run that serve this kind.
  public internal(set) var commands: Set<Command> = []

  /// A command that serves some kinds only.
  public enum Command: String, Sendable, Hashable, CaseIterable {
    /// `qualify serve`: the kind's world for a real device or curl.
    case serve
    /// `qualify links verify`: the site's association files against the app.
    case links
  }

  /// The kinds `command` serves, by id, for a message to an app of another kind.
  public static func serving(_ command: Command) -> [String] {
    all.filter { $0.commands.contains(command) }.map(\.id)
  }

  public static func == (a: ShellKind, b: ShellKind) -> Bool { a.id == b.id }
  public func hash(into hasher: inout Hasher) { hasher.combine(id) }

  /// Seed 000: a Capacitor shell of one web app at a fixed origin, signing in through the
  /// system browser (La Suite Messages).
  public static let singleOrigin = ShellKind(
    id: "single-origin",
    summary: "a Capacitor shell of one web app at a fixed origin (seed 000, La Suite Messages)",
    source: "seed 000, Release checklist (manual)",
    checklist: [
      ChecklistItem(1, "iOS cross-app SSO", platforms: [.ios]),
      ChecklistItem(2, "Android cross-app SSO", platforms: [.android]),
      ChecklistItem(
        3, "Thread rendering",
        manualCheck:
          "open a thread on a device of each platform and check that the message body renders: it is an iframe with srcdoc, a sandbox and a CSP, which only a real engine (WKWebView, Android's WebView) can show; seed 000 says this killed the previous React Native attempt and that a WebView or Capacitor upgrade can regress it, and a simulation cannot prove that an engine renders"
      ),
      ChecklistItem(4, "OTA chain on the release channel"),
      ChecklistItem(5, "Native file paths"),
      ChecklistItem(6, "Logout → re-login"),
      ChecklistItem(7, "No dev server baked in", guardsStoreBuild: true),
      ChecklistItem(8, "Push environment pairing", guardsStoreBuild: true),
    ],
    releaseCaveat:
      "items 1 and 2: the IdP side (ProConnect reusing its session for acr_values=eidas1, its persistent cookie) is simulated here; seed 000 says only a run against the production IdP proves it",
    realIdentityProviderSettlesCaveat: true,
    stack: StackSchema(parts: ["identityProvider", "backend", "ota"], backend: .cookieSession),
    commands: [.serve]
  )

  /// Seed 004: a Capacitor shell with no fixed origin, loading the remote instances its user
  /// adds at run time (the Sovereign mobile shell).
  public static let multiInstance = ShellKind(
    id: "multi-instance",
    summary:
      "a Capacitor shell of remote instances the user adds at run time (seed 004, Sovereign mobile)",
    source: "seed 004, the shell epic's review checklists (tasks 20.1 and deep links)",
    checklist: [
      ChecklistItem(1, "App opens on iOS", platforms: [.ios]),
      ChecklistItem(2, "App opens on Android", platforms: [.android]),
      ChecklistItem(3, "First launch shows instance URL onboarding"),
      ChecklistItem(4, "A valid saved instance loads in the WebView on restart"),
      ChecklistItem(5, "Add, remove and switch between at least two instances"),
      ChecklistItem(6, "External links do not navigate the primary WebView away"),
      ChecklistItem(7, "Back navigation returns to the instance manager, cold relaunch included"),
      ChecklistItem(8, "No Sovereign auth, role or plugin behaviour duplicated in native code"),
      ChecklistItem(9, "Real physical device verification"),
      ChecklistItem(10, "sovereign://<known-host>/<path> opens that instance at that path"),
      ChecklistItem(
        11, "sovereign://<unknown-host>/<path> pre-fills onboarding, resumes once added"),
      ChecklistItem(12, "Deep links work cold, warm and while an instance is loaded"),
      ChecklistItem(13, "The app's own test suite passes (resolveDeepLink's included)"),
    ],
    releaseCaveat:
      "item 9 is a human handoff (a real device in hand) and item 13 is the app's own test suite: qualify proves neither",
    realIdentityProviderSettlesCaveat: false,
    stack: StackSchema(parts: ["instances"])
  )

  /// Seed 002: a mobile app on a first-party session contract with its backend (one
  /// SessionEnvelope, opaque rotating refresh tokens, a backend-issued deviceId, a bootstrap).
  public static let sessionContract = ShellKind(
    id: "session-contract",
    summary:
      "a mobile app and its backend on a first-party session contract (seed 002, HeyMoov)",
    source: "seed 002, Mobile Auth Session Contract (its sections)",
    checklist: [
      ChecklistItem(1, "SessionEnvelope: every successful auth flow returns the same envelope"),
      ChecklistItem(2, "Client rules: Bearer, the envelope replaced whole, state wiped at the end"),
      ChecklistItem(3, "deviceId: issued by the backend, omitted at first login, never made up"),
      ChecklistItem(4, "Refresh: rotation, reuse detection, concurrent refreshes serialised"),
      ChecklistItem(5, "Session endpoints: logout, logout-all, devices and their deletion"),
      ChecklistItem(6, "Cache-Control: no-store on auth, refresh and bootstrap"),
      ChecklistItem(7, "Bootstrap reloaded as the policy says, never on each navigation"),
      ChecklistItem(8, "Contract errors the client can tell apart"),
      ChecklistItem(9, "Passkeys: login and registration (WebAuthn)"),
      ChecklistItem(
        10, "Onboarding and recovery: the same envelope, a recovery link never signs in"),
    ],
    releaseCaveat: nil,
    realIdentityProviderSettlesCaveat: false,
    stack: StackSchema(
      parts: ["backend", "testUsers"], required: ["backend"], backend: .sessionContract)
  )

  /// Seed 003: thin native Kotlin and Swift containers around a server-rendered site, a JS
  /// bridge, FCM token registration with the backend, pushes carrying a `targetUrl`, and
  /// Universal Links / App Links certified by the site's `.well-known` files.
  public static let hybridWebView = ShellKind(
    id: "hybrid-webview",
    summary:
      "native Kotlin and Swift WebView containers around a server-rendered site (seed 003, AppPlatform)",
    source: "seed 003, the containers, the Symfony integration and its lessons (sections 3-6)",
    checklist: [
      ChecklistItem(1, "The JS bridge: the page reaches native code and hears back from it"),
      ChecklistItem(
        2, "Android 13+: notification permission asked on page load, settings link when denied",
        platforms: [.android]),
      ChecklistItem(
        3, "iOS: the APNs token handed to Firebase Messaging yields an FCM token", platforms: [.ios]
      ),
      ChecklistItem(4, "FCM token registration with the backend follows the controller's rules"),
      ChecklistItem(5, "Logging out deletes the device's token (DeleteDeviceTask)"),
      ChecklistItem(6, "A push tap opens its targetUrl, not the home page"),
      ChecklistItem(7, "iOS: a Universal Link opens the app at its path", platforms: [.ios]),
      ChecklistItem(8, "Android: an App Link opens the app at its path", platforms: [.android]),
      ChecklistItem(9, "The association files certify the release build (.well-known)"),
    ],
    releaseCaveat:
      "Apple fetches apple-app-site-association through its CDN and Android verifies App Links at install: here the simulated OS fetches the files from the site itself; `qualify links verify --domain` checks the production domain's files",
    realIdentityProviderSettlesCaveat: false,
    stack: StackSchema(
      parts: [],
      nothing:
        "a hybrid-webview app's scenarios run against the embedded site only: a stack file names nothing for it",
      nothingHint:
        "check the real site's .well-known files with qualify links verify --domain https://…"),
    commands: [.serve, .links]
  )

  /// Seed 001: a React Native shell rendering its web UI at a fixed origin, talking to it over
  /// a versioned bridge, signing in through a system-browser PKCE handoff (OpenMapX).
  public static let reactNativeBridge = ShellKind(
    id: "react-native-bridge",
    summary:
      "a React Native WebView shell on a versioned bridge with a PKCE sign-in handoff (seed 001, OpenMapX)",
    source: "seed 001, Mobile architecture (its sections)",
    checklist: [
      ChecklistItem(
        1,
        "Fixed origin: HTTPS public hosts, the official id on its official origin, no runtime selector"
      ),
      ChecklistItem(
        2,
        "The shell descriptor is injected before page scripts; WebView geolocation and media capture off"
      ),
      ChecklistItem(
        3,
        "Protocol: version.json equals the constants; no overlap leaves navigation off and asks for an update"
      ),
      ChecklistItem(4, "The capability report is honest: what is not composed is unavailable"),
      ChecklistItem(
        5, "The receiver checks origin, nonce, schema, duplicates and protocol before dispatch"),
      ChecklistItem(6, "Message bounds: 8 MiB, 100,000 coordinates, 10,000 steps, 512 legs"),
      ChecklistItem(
        7, "Snapshots and deltas: a delta applies only on its base; a gap asks for a full snapshot"),
      ChecklistItem(
        8, "Sign-in handoff: S256 on the compiled origin, the callback on the compiled scheme"),
      ChecklistItem(
        9, "Handoff codes: hashed, two minutes, single use, a wrong verifier burns the attempt"),
      ChecklistItem(
        10, "Handoff material stays out of persistence, diagnostics and challenge-only URLs"),
      ChecklistItem(
        11, "Physical-device qualification: suspension, renderer loss, audio, alerts, recovery"),
    ],
    releaseCaveat:
      "item 11 is a human handoff (seed 001: physical devices) and the native navigation processors are not composed: qualify proves the bridge and the handoff, not installed navigation",
    realIdentityProviderSettlesCaveat: false,
    stack: StackSchema(
      parts: [],
      nothing:
        "a react-native-bridge app's scenarios run against the embedded web app and its handoff server only: a stack file names nothing for it"
    )
  )

  /// The kind of an app whose `qualify.json` names none, and of a scenario without a `shell`
  /// line: seed 000's.
  public static let `default` = singleOrigin

  public static let all: [ShellKind] = [
    .singleOrigin, .multiInstance, .sessionContract, .hybridWebView, .reactNativeBridge,
  ]

  public static func named(_ id: String) -> ShellKind? { all.first { $0.id == id } }

  /// The checklist item numbered `number`, nil when the kind has none.
  public func item(_ number: Int) -> ChecklistItem? { checklist.first { $0.number == number } }
}
