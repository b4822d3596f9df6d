import Artifacts
import Foundation
import HTTP
import QualifyCore

/// The mock of the app's Django backend (seed 000): the configuration endpoint the app
/// bootstraps from, the heartbeat, the confidential OIDC client with the mobile flow
/// (`Backend+Authentication.swift`) and the protected API behind CSRF (`Backend+API.swift`).
///
/// Sendable as a monitor, not by the compiler's proof: sessions, tokens and the cached JWKS
/// are read and written only while the recursive `lock` is held — inside `handle` (the whole
/// request, back-channel calls included) or in `liveSessions` — so the server's thread and
/// the world's never touch them at once.
public final class Backend: HTTPHandler, @unchecked Sendable {
  /// A Django session (`CSRF_USE_SESSIONS`: the CSRF secret lives here).
  struct Session {
    var key: String
    var user: String?
    var csrfSecret: String
    var expires: Date
    var oidcState: String?
    var oidcNonce: String?
    var idToken: String?
    var mobileFlag: MobileFlag?
    var logoutFlag: (scheme: String, state: String)?
  }

  /// `{scheme, code_challenge, state, created_at}` stored by `authenticate` (rule 2).
  struct MobileFlag {
    var scheme: String
    var codeChallenge: String
    var state: String
    var createdAt: Date
  }

  /// The one-time token's cache entry: `{session_key, code_challenge}` (rule 4).
  struct TokenEntry {
    var sessionKey: String
    var codeChallenge: String
    var expires: Date
  }

  public let origin: Origin
  public let settings: BackendSettings
  /// Who the backend is in the evidence (`backend`, `companion-backend`).
  public let name: String
  let context: StackContext
  let sessionCookie: String
  /// Sends a request to another component of the stack in-process (the back channel to the
  /// identity provider), returning its response or nil when the origin is not served.
  let backChannel: @Sendable (ClientRequest) -> HTTPResponse?
  let lock = NSRecursiveLock()
  var sessions: [String: Session] = [:]
  var tokens: [String: TokenEntry] = [:]
  var jwks: [String: Any]?
  /// Push: the devices registered (`Channel(type="push")`) and the sender's state.
  var pushChannels: [PushChannel] = []
  /// The messages of each thread (`GET /api/v1.0/messages/?thread_id=`), as JMAP-style
  /// body parts.
  var threadMessages: [String: [[String: Any]]] = [:]
  let push: PushCredentials?
  /// The loc-keys the pushes name (the app profile's `push.bannerKeys`: title then body).
  let pushLocKeys: [String]
  var apnsProviderToken: (token: String, issued: Date)?
  /// FCM HTTP v1 with the backend's service account.
  let fcmSender: FCMSender?
  /// The IdP is a real system (`--stack`): its id_tokens are dated by its own clock, so they
  /// are checked against the wall clock, whatever `advance` did to the world's.
  var idTokensFromRealTime = false
  private var router = Router()

  init(
    origin: Origin, settings: BackendSettings, name: String = "backend",
    sessionCookie: String = "sessionid", push: PushCredentials? = nil, pushLocKeys: [String] = [],
    context: StackContext, backChannel: @escaping @Sendable (ClientRequest) -> HTTPResponse?
  ) {
    self.origin = origin
    self.settings = settings
    self.name = name
    self.sessionCookie = sessionCookie
    self.context = context
    self.backChannel = backChannel
    self.push = push
    self.pushLocKeys = pushLocKeys
    fcmSender = push.map {
      FCMSender(credentials: $0, context: context, backChannel: backChannel)
    }
    router.get("/api/v1.0/config/") { [unowned self] request in self.config(request) }
    router.get("/__heartbeat__/") { [unowned self] _ in self.heartbeat() }
    router.get("/__lbheartbeat__/") { [unowned self] _ in self.heartbeat() }
    router.get("/api/v1.0/authenticate/") { [unowned self] in self.authenticate($0) }
    router.get("/api/v1.0/callback/") { [unowned self] in self.callback($0) }
    router.post("/api/v1.0/mobile/auth/exchange/") { [unowned self] in self.exchange($0) }
    router.get("/api/v1.0/logout/") { [unowned self] in self.logout($0) }
    router.get("/api/v1.0/logout-callback/") { [unowned self] in self.logoutCallback($0) }
    router.post("/api/v1.0/mobile/auth/logout/") { [unowned self] in
      self.protected($0, unsafe: true) { self.mobileLogout($0, $1) }
    }
    router.get("/api/v1.0/users/me/") { [unowned self] in self.protected($0) { self.me($0, $1) } }
    router.get("/api/v1.0/threads/") { [unowned self] in self.protected($0) { self.threads($0, $1) }
    }
    router.get("/api/v1.0/messages/") { [unowned self] in
      self.protected($0) { self.messages($0, $1) }
    }
    router.get("/api/v1.0/blob/*") { [unowned self] in self.protected($0) { self.download($0, $1) }
    }
    router.post("/api/v1.0/blob/upload/") { [unowned self] in
      self.protected($0, unsafe: true) { self.upload($0, $1) }
    }
    router.post("/api/v1.0/users/me/channels/") { [unowned self] in
      self.protected($0, unsafe: true) { self.registerChannel($0, $1) }
    }
    router.get("/api/v1.0/users/me/channels/") { [unowned self] in
      self.protected($0) { self.listChannels($0, $1) }
    }
    router.on("DELETE", "/api/v1.0/users/me/channels/*") { [unowned self] in
      self.protected($0, unsafe: true) { self.deleteChannel($0, $1) }
    }
    router.post("/api/v1.0/_qualify/messages/") { [unowned self] in self.deliverMessage($0) }
    router.get("/") { [unowned self] in self.home($0) }
  }

  public func handle(_ request: HTTPRequest) -> HTTPResponse {
    lock.lock()
    defer { lock.unlock() }
    return router.handle(request)
  }

  /// `/api/v1.0/config/`: what the app resolves at bootstrap (seed 000, *OTA updates*: the
  /// manifest URL is served here so the followed channel changes without a native build).
  func config(_ request: HTTPRequest) -> HTTPResponse {
    var body: [String: Any] = [
      "ENVIRONMENT": context.channel.rawValue,
      "PUSH_ENABLED": settings.pushEnabled,
      "MOBILE_AUTH_CALLBACK_SCHEMES": settings.callbackSchemes,
    ]
    let manifest = context.behaviours.configManifestURLOverride ?? settings.otaManifestURL
    body["MOBILE_OTA_MANIFEST_URL"] = manifest ?? NSNull()
    return .json(body)
  }

  func heartbeat() -> HTTPResponse {
    context.behaviours.backendUnhealthy
      ? .json(["status": "error", "database": "unreachable"], status: 503)
      : .json(["status": "ok"])
  }

  func home(_ request: HTTPRequest) -> HTTPResponse {
    let user = session(of: request)?.user
    return .html(
      "<!doctype html><html><head><title>Messages</title></head><body><p>\(user.map { "Signed in as \(HTMLText.escape($0))" } ?? "Not signed in")</p></body></html>"
    )
  }

  // MARK: Sessions

  /// The live session named by the request's cookie.
  func session(of request: HTTPRequest) -> Session? {
    guard let key = request.cookies[sessionCookie], let session = sessions[key] else { return nil }
    guard session.expires > context.clock.now else {
      sessions[key] = nil
      return nil
    }
    return session
  }

  func newSession() -> Session {
    let session = Session(
      key: context.secret(byteCount: 24), user: nil, csrfSecret: context.secret(byteCount: 24),
      expires: context.clock.now.addingTimeInterval(settings.sessionAge))
    sessions[session.key] = session
    return session
  }

  /// `Set-Cookie` for the session cookie (persistent, as Django's default is).
  func sessionCookieHeader(_ session: Session?) -> String {
    guard let session else {
      return "\(sessionCookie)=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax"
        + (origin.isSecure ? "; Secure" : "")
    }
    let age = Int(session.expires.timeIntervalSince(context.clock.now))
    return "\(sessionCookie)=\(session.key); Path=/; Max-Age=\(age); HttpOnly; SameSite=Lax"
      + (origin.isSecure ? "; Secure" : "")
  }

  /// How many live sessions belong to `user` (what the harness observes of the backend).
  public func liveSessions(of user: String) -> Int {
    lock.lock()
    defer { lock.unlock() }
    let now = context.clock.now
    return sessions.values.filter { $0.user == user && $0.expires > now }.count
  }

  func event(_ summary: String) {
    context.event(name, summary)
  }
}
