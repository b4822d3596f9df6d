import Artifacts
import Devices
import Foundation
import HTTP
import MockStack
import OTA
import QualifyCore
import QualifyCrypto
import ResultModel
import StackPorts

/// One execution's world: a fresh stack, fresh devices with the scenario's apps installed,
/// the virtual clock, and the evidence log everything writes to.
public final class World {
  public private(set) var configuration: WorldConfiguration
  public let clock: VirtualClock
  public let evidence: EvidenceLog
  public let redactor: Redactor
  /// The app's shell kind's part of the world: its servers and the shells beside its apps.
  let shellWorld: any ShellWorld
  /// The embedded stack of a single-origin shell (seed 000: backend, IdP, bucket, push
  /// gateways); nil for the other kinds.
  public var stack: Stack? { shellWorld(as: SingleOriginWorld.self)?.stack }
  /// A real session-contract backend's test accounts (`--stack`).
  private let contractTestUsers: [RealmSettings.User]
  /// The real IdP's end-session endpoint (`--stack`), where a browser-side LOGOUT is seen.
  let realEndSessionEndpoint: String?
  /// The outside systems as a real deployment would let the harness see them.
  public let ports: StackPorts
  public let environment: DeviceEnvironment
  public private(set) var devices: [String: Device] = [:]
  public private(set) var apps: [String: App] = [:]
  /// Declared users, with their credentials from the identity provider.
  public private(set) var users: [String: RealmSettings.User] = [:]
  /// The outcome of the last action.
  var lastOutcome: Outcome? {
    didSet { actionsRun += 1 }
  }
  /// Actions run so far, and the IdP events read after the last of them.
  private var actionsRun = 0
  private var eventCache: (actions: Int, events: [IdentityEvent])?
  /// Whether an expectation has examined the last outcome's problem.
  var problemExamined = false
  /// How many IdP events there were when the current step began.
  private(set) var stepEventStart = 0
  /// How much evidence there was when the current step began.
  private(set) var stepEvidenceStart = 0
  /// A callback URL an attacker kept from their own login (login CSRF).
  var capturedCallback: String?
  /// Version expressions resolved so far (`builtin+1` → `1201-3fa2c1d`).
  var versions: [String: String] = [:]
  /// Manifests the pipeline published, by `channel/version` (for replays).
  var manifests: [String: Manifest] = [:]
  /// The key the pipeline signs bundles with.
  let otaSigningKey: Key
  /// The thread of the last message that arrived (`a message arrives for`), and how many
  /// arrived.
  var lastMessageThread: String?
  /// The render steps' servers and what the engine last showed (nil until a render step).
  var render: RenderSession?
  var messagesArrived = 0
  /// The draws of faults that may or may not happen (`… at random`): seeded, so a run
  /// reproduces, and different under another seed, so `--repeat` shows a scenario that
  /// depends on them.
  let chance: RandomSource

  init(
    scenario: Scenario, configuration: WorldConfiguration, material: StackMaterial, seed: UInt64,
    label: String, redactor: Redactor, transport: TransportLease? = nil
  ) throws {
    let (configured, signing, harnessNote) = try Self.bakeOTAKey(into: configuration, material)
    otaSigningKey = signing
    let configuration = configured
    self.configuration = configuration
    self.redactor = redactor
    // Against a real system the world's time starts now: the real IdP's tokens are dated by
    // its clock, and a virtual date a year ahead would find them expired.
    clock = material.real == nil ? VirtualClock() : VirtualClock(start: Date())
    evidence = EvidenceLog()
    let random = RandomSource(seed: seed, label: label)
    chance = RandomSource(seed: seed, label: label + "/chance")
    let context = StackContext(
      clock: clock, random: random, evidence: evidence, redactor: redactor,
      channel: configuration.channel, behaviours: configuration.stack)
    contractTestUsers = material.real?.contractTestUsers ?? []
    realEndSessionEndpoint = material.real?.identityProvider?.endSessionEndpoint
    let shellWorld = try ShellWorlds.type(of: configuration.build.shell).init(
      ShellWorldSetup(
        configuration: configuration, material: material, context: context,
        listeners: { try transport?.listeners(material) }))
    self.shellWorld = shellWorld
    let origins = shellWorld.origins
    environment = DeviceEnvironment(
      clock: clock, random: RandomSource(seed: seed, label: label + "/devices"), evidence: evidence,
      redactor: redactor,
      trustedCertificatesPEM: material.authority.certificatePEM
        + (material.real?.trustedCertificatesPEM ?? ""),
      origins: origins, realAuthorities: material.real?.authorities ?? [],
      pool: try transport?.client(material))
    // The harness observes the stack as its operator would: trusting the deployment's own
    // certificates, whatever a mutation makes the devices see.
    let observer =
      try transport?.observer(material, origins: origins)
      ?? TransportLease.makeObserver(material, origins: origins)
    ports = shellWorld.ports(observer: observer)
    do {
      for declaration in scenario.devices {
        let browser =
          configuration.forcedBrowser
          ?? declaration.browser.flatMap {
            $0 == "default" ? nil : BrowserKind(rawValue: $0)
          }
        devices[declaration.name] = Device(
          name: declaration.name, platform: configuration.platform,
          hasPlayServices: configuration.withPlayServices
            || (declaration.hasPlayServices && !configuration.withoutPlayServices),
          browser: browser,
          environment: environment)
      }
      for declaration in scenario.apps {
        guard let device = devices[declaration.device] else { continue }
        let build = declaration.role == .companion ? try companionBuild() : configuration.build
        apps[declaration.name] = try device.install(
          build, name: declaration.name, behaviours: configuration.shell)
        if build.shell == type(of: shellWorld).kind {
          try shellWorld.install(
            build, name: declaration.name, on: device, behaviours: configuration.shell)
        }
      }
      for role in scenario.users {
        users[role] = try boundUser(role)
      }
    } catch {
      shellWorld.stop()
      throw error
    }
    if let harnessNote { note("ota", harnessNote) }
    for use in scenario.given {
      note("scenario", "given \(use.text): \(use.spec.summary)")
    }
  }

  /// The key bundles are signed with and the public key the simulated build bakes in: the
  /// app's own pair when the harness has its private key, else a harness key whose public
  /// half replaces the app's (a QA build's), unless the app's key is one no device can use or
  /// the channel is real (`--stack`); then the controls that bake another form or key. Also
  /// says what the run must note about it.
  static func bakeOTAKey(into configuration: WorldConfiguration, _ material: StackMaterial) throws
    -> (WorldConfiguration, Key, String?)
  {
    // The pipeline signs with the app's key when the harness has it; otherwise the simulated
    // build bakes in a harness key's public half, as a QA build would.
    let signing = try material.otaSigningKey(
      appKey: configuration.build.frontend.otaPrivateKey?.value)
    var configuration = configuration
    var harnessNote: String?
    // Against a real OTA channel (`--stack`) the build keeps the key it ships with: the
    // question is whether that key verifies what the channel serves.
    // A baked key the plugin cannot use (an SPKI PEM, another size) stays as the app ships
    // it: swapping in the harness key would hide that no device ever verifies a bundle.
    if !signing.isAppKey, material.real?.ota == nil,
      let baked = configuration.build.capacitor?.updaterPublicKey,
      CapgoBundle.deviceKeyProblem(baked.value) == nil
    {
      // The PEM text, as a config the plugin can read carries it.
      let pem = try signing.key.pkcs1PublicPEM()
      configuration.build.capacitor?.updaterPublicKey = Sourced(pem, at: nil)
      // ota.ts decodes its key from base64, the form Vite inlines.
      if configuration.build.frontend.otaPublicKey != nil {
        configuration.build.frontend.otaPublicKey = Sourced(Base64PEM.encode(pem), at: nil)
      }
      harnessNote =
        "no MOBILE_OTA_SIGNING_PRIVATE_KEY_B64 for the harness: the simulated build bakes in a harness test key"
    }
    if configuration.bakesSPKIOTAKey, let baked = configuration.build.capacitor?.updaterPublicKey {
      let spki = try signing.key.spkiPublicPEM()
      configuration.build.capacitor?.updaterPublicKey = Sourced(spki, at: baked.location)
    }
    if configuration.bakesForeignOTAKey, let baked = configuration.build.capacitor?.updaterPublicKey
    {
      let foreign = try material.foreignOTAKey().pkcs1PublicPEM()
      configuration.build.capacitor?.updaterPublicKey = Sourced(foreign, at: baked.location)
    }
    return (configuration, signing.key, harnessNote)
  }

  /// The test user a role (`first`, `second`, `third`) is bound to: the profile's
  /// `testUsers` when it names them, else the identity provider's users in order.
  private func boundUser(_ role: String) throws -> RealmSettings.User {
    guard let index = AppProfile.userRoles.firstIndex(of: role) else {
      throw ScenarioRuntimeError("unknown user role \(role)")
    }
    // A real contract backend's accounts, unless the world embeds the backend (a control).
    let known =
      ports.identityProvider?.testUsers ?? shellWorld.testUsers ?? contractTestUsers
    let declared = configuration.build.testUsers
    if !declared.isEmpty {
      guard index < declared.count else {
        throw ScenarioRuntimeError(
          "the scenario needs a \(role) user, but qualify.json testUsers names only \(declared.count)"
        )
      }
      guard let user = ports.identityProvider?.user(named: declared[index]) else {
        throw ScenarioRuntimeError(
          "qualify.json testUsers names \(declared[index]), who is not a user of the identity provider (its users: \(known.map(\.username).joined(separator: ", ")))"
        )
      }
      return user
    }
    guard index < known.count else {
      let source =
        configuration.build.realm.map { "the realm export \($0.file)" } ?? "the identity provider"
      throw ScenarioRuntimeError(
        "the scenario needs a \(role) user, but \(source) has \(known.count) user\(known.count == 1 ? "" : "s") who can sign in (\(known.map(\.username).joined(separator: ", "))): add one, or name them in qualify.json testUsers"
      )
    }
    return known[index]
  }

  /// The second La Suite app: built like the app (same shell), with its own identity,
  /// scheme and backend, correctly registered — the reference other app of a cross-app SSO
  /// proof.
  func companionBuild() throws -> AppBuild {
    let stack = try embeddedStack()
    var build = configuration.build
    build.name = Companion.name
    build.appId = Sourced(build.appId.value + ".companion", at: nil)
    build.callbackScheme = Sourced(Companion.scheme, at: nil)
    build.registeredSchemes = [Sourced(Companion.scheme, at: nil)]
    build.frontend.apiOrigin = Sourced(stack.topology.companionBackend.description, at: nil)
    build.backend = stack.companionBackend.settings
    build.authSession.usesWebAuthenticationSession = true
    build.authSession.prefersEphemeral = Sourced(false, at: nil)
    build.authSession.pluginRegistered = Sourced(true, at: nil)
    build.authSession.callbackParameter = nil
    return build
  }

  /// Stops the stack's servers.
  func tearDown() {
    render?.stop()
    shellWorld.stop()
  }

  /// The embedded stack, for the steps of seed 000's shell.
  func embeddedStack() throws -> Stack {
    guard let stack else {
      throw ScenarioRuntimeError(
        "this step drives seed 000's single-origin stack (backend, IdP, bucket), and a \(configuration.build.shell.id) shell has none"
      )
    }
    return stack
  }

  /// The app's backend port, for the steps that ask it.
  func backendPort() throws -> BackendPort {
    guard let backend = ports.backend else {
      throw ScenarioRuntimeError(
        "a \(configuration.build.shell.id) shell has no backend of its own")
    }
    return backend
  }

  /// Marks the start of a step; `readsEvents` when its expectations look at the IdP events
  /// of the step, which are then counted from where the feed stands now.
  func beginStep(readsEvents: Bool) throws {
    shellWorld.markStep()
    stepEventStart =
      readsEvents && eventsAvailable ? try ports.identityProvider?.events().count ?? 0 : 0
    stepEvidenceStart = evidence.count
  }

  /// Whether the IdP's event feed can be read: a real IdP without admin credentials gives
  /// none, and the proofs that read events then rest on what the browser saw.
  var eventsAvailable: Bool { ports.identityProvider?.providesEvents ?? true }

  /// The real IdP's issuer (`--stack`), nil when the IdP is the mock.
  var realIdentityProvider: String? {
    ports.identityProvider?.providesEvents == false ? ports.identityProvider?.issuer : nil
  }

  /// The IdP events recorded during the current step, read from its event feed once per
  /// action: expectations after the same action share one read.
  func stepEvents() throws -> [IdentityEvent] {
    if let cached = eventCache, cached.actions == actionsRun {
      return Array(cached.events.dropFirst(stepEventStart))
    }
    let events = try ports.identityProvider?.events() ?? []
    eventCache = (actionsRun, events)
    return Array(events.dropFirst(stepEventStart))
  }

  /// How many live backend sessions of `user` the world's devices were ever given: every
  /// session cookie the backend set in a device's stores (native stacks, browsers), asked of
  /// the backend itself — what survives a logout that only cleared the app's jar.
  func liveBackendSessions(of user: Set<String>) throws -> Int {
    let backend = try backendPort()
    let host = backend.origin.host
    var values: [String] = []
    for device in devices.values {
      for jar in device.cookieStores {
        for cookie in jar.history
        where cookie.name == backend.sessionCookie && cookie.domain == host
          && !values.contains(cookie.value)
        {
          values.append(cookie.value)
        }
      }
    }
    var live = 0
    for value in values where try !backend.user(ofSession: value).isDisjoint(with: user) {
      live += 1
    }
    note(
      "harness",
      "asked the backend about \(values.count) session cookie\(values.count == 1 ? "" : "s") the devices were given: \(live) live for \(user.sorted().joined(separator: " / "))"
    )
    return live
  }

  /// Records a note in the evidence.
  func note(_ source: String, _ summary: String, detail: String = "") {
    evidence.append(
      Evidence(
        kind: .note, source: source, summary: redactor.redact(summary),
        detail: redactor.redact(detail), time: clock.now))
  }
}
