import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

/// What Google knows of a Firebase project: its id and sender id (project number), the
/// Android packages registered in it, and its service accounts (by `client_email`, the public
/// half of each key, by key id).
public struct FirebaseProject: Sendable {
  public var projectId: String
  public var senderId: String
  public var packages: Set<String>
  public var serviceAccounts: [String: (keyId: String, key: Key)]

  public init(
    projectId: String, senderId: String, packages: Set<String>,
    serviceAccounts: [String: (keyId: String, key: Key)]
  ) {
    self.projectId = projectId
    self.senderId = senderId
    self.packages = packages
    self.serviceAccounts = serviceAccounts
  }
}

/// The registration tokens FCM minted, bound to the project (sender id) and package they were
/// minted for, and what was delivered to them.
final class FirebaseNetwork: Sendable {
  struct Token: Sendable {
    var projectId: String
    var package: String
    var unregistered = false
  }

  private struct State: Sendable {
    var tokens: [String: Token] = [:]
    var inbox: [String: [String]] = [:]
    /// OAuth access tokens: token → (project, expiry).
    var accessTokens: [String: (project: String, expires: Date)] = [:]
  }

  private let state = Locked(State())
  let projects: [String: FirebaseProject]

  init(projects: [FirebaseProject]) {
    self.projects = Dictionary(projects.map { ($0.projectId, $0) }, uniquingKeysWith: { $1 })
  }

  func mint(projectId: String, package: String, random: RandomSource) -> String {
    let token = random.token(byteCount: 24) + ":APA91b" + random.token(byteCount: 60)
    state.withLock { $0.tokens[token] = Token(projectId: projectId, package: package) }
    return token
  }

  func token(_ value: String) -> Token? { state.withLock { $0.tokens[value] } }

  func unregister(_ value: String) { state.withLock { $0.tokens[value]?.unregistered = true } }

  func deliver(_ json: String, to token: String) {
    state.withLock { $0.inbox[token, default: []].append(json) }
  }

  func drain(_ token: String) -> [String] {
    state.withLock { state in
      defer { state.inbox[token] = [] }
      return state.inbox[token] ?? []
    }
  }

  func grant(_ token: String, project: String, until expiry: Date) {
    state.withLock { $0.accessTokens[token] = (project, expiry) }
  }

  func project(ofAccessToken token: String, at now: Date) -> String? {
    state.withLock { state in
      guard let entry = state.accessTokens[token], entry.expires > now else { return nil }
      return entry.project
    }
  }
}

/// Google's OAuth 2.0 token endpoint for service accounts (RFC 7523 JWT bearer grant): an
/// RS256 assertion signed with the service account's key, `scope` naming Firebase messaging,
/// `aud` the token endpoint, answered with a one-hour access token.
final class GoogleOAuth: HTTPHandler, Sendable {
  static let scope = "https://www.googleapis.com/auth/firebase.messaging"

  let network: FirebaseNetwork
  let context: StackContext

  init(network: FirebaseNetwork, context: StackContext) {
    self.network = network
    self.context = context
  }

  func handle(_ request: HTTPRequest) -> HTTPResponse {
    guard request.method == "POST", request.path == "/token" else { return .notFound }
    func fail(_ error: String, _ description: String) -> HTTPResponse {
      context.event("google-oauth", "refused: \(error): \(description)")
      return .json(["error": error, "error_description": description], status: 400)
    }
    guard request.formValue("grant_type") == "urn:ietf:params:oauth:grant-type:jwt-bearer",
      let assertion = request.formValue("assertion"),
      let (header, claims, _, _) = JWT.parse(assertion),
      let email = claims["iss"] as? String
    else { return fail("invalid_grant", "Invalid JWT Signature.") }
    guard
      let project = network.projects.values.first(where: { $0.serviceAccounts[email] != nil }),
      let account = project.serviceAccounts[email],
      header["kid"] as? String == account.keyId,
      JWT.verify(assertion, keys: [account.keyId: account.key]) != nil
    else { return fail("invalid_grant", "Invalid JWT Signature.") }
    guard claims["aud"] as? String == StackTopology.googleOAuth.url("/token") else {
      return fail("invalid_grant", "Invalid JWT: aud must be the token endpoint")
    }
    guard
      (claims["scope"] as? String ?? "").split(separator: " ").contains(
        Substring(GoogleOAuth.scope))
    else { return fail("invalid_scope", "firebase.messaging scope required") }
    let now = context.clock.now
    let expires = (claims["exp"] as? NSNumber)?.doubleValue ?? 0
    guard expires > now.timeIntervalSince1970 else {
      return fail("invalid_grant", "Invalid JWT: Token must be a short-lived token")
    }
    let token = "ya29." + context.secret(byteCount: 32)
    network.grant(token, project: project.projectId, until: now.addingTimeInterval(3600))
    context.event("google-oauth", "issued an access token to \(email) (\(project.projectId))")
    return .json(["access_token": token, "expires_in": 3599, "token_type": "Bearer"])
  }
}

/// FCM HTTP v1 (`POST /v1/projects/<project>/messages:send`) as Google documents it: an OAuth
/// access token of a service account of that project, a registration token bound to the
/// project (sender id) and package it was minted for, and Google's error shapes
/// (`SENDER_ID_MISMATCH`, `UNREGISTERED`, `INVALID_ARGUMENT`, `UNAUTHENTICATED`).
///
/// `/_device/…` is the device's side (Google Play services): registering the app for a
/// token with the sender id of its `google-services.json`, and receiving messages.
final class FCMGateway: HTTPHandler, Sendable {
  let network: FirebaseNetwork
  let context: StackContext

  init(network: FirebaseNetwork, context: StackContext) {
    self.network = network
    self.context = context
  }

  func handle(_ request: HTTPRequest) -> HTTPResponse {
    let path = request.path
    if request.method == "POST", path.hasPrefix("/v1/projects/"), path.hasSuffix("/messages:send") {
      let project = String(
        path.dropFirst("/v1/projects/".count).dropLast("/messages:send".count))
      return send(request, project: project)
    }
    switch (request.method, path) {
    case ("POST", "/_device/register"): return register(request)
    case ("GET", "/_device/notifications"):
      guard let token = request.query("token") else { return .problem(400, "token required") }
      return .json(["notifications": network.drain(token)])
    case ("POST", "/_device/unregister"):
      guard let token = request.jsonObject?["token"] as? String else {
        return .problem(400, "token required")
      }
      network.unregister(token)
      return .json(["unregistered": token])
    default: return .notFound
    }
  }

  private func error(
    _ code: Int, _ status: String, _ message: String, fcm errorCode: String? = nil
  ) -> HTTPResponse {
    var error: [String: Any] = ["code": code, "message": message, "status": status]
    if let errorCode {
      error["details"] = [
        [
          "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
          "errorCode": errorCode,
        ]
      ]
    }
    context.event("fcm", "rejected: \(code) \(errorCode ?? status): \(message)")
    return .json(["error": error], status: code)
  }

  private func send(_ request: HTTPRequest, project: String) -> HTTPResponse {
    guard let authorization = request.headers["authorization"],
      authorization.lowercased().hasPrefix("bearer "),
      let granted = network.project(
        ofAccessToken: String(authorization.dropFirst(7)), at: context.clock.now)
    else {
      return error(
        401, "UNAUTHENTICATED",
        "Request had invalid authentication credentials. Expected OAuth 2 access token.")
    }
    guard granted == project else {
      return error(
        403, "PERMISSION_DENIED", "Permission 'cloudmessaging.messages.create' denied on resource")
    }
    guard let message = request.jsonObject?["message"] as? [String: Any],
      let token = message["token"] as? String, !token.isEmpty
    else {
      return error(
        400, "INVALID_ARGUMENT", "Request contains an invalid argument.", fcm: "INVALID_ARGUMENT")
    }
    guard let known = network.token(token) else {
      return error(
        400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token",
        fcm: "INVALID_ARGUMENT")
    }
    if known.unregistered {
      return error(404, "NOT_FOUND", "Requested entity was not found.", fcm: "UNREGISTERED")
    }
    guard known.projectId == project || context.behaviours.fcmIgnoresProject else {
      return error(403, "PERMISSION_DENIED", "SenderId mismatch", fcm: "SENDER_ID_MISMATCH")
    }
    let body =
      (try? JSONSerialization.data(withJSONObject: message, options: [.sortedKeys]))
      .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    network.deliver(body, to: token)
    let name = "projects/\(project)/messages/\(context.random.hex(byteCount: 8))"
    context.event("fcm", "accepted for \(known.package) (token \(token.prefix(8))…, \(project))")
    return .json(["name": name])
  }

  /// Play services register the app with the sender id of its `google-services.json`.
  private func register(_ request: HTTPRequest) -> HTTPResponse {
    guard let object = request.jsonObject, let projectId = object["projectId"] as? String,
      let package = object["package"] as? String
    else { return .problem(400, "projectId and package required") }
    guard let project = network.projects[projectId], project.packages.contains(package) else {
      return .json(["error": "SERVICE_NOT_AVAILABLE"], status: 403)
    }
    let token = network.mint(projectId: projectId, package: package, random: context.random)
    context.event("fcm", "issued a registration token to \(package) (\(projectId))")
    return .json(["token": token])
  }
}
