import Artifacts
import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

/// The client half of seed 002's session contract, as its rules say a mobile app behaves:
/// Bearer on private routes, the access token never decoded, the refresh token and ids in
/// secure storage, the whole envelope replaced after a refresh, concurrent refreshes
/// serialised (single flight), local state wiped on logout or a terminal refresh error, and
/// the bootstrap reloaded on cold start, after login, after a refresh that changes
/// `bootstrapVersion`, after a long background and on an invalidation event — never on
/// navigation.
public final class SessionClient {
  /// What the app shows.
  public enum Screen: String, Sendable {
    case login
    case home
  }

  public let name: String
  public let build: AppBuild
  public let behaviours: ShellBehaviours
  let native: NativeHTTPStack
  /// Someone else's client (a stolen token replayed, a forged assertion): it has its own
  /// network, which the device losing its own does not cut.
  let elsewhere: NativeHTTPStack
  let environment: DeviceEnvironment
  private var source: String { "\(build.platform.rawValue)/\(name)" }

  /// What the client keeps and decides: the session, its refreshes, its wipes.
  var machine: SessionClientMachine
  /// Secure storage: the envelope but the access token (kept in memory).
  public var secureStorage: [String: String] { machine.storage }
  public var accessToken: String? { machine.accessToken }
  public var screen: Screen { machine.signedIn ? .home : .login }
  /// How many times the bootstrap was loaded, and the version last seen.
  public private(set) var bootstrapLoads = 0
  public private(set) var bootstrapVersion: Int?
  /// The last contract error the backend answered, and the status of the last private call.
  public private(set) var lastError: String?
  public private(set) var lastStatus: Int?
  /// The responses of this step's exchanges with the backend, for the header checks.
  public private(set) var responses: [(path: String, response: HTTPResponse)] = []
  private var backgroundedAt: Date?
  /// The deviceId the last login sent (nil: none), and the one stored before it.
  public internal(set) var loginSentDeviceId: String?
  public internal(set) var deviceIdBeforeLogin: String?
  /// The refresh token the last successful refresh replaced: kept for the harness (a replay
  /// is an attacker's move, never the client's), outside secure storage.
  public var retiredRefreshToken: String? { machine.retiredRefreshToken }
  /// The access token a sign-out or wipe dropped (for the harness, as above).
  public var retiredAccessToken: String? { machine.retiredAccessToken }
  /// The relying party of the last ceremony (secure storage is wiped at sign-out).
  private var lastRpId: String?

  /// The platform authenticator: one passkey (a P-256 key) per credential id, and its
  /// signature counter.
  var passkeys: [String: Key] = [:]
  private var signCount: UInt32 = 0
  /// The challenge of a passkey login begun and not yet answered.
  private var pendingChallenge: String?
  /// The last assertion sent (for the harness: replaying one is an attacker's move).
  public private(set) var lastAssertion: [String: Any]?
  /// The onboarding or recovery flow an invitation or a link opened, not yet completed.
  public internal(set) var openFlow: (prefix: String, token: String, email: String)?
  /// The password this client set at onboarding or recovery, and the account it is for.
  public internal(set) var chosenPassword: (login: String, password: String)?

  /// The last response from the backend.
  public var lastResponse: HTTPResponse? { responses.last?.response }

  init(name: String, build: AppBuild, behaviours: ShellBehaviours, environment: DeviceEnvironment)
    throws
  {
    self.name = name
    self.build = build
    // What the app's own client code leaves out, the client leaves out too.
    var behaviours = behaviours
    if let code = build.sessionClient {
      if code.singleFlight?.value == false { behaviours.sessionClientNoSingleFlight = true }
      if code.wipesOnTerminalError?.value == false {
        behaviours.sessionClientKeepsStateOnTerminalError = true
      }
    }
    self.behaviours = behaviours
    self.environment = environment
    machine = SessionClientMachine(
      behaviours: .init(
        noSingleFlight: behaviours.sessionClientNoSingleFlight,
        keepsStateOnTerminalError: behaviours.sessionClientKeepsStateOnTerminalError,
        wipeKeepsRefreshToken: behaviours.sessionClientWipeKeepsRefreshToken,
        keepsOldRefreshToken: behaviours.sessionClientKeepsOldRefreshToken,
        wipesOnlyAfterConfirmedLogout: behaviours.sessionClientWipesOnlyAfterConfirmedLogout))
    native = try NativeHTTPStack(
      source: "\(build.platform.rawValue)/\(name) native",
      policy: TransportPolicy(build: build, behaviours: behaviours), environment: environment,
      keepsCookies: false)
    elsewhere = try NativeHTTPStack(
      source: "someone else, with \(name)'s material",
      policy: TransportPolicy(build: build, behaviours: behaviours), environment: environment,
      keepsCookies: false)
    // A real backend's tokens are as secret as the mock's: never in evidence or reports.
    let secrets: (HTTPResponse) -> [String] = { response in
      guard let json = response.jsonObject as? [String: Any] else { return [] }
      return ["accessToken", "refreshToken", "onboardingToken", "recoveryToken"].compactMap {
        json[$0] as? String
      }
    }
    native.secretsIn = secrets
    elsewhere.secretsIn = secrets
  }

  func note(_ summary: String) { environment.decision(source, summary) }

  public func markStep() { responses = [] }

  private func url(_ path: String) -> String {
    let base = build.frontend.apiOrigin.value
    return (base.hasSuffix("/") ? String(base.dropLast()) : base) + path
  }

  func send(
    _ method: String, _ path: String, json: [String: Any]? = nil, bearer: Bool,
    fromElsewhere: Bool = false
  ) -> HTTPResponse? {
    var headers: HTTPHeaders = ["Accept": "application/json"]
    var body: [UInt8] = []
    if let json {
      headers.set("Content-Type", "application/json")
      body = Array(
        (try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])) ?? Data())
    }
    if bearer, let accessToken { headers.set("Authorization", "Bearer \(accessToken)") }
    guard
      case .sent(let exchange) = (fromElsewhere ? elsewhere : native).send(
        ClientRequest(method: method, url: url(path), headers: headers, body: body)),
      let response = exchange.response
    else { return nil }
    responses.append((path, response))
    lastStatus = response.status
    lastError = (response.jsonObject as? [String: Any])?["error"] as? String
    return response
  }

  // MARK: Login

  /// Password login: the stored backend deviceId when there is one, else none.
  public func logIn(login: String, password: String) {
    var body: [String: Any] = [
      "login": login, "password": password, "platform": build.platform.rawValue,
      "appVersion": "1.0.0", "deviceName": "qualify \(build.platform.rawValue)",
    ]
    deviceIdBeforeLogin = secureStorage["deviceId"]
    if behaviours.sessionClientMakesDeviceId, secureStorage["deviceId"] == nil {
      // An installation id of its own: the contract forbids it.
      body["deviceId"] = "install-" + environment.random.hex(byteCount: 8)
    } else if let device = secureStorage["deviceId"] {
      body["deviceId"] = device
    }
    loginSentDeviceId = body["deviceId"] as? String
    var response = send("POST", "/v1/mobile/auth/password/login", json: body, bearer: false)
    if response?.status == 400, lastError == "invalid_device", deviceIdBeforeLogin != nil {
      // The backend no longer knows the stored device (deleted): log in as a new one.
      note("the stored deviceId is no longer the backend's: signing in without it")
      machine.storage["deviceId"] = nil
      body["deviceId"] = nil
      loginSentDeviceId = nil
      response = send("POST", "/v1/mobile/auth/password/login", json: body, bearer: false)
    }
    guard let response, response.status == 200,
      let envelope = response.jsonObject as? [String: Any]
    else {
      note("login refused: \(lastError ?? "no answer")")
      return
    }
    machine.signIn(.init(json: envelope))
    loadBootstrap(because: "after login")
  }

  // MARK: Passkeys

  /// The relying party the backend names, and the origin the native client data carries.
  func rpId(_ options: [String: Any]) -> String { options["rpId"] as? String ?? "" }

  func clientData(type: String, challenge: String, rpId: String) -> [UInt8] {
    let json = #"{"type":"\#(type)","challenge":"\#(challenge)","origin":"https://\#(rpId)"}"#
    return Array(json.utf8)
  }

  /// `rpIdHash ‖ flags ‖ signCount` (user present and verified).
  func authenticatorData(rpId: String, flags: UInt8, count: UInt32) -> [UInt8] {
    Digest.sha256(Array(rpId.utf8)) + [flags]
      + [
        UInt8(count >> 24 & 0xFF), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF),
        UInt8(count & 0xFF),
      ]
  }

  /// Signed in: a passkey created on the device and registered with the backend.
  public func registerPasskey() {
    guard
      let options = send(
        "POST", "/v1/mobile/auth/passkeys/register/options", json: [:], bearer: true)?
        .jsonObject as? [String: Any], let challenge = options["challenge"] as? String,
      let key = try? Key.generateP256(), let pem = try? key.spkiPublicPEM()
    else { return }
    let id = Base64URL.encode(environment.random.bytes(16))
    let rp = rpId(options)
    let body: [String: Any] = [
      "id": id,
      "response": [
        "clientDataJSON": Base64URL.encode(
          clientData(type: "webauthn.create", challenge: challenge, rpId: rp)),
        "authenticatorData": Base64URL.encode(authenticatorData(rpId: rp, flags: 0x45, count: 0)),
        "publicKey": Base64URL.encode(Array(pem.utf8)),
      ],
    ]
    if send("POST", "/v1/mobile/auth/passkeys/register/verify", json: body, bearer: true)?.status
      == 200
    {
      passkeys[id] = key
      note("passkey \(id) registered")
    }
  }

  /// The first half of a passkey login: the backend's challenge.
  public func beginPasskeyLogin() {
    let options =
      send("POST", "/v1/mobile/auth/passkeys/login/options", json: [:], bearer: false)?
      .jsonObject as? [String: Any]
    pendingChallenge = options?["challenge"] as? String
    if let rp = options.map(rpId) { machine.storage["rpId"] = rp }
  }

  /// The challenge last answered (a double submit answers it again).
  private var answeredChallenge: String?

  /// The second half: the assertion, signed with the device's passkey; a session on success.
  /// `again`: the challenge already answered, signed afresh (a double submit); `count`: the
  /// counter a cloned authenticator would send.
  public func finishPasskeyLogin(again: Bool = false, count: UInt32? = nil) {
    guard let challenge = again ? answeredChallenge : pendingChallenge,
      let (id, key) = passkeys.first, let rp = secureStorage["rpId"] ?? lastRpId
    else {
      note("no passkey login to finish")
      return
    }
    pendingChallenge = nil
    answeredChallenge = challenge
    lastRpId = rp
    signCount = count ?? signCount + 1
    let client = clientData(type: "webauthn.get", challenge: challenge, rpId: rp)
    let auth = authenticatorData(rpId: rp, flags: 0x05, count: signCount)
    guard let signature = try? key.signSHA256(auth + Digest.sha256(client)) else { return }
    var body: [String: Any] = [
      "id": id,
      "response": [
        "clientDataJSON": Base64URL.encode(client), "authenticatorData": Base64URL.encode(auth),
        "signature": Base64URL.encode(signature),
      ],
      "platform": build.platform.rawValue,
    ]
    if let device = secureStorage["deviceId"] { body["deviceId"] = device }
    lastAssertion = body
    guard
      let response = send(
        "POST", "/v1/mobile/auth/passkeys/login/verify", json: body, bearer: false),
      response.status == 200, let envelope = response.jsonObject as? [String: Any]
    else {
      note("passkey login refused: \(lastError ?? "no answer")")
      return
    }
    machine.signIn(.init(json: envelope))
    loadBootstrap(because: "after login")
  }

  /// `GET path` with `token` as the Bearer (someone holding a dropped token).
  public func get(_ path: String, bearerToken token: String) -> HTTPResponse? {
    guard
      case .sent(let exchange) = elsewhere.send(
        ClientRequest(url: url(path), headers: ["Authorization": "Bearer \(token)"]))
    else { return nil }
    return exchange.response
  }

  /// A bodyless POST to `path`, as any client could send it (from its own network).
  public func sendRaw(_ path: String) -> HTTPResponse? {
    send("POST", path, json: [:], bearer: false, fromElsewhere: true)
  }

  /// Sends `body` to the passkey login endpoint as it is (an attacker's replayed or forged
  /// assertion).
  public func sendAssertion(_ body: [String: Any]) -> HTTPResponse? {
    send(
      "POST", "/v1/mobile/auth/passkeys/login/verify", json: body, bearer: false,
      fromElsewhere: true)
  }

  /// Local auth state gone: back to login, unless the client keeps it (a control's bug).
  private func wipe(_ wipe: SessionClientMachine.Wipe) {
    guard machine.wipe(wipe) else {
      note("terminal refresh error (\(wipe.reason)); the local state is kept")
      return
    }
    bootstrapVersion = nil
    note("local auth state wiped (\(wipe.reason)): login")
  }

  // MARK: Private calls and refresh

  /// A private call; an expired access token is refreshed once, then the call retried.
  @discardableResult
  public func call(_ path: String, method: String = "GET") -> HTTPResponse? {
    guard screen == .home else { return nil }
    var response = send(method, path, bearer: true)
    var answer = machine.afterCall(status: response?.status, error: lastError, retried: false)
    if answer == .refreshAndRetry {
      guard refresh() else { return response }
      response = send(method, path, bearer: true)
      answer = machine.afterCall(status: response?.status, error: lastError, retried: true)
    }
    if case .wipe(let why) = answer { wipe(why) }
    return response
  }

  /// `count` private calls that find the access token expired at the same moment: with
  /// single flight one refresh serves them all; without, each refreshes with the same token.
  public func concurrentCalls(_ count: Int, path: String) {
    guard screen == .home else { return }
    var expired = 0
    for _ in 0..<count {
      let response = send("GET", path, bearer: true)
      if machine.afterCall(status: response?.status, error: lastError, retried: false)
        == .refreshAndRetry
      {
        expired += 1
      }
    }
    let refreshes = machine.refreshes(forExpiredCalls: expired)
    guard !refreshes.isEmpty else { return }
    if refreshes == [nil] {
      note("\(expired) calls wait on one refresh (single flight)")
    }
    for token in refreshes {
      guard refresh(using: token) else { break }
    }
    if screen == .home {
      for _ in 0..<count { _ = send("GET", path, bearer: true) }
    }
  }

  /// `POST /v1/mobile/session/refresh`; false when it did not give a new envelope.
  @discardableResult
  public func refresh(using token: String? = nil) -> Bool {
    guard let refreshToken = machine.beginRefresh(using: token) else { return false }
    let response = send(
      "POST", "/v1/mobile/session/refresh", json: ["refreshToken": refreshToken], bearer: false)
    let end = machine.refreshAnswered(
      status: response?.status, error: lastError,
      envelope: (response?.jsonObject as? [String: Any]).map(SessionClientMachine.Envelope.init))
    switch end {
    case .refused(let why):
      if let why { wipe(why) }
      return false
    case .renewed(let bootstrapChanged):
      if bootstrapChanged || behaviours.sessionClientReloadsOnRefresh {
        loadBootstrap(because: "bootstrapVersion changed")
      }
      return true
    }
  }

  // MARK: Bootstrap

  func loadBootstrap(because why: String) {
    guard let response = send("GET", "/v1/mobile/api/me", bearer: true), response.status == 200
    else { return }
    bootstrapLoads += 1
    bootstrapVersion = (response.jsonObject as? [String: Any])?["bootstrapVersion"] as? Int
    if let version = bootstrapVersion { machine.storage["bootstrapVersion"] = String(version) }
    note("bootstrap loaded (\(why))")
  }

  /// A cold start: the bootstrap is loaded when a session exists.
  public func coldStart() {
    guard machine.coldStart() else { return }
    if refresh() { loadBootstrap(because: "cold start") }
  }

  /// Someone else sends `token` to the refresh endpoint (a stolen, replayed token).
  public func replay(_ token: String) -> HTTPResponse? {
    send(
      "POST", "/v1/mobile/session/refresh", json: ["refreshToken": token], bearer: false,
      fromElsewhere: true)
  }

  /// A navigation inside the app: no bootstrap reload (the contract says never).
  public func navigate() {
    if behaviours.sessionClientReloadsOnNavigation { loadBootstrap(because: "navigation") }
  }

  public func background() { backgroundedAt = environment.clock.now }

  /// Back to the foreground: past the app's threshold the bootstrap is reloaded.
  public func foreground() {
    let threshold =
      behaviours.sessionClientForegroundThreshold ?? build.sessionForegroundReload ?? 600
    if let since = backgroundedAt, environment.clock.now.timeIntervalSince(since) > threshold {
      loadBootstrap(because: "back after \(Int(environment.clock.now.timeIntervalSince(since)))s")
    }
    backgroundedAt = nil
  }

  /// An invalidation event (a push, a websocket message) reloads the bootstrap.
  public func invalidated() { loadBootstrap(because: "invalidation event") }

  // MARK: Session endpoints

  public func logOut(everywhere: Bool = false) {
    let response = send(
      "POST", everywhere ? "/v1/mobile/session/logout-all" : "/v1/mobile/session/logout",
      bearer: true)
    if machine.keepsStateAfterLogout(status: response?.status) {
      note("the sign-out was not answered: the local state is kept")
      return
    }
    // The backend may never hear of it (no network): the device forgets the session anyway,
    // and the server's ends with its TTL.
    wipe(everywhere ? .logoutEverywhere : .logout)
  }

  /// The pieces of auth state the client still holds, by their contract names (seed 002:
  /// all of it is deleted after logout or a terminal refresh error; the backend's deviceId
  /// is not auth state: the next login sends it back).
  public var authStateHeld: [String] { machine.authStateHeld }

  /// The device ids the backend lists for this user.
  public func devices() -> [String] {
    guard let response = call("/v1/mobile/session/devices"),
      let list = (response.jsonObject as? [String: Any])?["devices"] as? [[String: Any]]
    else { return [] }
    return list.compactMap { $0["deviceId"] as? String }
  }

  public func deleteDevice(_ id: String) {
    _ = call("/v1/mobile/session/devices/\(id)", method: "DELETE")
  }
}
