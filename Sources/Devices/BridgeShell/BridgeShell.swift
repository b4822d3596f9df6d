import Artifacts
import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

/// A React Native shell on a versioned bridge (seed 001), with the page it renders: one
/// WebView on the compiled origin, the shell descriptor injected before page scripts, the
/// handshake and protocol negotiation, the receiver's checks (`BridgeReceiver`), the
/// capability report, snapshots and deltas (`SnapshotReducer`), and the sign-in handoff
/// through the system browser (`SystemAuthSession`) redeemed by the page.
///
/// The shell behaves as its code reads (`BridgeShellSettings`): what it does not compose
/// (a dispatcher) it does not do.
public final class BridgeShell {
  /// What the page runs with.
  public struct Page: Sendable {
    /// `native` once the descriptor is seen before page scripts, else `browser`.
    public var authority = "none"
    /// The browser's own navigation engine (geolocation, speech) was started.
    public var browserEngineStarted = false
    public var negotiated: Int?
    /// Why the receiver refused the page's `web.hello` at load, nil when it answered.
    public var helloRefused: String?
    public var navigationEnabled = false
    public var updateRequired = false
    /// The capability report of `native.hello`.
    public var capabilities: [String: Bool] = [:]
    /// Replies the page received (`native.hello`, `native.error <code>`), oldest first.
    public var replies: [String] = []
    public var snapshots = SnapshotReducer()
    /// `snapshot.request`s the page sent after a gap.
    public var snapshotRequests = 0
  }

  /// The handoff result the page holds between `auth.result` and its redemption.
  public struct Handoff: Sendable {
    public var code: String
    public var state: String
    public var verifier: String
  }

  public let name: String
  public let build: AppBuild
  public let behaviours: ShellBehaviours
  let environment: DeviceEnvironment
  /// The WebView: its cookie jar holds the site session.
  let web: NativeHTTPStack
  /// The system browser of the handoff (its own cookies).
  let browser: NativeHTTPStack
  private var source: String { "\(build.platform.rawValue)/\(name)" }
  private var bridgeSettings: BridgeShellSettings? { build.bridge }

  public private(set) var receiver: BridgeReceiver
  public private(set) var page = Page()
  /// The web build's protocol range (what the deployed page speaks).
  public var webRange: ClosedRange<Int> = 3...3
  public private(set) var running = false
  private var nonceCounter = 0
  private var messageCounter = 0
  public private(set) var lastDecision: BridgeReceiver.Decision?
  /// What the page heard back about its last message (nil: nothing).
  public private(set) var lastReply: String?
  /// The last message the page sent, for a duplicate.
  private var lastMessage: [String: Any]?

  /// Native persistence (SQLite, SecureStore, AsyncStorage), by key.
  public private(set) var storage: [String: String] = [:]
  /// URLs the shell handed to the system browser.
  public private(set) var openedURLs: [String] = []
  public private(set) var handoff: Handoff?
  public private(set) var handoffFailure: String?
  /// The last redemption's answer.
  public private(set) var lastRedemption: HTTPResponse?
  /// The answer to the last sign-in posted in the system browser (a redirect to the callback,
  /// or a refusal such as a throttle's 429).
  public private(set) var lastSignIn: HTTPResponse?
  public private(set) var signedInUser: String?

  init(name: String, build: AppBuild, behaviours: ShellBehaviours, environment: DeviceEnvironment)
    throws
  {
    self.name = name
    self.build = build
    self.behaviours = behaviours
    self.environment = environment
    let policy = TransportPolicy(build: build, behaviours: behaviours)
    let prefix = "\(build.platform.rawValue)/\(name)"
    web = try NativeHTTPStack(source: "\(prefix) webview", policy: policy, environment: environment)
    browser = try NativeHTTPStack(
      source: "\(prefix) system browser", policy: policy, environment: environment)
    let bridge = build.bridge
    let limits = BridgeReceiver.Limits(
      messageBytes: bridge?.limits["MAX_MESSAGE_BYTES"]?.value
        ?? BridgeReceiver.Limits.seed
        .messageBytes,
      coordinates: bridge?.limits["MAX_TOTAL_COORDINATES"]?.value
        ?? BridgeReceiver.Limits.seed
        .coordinates,
      steps: bridge?.limits["MAX_TOTAL_STEPS"]?.value ?? BridgeReceiver.Limits.seed.steps,
      legs: bridge?.limits["MAX_LEGS"]?.value ?? BridgeReceiver.Limits.seed.legs)
    let range = bridge?.protocolConstants?.value ?? ProtocolRange(min: 3, max: 3)
    receiver = BridgeReceiver(
      webOrigin: bridge?.webOrigin.value ?? "", limits: limits,
      shellRange: range.min...Swift.max(range.min, range.max),
      dispatches: bridge?.dispatcherComposed?.value ?? false)
    // What the app's receive() leaves out, the simulated receiver leaves out too.
    let unwritten = (bridge?.receiverChecks ?? [:]).filter { !$0.value.value }.map(\.key)
    receiver.skipped = Set(
      (behaviours.bridgeSkipsChecks + unwritten).compactMap(BridgeReceiver.Check.init))
    receiver.refusesWellFormed = bridge?.receiverRefusesWellFormed != nil
    receiver.schema = bridge?.messageSchema?.value.value
    receiver.counting = bridge?.boundsCounted?.value ?? BridgeReceiver.seedCounting
    page.snapshots.appliesAnyDelta = behaviours.bridgeAppliesAnyDelta
  }

  public var origin: String { bridgeSettings?.webOrigin.value ?? "" }

  // MARK: The document

  /// Opens the app: the WebView loads the compiled origin; the descriptor goes in before the
  /// page's scripts (or after, when the code injects it late); the page says hello.
  public func launch() {
    running = true
    load()
  }

  /// A reload (or a new top-level navigation): a new nonce, a new handshake.
  public func reload() { load() }

  private func load() {
    _ = web.send(ClientRequest(url: origin + "/"))
    nonceCounter += 1
    let nonce = environment.random.hex(byteCount: 16)
    receiver.adoptDocument(nonce: nonce)
    page = Page(snapshots: page.snapshots)
    let early = bridgeSettings?.descriptorBeforeContent?.value ?? true
    if early {
      page.authority = "native"
    } else {
      // Page scripts ran first: with no descriptor yet, the web runtime takes browser
      // authority and starts its own engine; the descriptor arrives too late to stop it.
      page.browserEngineStarted = true
      page.authority = "browser"
      environment.decision(
        source, "page scripts ran before the descriptor: the browser navigation engine started")
    }
    environment.decision(source, "document loaded; descriptor injected, nonce rotated")
    let hello = send(
      "web.hello",
      payload: [
        "webBuildId": "web-\(webRange.lowerBound)-\(webRange.upperBound)",
        "minProtocolVersion": webRange.lowerBound, "maxProtocolVersion": webRange.upperBound,
      ])
    if case .rejected(let rejection) = hello {
      page.helloRefused =
        rejection.rawValue
        + (rejection == .schema ? receiver.schemaRefusal.map { ": \($0)" } ?? "" : "")
    }
    if case .handshake(let selected) = hello {
      page.negotiated = selected
      page.capabilities = Dictionary(
        uniqueKeysWithValues: (bridgeSettings?.capabilities ?? []).map {
          ($0.name, $0.value.value)
        })
      page.replies.append("native.hello")
      // A non-overlapping range leaves navigation off and asks for a store update.
      page.updateRequired = selected == nil
      page.navigationEnabled =
        selected != nil
        && (page.capabilities["groundNavigation"] == true
          || page.capabilities["transitNavigation"] == true)
    }
  }

  // MARK: Messages

  /// Variants of a message the page (or something else in the WebView) sends.
  public struct Variant: Sendable {
    public var fromOrigin: String?
    public var staleNonce = false
    public var duplicate = false
    public var protocolVersion: Int?
    public var unknownField = false
    /// A field the payload's schema does not list.
    public var unknownPayloadField = false
    /// Pad the message to this many bytes.
    public var bytes: Int?
    public var coordinates = 0
    public var steps = 0
    public var legs = 0
    /// A `__proto__` key in the payload.
    public var pollutingKey = false
    /// Sent this long before the receiver's clock, in milliseconds.
    public var sentAgoMs = 0

    public init() {}
  }

  /// The page posts `type`; answers the receiver's decision.
  @discardableResult
  public func send(_ type: String, payload: [String: Any] = [:], variant: Variant = Variant())
    -> BridgeReceiver.Decision
  {
    var message: [String: Any]
    if variant.duplicate, let last = lastMessage {
      message = last
    } else {
      messageCounter += 1
      // The fields the scenario does not set, as a page written against the app's schema
      // fills them.
      var body =
        ((receiver.schema ?? BridgeReceiver.seedSchema).field("payload", whereTagIs: type)?
        .example() as? [String: Any] ?? [:])
        .merging(payload) { $1 }
      if variant.coordinates > 0 || variant.steps > 0 || variant.legs > 0 {
        // Written as text: a route at the bounds is a megabyte of JSON.
        body["startPackage"] = RouteText.groundPackage(
          coordinates: Swift.max(variant.coordinates, 2), steps: variant.steps,
          legs: variant.legs)
      }
      message = [
        "protocolVersion": variant.protocolVersion ?? page.negotiated ?? webRange.upperBound,
        "type": type, "messageId": "w\(messageCounter)",
        "channelNonce": variant.staleNonce ? "stale-\(nonceCounter)" : receiver.nonce ?? "",
        "sentAtMs": Int(environment.clock.now.timeIntervalSince1970 * 1000) - variant.sentAgoMs,
        "payload": body,
      ]
      if variant.pollutingKey {
        message["payload"] = body.merging(["meta": ["__proto__": ["isAdmin": true]]]) { $1 }
      }
      if variant.unknownField { message["invokeNative"] = "openSettings" }
      if variant.unknownPayloadField, var inner = message["payload"] as? [String: Any] {
        inner["invokeNative"] = "openSettings"
        message["payload"] = inner
      }
    }
    lastMessage = message
    var data = RouteText.serialize(message)
    if let bytes = variant.bytes, bytes > data.count {
      // Whitespace before the closing brace: still one JSON object, just that large.
      data.insert(
        contentsOf: [UInt8](repeating: 0x20, count: bytes - data.count), at: data.count - 1)
    }
    let url = variant.fromOrigin ?? origin + "/"
    let decision = receiver.receive(
      from: url, data: data, nowMs: Int(environment.clock.now.timeIntervalSince1970 * 1000))
    lastDecision = decision
    lastReply = nil
    switch decision {
    case .rejected(let rejection) where answers(rejection):
      lastReply = "native.error \(rejection.rawValue)"
    case .dispatched(let type):
      lastReply = "dispatched \(type)"
    default:
      break
    }
    if let lastReply { page.replies.append(lastReply) }
    var why = ""
    if decision == .rejected(.schema), let refusal = receiver.schemaRefusal {
      why = " (the app's webToNativeSchema: \(refusal))"
    }
    environment.decision(
      source, "the page sent \(type) (\(data.count) bytes): \(describe(decision))\(why)")
    return decision
  }

  /// Whether the page hears `native.error` about a refusal: as the app's message handler
  /// does with receive()'s answer (a handler not read answers all but an unauthenticated
  /// sender, the seed's rule).
  func answers(_ rejection: BridgeReceiver.Rejection) -> Bool {
    if behaviours.bridgeAnswersEveryRefusal { return true }
    switch bridgeSettings?.rejectionReplies?.value ?? .authenticatedOnly {
    case .silent: return false
    case .authenticatedOnly: return !rejection.isSilent
    case .every: return true
    }
  }

  public func describe(_ decision: BridgeReceiver.Decision) -> String {
    switch decision {
    case .rejected(let rejection):
      return answers(rejection)
        ? "refused: \(rejection.rawValue), answered native.error"
        : "dropped silently (\(rejection.rawValue))"
    case .handshake(let selected):
      return selected.map { "handshake on protocol \($0)" }
        ?? "handshake: no common protocol version"
    case .acknowledged: return "acknowledged"
    case .dispatched(let type): return "dispatched \(type)"
    }
  }

  /// Native sends the page a full snapshot.
  public func fullSnapshot(session: String, route: String, revision: Int) {
    page.snapshots.full(session: session, route: route, revision: revision)
  }

  /// Native sends the page a delta; a gap makes the page ask for a full snapshot.
  @discardableResult
  public func delta(session: String, route: String, base: Int, revision: Int)
    -> SnapshotReducer.Result
  {
    let result = page.snapshots.delta(
      session: session, route: route, base: base, revision: revision)
    if result == .gap {
      page.snapshotRequests += 1
      send("snapshot.request")
    }
    environment.decision(
      source, "a delta \(base)→\(revision) of \(session)/\(route): \(result.rawValue)")
    return result
  }

  // MARK: The sign-in handoff

  /// `SystemAuthSession.open(purpose)`: a verifier and a state in memory, the S256 challenge
  /// to `/mobile-auth` on the compiled origin in the system browser, the user signs in, the
  /// callback comes back on the compiled scheme and is checked. The page holds the result.
  public func openHandoff(purpose: String, login: String, password: String) {
    handoff = nil
    handoffFailure = nil
    let bridge = bridgeSettings
    let bytes = bridge?.handoff.verifierBytes?.value ?? 32
    let verifier = environment.random.token(byteCount: bytes)
    let state = environment.random.token(byteCount: bridge?.handoff.stateBytes?.value ?? 16)
    environment.redactor.register(verifier)
    if behaviours.bridgePersistsAttempt {
      storage["auth.attempt"] = "{\"state\":\"\(state)\",\"codeVerifier\":\"\(verifier)\"}"
    }
    let method = bridge?.handoff.challengeMethod?.value ?? "S256"
    let challenge =
      method == "S256" ? Base64URL.encode(Digest.sha256(Array(verifier.utf8))) : verifier
    let path = bridge?.handoff.path?.value ?? "/mobile-auth"
    let url =
      origin + path + "?"
      + Query.encode([
        ("purpose", purpose), ("state", state), ("code_challenge", challenge),
        ("code_challenge_method", method),
      ])
    openedURLs.append(url)
    guard case .sent(let form) = browser.send(ClientRequest(url: url)),
      form.response?.status == 200
    else {
      handoffFailure = "\(path) refused the attempt"
      return
    }
    let body = Query.encode([
      ("login", login), ("password", password), ("purpose", purpose),
      ("code_challenge", challenge), ("state", state),
    ])
    let sent = browser.send(
      ClientRequest(
        method: "POST", url: origin + path,
        headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array(body.utf8)))
    if case .sent(let signedIn) = sent { lastSignIn = signedIn.response }
    guard case .sent(let signedIn) = sent, let location = signedIn.response?.headers["Location"]
    else {
      // The page's answer says which side refused (a 400 of the issue route's schema).
      let answer = lastSignIn.map { " (HTTP \($0.status) \(String($0.bodyText.prefix(80))))" } ?? ""
      handoffFailure = "the sign-in in the system browser failed\(answer)"
      return
    }
    // The OS hands the callback to the app registered for its scheme.
    let scheme = bridge?.scheme.value ?? ""
    let callback = bridge?.handoff.callback?.value ?? "auth/callback"
    guard location.lowercased().hasPrefix(scheme.lowercased() + "://") else {
      let other = location.split(separator: ":").first.map(String.init) ?? location
      let compiled = bridge.map { " (\($0.scheme.origin)\($0.scheme.because))" } ?? ""
      handoffFailure =
        "the callback goes to \(other)://, and this build registers \(scheme)://\(compiled): no app receives it"
      environment.decision(source, handoffFailure ?? "")
      return
    }
    guard let components = URLComponents(string: location),
      "\(components.host ?? "")\(components.path)" == callback,
      let code = components.queryItems?.first(where: { $0.name == "code" })?.value,
      let returned = components.queryItems?.first(where: { $0.name == "state" })?.value,
      returned == state || behaviours.bridgeIgnoresCallbackState
    else {
      handoffFailure = "the callback does not match the attempt"
      return
    }
    environment.redactor.register(code)
    handoff = Handoff(code: code, state: state, verifier: verifier)
    environment.decision(
      source, "auth.result ok: the page holds the code, the state and the verifier")
  }

  /// The page redeems the handoff (with a verifier of the right form that is not this
  /// attempt's when `wrongVerifier`; from another origin's page, or with no Origin at all as a
  /// script outside a browser sends it), then verifies the one-time token for its session.
  public func redeem(
    wrongVerifier: Bool = false, wrongState: Bool = false, fromOrigin: String? = nil,
    withoutOrigin: Bool = false
  ) {
    guard let handoff else { return }
    let verifier =
      wrongVerifier ? environment.random.token(byteCount: 32) : handoff.verifier
    // Seed 001: the page exchanges the code, the state and the verifier it received.
    let state = wrongState ? environment.random.token(byteCount: 16) : handoff.state
    let (path, keys) = exchangeRequest
    let values: [HandoffField: String] = [.code: handoff.code, .verifier: verifier, .state: state]
    var fields: [String: String] = [:]
    for (key, role) in keys { fields[key] = values[role] ?? "" }
    let body = (try? JSONSerialization.data(withJSONObject: fields)).map(Array.init) ?? []
    guard
      case .sent(let exchange) = web.send(
        ClientRequest(
          method: "POST", url: origin + path,
          // A browser sends the calling page's Origin with a POST; a script need not.
          headers: HTTPHeaders(
            [("Content-Type", "application/json")]
              + (withoutOrigin ? [] : [("Origin", fromOrigin ?? origin)])),
          body: body)),
      let response = exchange.response
    else { return }
    lastRedemption = response
    guard response.status == 200,
      let token = (response.jsonObject as? [String: Any])?["token"] as? String
    else { return }
    environment.redactor.register(token)
    let verify =
      (try? JSONSerialization.data(withJSONObject: ["token": token])).map(Array.init) ?? []
    if case .sent(let verified) = web.send(
      ClientRequest(
        method: "POST", url: origin + "/api/mobile-auth/verify",
        headers: ["Content-Type": "application/json"], body: verify)),
      let user = (verified.response?.jsonObject as? [String: Any])?["user"] as? String
    {
      signedInUser = user
    }
  }

  /// The diagnostic bundle a user would send: the shell's state, the page's last handoff
  /// result, with the export's excluded keys left out.
  public var diagnosticExport: String {
    var snapshot: [String: Any] = [
      "shellVersion": "1.0.0", "negotiated": page.negotiated ?? NSNull(),
      "lastErrors": page.replies.filter { $0.hasPrefix("native.error") },
    ]
    if let handoff {
      snapshot["lastAuth"] = [
        "status": "ok", "handoffCode": handoff.code, "state": handoff.state,
        "codeVerifier": handoff.verifier,
      ]
    }
    let excluded = Set(bridgeSettings?.diagnosticsExcludes?.value ?? [])
    // An allowlist keeps only the fields it names (the record's own keys stay, as the
    // recorder writes each type's fields under it).
    let allowed = bridgeSettings?.diagnosticsAllows.map { Set($0.value) }
    func strip(_ value: Any, depth: Int) -> Any {
      if let object = value as? [String: Any] {
        return object.filter {
          !excluded.contains($0.key) && (depth == 0 || allowed?.contains($0.key) ?? true)
        }.mapValues { strip($0, depth: depth + 1) }
      }
      return value
    }
    let data = try? JSONSerialization.data(
      withJSONObject: strip(snapshot, depth: 0), options: [.sortedKeys])
    return data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
  }

  /// Where the handoff material of the last attempt shows where it must not: native
  /// storage, the diagnostic export, or a URL that should carry only the challenge.
  public var handoffLeaks: [String] {
    guard let handoff else { return [] }
    var out: [String] = []
    for (key, value) in storage
    where value.contains(handoff.verifier) || value.contains(handoff.code) {
      out.append("native storage (\(key))")
    }
    let export = diagnosticExport
    if export.contains(handoff.verifier) || export.contains(handoff.code) {
      out.append("the diagnostic export")
    }
    for url in openedURLs where url.contains(handoff.verifier) {
      out.append("the /mobile-auth URL")
    }
    return out
  }
}
