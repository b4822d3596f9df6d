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
  /// The embedded stack of a single-origin shell (seed 000: backend, IdP, bucket, push
  /// gateways); nil for a multi-instance shell.
  public let stack: Stack?
  /// The sites of a multi-instance shell's world (seed 004); nil for other kinds.
  public let instanceServers: InstanceServers?
  /// The multi-instance shells, by app name.
  public private(set) var instanceShells: [String: InstanceShell] = [:]
  /// The backend of a session-contract app's world (seed 002); nil for other kinds.
  public let sessionStack: SessionStack?
  /// The session-contract clients, by app name.
  public private(set) var sessionClients: [String: SessionClient] = [:]
  /// The site and Firebase of a hybrid WebView app's world (seed 003); nil for other kinds.
  public let hybridServers: HybridServers?
  /// The hybrid WebView containers, by app name.
  public private(set) var hybridShells: [String: HybridShell] = [:]
  /// The web app of a React Native bridge shell's world (seed 001); nil for other kinds.
  public let bridgeServers: BridgeServers?
  /// The React Native bridge shells, by app name.
  public private(set) var bridgeShells: [String: BridgeShell] = [:]
  /// The answers of the last racing handoff redemptions.
  var bridgeRace: [HTTPResponse] = []
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
  var messagesArrived = 0
  /// The draws of faults that may or may not happen (`… at random`): seeded, so a run
  /// reproduces, and different under another seed, so `--repeat` shows a scenario that
  /// depends on them.
  let chance: RandomSource

  init(
    scenario: Scenario, configuration: WorldConfiguration, material: StackMaterial, seed: UInt64,
    label: String, redactor: Redactor, transport: TransportLease? = nil
  ) throws {
    // The pipeline signs with the app's key when the harness has it; otherwise the simulated
    // build bakes in a harness key's public half, as a QA build would.
    let signing = try material.otaSigningKey(
      appKey: configuration.build.frontend.otaPrivateKey?.value)
    otaSigningKey = signing.key
    var configuration = configuration
    var harnessNote: String?
    // Against a real OTA channel (`--stack`) the build keeps the key it ships with: the
    // question is whether that key verifies what the channel serves.
    // A baked key the plugin cannot use (an SPKI PEM, another size) stays as the app ships
    // it: swapping in the harness key would hide that no device ever verifies a bundle.
    if !signing.isAppKey, material.real?.ota == nil,
      let baked = configuration.build.capacitor.updaterPublicKey,
      CapgoBundle.deviceKeyProblem(baked.value) == nil
    {
      // The PEM text, as a config the plugin can read carries it.
      let pem = try signing.key.pkcs1PublicPEM()
      configuration.build.capacitor.updaterPublicKey = Sourced(pem, at: nil)
      // ota.ts decodes its key from base64, the form Vite inlines.
      if configuration.build.frontend.otaPublicKey != nil {
        configuration.build.frontend.otaPublicKey = Sourced(Base64PEM.encode(pem), at: nil)
      }
      harnessNote =
        "no MOBILE_OTA_SIGNING_PRIVATE_KEY_B64 for the harness: the simulated build bakes in a harness test key"
    }
    if configuration.bakesSPKIOTAKey, let baked = configuration.build.capacitor.updaterPublicKey {
      let spki = try signing.key.spkiPublicPEM()
      configuration.build.capacitor.updaterPublicKey = Sourced(spki, at: baked.location)
    }
    if configuration.bakesForeignOTAKey, let baked = configuration.build.capacitor.updaterPublicKey
    {
      let foreign = try material.foreignOTAKey.pkcs1PublicPEM()
      configuration.build.capacitor.updaterPublicKey = Sourced(foreign, at: baked.location)
    }
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
    // A multi-instance shell has no backend of its own: its servers are the user's instances.
    let stack =
      configuration.build.shell == .singleOrigin
      ? try Stack(
        build: configuration.build, material: material, context: context,
        identityProvider: configuration.identityProvider,
        sharing: try transport?.listeners(material)) : nil
    self.stack = stack
    instanceServers =
      configuration.build.shell == .multiInstance
      ? try InstanceServers(material: material, sharing: try transport?.listeners(material)) : nil
    contractTestUsers = material.real?.contractTestUsers ?? []
    realEndSessionEndpoint = material.real?.identityProvider?.endSessionEndpoint
    // A real contract backend (`--stack`) is reached over the network: nothing mocked there.
    sessionStack =
      configuration.build.shell == .sessionContract && material.real?.backend == nil
      ? try Origin(url: configuration.build.frontend.apiOrigin.value).map {
        try SessionStack(
          apiOrigin: $0, material: material, context: context,
          accounts: configuration.build.testUsers,
          sharing: try transport?.listeners(material))
      } : nil
    hybridServers =
      configuration.build.shell == .hybridWebView
      ? try HybridServers(
        build: configuration.build, material: material, context: context,
        sharing: try transport?.listeners(material)) : nil
    bridgeServers =
      configuration.build.shell == .reactNativeBridge
      ? try BridgeServers(
        build: configuration.build, material: material, context: context,
        sharing: try transport?.listeners(material)) : nil
    let origins =
      stack?.origins ?? instanceServers?.origins ?? sessionStack?.origins ?? hybridServers?.origins
      ?? bridgeServers?.origins ?? [:]
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
    ports =
      stack?.ports(client: observer)
      ?? StackPorts(identityProvider: nil, backend: nil, bucket: nil)
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
        if build.shell == .multiInstance {
          instanceShells[declaration.name] = try device.installInstanceShell(
            build, name: declaration.name, behaviours: configuration.shell)
        }
        if build.shell == .reactNativeBridge {
          bridgeShells[declaration.name] = try device.installBridgeShell(
            build, name: declaration.name, behaviours: configuration.shell)
        }
        if build.shell == .hybridWebView {
          hybridShells[declaration.name] = try device.installHybridShell(
            build, name: declaration.name)
        }
        if build.shell == .sessionContract {
          sessionClients[declaration.name] = try device.installSessionClient(
            build, name: declaration.name, behaviours: configuration.shell)
        }
      }
      for role in scenario.users {
        users[role] = try boundUser(role)
      }
    } catch {
      stack?.stop()
      instanceServers?.stop()
      sessionStack?.stop()
      hybridServers?.stop()
      bridgeServers?.stop()
      throw error
    }
    if let harnessNote { note("ota", harnessNote) }
    for use in scenario.given {
      note("scenario", "given \(use.text): \(use.spec.summary)")
    }
  }

  /// The test user a role (`first`, `second`, `third`) is bound to: the profile's
  /// `testUsers` when it names them, else the identity provider's users in order.
  private func boundUser(_ role: String) throws -> RealmSettings.User {
    guard let index = AppProfile.userRoles.firstIndex(of: role) else {
      throw ScenarioRuntimeError("unknown user role \(role)")
    }
    // A real contract backend's accounts, unless the world embeds the backend (a control).
    let known =
      ports.identityProvider?.testUsers ?? sessionStack?.backend.testUsers
      ?? hybridServers?.backend.testUsers ?? contractTestUsers
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
    return build
  }

  /// Stops the stack's servers.
  func tearDown() {
    stack?.stop()
    instanceServers?.stop()
    sessionStack?.stop()
    hybridServers?.stop()
    bridgeServers?.stop()
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
    for shell in instanceShells.values { shell.markStep() }
    for client in sessionClients.values { client.markStep() }
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

/// What an action's implementation gets.
public struct ActionContext {
  public let world: World
  /// The acting app, for app actions.
  public let app: App?
  public let arguments: Arguments

  /// The acting app; app actions always have one (the parser checks it).
  func requireApp() throws -> App {
    guard let app else { throw ScenarioRuntimeError("this action needs an app") }
    return app
  }

  /// The declared app named by parameter `name`.
  func app(_ name: String) throws -> App {
    guard let value = arguments[name], let app = world.apps[value] else {
      throw ScenarioRuntimeError("no app \(arguments[name] ?? name) in this world")
    }
    return app
  }

  /// The credentials of the user named by parameter `name`, if given.
  func credentials(_ name: String = "user") -> Credentials? {
    guard let user = arguments[name].flatMap({ world.users[$0] }) else { return nil }
    return Credentials(
      username: user.username, password: user.password ?? "",
      rememberMe: arguments.has("remember-me"))
  }
}

/// What an expectation's check gets.
public struct ExpectationContext {
  public let world: World
  public let outcome: Outcome?
  public let arguments: Arguments
  public let negated: Bool
}

extension ExpectationContext {
  /// A failure with `reason`.
  func fail(
    _ reason: FailureReason, _ detail: String? = nil, _ message: String, fix: String? = nil
  ) -> Failure {
    Failure(reason, detail, message, fix: fix)
  }

  /// The failure of an expectation that needed a response and got none: the action's own
  /// problem when it had one (a refusal, a transport error), else `no-response`.
  func noResponse(_ message: String) -> Failure {
    Failure(outcome?.problem?.reason ?? .noResponse, nil, message)
  }

  /// The failure of an expectation that found no outcome of the kind it examines.
  func missing(_ reason: FailureReason, _ message: String) -> Failure {
    Failure(reason, nil, message)
  }

  /// The username the role in parameter `name` is bound to.
  func username(_ name: String = "user") -> String? {
    arguments[name].map { world.users[$0]?.username ?? $0 }
  }

  /// The name the backend knows the user by: the IdP's subject when the stack file maps one
  /// (a real IdP's opaque `sub`), else the username.
  func backendIdentity(_ name: String = "user") -> String? {
    arguments[name].map { world.users[$0].map { $0.subject ?? $0.username } ?? $0 }
  }

  /// Every name the backend may know the user as: the username, the IdP's subject, the email.
  func identities(_ name: String = "user") -> Set<String> {
    guard let role = arguments[name] else { return [] }
    guard let user = world.users[role] else { return [role] }
    return Set([user.username, user.subject, user.email].compactMap { $0 })
  }

  /// `first (user1@example.local)` for messages.
  func userLabel(_ name: String = "user") -> String? {
    guard let role = arguments[name] else { return nil }
    guard let username = world.users[role]?.username else { return role }
    return "\(role) (\(username))"
  }
}

/// What a step checks does not apply to this build (a guard over an env the channel did not
/// supply): the scenario is not applicable rather than passed or failed.
public struct ScenarioNotApplicable: Error, Sendable {
  public var reason: String
  /// Why, when the step knows (the app's own build makes it inapplicable: `declared`); nil
  /// leaves the runner to decide (a real system, or the channel's env).
  public var cause: NotApplicableCause?
  public init(_ reason: String, cause: NotApplicableCause? = nil) {
    self.reason = reason
    self.cause = cause
  }
}

/// An action could not be carried out for a reason that is the harness's or the scenario's,
/// not the app's: the execution ends in `error`.
public struct ScenarioRuntimeError: Error, CustomStringConvertible, Sendable {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// What one runner worker reuses from world to world: the listeners the worlds mount their
/// virtual hosts on and the client pool the devices share. State never crosses worlds;
/// sockets and TLS connections do.
///
/// Each execution draws from the current lease. A timeout abandons the execution, whose
/// thread may still be running: `reset()` gives the worker a new lease and leaves the old one
/// to that thread alone, so the two never share a listener or a client.
final class WorkerTransport: Sendable {
  private let current = Locked(TransportLease())

  var lease: TransportLease { current.withLock { $0 } }

  func reset() {
    current.withLock { $0 = TransportLease() }
  }
}

/// The listeners and the client of one line of executions, made on first use.
final class TransportLease: Sendable {
  private let listeners = Locked<StackListeners?>(nil)
  private let pool = Locked<HTTPClient?>(nil)
  private let observerPool = Locked<HTTPClient?>(nil)

  func listeners(_ material: StackMaterial) throws -> StackListeners {
    try listeners.withLock { shared in
      if let shared { return shared }
      let made = try StackListeners(material: material)
      shared = made
      return made
    }
  }

  /// The harness's own client for the ports: it trusts the run's CA and the certificate an
  /// untrusted-CA mutation serves, so observing never depends on what the devices are shown.
  func observer(_ material: StackMaterial, origins: [String: UInt16]) throws -> HTTPClient {
    let client = try observerPool.withLock { pool in
      if let pool { return pool }
      let made = try TransportLease.makeObserver(material, origins: origins)
      pool = made
      return made
    }
    client.update(origins: origins)
    return client
  }

  static func makeObserver(_ material: StackMaterial, origins: [String: UInt16]) throws
    -> HTTPClient
  {
    // The harness asks the real systems (`--stack`) too: a real backend whose sessions it
    // checks.
    var configuration = HTTPClient.Configuration(
      trustedCertificatesPEM: material.authority.certificatePEM
        + material.untrustedCredentials.certificatePEM
        + (material.real?.trustedCertificatesPEM ?? ""),
      origins: origins, userAgent: "qualify-observer")
    configuration.realAuthorities = material.real?.authorities ?? []
    if let real = material.real { configuration.timeout = real.timeout }
    return try HTTPClient(configuration: configuration)
  }

  func client(_ material: StackMaterial) throws -> HTTPClient {
    try pool.withLock { pool in
      if let pool { return pool }
      // The devices trust the run's CA, and the real systems' (`--stack`) which they reach
      // over the network.
      var configuration = HTTPClient.Configuration(
        trustedCertificatesPEM: material.authority.certificatePEM
          + (material.real?.trustedCertificatesPEM ?? ""), userAgent: "qualify")
      configuration.realAuthorities = material.real?.authorities ?? []
      if let real = material.real { configuration.timeout = real.timeout }
      let made = try HTTPClient(configuration: configuration)
      pool = made
      return made
    }
  }
}
