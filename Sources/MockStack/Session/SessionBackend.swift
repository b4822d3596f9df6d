import Artifacts
import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

/// The backend half of seed 002's mobile session contract: password login, the
/// `SessionEnvelope`, rotating opaque refresh tokens with reuse detection (a replayed token
/// revokes its whole session), logout, logout-all, the device list and its deletion, the
/// bootstrap `GET /v1/mobile/api/me`, `Cache-Control: no-store`, and the contract's errors.
/// Passkeys: registration and login with WebAuthn assertions (ES256 over
/// `authenticatorData ‖ SHA-256(clientDataJSON)`), checking the challenge (single use, five
/// minutes), the origin, the rpId hash, the user-presence flag and the sign count.
public final class SessionBackend: HTTPHandler, Sendable {
  public let origin: Origin
  let context: StackContext
  /// The accounts the scenarios sign in as.
  public let testUsers: [RealmSettings.User]
  /// How long an access token and a refresh token live.
  public static let accessTTL: TimeInterval = 15 * 60
  public static let refreshTTL: TimeInterval = 30 * 24 * 3600
  /// How long a WebAuthn challenge may be answered.
  public static let challengeTTL: TimeInterval = 5 * 60
  /// How recent a login a sensitive action (registering a passkey) needs.
  public static let reauthWindow: TimeInterval = 10 * 60

  /// The WebAuthn relying party: the API host's registrable domain (`heymoov.example`).
  public var rpId: String {
    let labels = origin.host.split(separator: ".")
    return labels.count > 2 ? labels.dropFirst().joined(separator: ".") : origin.host
  }

  /// The origin a native app's WebAuthn client data names (an associated domain).
  public var expectedOrigin: String { "https://" + rpId }

  struct Session {
    var id: String
    var user: String
    var deviceId: String
    var accessToken: String
    var accessExpires: Date
    /// Its refresh tokens and whether it ended (rotation and reuse detection).
    var refresh: RefreshTokenMachine
    /// When the user last proved who they are (a login, not a refresh).
    var authenticatedAt: Date
  }

  struct Challenge {
    var purpose: String
    var user: String?
    var issued: Date
  }

  struct Credential {
    var user: String
    var publicKeyPEM: String
    var signCount: UInt32
  }

  struct State {
    var challenges: [String: Challenge] = [:]
    var credentials: [String: Credential] = [:]
    var sessions: [String: Session] = [:]
    /// `mobile_devices.id` → the user it belongs to.
    var devices: [String: String] = [:]
    var bootstrapVersion = 42
    var banned: Set<String> = []
    /// Each account's password (nil: a passkey-only account made at onboarding).
    var passwords: [String: String?] = [:]
    /// A password a recovery replaced, still accepted when a control keeps it.
    var formerPasswords: [String: String] = [:]
    /// Invitations and recovery links, by their code; the flows they opened, by token.
    var invitations: [String: Enrolment.Link] = [:]
    var recoveryLinks: [String: Enrolment.Link] = [:]
    var enrolments: [String: Enrolment] = [:]
    /// The mail the backend sent: the recovery codes, by address.
    var outbox: [String: [String]] = [:]
  }

  let state = Locked(State())

  /// - Parameter accounts: the logins the app's profile names (`testUsers`), else three of
  ///   its own; each gets a password from the run's seed.
  public init(origin: Origin, context: StackContext, accounts: [String] = []) {
    self.origin = origin
    self.context = context
    let names =
      accounts.isEmpty ? (1...3).map { "user\($0)@\(origin.host)" } : accounts
    let users = names.map { name in
      RealmSettings.User(
        username: name, password: context.secret(byteCount: 12), email: name, firstName: nil,
        lastName: nil)
    }
    testUsers = users
    state.withLock { state in
      for user in users { state.passwords[user.username] = user.password }
    }
  }

  var behaviours: StackBehaviours { context.behaviours }

  func event(_ summary: String) { context.event("session-backend", summary) }

  public func handle(_ request: HTTPRequest) -> HTTPResponse {
    var router = Router()
    router.post("/v1/mobile/auth/password/login") { [unowned self] in self.passwordLogin($0) }
    router.post("/v1/mobile/session/refresh") { [unowned self] in self.refresh($0) }
    router.post("/v1/mobile/auth/passkeys/login/options") { [unowned self] _ in
      self.state.withLock { self.passkeyOptions(purpose: "webauthn.get", user: nil, state: &$0) }
    }
    router.post("/v1/mobile/auth/passkeys/login/verify") { [unowned self] in self.passkeyLogin($0) }
    router.post("/v1/mobile/auth/passkeys/register/options") { [unowned self] in
      self.authenticated($0) { session, state in
        // A new credential needs a recent login: a stolen access token alone cannot add one.
        guard
          self.behaviours.sessionSkipsReauth
            || self.context.clock.now.timeIntervalSince(session.authenticatedAt)
              <= SessionBackend.reauthWindow
        else {
          return self.error(403, "reauth_required", "Sign in again to register a passkey.")
        }
        return self.passkeyOptions(purpose: "webauthn.create", user: session.user, state: &state)
      }
    }
    router.post("/v1/mobile/auth/passkeys/register/verify") { [unowned self] request in
      self.authenticated(request) { session, state in
        self.passkeyRegister(request, user: session.user, state: &state)
      }
    }
    routeSessions(&router)
    routeEnrolment(&router)
    routeBootstrap(&router)
    return router.handle(request)
  }

  /// Logout, logout everywhere, and the user's devices.
  private func routeSessions(_ router: inout Router) {
    router.post("/v1/mobile/session/logout") { [unowned self] in
      self.authenticated($0) { session, state in
        state.sessions[session.id]?.refresh.end(.loggedOut)
        return HTTPResponse(status: 204)
      }
    }
    router.post("/v1/mobile/session/logout-all") { [unowned self] in
      self.authenticated($0) { session, state in
        for (id, other) in state.sessions where other.user == session.user {
          if self.behaviours.sessionLogoutAllKeepsOthers && id != session.id { continue }
          state.sessions[id]?.refresh.end(.loggedOutEverywhere)
        }
        return HTTPResponse(status: 204)
      }
    }
    router.get("/v1/mobile/session/devices") { [unowned self] in
      self.authenticated($0) { session, state in
        let devices = state.devices.filter { $0.value == session.user }.keys.sorted()
        return .json([
          "devices": devices.map { ["deviceId": $0, "current": $0 == session.deviceId] }
        ])
      }
    }
    router.on("DELETE", "/v1/mobile/session/devices/*") { [unowned self] request in
      self.authenticated(request) { session, state in
        let device = String(request.path.dropFirst("/v1/mobile/session/devices/".count))
        guard state.devices[device] == session.user else {
          return self.error(404, "not_found", "no such device")
        }
        state.devices[device] = nil
        if !self.behaviours.sessionDeviceDeleteKeepsSessions {
          for (id, other) in state.sessions where other.deviceId == device {
            state.sessions[id]?.refresh.end(.deviceDeleted)
          }
        }
        return HTTPResponse(status: 204)
      }
    }
  }

  /// The bootstrap (`/v1/mobile/api/me`), and the mock-only hooks that change it.
  private func routeBootstrap(_ router: inout Router) {
    router.get("/v1/mobile/api/me") { [unowned self] in
      self.authenticated($0) { session, state in
        self.noStore(
          .json([
            "user": ["id": session.user], "person": [:], "roles": [], "permissions": [],
            "auth": [
              "sessionId": session.id, "deviceId": session.deviceId, "authMethod": "password",
              "authLevel": "aal1", "passkeyEnrolled": false,
              "reauthRequiredAt": ISO8601.string(
                from: session.authenticatedAt.addingTimeInterval(SessionBackend.reauthWindow)),
            ],
            "bootstrapVersion": state.bootstrapVersion,
          ]))
      }
    }
    // Mock-only hooks: what happens elsewhere in the product.
    router.post("/_qualify/bootstrap-version") { [unowned self] _ in
      self.state.withLock { $0.bootstrapVersion += 1 }
      return HTTPResponse(status: 204)
    }
    router.post("/_qualify/ban") { [unowned self] request in
      let user = request.form.first { $0.name == "user" }?.value ?? ""
      self.state.withLock { _ = $0.banned.insert(user) }
      return HTTPResponse(status: 204)
    }
  }

  /// `Cache-Control: no-store`, unless a control makes the backend forget it.
  func noStore(_ response: HTTPResponse) -> HTTPResponse {
    behaviours.sessionForgetsNoStore ? response : response.with("Cache-Control", "no-store")
  }

  /// A contract error: `{"error": CODE, "message": …}`.
  func error(_ status: Int, _ code: String, _ message: String) -> HTTPResponse {
    noStore(.json(["error": code, "message": message], status: status))
  }

  func fields(_ request: HTTPRequest) -> [String: Any] {
    request.jsonObject ?? [:]
  }

  /// `POST /v1/mobile/auth/password/login {login, password, deviceId?, platform, …}`.
  func passwordLogin(_ request: HTTPRequest) -> HTTPResponse {
    let body = fields(request)
    return state.withLock { state -> HTTPResponse in
      guard let login = body["login"] as? String, let password = body["password"] as? String,
        let known = state.passwords[login],
        known == password || state.formerPasswords[login] == password
      else {
        event("password login refused: invalid credentials")
        return error(401, "invalid_credentials", "Unknown login or wrong password.")
      }
      return openSession(for: login, body: body, how: "password", state: &state)
    }
  }

  /// What every flow that opens a session ends with (password, passkey, onboarding,
  /// recovery): a banned profile refused, the deviceId sent checked (one the backend issued
  /// to this user) or a new one issued, and the same envelope.
  func openSession(for user: String, body: [String: Any], how: String, state: inout State)
    -> HTTPResponse
  {
    if state.banned.contains(user) {
      return error(403, "profile_banned", "This profile is banned.")
    }
    if let refusal = deviceRefusal(body, user: user, how: how, state: state) { return refusal }
    let deviceId: String
    if let sent = body["deviceId"] as? String {
      deviceId = sent
      state.devices[sent] = user
    } else {
      deviceId = SessionBackend.uuid(context.random.bytes(16))
      state.devices[deviceId] = user
      event("new mobile device \(deviceId) for \(user)")
    }
    let session = newSession(user: user, deviceId: deviceId)
    state.sessions[session.id] = session
    event("session \(session.id) opened for \(user) on \(deviceId) (\(how))")
    return envelope(session, version: state.bootstrapVersion)
  }

  /// The refusal of a deviceId that is not one the backend issued to `user`, if it is not.
  func deviceRefusal(_ body: [String: Any], user: String, how: String, state: State)
    -> HTTPResponse?
  {
    guard let sent = body["deviceId"] as? String, state.devices[sent] != user,
      !behaviours.sessionAcceptsUnknownDevice
    else { return nil }
    event("\(how) refused: deviceId \(sent) is not a known mobile_devices.id")
    return error(400, "invalid_device", "deviceId is not a known device of this user.")
  }

  /// A version-4 UUID from 16 random bytes (`mobile_devices.id`).
  static func uuid(_ raw: [UInt8]) -> String {
    var b = raw
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    let hex = Hex.encode(b)
    let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
      String(
        hex[
          hex.index(
            hex.startIndex, offsetBy: range.lowerBound)..<hex.index(
              hex.startIndex, offsetBy: range.upperBound)])
    }
    return parts.joined(separator: "-")
  }

  /// An opaque random token; a JWT with the user's roles when a control breaks that rule.
  private func accessToken(for user: String) -> String {
    let opaque = context.secret(byteCount: 24)
    guard behaviours.sessionJWTAccessTokens else { return opaque }
    let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
    let claims = Base64URL.encode(Array(#"{"sub":"\#(user)","roles":["member"]}"#.utf8))
    let token = "\(header).\(claims).\(opaque)"
    context.redactor.register(token)
    return token
  }

  func newSession(user: String, deviceId: String) -> Session {
    let now = context.clock.now
    return Session(
      id: "ms_" + context.random.hex(byteCount: 8), user: user, deviceId: deviceId,
      accessToken: accessToken(for: user),
      accessExpires: now.addingTimeInterval(SessionBackend.accessTTL),
      refresh: RefreshTokenMachine(
        token: context.secret(byteCount: 32),
        expires: now.addingTimeInterval(SessionBackend.refreshTTL),
        behaviours: RefreshTokenMachine.Behaviours(
          noReuseDetection: behaviours.sessionNoReuseDetection,
          noRotation: behaviours.sessionNoRotation, leeway: behaviours.sessionRefreshLeeway)),
      authenticatedAt: now)
  }

  func envelope(_ session: Session, version: Int) -> HTTPResponse {
    return noStore(
      .json([
        "accessToken": session.accessToken,
        "accessExpiresAt": ISO8601.string(from: session.accessExpires),
        "refreshToken": session.refresh.current,
        "refreshExpiresAt": ISO8601.string(from: session.refresh.expires),
        "sessionId": session.id, "deviceId": session.deviceId, "bootstrapVersion": version,
      ]))
  }

  /// `POST /v1/mobile/session/refresh {refreshToken}`: a new envelope, the old refresh token
  /// retired; a retired one coming back revokes the session (`refresh_reused`).
  func refresh(_ request: HTTPRequest) -> HTTPResponse {
    guard let token = fields(request)["refreshToken"] as? String else {
      return error(400, "invalid_request", "refreshToken is required.")
    }
    return state.withLock { state -> HTTPResponse in
      guard var session = state.sessions.values.first(where: { $0.refresh.issued(token) })
      else {
        return error(401, "session_expired", "Unknown refresh token.")
      }
      let answer = session.refresh.refresh(
        token, now: context.clock.now, banned: state.banned.contains(session.user))
      if answer == .replayed {
        event("refresh token of \(session.id) replayed: the session is revoked")
      }
      if let (status, code, message) = answer.refusal {
        state.sessions[session.id] = session
        return error(status, code, message)
      }
      session.accessToken = accessToken(for: session.user)
      session.accessExpires = context.clock.now.addingTimeInterval(SessionBackend.accessTTL)
      if answer == .renewed(rotated: true) {
        session.refresh.rotate(to: context.secret(byteCount: 32))
      }
      state.sessions[session.id] = session
      event("session \(session.id) refreshed")
      return envelope(session, version: state.bootstrapVersion)
    }
  }

  /// A private route: `Authorization: Bearer <accessToken>` of a live session.
  private func authenticated(
    _ request: HTTPRequest, _ body: (Session, inout State) -> HTTPResponse
  ) -> HTTPResponse {
    let header = request.headers["Authorization"] ?? ""
    guard header.hasPrefix("Bearer ") else {
      return error(401, "unauthenticated", "Authorization: Bearer <accessToken> is required.")
    }
    let token = String(header.dropFirst("Bearer ".count))
    return state.withLock { state -> HTTPResponse in
      guard let session = state.sessions.values.first(where: { $0.accessToken == token }) else {
        return error(401, "session_expired", "Unknown access token.")
      }
      if case .ended(let ending) = session.refresh.state {
        return error(401, "session_expired", "The session has ended (\(ending.rawValue)).")
      }
      guard
        session.accessExpires.addingTimeInterval(behaviours.sessionAccessLeeway) > context.clock.now
      else {
        return error(401, "access_token_expired", "The access token has expired: refresh.")
      }
      return body(session, &state)
    }
  }
}
