import Foundation

/// The client rules of seed 002's session contract, with no I/O: what the client keeps (the
/// envelope in secure storage, the access token in memory), when it refreshes (once for every
/// call that found the access token expired: single flight), and when it forgets everything
/// (logout, or a refresh error after which no refresh can succeed). `SessionClient` sends the
/// requests and writes the evidence.
///
/// A refresh is two events: `beginRefresh` picks the token it presents, `refreshAnswered`
/// takes the backend's answer. A second refresh or any other change of the stored session
/// between them is the single-flight rule broken inside the client, and traps in a debug
/// build.
struct SessionClientMachine: Sendable {
  /// The client bugs the session pack's controls make (`session-client.*`).
  struct Behaviours: Sendable {
    var noSingleFlight = false
    var keepsStateOnTerminalError = false
    var wipeKeepsRefreshToken = false
    var keepsOldRefreshToken = false
    var wipesOnlyAfterConfirmedLogout = false
  }

  enum Phase: Sendable, Equatable {
    /// The login screen.
    case signedOut
    /// The home screen, with a session.
    case signedIn
    /// A refresh presenting `presented` is in flight; `signedIn`: the phase it returns to.
    case refreshing(presented: String, signedIn: Bool)
  }

  /// Why local auth state is wiped.
  enum Wipe: Sendable, Equatable {
    case logout
    case logoutEverywhere
    /// The backend answered a contract code after which the session cannot come back.
    case terminal(String)

    /// As the client's note says it.
    var reason: String {
      switch self {
      case .logout: "logout"
      case .logoutEverywhere: "logout-all"
      case .terminal(let code): "terminal: \(code)"
      }
    }
  }

  /// The contract's envelope (`accessToken`, `refreshToken`, `sessionId`, `deviceId`,
  /// `bootstrapVersion`), as a login or a refresh answers it.
  struct Envelope: Sendable, Equatable {
    var accessToken: String?
    var refreshToken: String?
    var sessionId: String?
    var deviceId: String?
    var bootstrapVersion: Int?

    init(
      accessToken: String? = nil, refreshToken: String? = nil, sessionId: String? = nil,
      deviceId: String? = nil, bootstrapVersion: Int? = nil
    ) {
      self.accessToken = accessToken
      self.refreshToken = refreshToken
      self.sessionId = sessionId
      self.deviceId = deviceId
      self.bootstrapVersion = bootstrapVersion
    }

    init(json: [String: Any]) {
      accessToken = json["accessToken"] as? String
      refreshToken = json["refreshToken"] as? String
      sessionId = json["sessionId"] as? String
      deviceId = json["deviceId"] as? String
      bootstrapVersion = json["bootstrapVersion"] as? Int
    }
  }

  /// A private call's answer, judged.
  enum AfterCall: Sendable, Equatable {
    case done
    /// The access token expired: refresh once, then send the call again.
    case refreshAndRetry
    case wipe(Wipe)
  }

  /// A refresh's answer, judged.
  enum RefreshEnd: Sendable, Equatable {
    /// A new envelope; `bootstrapChanged` when it carries another `bootstrapVersion`.
    case renewed(bootstrapChanged: Bool)
    /// No new envelope; the wipe the answer calls for, if any.
    case refused(Wipe?)
  }

  /// After a call: the codes that end the session (seed 002's `session_expired`,
  /// `refresh_reused`), and after a refresh also `profile_banned`.
  static let terminalAfterCall: Set<String> = ["session_expired", "refresh_reused"]
  static let terminalAfterRefresh: Set<String> = [
    "refresh_reused", "session_expired", "profile_banned",
  ]

  let behaviours: Behaviours
  private(set) var phase: Phase = .signedOut
  /// Secure storage: the envelope but the access token, and the passkey relying party.
  var storage: [String: String] = [:]
  private(set) var accessToken: String?
  /// The refresh token the last successful refresh replaced, and the access token a wipe
  /// dropped: kept for the harness (a replay is an attacker's move, never the client's).
  private(set) var retiredRefreshToken: String?
  private(set) var retiredAccessToken: String?

  init(behaviours: Behaviours = Behaviours()) { self.behaviours = behaviours }

  /// The app shows its home screen (a session, or one being refreshed).
  var signedIn: Bool {
    switch phase {
    case .signedOut: false
    case .signedIn: true
    case .refreshing(_, let signedIn): signedIn
    }
  }

  var isRefreshing: Bool {
    if case .refreshing = phase { true } else { false }
  }

  /// The pieces of auth state the client still holds, by their contract names (the backend's
  /// deviceId is not auth state: the next login sends it back).
  var authStateHeld: [String] {
    (accessToken == nil ? [] : ["accessToken"])
      + ["refreshToken", "sessionId", "bootstrapVersion"].filter { storage[$0] != nil }
  }

  /// A login answered with `envelope`: the whole envelope replaces the stored one.
  mutating func signIn(_ envelope: Envelope) {
    assert(!isRefreshing, "a login completed while a refresh was in flight")
    store(envelope)
    phase = .signedIn
  }

  private mutating func store(_ envelope: Envelope) {
    accessToken = envelope.accessToken
    if let token = envelope.refreshToken { storage["refreshToken"] = token }
    if let id = envelope.sessionId { storage["sessionId"] = id }
    if let id = envelope.deviceId { storage["deviceId"] = id }
    if let version = envelope.bootstrapVersion { storage["bootstrapVersion"] = String(version) }
  }

  /// A private call answered `status` with the contract code `error`.
  func afterCall(status: Int?, error: String?, retried: Bool) -> AfterCall {
    guard status == 401, let error else { return .done }
    if error == "access_token_expired" && !retried { return .refreshAndRetry }
    return Self.terminalAfterCall.contains(error) ? .wipe(.terminal(error)) : .done
  }

  /// The tokens the refreshes of `expiredCalls` calls that found the access token expired
  /// together present, one refresh each; nil presents the stored token when the refresh runs.
  /// Single flight: one refresh serves them all.
  func refreshes(forExpiredCalls expiredCalls: Int) -> [String?] {
    guard expiredCalls > 0 else { return [] }
    guard behaviours.noSingleFlight else { return [nil] }
    return Array(repeating: storage["refreshToken"], count: expiredCalls)
  }

  /// A refresh starts, presenting `token` or the stored one; nil when there is none.
  mutating func beginRefresh(using token: String? = nil) -> String? {
    assert(!isRefreshing, "a second refresh while one is in flight (single flight)")
    guard let presented = token ?? storage["refreshToken"] else { return nil }
    phase = .refreshing(presented: presented, signedIn: signedIn)
    return presented
  }

  /// The refresh in flight was answered `status`, with `error` or `envelope`; nil status: no
  /// answer at all (no network), which ends nothing.
  mutating func refreshAnswered(status: Int?, error: String?, envelope: Envelope?) -> RefreshEnd {
    guard case .refreshing(let presented, let wasSignedIn) = phase else {
      assertionFailure("a refresh answer without a refresh in flight")
      return .refused(nil)
    }
    phase = wasSignedIn ? .signedIn : .signedOut
    guard let status else { return .refused(nil) }
    guard status == 200, let envelope else {
      guard let error, Self.terminalAfterRefresh.contains(error) else { return .refused(nil) }
      return .refused(.terminal(error))
    }
    let before = storage["bootstrapVersion"]
    if behaviours.keepsOldRefreshToken {
      accessToken = envelope.accessToken
    } else {
      if envelope.refreshToken != presented { retiredRefreshToken = presented }
      store(envelope)
    }
    return .renewed(bootstrapChanged: storage["bootstrapVersion"] != before)
  }

  /// Whether a sign-out answered `status` (nil: not answered) leaves the local state in place.
  func keepsStateAfterLogout(status: Int?) -> Bool {
    behaviours.wipesOnlyAfterConfirmedLogout && !(200..<300).contains(status ?? 0)
  }

  /// Local auth state gone, back to login; false when the client keeps it (a control's bug).
  /// The backend's device id outlives a session: the next login sends it back.
  mutating func wipe(_ wipe: Wipe) -> Bool {
    assert(!isRefreshing, "a wipe while a refresh is in flight")
    if case .terminal = wipe, behaviours.keepsStateOnTerminalError { return false }
    let device = storage["deviceId"]
    let refreshToken = storage["refreshToken"]
    retiredAccessToken = accessToken ?? retiredAccessToken
    retiredRefreshToken = refreshToken ?? retiredRefreshToken
    storage = [:]
    if let device { storage["deviceId"] = device }
    if behaviours.wipeKeepsRefreshToken, let refreshToken {
      storage["refreshToken"] = refreshToken
    }
    accessToken = nil
    phase = .signedOut
    return true
  }

  /// A cold start: the access token (in memory) is gone; a stored refresh token is a session
  /// to refresh. Answers whether there is one.
  mutating func coldStart() -> Bool {
    assert(!isRefreshing, "a process cannot restart inside its own refresh")
    accessToken = nil
    phase = storage["refreshToken"] == nil ? .signedOut : .signedIn
    return phase == .signedIn
  }
}
