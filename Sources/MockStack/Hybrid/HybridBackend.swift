import Artifacts
import Foundation
import HTTP
import QualifyCore

/// The Symfony site of seed 003 as its containers see it: server-rendered pages behind a form
/// login (`PHPSESSID`), the signed-in page carrying the user's id and salt for the container,
/// `RegisterNotificationDeviceApi` (`POST /api/android-register` and `/api/ios-register`),
/// logout running `DeleteDeviceTask`, `FirebaseNotification` sending FCM v1 with a
/// `targetUrl`, and the `.well-known` association files as the repository holds them.
///
/// The controller's and the logout's rules follow the backend's own PHP code as qualify read
/// it (`HybridBackendCode`): a backend whose code lacks a rule behaves as that code would.
public final class HybridBackend: HTTPHandler, Sendable {
  /// An `AppToken` row.
  public struct AppToken: Sendable, Equatable {
    public var type: String
    public var user: String
    public var value: String
    /// The session that registered it: its logout deletes the row.
    public var sessionId: String?
    /// `Device.notificationActivated`: the user's choice for this device.
    public var notificationActivated = true
  }

  /// A user of the site: an id, a login, a password, and the salt the container sends back as
  /// `userToken`.
  public struct User: Sendable {
    public var id: String
    public var login: String
    public var password: String
    public var salt: String
  }

  struct State {
    var sessions: [String: String] = [:]
    var tokens: [AppToken] = []
  }

  public let origin: Origin
  public let users: [User]
  let build: AppBuild
  let context: StackContext
  let sender: FCMSender
  private let state = Locked(State())

  static let sessionCookie = "PHPSESSID"
  /// The operator hook that names a user's id and salt (`HybridSitePort.account`).
  static let accountsHook = "/_qualify/accounts/"

  init(origin: Origin, build: AppBuild, context: StackContext, sender: FCMSender) {
    self.origin = origin
    self.build = build
    self.context = context
    self.sender = sender
    users = [("1001", "camille"), ("1002", "dominique"), ("1003", "sacha")].map { id, login in
      User(
        id: id, login: "\(login)@appplatform.example", password: context.secret(byteCount: 12),
        salt: context.secret(byteCount: 16))
    }
  }

  var code: HybridBackendCode { build.hybrid?.backendCode ?? HybridBackendCode() }

  /// The users as the scenarios bind them (`first`, `second`, …).
  public var testUsers: [RealmSettings.User] {
    users.map {
      RealmSettings.User(
        username: $0.login, password: $0.password, email: $0.login, firstName: nil, lastName: nil)
    }
  }

  /// The `AppToken` rows, in the order they were written.
  public var tokens: [AppToken] { state.withLock { $0.tokens } }

  public func user(login: String) -> User? { users.first { $0.login == login } }

  public func handle(_ request: HTTPRequest) -> HTTPResponse {
    let path = request.path
    switch (request.method, path) {
    case ("GET", AssociationFiles.applePath), ("HEAD", AssociationFiles.applePath):
      return wellKnown(build.hybrid?.appleAssociation, path: path)
    case ("GET", AssociationFiles.androidPath), ("HEAD", AssociationFiles.androidPath):
      return wellKnown(build.hybrid?.assetLinks, path: path)
    case ("GET", "/login"): return loginPage(next: request.query("_target_path") ?? "/")
    case ("POST", "/login"): return login(request)
    case ("GET", "/logout"), ("POST", "/logout"): return logout(request)
    case ("POST", "/api/android-register"): return register(request, type: "ANDROID")
    case ("POST", "/api/ios-register"): return register(request, type: "IOS")
    case ("POST", "/_qualify/notify"): return notify(request)
    case ("POST", "/_qualify/device-notifications"):
      let json = request.jsonObject ?? [:]
      let token = json["token"] as? String ?? ""
      let activated = json["activated"] as? Bool ?? true
      let found = state.withLock { state -> Bool in
        var found = false
        for index in state.tokens.indices where state.tokens[index].value == token {
          state.tokens[index].notificationActivated = activated
          found = true
        }
        return found
      }
      context.event(
        "site", "notifications \(activated ? "on" : "off") for the device \(token.prefix(8))…")
      return found ? .json(["activated": activated]) : .problem(404, "no such device")
    case ("GET", "/_qualify/tokens"):
      let user = request.query("user") ?? ""
      return .json(["count": tokens.filter { $0.user == user }.count])
    case ("GET", _) where path.hasPrefix(Self.accountsHook):
      let login = String(path.dropFirst(Self.accountsHook.count)).removingPercentEncoding ?? ""
      guard let user = user(login: login) else { return .json([String: String]()) }
      return .json(["id": user.id, "salt": user.salt])
    case ("GET", _): return page(request)
    default:
      return .problem(405, "Method not allowed")
    }
  }

  // MARK: Pages

  private func signedIn(_ request: HTTPRequest) -> User? {
    guard let session = request.cookies[Self.sessionCookie],
      let id = state.withLock({ $0.sessions[session] })
    else { return nil }
    return users.first { $0.id == id }
  }

  private func page(_ request: HTTPRequest) -> HTTPResponse {
    let path = request.path
    let titled: String
    if path == "/" {
      titled = "Accueil"
    } else if let id = path.split(separator: "/").last,
      path.hasPrefix("/booking/") || path.hasPrefix("/messages/")
    {
      titled = path.hasPrefix("/booking/") ? "Réservation \(id)" : "Conversation \(id)"
    } else {
      return .html(
        "<!doctype html><title>Introuvable</title><h1>Page introuvable</h1>", status: 404)
    }
    guard let user = signedIn(request) else {
      if path == "/" {
        return .html(
          """
          <!doctype html><html><head><meta charset="utf-8"><title>Accueil</title></head>
          <body><h1>Accueil</h1><a href="/login">Se connecter</a></body></html>
          """)
      }
      return .redirect(to: "/login?_target_path=" + Query.escape(path))
    }
    // The container reads the user's id and salt from the signed-in page to register its
    // FCM token (seed 003, 5.1: userId and userToken).
    return .html(
      """
      <!doctype html><html><head><meta charset="utf-8"><title>\(HTMLText.escape(titled))</title>
      <meta name="app-user" content="\(user.id):\(user.salt)"></head>
      <body data-page="\(HTMLText.escape(path))"><h1>\(HTMLText.escape(titled))</h1>
      <a id="settings" href="\(HTMLText.escape(build.hybrid?.settingsLink?.value ?? ""))">Activer les notifications</a>
      <form method="post" action="/logout"><button>Se déconnecter</button></form></body></html>
      """)
  }

  private func loginPage(next: String) -> HTTPResponse {
    .html(
      """
      <!doctype html><html><head><meta charset="utf-8"><title>Connexion</title></head><body>
      <form method="post" action="/login">
      <input type="hidden" name="_target_path" value="\(HTMLText.escape(next))">
      <input name="_username"><input type="password" name="_password"><button>Connexion</button>
      </form></body></html>
      """)
  }

  private func login(_ request: HTTPRequest) -> HTTPResponse {
    guard let user = users.first(where: { $0.login == request.formValue("_username") }),
      user.password == request.formValue("_password")
    else {
      context.event("site", "login refused for \(request.formValue("_username") ?? "?")")
      return loginPage(next: request.formValue("_target_path") ?? "/")
    }
    let session = context.random.hex(byteCount: 16)
    context.redactor.register(session)
    state.withLock { $0.sessions[session] = user.id }
    context.event("site", "\(user.login) signed in")
    var next = request.formValue("_target_path") ?? "/"
    if !next.hasPrefix("/") || next.hasPrefix("//") { next = "/" }
    return HTTPResponse.redirect(to: next).with(
      "Set-Cookie", "\(Self.sessionCookie)=\(session); Path=/; Secure; HttpOnly; SameSite=Lax")
  }

  /// Symfony's logout: the session ends and `LogoutEvent` runs `DeleteDeviceTask`, removing
  /// the token the session registered (seed 003, 5.1).
  private func logout(_ request: HTTPRequest) -> HTTPResponse {
    if let session = request.cookies[Self.sessionCookie] {
      let deletes = code.logoutDeletesToken?.value ?? true
      let removed = state.withLock { state -> Int in
        let user = state.sessions.removeValue(forKey: session)
        guard user != nil, deletes else { return 0 }
        let before = state.tokens.count
        state.tokens.removeAll { $0.sessionId == session }
        return before - state.tokens.count
      }
      context.event(
        "site",
        deletes
          ? "logout: DeleteDeviceTask removed \(removed) token\(removed == 1 ? "" : "s")"
          : "logout: the session ended; no DeleteDeviceTask runs, the tokens stay")
    }
    return HTTPResponse.redirect(to: "/login").with(
      "Set-Cookie", "\(Self.sessionCookie)=; Path=/; Max-Age=0; Secure; HttpOnly")
  }

  // MARK: RegisterNotificationDeviceApi

  private func register(_ request: HTTPRequest, type: String) -> HTTPResponse {
    // The parameters RegisterNotificationDeviceApi's own code reads (seed 003's otherwise).
    let form = code.registrationForm?.value ?? RegistrationForm()
    let userId = request.formValue(form.userId) ?? ""
    let salt = request.formValue(form.salt)
    let appToken = request.formValue(form.token) ?? ""
    guard !appToken.isEmpty, !userId.isEmpty else {
      context.event("site", "\(request.path): 400 invalid request parameters")
      return .text("Invalid request parameters", status: 400)
    }
    let checksSalt = code.checksUserSalt?.value ?? true
    guard let user = users.first(where: { $0.id == userId }), !checksSalt || user.salt == salt
    else {
      context.event("site", "\(request.path): 401 user authentication failed for \(userId)")
      return .text("User authentication failed", status: 401)
    }
    let moves = code.movesOtherUsersToken?.value ?? true
    let idempotent = code.idempotentForSameUser?.value ?? true
    let session = request.cookies[Self.sessionCookie]
    let answer = state.withLock { state -> String in
      if let existing = state.tokens.first(where: { $0.value == appToken }) {
        if existing.user == user.id && idempotent {
          return "Token already registered for this user"
        }
        if existing.user != user.id && moves {
          state.tokens.removeAll { $0.value == appToken }
        }
      }
      state.tokens.append(
        AppToken(type: type, user: user.id, value: appToken, sessionId: session))
      return "Token successfully registered"
    }
    context.event(
      "site", "\(request.path): \(answer) (user \(user.id), token \(appToken.prefix(8))…)")
    return .text(answer)
  }

  // MARK: FirebaseNotification

  /// What a business event causes (a booking request, a message): `sendToDevice` for each of
  /// the user's tokens, FCM v1 with `data.targetUrl`. Answers what FCM said for each.
  private func notify(_ request: HTTPRequest) -> HTTPResponse {
    let form = request.jsonObject ?? [:]
    guard let userId = form["userId"] as? String, let target = form["targetUrl"] as? String else {
      return .problem(400, "userId and targetUrl are required")
    }
    let project = build.hybrid?.backendFirebaseProject?.value ?? ""
    let rows = tokens.filter { $0.user == userId }
    var sent: [[String: Any]] = []
    // FirebaseNotification's early return on a device whose user turned notifications off.
    let honoursOptOut = code.honoursDeviceOptOut?.value ?? true
    for row in rows {
      if !row.notificationActivated && honoursOptOut {
        context.event(
          "push-sender", "token \(row.value.prefix(8))…: notifications are off for this device")
        continue
      }
      var message: [String: Any] = [
        "token": row.value,
        "notification": [
          "title": form["title"] as? String ?? "AppPlatform", "body": form["body"] as? String ?? "",
        ],
      ]
      if code.sendsTargetUrl?.value ?? true {
        message["data"] = ["targetUrl": target]
      }
      let (status, reason) = sender.send(message, project: project)
      context.event(
        "push-sender",
        "fcm → \(status) \(reason) for user \(userId) (token \(row.value.prefix(8))…, project \(project))"
      )
      sent.append(["token": String(row.value.prefix(8)), "status": status, "reason": reason])
    }
    if rows.isEmpty { context.event("push-sender", "user \(userId) has no device token") }
    return .json(["sent": sent])
  }

  // MARK: .well-known

  /// The file as committed, as JSON; a control makes the site redirect it (a CDN or a
  /// www-canonical rule), which neither OS follows.
  private func wellKnown(_ file: AssociationFileText?, path: String) -> HTTPResponse {
    if context.behaviours.wellKnownRedirects {
      return .redirect(to: "https://www.\(origin.host)\(path)", status: 301)
    }
    guard let file else { return .html("<!doctype html><h1>Page introuvable</h1>", status: 404) }
    return HTTPResponse(
      status: 200, headers: ["Content-Type": "application/json"], body: Array(file.text.utf8))
  }
}
