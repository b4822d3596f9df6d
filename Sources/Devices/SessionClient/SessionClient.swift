import Artifacts
import Foundation
import HTTP
import QualifyCore

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
  let environment: DeviceEnvironment
  private var source: String { "\(build.platform.rawValue)/\(name)" }

  /// Secure storage: the envelope but the access token (kept in memory).
  public private(set) var secureStorage: [String: String] = [:]
  public private(set) var accessToken: String?
  public private(set) var screen: Screen = .login
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
  public private(set) var loginSentDeviceId: String?
  public private(set) var deviceIdBeforeLogin: String?
  /// The refresh token the last successful refresh replaced: kept for the harness (a replay
  /// is an attacker's move, never the client's), outside secure storage.
  public private(set) var retiredRefreshToken: String?
  /// The last response from the backend.
  public var lastResponse: HTTPResponse? { responses.last?.response }

  init(name: String, build: AppBuild, behaviours: ShellBehaviours, environment: DeviceEnvironment)
    throws
  {
    self.name = name
    self.build = build
    self.behaviours = behaviours
    self.environment = environment
    native = try NativeHTTPStack(
      source: "\(build.platform.rawValue)/\(name) native",
      policy: TransportPolicy(build: build, behaviours: behaviours), environment: environment,
      keepsCookies: false)
  }

  private func note(_ summary: String) { environment.decision(source, summary) }

  public func markStep() { responses = [] }

  private func url(_ path: String) -> String {
    let base = build.frontend.apiOrigin.value
    return (base.hasSuffix("/") ? String(base.dropLast()) : base) + path
  }

  private func send(_ method: String, _ path: String, json: [String: Any]? = nil, bearer: Bool)
    -> HTTPResponse?
  {
    var headers: HTTPHeaders = ["Accept": "application/json"]
    var body: [UInt8] = []
    if let json {
      headers.set("Content-Type", "application/json")
      body = Array(
        (try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])) ?? Data())
    }
    if bearer, let accessToken { headers.set("Authorization", "Bearer \(accessToken)") }
    guard
      case .sent(let exchange) = native.send(
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
      secureStorage["deviceId"] = nil
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
    store(envelope)
    screen = .home
    loadBootstrap(because: "after login")
  }

  /// The whole envelope replaces the stored one (the access token in memory).
  private func store(_ envelope: [String: Any]) {
    accessToken = envelope["accessToken"] as? String
    for key in ["refreshToken", "sessionId", "deviceId"] {
      if let value = envelope[key] as? String { secureStorage[key] = value }
    }
    if let version = envelope["bootstrapVersion"] as? Int {
      secureStorage["bootstrapVersion"] = String(version)
    }
  }

  /// Local auth state gone: back to login.
  private func wipe(_ why: String) {
    if behaviours.sessionClientKeepsStateOnTerminalError && why.hasPrefix("terminal") {
      note("terminal refresh error (\(why)); the local state is kept")
      return
    }
    let device = secureStorage["deviceId"]
    secureStorage = [:]
    // The backend's device id outlives a session: the next login sends it back.
    if let device { secureStorage["deviceId"] = device }
    accessToken = nil
    screen = .login
    note("local auth state wiped (\(why)): login")
  }

  // MARK: Private calls and refresh

  /// A private call; an expired access token is refreshed once, then the call retried.
  @discardableResult
  public func call(_ path: String, method: String = "GET") -> HTTPResponse? {
    guard screen == .home else { return nil }
    var response = send(method, path, bearer: true)
    if response?.status == 401, lastError == "access_token_expired" {
      guard refresh() else { return response }
      response = send(method, path, bearer: true)
    }
    if response?.status == 401, ["session_expired", "refresh_reused"].contains(lastError ?? "") {
      wipe("terminal: \(lastError ?? "")")
    }
    return response
  }

  /// `count` private calls that find the access token expired at the same moment: with
  /// single flight one refresh serves them all; without, each refreshes with the same token.
  public func concurrentCalls(_ count: Int, path: String) {
    guard screen == .home else { return }
    var expired = 0
    for _ in 0..<count {
      let response = send("GET", path, bearer: true)
      if response?.status == 401, lastError == "access_token_expired" { expired += 1 }
    }
    guard expired > 0 else { return }
    if behaviours.sessionClientNoSingleFlight {
      let token = secureStorage["refreshToken"]
      for _ in 0..<expired {
        guard refresh(using: token) else { break }
      }
    } else {
      note("\(expired) calls wait on one refresh (single flight)")
      _ = refresh()
    }
    if screen == .home {
      for _ in 0..<count { _ = send("GET", path, bearer: true) }
    }
  }

  /// `POST /v1/mobile/session/refresh`; false when it did not give a new envelope.
  @discardableResult
  public func refresh(using token: String? = nil) -> Bool {
    guard let refreshToken = token ?? secureStorage["refreshToken"] else { return false }
    let before = secureStorage["bootstrapVersion"]
    guard
      let response = send(
        "POST", "/v1/mobile/session/refresh", json: ["refreshToken": refreshToken], bearer: false)
    else { return false }
    guard response.status == 200, let envelope = response.jsonObject as? [String: Any] else {
      if ["refresh_reused", "session_expired", "profile_banned"].contains(lastError ?? "") {
        wipe("terminal: \(lastError ?? "")")
      }
      return false
    }
    if behaviours.sessionClientKeepsOldRefreshToken {
      accessToken = envelope["accessToken"] as? String
    } else {
      if envelope["refreshToken"] as? String != refreshToken { retiredRefreshToken = refreshToken }
      store(envelope)
    }
    if secureStorage["bootstrapVersion"] != before || behaviours.sessionClientReloadsOnRefresh {
      loadBootstrap(because: "bootstrapVersion changed")
    }
    return true
  }

  // MARK: Bootstrap

  private func loadBootstrap(because why: String) {
    guard let response = send("GET", "/v1/mobile/api/me", bearer: true), response.status == 200
    else { return }
    bootstrapLoads += 1
    bootstrapVersion = (response.jsonObject as? [String: Any])?["bootstrapVersion"] as? Int
    if let version = bootstrapVersion { secureStorage["bootstrapVersion"] = String(version) }
    note("bootstrap loaded (\(why))")
  }

  /// A cold start: the bootstrap is loaded when a session exists.
  public func coldStart() {
    accessToken = nil
    guard secureStorage["refreshToken"] != nil else {
      screen = .login
      return
    }
    screen = .home
    if refresh() { loadBootstrap(because: "cold start") }
  }

  /// Someone else sends `token` to the refresh endpoint (a stolen, replayed token).
  public func replay(_ token: String) -> HTTPResponse? {
    send("POST", "/v1/mobile/session/refresh", json: ["refreshToken": token], bearer: false)
  }

  /// A navigation inside the app: no bootstrap reload (the contract says never).
  public func navigate() {
    if behaviours.sessionClientReloadsOnNavigation { loadBootstrap(because: "navigation") }
  }

  public func background() { backgroundedAt = environment.clock.now }

  /// Back to the foreground: past the app's threshold the bootstrap is reloaded.
  public func foreground() {
    let threshold = build.sessionForegroundReload ?? 600
    if let since = backgroundedAt, environment.clock.now.timeIntervalSince(since) > threshold {
      loadBootstrap(because: "back after \(Int(environment.clock.now.timeIntervalSince(since)))s")
    }
    backgroundedAt = nil
  }

  /// An invalidation event (a push, a websocket message) reloads the bootstrap.
  public func invalidated() { loadBootstrap(because: "invalidation event") }

  // MARK: Session endpoints

  public func logOut(everywhere: Bool = false) {
    _ = send(
      "POST", everywhere ? "/v1/mobile/session/logout-all" : "/v1/mobile/session/logout",
      bearer: true)
    wipe(everywhere ? "logout-all" : "logout")
  }

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
