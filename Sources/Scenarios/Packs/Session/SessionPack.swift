import Devices
import Foundation
import HTTP
import MockStack
import QualifyCore
import QualifyCrypto
import StackPorts

/// The session pack: seed 002's mobile session contract, both halves — the backend (the
/// envelope, rotation and reuse detection, no-store, deviceId, logout-all, devices) and the
/// client (Bearer, the envelope replaced, single flight, the state wiped, the bootstrap
/// policy). Its actions leave the last response for `expect status`, `json` and `header`.
enum SessionPack: ScenarioPack {
  static let name = "session"
  static let shells: Set<ShellKind> = [.sessionContract]

  static let actions: [ActionSpec] = loginActions + enrolmentActions

  static let loginActions: [ActionSpec] = [
    ActionSpec(
      .app, "signs in as", [.value("user", .user)],
      summary:
        "Password login (`POST /v1/mobile/auth/password/login`): no deviceId at the first login, the backend's one after; the envelope stored, the bootstrap loaded.",
      example: "heymoov signs in as first"
    ) { context in
      let client = try context.sessionClient()
      guard let role = context.arguments["user"], let user = context.world.users[role],
        let password = user.password
      else { throw ScenarioRuntimeError("no test user for \(context.arguments["user"] ?? "?")") }
      client.logIn(login: user.username, password: password)
      return outcome(
        client, "signed in as \(user.username)", path: "/v1/mobile/auth/password/login")
    },
    ActionSpec(
      .app, "registers a passkey",
      summary:
        "Signed in: the device's authenticator makes a P-256 passkey for the backend's challenge (`passkeys/register/options` then `verify`).",
      example: "heymoov registers a passkey"
    ) { context in
      let client = try context.sessionClient()
      client.registerPasskey()
      return outcome(
        client, "registered a passkey", path: "/v1/mobile/auth/passkeys/register/verify")
    },
    ActionSpec(
      .app, "asks for a passkey challenge",
      summary:
        "`POST /v1/mobile/auth/passkeys/login/options`: the challenge the next assertion signs.",
      example: "heymoov asks for a passkey challenge"
    ) { context in
      let client = try context.sessionClient()
      client.beginPasskeyLogin()
      return outcome(client, "got a passkey challenge")
    },
    ActionSpec(
      .app, "answers the passkey challenge",
      summary:
        "The assertion (ES256 over authenticatorData and the client data's hash, the counter up by one) to `passkeys/login/verify`; a session on success.",
      example: "heymoov answers the passkey challenge"
    ) { context in
      let client = try context.sessionClient()
      client.finishPasskeyLogin()
      return outcome(
        client, "answered the passkey challenge", path: "/v1/mobile/auth/passkeys/login/verify")
    },
    ActionSpec(
      .world, "attacker reuses the dropped access token of", [.value("app", .app)],
      summary:
        "The access token APP dropped at its sign-out (or wipe) calls `GET /v1/mobile/api/me`: an ended session must refuse it.",
      example: "attacker reuses the dropped access token of heymoov"
    ) { context in
      let client = try context.world.sessionClient(named: context.arguments["app"])
      guard let token = client.retiredAccessToken else {
        throw ScenarioRuntimeError("\(client.name) dropped no access token")
      }
      var result = Outcome(
        "called /v1/mobile/api/me with the dropped access token of \(client.name)")
      result.response = client.get("/v1/mobile/api/me", bearerToken: token)
      return result
    },
    ActionSpec(
      .app, "answers the same passkey challenge again",
      summary:
        "The challenge already answered, signed afresh with the next counter (a double submit): a challenge is single use.",
      example: "heymoov answers the same passkey challenge again"
    ) { context in
      let client = try context.sessionClient()
      client.finishPasskeyLogin(again: true)
      return outcome(
        client, "answered the same challenge again", path: "/v1/mobile/auth/passkeys/login/verify")
    },
    ActionSpec(
      .app, "answers a fresh challenge with a cloned passkey",
      summary:
        "A copy of the device's passkey (its counter back at 1) answers a fresh challenge: a counter that does not move forward is a cloned authenticator.",
      example: "heymoov answers a fresh challenge with a cloned passkey"
    ) { context in
      let client = try context.sessionClient()
      client.beginPasskeyLogin()
      client.finishPasskeyLogin(count: 1)
      return outcome(
        client, "answered with a cloned passkey", path: "/v1/mobile/auth/passkeys/login/verify")
    },
    ActionSpec(
      .world, "attacker replays the last passkey assertion of", [.value("app", .app)],
      summary: "The assertion APP last sent comes back to the login endpoint (a captured request).",
      example: "attacker replays the last passkey assertion of heymoov"
    ) { context in
      let client = try context.world.sessionClient(named: context.arguments["app"])
      guard let assertion = client.lastAssertion else {
        throw ScenarioRuntimeError("\(client.name) sent no passkey assertion to replay")
      }
      var result = Outcome("replayed the last passkey assertion of \(client.name)")
      result.response = client.sendAssertion(assertion)
      return result
    },
    ActionSpec(
      .world, "attacker forges a passkey assertion for", [.value("app", .app)],
      summary:
        "A fresh challenge answered in the name of APP's passkey, signed with another key.",
      example: "attacker forges a passkey assertion for heymoov"
    ) { context in
      let client = try context.world.sessionClient(named: context.arguments["app"])
      guard var assertion = client.lastAssertion,
        var response = assertion["response"] as? [String: Any],
        let options = client.sendRaw("/v1/mobile/auth/passkeys/login/options")?.jsonObject
          as? [String: Any], let challenge = options["challenge"] as? String,
        let rp = options["rpId"] as? String
      else { throw ScenarioRuntimeError("\(client.name) has no passkey to forge for") }
      let data = Array(
        #"{"type":"webauthn.get","challenge":"\#(challenge)","origin":"https://\#(rp)"}"#.utf8)
      let auth = Digest.sha256(Array(rp.utf8)) + [0x05, 0, 0, 0x7F, 0xFF]
      let forger = try Key.generateP256()
      response["clientDataJSON"] = Base64URL.encode(data)
      response["authenticatorData"] = Base64URL.encode(auth)
      response["signature"] = Base64URL.encode(try forger.signSHA256(auth + Digest.sha256(data)))
      assertion["response"] = response
      var result = Outcome("forged a passkey assertion for \(client.name)")
      result.response = client.sendAssertion(assertion)
      return result
    },
    ActionSpec(
      .app, "calls", [.value("path", .text)],
      summary:
        "A private call with `Authorization: Bearer`; an expired access token is refreshed once and the call retried; a terminal error returns to login.",
      example: "heymoov calls /v1/mobile/api/me"
    ) { context in
      let client = try context.sessionClient()
      client.call(context.arguments["path"] ?? "/v1/mobile/api/me")
      return outcome(client, "called \(context.arguments["path"] ?? "")")
    },
    ActionSpec(
      .app, "makes concurrent calls", [.value("count", .integer)],
      summary:
        "COUNT private calls find the access token expired at once: with single flight one refresh serves them all.",
      example: "heymoov makes concurrent calls 2"
    ) { context in
      let client = try context.sessionClient()
      client.concurrentCalls(Int(context.arguments["count"] ?? "2") ?? 2, path: "/v1/mobile/api/me")
      return outcome(client, "made concurrent calls")
    },
    ActionSpec(
      .app, "refreshes its session",
      summary: "`POST /v1/mobile/session/refresh` with the stored refresh token.",
      example: "heymoov refreshes its session"
    ) { context in
      let client = try context.sessionClient()
      client.refresh()
      return outcome(client, "refreshed", path: "/v1/mobile/session/refresh")
    },
    ActionSpec(
      .app, "signs out", [.flag("everywhere")],
      summary:
        "`POST /v1/mobile/session/logout` (or `logout-all` with `everywhere`); the local state wiped.",
      example: "heymoov signs out everywhere"
    ) { context in
      let client = try context.sessionClient()
      client.logOut(everywhere: context.arguments.has("everywhere"))
      return outcome(client, "signed out")
    },
    ActionSpec(
      .app, "deletes the device of", [.value("other", .app)],
      summary: "`DELETE /v1/mobile/session/devices/{deviceId}` for OTHER's device.",
      example: "heymoov deletes the device of tablet"
    ) { context in
      let client = try context.sessionClient()
      guard let name = context.arguments["other"], let other = context.world.session?.clients[name],
        let device = other.secureStorage["deviceId"]
      else { throw ScenarioRuntimeError("no device of \(context.arguments["other"] ?? "?")") }
      client.deleteDevice(device)
      return outcome(client, "deleted device \(device)")
    },
    ActionSpec(
      .app, "cold starts",
      summary: "The app starts again: with a stored session it refreshes and loads the bootstrap.",
      example: "heymoov cold starts"
    ) { context in
      let client = try context.sessionClient()
      client.coldStart()
      return outcome(client, "cold started")
    },
    ActionSpec(
      .app, "navigates",
      summary: "A navigation inside the app (the bootstrap is not reloaded).",
      example: "heymoov navigates"
    ) { context in
      let client = try context.sessionClient()
      client.navigate()
      return outcome(client, "navigated")
    },
    ActionSpec(
      .app, "goes to the background", summary: "The app leaves the foreground.",
      example: "heymoov goes to the background"
    ) { context in
      let client = try context.sessionClient()
      client.background()
      return Outcome("\(client.name) went to the background")
    },
    ActionSpec(
      .app, "returns to the foreground",
      summary:
        "Back in the foreground: past the profile's `session.foregroundReload` the bootstrap is reloaded.",
      example: "heymoov returns to the foreground"
    ) { context in
      let client = try context.sessionClient()
      client.foreground()
      return outcome(client, "returned to the foreground")
    },
    ActionSpec(
      .app, "receives an invalidation event",
      summary: "A context-invalidation event reaches the app: the bootstrap is reloaded.",
      example: "heymoov receives an invalidation event"
    ) { context in
      let client = try context.sessionClient()
      client.invalidated()
      return outcome(client, "was told its context changed")
    },
    ActionSpec(
      .world, "attacker replays the retired refresh token of", [.value("app", .app)],
      summary:
        "A refresh token APP already rotated out comes back to the refresh endpoint (a stolen token).",
      example: "attacker replays the retired refresh token of heymoov"
    ) { context in
      guard let name = context.arguments["app"], let client = context.world.session?.clients[name]
      else { throw ScenarioRuntimeError("no session app \(context.arguments["app"] ?? "?")") }
      guard let token = client.retiredRefreshToken else {
        return Outcome(
          "no retired refresh token of \(name) to replay",
          problem: .init(
            kind: .failed, message: "\(name) never had a refresh token rotated out",
            reason: .sessionState))
      }
      var result = Outcome("replayed a retired refresh token of \(name)")
      result.response = client.replay(token)
      return result
    },
    ActionSpec(
      .world, "the backend bumps the bootstrap version",
      summary: "Something changes the user's context on the backend: `bootstrapVersion` goes up.",
      example: "the backend bumps the bootstrap version", powers: [.backendHook]
    ) { context in
      try context.world.sessionBackendHook("/_qualify/bootstrap-version", form: "")
      return Outcome("the bootstrap version went up")
    },
    ActionSpec(
      .world, "the backend bans", [.value("user", .user)],
      summary: "The user's profile is banned on the backend.",
      example: "the backend bans first", powers: [.backendHook]
    ) { context in
      guard let role = context.arguments["user"], let user = context.world.users[role] else {
        throw ScenarioRuntimeError("no user \(context.arguments["user"] ?? "?")")
      }
      try context.world.sessionBackendHook(
        "/_qualify/ban", form: "user=" + Query.escape(user.username))
      return Outcome("\(user.username) is banned")
    },
  ]

  static let expectations: [ExpectationSpec] = [
    ExpectationSpec(
      "session on", [.value("app", .app)], negatable: true,
      summary:
        "APP holds a session (signed in, a refresh token in secure storage) rather than the login screen; `no session` also wants nothing of the session left behind (access token, refresh token, sessionId, bootstrapVersion).",
      example: "expect no session on heymoov"
    ) { context in
      let client = try context.sessionClient("app")
      let live = client.screen == .home && client.secureStorage["refreshToken"] != nil
      if live != context.negated {
        // On the login screen with a refresh token kept, the next launch signs back in.
        let held = client.authStateHeld
        guard context.negated, let first = held.first else { return nil }
        return context.fail(
          .authStateLeft, first,
          "\(client.name) is \(client.screen == .home ? "on its home screen" : "on the login screen") but still holds \(held.joined(separator: ", ")) (seed 002: all local auth state is deleted after logout or a terminal refresh error)"
        )
      }
      return context.fail(
        .sessionState, live ? "signed-in" : "login",
        live ? "\(client.name) is still signed in" : "\(client.name) is on the login screen")
    },
    ExpectationSpec(
      "refreshes", [.value("count", .integer)],
      summary: "How many refresh requests the apps sent during this step.",
      example: "expect refreshes 1"
    ) { context in
      let clients = context.world.session?.clients.values.map { $0 } ?? []
      let path = "/v1/mobile/session/refresh"
      let refreshes = clients.flatMap(\.responses).filter { $0.path == path }
      let wanted = Int(context.arguments["count"] ?? "") ?? -1
      // The exchanges show what happened: a second refresh with a retired token, say.
      let shown = refreshes.map { exchange in
        "POST /v1/mobile/session/refresh → \(exchange.response.status)"
          + (((exchange.response.jsonObject as? [String: Any])?["error"] as? String).map {
            " \($0)"
          }
            ?? "")
      }
      return refreshes.count == wanted
        ? nil
        : context.fail(
          .refreshCount, String(refreshes.count),
          "\(refreshes.count) refresh requests, not \(wanted): \(shown.joined(separator: "; "))")
    },
    ExpectationSpec(
      "bootstrap loads on", [.value("app", .app), .value("count", .integer)],
      summary:
        "How many times APP has loaded its bootstrap (`GET /v1/mobile/api/me`) since it was installed.",
      example: "expect bootstrap loads on heymoov 2"
    ) { context in
      let client = try context.sessionClient("app")
      let wanted = Int(context.arguments["count"] ?? "") ?? -1
      return client.bootstrapLoads == wanted
        ? nil
        : context.fail(
          .bootstrapLoads, String(client.bootstrapLoads),
          "\(client.name) loaded its bootstrap \(client.bootstrapLoads) times, not \(wanted)")
    },
    ExpectationSpec(
      "opaque envelope on", [.value("app", .app)],
      summary:
        "The envelope APP holds follows the contract's forms: opaque tokens (never a JWT the client could read roles from) and a deviceId that is a backend UUID.",
      example: "expect opaque envelope on heymoov"
    ) { context in
      let client = try context.sessionClient("app")
      guard let access = client.accessToken, let refresh = client.secureStorage["refreshToken"]
      else { return context.missing(.sessionState, "\(client.name) holds no envelope") }
      for (name, token) in [("accessToken", access), ("refreshToken", refresh)]
      where SessionPack.isJWT(token) {
        return context.fail(
          .envelopeForm, name,
          "\(name) is a JWT the client could decode (roles and identity in the token): the contract wants an opaque token"
        )
      }
      let device = client.secureStorage["deviceId"] ?? ""
      guard UUID(uuidString: device) != nil else {
        return context.fail(
          .envelopeForm, "deviceId", "deviceId \(device) is not a UUID (mobile_devices.id)")
      }
      return nil
    },
    ExpectationSpec(
      "no-store on", [.value("app", .app)],
      summary:
        "Every answer of this step from an auth, onboarding, recovery, refresh or bootstrap endpoint carried `Cache-Control: no-store`.",
      example: "expect no-store on heymoov"
    ) { context in
      let client = try context.sessionClient("app")
      let sensitive = client.responses.filter {
        $0.path.hasPrefix("/v1/mobile/auth/") || $0.path == "/v1/mobile/session/refresh"
          || $0.path == "/v1/mobile/api/me" || $0.path.hasPrefix(SessionClient.onboarding)
          || $0.path.hasPrefix(SessionClient.recovery)
      }
      guard !sensitive.isEmpty else {
        return context.missing(.sessionState, "no auth, refresh or bootstrap answer this step")
      }
      let cached = sensitive.filter {
        !($0.response.headers["Cache-Control"] ?? "").lowercased().contains("no-store")
      }
      return cached.isEmpty
        ? nil
        : context.fail(
          .noStore, cached[0].path,
          "\(cached.map(\.path).joined(separator: ", ")) answered without Cache-Control: no-store (\(cached[0].response.headers["Cache-Control"] ?? "no Cache-Control"))"
        )
    },
    ExpectationSpec(
      "login sent a device id on", [.value("app", .app)], negatable: true,
      summary: "APP's last login sent a deviceId (with `no`: omitted it, as a first login must).",
      example: "expect no login sent a device id on heymoov"
    ) { context in
      let client = try context.sessionClient("app")
      let sent = client.loginSentDeviceId != nil
      if sent != context.negated { return nil }
      return context.fail(
        .deviceId, sent ? "sent" : "omitted",
        sent
          ? "\(client.name) sent deviceId \(client.loginSentDeviceId ?? "") at a login with no backend deviceId"
          : "\(client.name) sent no deviceId")
    },
    ExpectationSpec(
      "same device on", [.value("app", .app)],
      summary:
        "The envelope's deviceId is the one APP had before this login: the backend's own id, sent back.",
      example: "expect same device on heymoov"
    ) { context in
      let client = try context.sessionClient("app")
      let now = client.secureStorage["deviceId"]
      return now != nil && now == client.deviceIdBeforeLogin
        ? nil
        : context.fail(
          .deviceId, "changed",
          "deviceId is \(now ?? "none"), it was \(client.deviceIdBeforeLogin ?? "none")")
    },
  ]

  static let failureReasons: [FailureReason] = [
    .sessionState, .authStateLeft, .refreshCount, .bootstrapLoads, .noStore, .deviceId,
    .envelopeForm,
  ]

  /// Three dot-separated base64url parts whose first decodes to a JSON header with `alg`.
  static func isJWT(_ token: String) -> Bool {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let header = Base64URL.decode(String(parts[0])),
      let json = try? JSONSerialization.jsonObject(with: Data(header)) as? [String: Any]
    else { return false }
    return json["alg"] != nil
  }

  /// The action's outcome: the answer from `path` when given (a login is followed by its
  /// bootstrap), else the last one.
  static func outcome(_ client: SessionClient, _ what: String, path: String? = nil) -> Outcome {
    var result = Outcome(
      "\(client.name) \(what): \(client.screen.rawValue)"
        + (client.lastError.map { " (last error \($0))" } ?? ""))
    result.response =
      path.flatMap { path in client.responses.last { $0.path == path }?.response }
      ?? client.lastResponse
    return result
  }
}

extension FailureReason {
  static let sessionState = FailureReason(
    "session-state", detail: "signed-in or login", "The app is (or is not) signed in.")
  static let authStateLeft = FailureReason(
    "auth-state-left", detail: "the first piece held",
    "The app left the session's state behind after it ended.")
  static let refreshCount = FailureReason(
    "refresh-count", detail: "how many", "The apps sent another number of refreshes.")
  static let bootstrapLoads = FailureReason(
    "bootstrap-loads", detail: "how many", "The bootstrap was loaded another number of times.")
  static let noStore = FailureReason(
    "no-store", detail: "the path", "An auth, refresh or bootstrap answer may be cached.")
  static let envelopeForm = FailureReason(
    "envelope-form", detail: "the field", "An envelope field does not have the contract's form.")
  static let deviceId = FailureReason(
    "device-id", detail: "sent, omitted or changed", "The deviceId rules do not hold.")
}
