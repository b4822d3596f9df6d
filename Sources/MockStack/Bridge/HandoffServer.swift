import Artifacts
import Foundation
import HTTP
import QualifyCore

/// The web app at a React Native bridge shell's compiled origin (seed 001): its page, and the
/// server side of the system-browser sign-in handoff — `/mobile-auth` (sign in, then a
/// single-use callback code for the S256 challenge, sent to the compiled scheme's
/// `auth/callback`), `POST /api/mobile-auth/redeem` (the code and its verifier for a one-time
/// token) and `POST /api/mobile-auth/verify` (the token for the session cookie).
///
/// The redemption follows the web app's own code as qualify read it (`HandoffServerCode`): the
/// code stored as its SHA-256, its lifetime, whether it is consumed by the statement that
/// reads it, whether a wrong verifier burns it. Every rejection is the same answer.
public final class HandoffServer: HTTPHandler, Sendable {
  struct State: Sendable {
    var codes: HandoffCodeTable
    var tokens: [String: String] = [:]
    var sessions: [String: String] = [:]
    var refusals: [String] = []
    /// When each redemption arrived (what a rate limit counts).
    var redemptions: [Date] = []
  }

  public let origin: Origin
  /// The account the scenarios sign in with.
  public let login: String
  public let password: String
  /// Every rejection is the same answer (the web app's code as read).
  let uniformRejections: Bool
  /// The scheme the server sends callbacks to: the official one for a release origin.
  public let callbackScheme: String
  let context: StackContext
  private let state: Locked<State>
  /// The routes as the server's code registers them: every answer no-store, a caller of
  /// another Origin (or none) refused (nil: the routes were not read, and neither is done).
  let routes: HandoffRoutesCode?
  /// The throttle the code writes, when the routes throttle and its bound was read.
  let throttle: HandoffThrottle?
  /// The page's call to the issue route, as its code writes it (nil: not read).
  let issueCall: HandoffCall?

  static let rejected = HTTPResponse.json(["error": "invalid_handoff"], status: 400)

  init(origin: Origin, bridge: BridgeShellSettings, context: StackContext) {
    self.origin = origin
    self.context = context
    uniformRejections = bridge.handoffServer.uniformRejections?.value ?? true
    state = Locked(State(codes: HandoffCodeTable(rules: .init(bridge.handoffServer))))
    callbackScheme = bridge.serverCallbackScheme
    routes = bridge.handoffServer.routes
    issueCall = bridge.issueCall?.value
    throttle =
      routes?.throttles?.value == true ? bridge.handoffServer.routes?.throttle?.value : nil
    login = "ada@openmapx.test"
    password = context.secret(byteCount: 12)
  }

  /// The keys the table holds: what a read of it would give away.
  public var storedKeys: [String] { state.withLock { $0.codes.storedKeys } }

  public func handle(_ request: HTTPRequest) -> HTTPResponse {
    let answer = route(request)
    // The routes' own hook: every answer of the handoff's API is no-store.
    guard request.path.hasPrefix("/api/mobile-auth/") || request.path == exchangePath,
      routes?.noStore?.value == true
    else {
      return answer
    }
    return answer.with("Cache-Control", "no-store")
  }

  /// Where the exchange is served: the route the code registers, under its prefix (the seed's
  /// `/api/mobile-auth/redeem` when no route was read).
  var exchangePath: String { routes?.exchange?.value.served ?? "/api/mobile-auth/redeem" }

  private func route(_ request: HTTPRequest) -> HTTPResponse {
    if request.method == "POST", request.path == exchangePath { return exchange(request) }
    switch (request.method, request.path) {
    case ("GET", "/mobile-auth"): return form(request)
    case ("POST", "/mobile-auth"): return signIn(request)
    case ("POST", "/api/mobile-auth/verify"): return verify(request)
    case ("POST", "/_qualify/handoff/redeem-together"):
      let attempts = (request.jsonObject?["attempts"] as? [[String: Any]] ?? []).map {
        (
          code: $0["code"] as? String ?? "", verifier: $0["verifier"] as? String ?? "",
          state: $0["state"] as? String
        )
      }
      let answers = redeem(attempts).map {
        ["status": $0.status, "body": $0.bodyText] as [String: Any]
      }
      return .json(["answers": answers])
    case ("GET", "/_qualify/handoff/table"): return .json(["keys": storedKeys])
    case ("GET", "/_qualify/handoff/refusals"): return .json(["refusals": refusals])
    case ("GET", "/"):
      let session = request.cookies["openmapx.session"].flatMap { id in
        state.withLock { $0.sessions[id] }
      }
      return .html(
        "<!doctype html><title>OpenMapX</title><main data-user=\"\(HTMLText.escape(session ?? ""))\">OpenMapX</main>"
      )
    default: return .notFound
    }
  }

  /// The exchange, as the routes' code answers it: the body held to the fields and bounds the
  /// route's schema gives, the Origin check, the throttle, then the redemption.
  private func exchange(_ request: HTTPRequest) -> HTTPResponse {
    // The schema is checked before the handler runs (Fastify validates the body first).
    if let route = routes?.exchange?.value,
      let why = route.refusal(
        body: (request.jsonObject ?? [:]).mapValues { "\($0)" }, boundsOf: [.verifier, .state])
    {
      context.event("handoff", "an exchange refused by the route's schema: \(why)")
      return .json(["error": "invalid_request"], status: 400)
    }
    if let check = routes?.admitsOwnPage, !check.value,
      request.headers["Origin"] == origin.description
    {
      context.event(
        "handoff",
        "the web app's own page was refused a redemption: the routes' Origin check (\(check.origin)) answers false for an Origin its list holds"
      )
      return .json(["error": "invalid_request"], status: 403)
    }
    if let list = routes?.allowlistRefusesPage, request.headers["Origin"] == origin.description {
      context.event(
        "handoff",
        "the web app's own page was refused a redemption: the Origin allowlist (\(list.origin)) does not hold it — \(list.derivation.joined(separator: "; "))"
      )
      return .json(["error": "invalid_request"], status: 403)
    }
    // A check that, as deployed, lets an Origin (or none) through is no check for that one.
    let sent = request.headers["Origin"]
    if routes?.checksOrigin?.value == true, sent != origin.description,
      sent == nil
        ? routes?.allowlistAdmitsMissing?.value != true
        : sent != routes?.allowlistAdmitsOther?.value
    {
      context.event(
        "handoff",
        "a redemption from \(request.headers["Origin"] ?? "no Origin") was refused: not the web app's own"
      )
      return .json(["error": "invalid_request"], status: 403)
    }
    if let refusal = rateLimited() { return refusal }
    let body = request.jsonObject ?? [:]
    // Each value from the field that carries it: the route's own, else the body's.
    func value(_ role: HandoffField) -> String? {
      let key =
        routes?.exchange?.value.field(role)
        ?? body.keys.sorted().first { HandoffField.carried(by: $0) == role }
      return key.flatMap { body[$0] as? String }
    }
    return redeem(code: value(.code) ?? "", verifier: value(.verifier) ?? "", state: value(.state))
  }

  private func form(_ request: HTTPRequest) -> HTTPResponse {
    guard request.query("code_challenge_method") == "S256",
      let challenge = request.query("code_challenge"), challenge.count == 43,
      let state = request.query("state"), !state.isEmpty
    else {
      context.event("handoff", "/mobile-auth refused: an S256 challenge and a state are required")
      return .problem(400, "an S256 code_challenge and a state are required")
    }
    let fields = [
      ("purpose", request.query("purpose") ?? "sign-in"), ("code_challenge", challenge),
      ("state", state),
    ]
    .map {
      "<input type=\"hidden\" name=\"\($0.0)\" value=\"\(HTMLText.escape($0.1))\">"
    }.joined()
    return .html(
      "<!doctype html><title>Sign in</title><form method=\"post\" action=\"/mobile-auth\">\(fields)<input name=\"login\"><input type=\"password\" name=\"password\"></form>"
    )
  }

  private func signIn(_ request: HTTPRequest) -> HTTPResponse {
    guard request.formValue("login") == login, request.formValue("password") == password,
      let challenge = request.formValue("code_challenge"),
      let state = request.formValue("state")
    else { return .problem(401, "sign-in refused") }
    // The page, signed in, asks the issue route for the code as its own code does.
    if let refusal = issueRefusal(
      purpose: request.formValue("purpose") ?? "sign-in", challenge: challenge, state: state)
    {
      return refusal
    }
    let now = context.clock.now
    if case .outstandingCodes(let max) = throttle,
      self.state.withLock({ $0.codes.outstanding(user: login, now: now) }) >= max
    {
      context.event("handoff", "a code refused to \(login): \(max) are outstanding (429)")
      return .json(["error": "invalid_request"], status: 429)
    }
    let callbackCode = context.random.token(byteCount: 32)
    context.redactor.register(callbackCode)
    let lifetime = self.state.withLock {
      $0.codes.issue(
        code: callbackCode, user: login, challenge: challenge, state: state, now: now)
      return $0.codes.rules.lifetime
    }
    context.event("handoff", "issued a callback code for \(login), valid \(Int(lifetime)) s")
    return .redirect(
      to: "\(callbackScheme)://auth/callback?code=\(callbackCode)&state=\(Query.escape(state))")
  }

  /// The issue route's answer to the page's call, when it refuses it (the path the call
  /// posts to, its keys, the values' bounds); nil when it issues, or no issue route was read.
  private func issueRefusal(purpose: String, challenge: String, state: String) -> HTTPResponse? {
    guard let issue = routes?.issue?.value else { return nil }
    if let call = issueCall, let refusal = issue.refusal(of: call) {
      context.event("handoff", "the page's issue refused: \(refusal.why)")
      return .json(["error": "invalid_request"], status: refusal.status)
    }
    let values: [HandoffField: String] = [.purpose: purpose, .challenge: challenge, .state: state]
    var body: [String: String] = [:]
    for (key, role) in issue.keys(of: issueCall, roles: [.purpose, .challenge, .state]) {
      body[key] = values[role] ?? ""
    }
    guard let why = issue.refusal(body: body, boundsOf: [.purpose, .challenge, .state]) else {
      return nil
    }
    context.event("handoff", "the page's issue refused by the route's schema: \(why)")
    return .json(["error": "invalid_request"], status: 400)
  }

  /// A route's rate limit as the code writes it: the redemption past `max` in its window is
  /// answered 429 before it is looked at.
  private func rateLimited() -> HTTPResponse? {
    guard case .redemptions(let max, let seconds) = throttle else { return nil }
    let now = context.clock.now
    let limited = state.withLock { state -> Bool in
      state.redemptions.removeAll { now.timeIntervalSince($0) >= TimeInterval(seconds) }
      guard state.redemptions.count < max else { return true }
      state.redemptions.append(now)
      return false
    }
    guard limited else { return nil }
    context.event("handoff", "a redemption refused: \(max) in \(seconds) s already (429)")
    return .json(["error": "too_many_requests"], status: 429)
  }

  /// One redemption, whole.
  func redeem(code callbackCode: String, verifier: String, state: String?) -> HTTPResponse {
    redeem([(callbackCode, verifier, state)]).first ?? Self.rejected
  }

  /// Every refusal the server gave, in order (what an attacker could compare).
  public var refusals: [String] { state.withLock { $0.refusals } }

  /// Redemptions arriving together (`HandoffCodeTable` judges them as the app's statements
  /// would); each redeemed code is answered with a one-time token.
  public func redeem(_ attempts: [(code: String, verifier: String, state: String?)])
    -> [HTTPResponse]
  {
    let now = context.clock.now
    let outcomes = state.withLock { $0.codes.redeem(attempts, now: now) }
    // A server whose refusals differ says which check failed.
    func refused(_ why: String, status: Int = 400) -> HTTPResponse {
      uniformRejections ? Self.rejected : .json(["error": why], status: status)
    }
    let answers = outcomes.map { outcome -> HTTPResponse in
      switch outcome {
      case .unknownOrExpired:
        return refused("unknown_or_expired", status: 404)
      case .wrongVerifier:
        context.event("handoff", "a redemption with a wrong verifier or state was refused")
        return refused("wrong_verifier")
      case .redeemed(let user):
        let token = context.secret(byteCount: 24)
        state.withLock { $0.tokens[token] = user }
        context.event("handoff", "a callback code was redeemed for \(user)")
        return .json(["token": token])
      }
    }
    let given = answers.filter { $0.status != 200 }.map { "\($0.status) \($0.bodyText)" }
    state.withLock { $0.refusals += given }
    return answers
  }

  private func verify(_ request: HTTPRequest) -> HTTPResponse {
    guard let token = request.jsonObject?["token"] as? String,
      let user = state.withLock({ $0.tokens.removeValue(forKey: token) })
    else { return Self.rejected }
    let session = context.secret(byteCount: 24)
    state.withLock { $0.sessions[session] = user }
    return HTTPResponse.json(["user": user]).with(
      "Set-Cookie", "openmapx.session=\(session); Path=/; Secure; HttpOnly; SameSite=Lax")
  }
}

/// A bridge shell's world: the web app at its compiled origin.
public final class BridgeServers: Sendable {
  public let server: HandoffServer
  private let mounted: MountedHosts

  public static func secureHosts(_ build: AppBuild) -> Set<String> {
    guard let origin = build.bridge.flatMap({ Origin(url: $0.webOrigin.value) }), origin.isSecure
    else { return [] }
    return [origin.host]
  }

  public init(
    build: AppBuild, material: StackMaterial, context: StackContext,
    sharing listeners: StackListeners? = nil
  ) throws {
    guard let bridge = build.bridge, let origin = Origin(url: bridge.webOrigin.value) else {
      throw StackError("the app compiles in no usable web origin")
    }
    server = HandoffServer(origin: origin, bridge: bridge, context: context)
    mounted = try MountedHosts(
      serving: server, at: origin, material: material, context: context, sharing: listeners)
  }

  /// Public authority (`host:port`) → loopback port.
  public var origins: [String: UInt16] { mounted.origins }

  public func stop() { mounted.stop() }

  deinit {
    stop()
  }
}
