import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

/// An APNs environment: development-signed builds get sandbox tokens, distribution builds
/// production ones (seed 000, checklist item 8; DESIGN.md rule 14).
public enum APNsEnvironment: String, Sendable, CaseIterable {
  case development, production

  /// The gateway that accepts tokens of this environment.
  public var origin: Origin {
    self == .development ? StackTopology.apnsSandbox : StackTopology.apnsProduction
  }
}

/// What Apple knows of the app's developer account: the team, its APNs auth keys (by key
/// id, the public half of each `.p8`) and the App IDs with the Push capability.
public struct AppleDeveloperAccount: Sendable {
  public var teamId: String
  public var keys: [String: Key]
  public var pushBundleIds: Set<String>

  public init(teamId: String, keys: [String: Key], pushBundleIds: Set<String>) {
    self.teamId = teamId
    self.keys = keys
    self.pushBundleIds = pushBundleIds
  }
}

/// The device tokens of both APNs environments and what was delivered to them: the state
/// Apple keeps between the device's OS and the provider API.
final class ApplePushNetwork: Sendable {
  struct Token: Sendable {
    var environment: APNsEnvironment
    var bundleId: String
    /// When the app was deleted from the device or the token dropped: the gateway then
    /// answers 410 Unregistered.
    var unregistered: Date?
  }

  private struct State: Sendable {
    var tokens: [String: Token] = [:]
    var inbox: [String: [String]] = [:]
  }

  private let state = Locked(State())

  /// A new device token for an app of `bundleId` in `environment` (64 hex characters).
  func mint(_ environment: APNsEnvironment, bundleId: String, random: RandomSource) -> String {
    let token = random.hex(byteCount: 32)
    state.withLock {
      $0.tokens[token] = Token(environment: environment, bundleId: bundleId, unregistered: nil)
    }
    return token
  }

  func token(_ value: String) -> Token? { state.withLock { $0.tokens[value] } }

  func unregister(_ value: String, at time: Date) {
    state.withLock { $0.tokens[value]?.unregistered = time }
  }

  func deliver(_ json: String, to token: String) {
    state.withLock { $0.inbox[token, default: []].append(json) }
  }

  /// What arrived for `token` since the last call.
  func drain(_ token: String) -> [String] {
    state.withLock { state in
      defer { state.inbox[token] = [] }
      return state.inbox[token] ?? []
    }
  }
}

/// Apple's provider API for one environment (`POST /3/device/<token>`), as Apple documents
/// it: a provider token (ES256 JWT, `kid` = key id, `iss` = team id, `iat` within the hour)
/// verified against the team's key, `apns-topic` the bundle id the token was minted for,
/// `apns-push-type` required, 4 KiB payloads, and Apple's status codes and `reason` bodies.
///
/// HTTP/1.1 here where Apple speaks HTTP/2: only qualify's own backend model talks to it, and
/// what the verdict rests on is the headers and the answers, not the framing.
///
/// `/_device/…` is the device's OS side (the private channel a phone keeps with APNs):
/// registering for a token, and receiving what the gateway accepted.
final class APNsGateway: HTTPHandler, Sendable {
  static let maximumPayload = 4096

  let environment: APNsEnvironment
  let account: AppleDeveloperAccount
  let network: ApplePushNetwork
  let context: StackContext

  init(
    environment: APNsEnvironment, account: AppleDeveloperAccount, network: ApplePushNetwork,
    context: StackContext
  ) {
    self.environment = environment
    self.account = account
    self.network = network
    self.context = context
  }

  private var source: String { environment == .production ? "apns" : "apns-sandbox" }

  func handle(_ request: HTTPRequest) -> HTTPResponse {
    let path = request.path
    if path.hasPrefix("/3/device/") && request.method == "POST" {
      return send(request, token: String(path.dropFirst("/3/device/".count)))
    }
    switch (request.method, path) {
    case ("POST", "/_device/register"): return register(request)
    case ("GET", "/_device/notifications"): return notifications(request)
    case ("POST", "/_device/unregister"):
      guard let token = request.jsonObject?["token"] as? String else {
        return .problem(400, "token required")
      }
      network.unregister(token, at: context.clock.now)
      return .json(["unregistered": token])
    default: return .notFound
    }
  }

  private func reject(_ status: Int, _ reason: String, token: String?, why: String = "")
    -> HTTPResponse
  {
    var body: [String: Any] = ["reason": reason]
    if status == 410, let token, let time = network.token(token)?.unregistered {
      body["timestamp"] = Int(time.timeIntervalSince1970 * 1000)
    }
    context.event(
      source,
      "rejected: \(status) \(reason)\(token.map { " (token \($0.prefix(8))…)" } ?? "")\(why.isEmpty ? "" : ": \(why)")"
    )
    return HTTPResponse.json(body, status: status).with("apns-id", UUID().uuidString)
  }

  private func send(_ request: HTTPRequest, token: String) -> HTTPResponse {
    guard let authorization = request.headers["authorization"],
      authorization.lowercased().hasPrefix("bearer ")
    else { return reject(403, "MissingProviderToken", token: nil) }
    guard
      let (header, claims) = JWT.verify(
        String(authorization.dropFirst(7)), keys: account.keys, algorithm: .es256),
      claims["iss"] as? String == account.teamId, header["kid"] != nil
    else { return reject(403, "InvalidProviderToken", token: nil) }
    let issued = (claims["iat"] as? NSNumber)?.doubleValue ?? 0
    if context.clock.now.timeIntervalSince1970 - issued > 3600 {
      return reject(403, "ExpiredProviderToken", token: nil)
    }
    guard let topic = request.headers["apns-topic"], !topic.isEmpty else {
      return reject(400, "MissingTopic", token: nil)
    }
    guard account.pushBundleIds.contains(topic) else {
      return reject(400, "TopicDisallowed", token: nil)
    }
    guard let pushType = request.headers["apns-push-type"],
      ["alert", "background", "voip", "complication", "fileprovider", "mdm", "liveactivity"]
        .contains(pushType)
    else { return reject(400, "InvalidPushType", token: nil) }
    guard request.body.count <= APNsGateway.maximumPayload else {
      return reject(413, "PayloadTooLarge", token: nil)
    }
    guard (try? JSONSerialization.jsonObject(with: Data(request.body))) is [String: Any] else {
      return reject(400, "PayloadEmpty", token: nil)
    }
    guard let known = network.token(token) else {
      return reject(400, "BadDeviceToken", token: token, why: "no device has this token")
    }
    guard known.environment == environment || context.behaviours.apnsAcceptsAnyEnvironment else {
      // A token of the other environment is not a token here (seed 000: a dev-signed build
      // against the production gateway).
      return reject(
        400, "BadDeviceToken", token: token,
        why:
          "a \(known.environment.rawValue) token sent to the \(environment.rawValue) gateway (\(environment.origin.host))"
      )
    }
    if known.unregistered != nil {
      return reject(410, "Unregistered", token: token, why: "the app or the token is gone")
    }
    guard known.bundleId == topic || context.behaviours.apnsIgnoresTopic else {
      return reject(
        400, "DeviceTokenNotForTopic", token: token,
        why: "apns-topic \(topic), the token was issued to \(known.bundleId)")
    }
    network.deliver(String(decoding: request.body, as: UTF8.self), to: token)
    let id = UUID().uuidString
    context.event(
      source,
      "accepted \(pushType) push for \(topic) (token \(token.prefix(8))…, a \(environment.rawValue) token)"
    )
    return HTTPResponse(status: 200).with("apns-id", id)
  }

  /// The OS asks for a token for an app whose build carries `aps-environment`.
  private func register(_ request: HTTPRequest) -> HTTPResponse {
    guard let bundleId = request.jsonObject?["bundleId"] as? String else {
      return .problem(400, "bundleId required")
    }
    guard account.pushBundleIds.contains(bundleId) else {
      // The App ID has no Push capability: registration fails on the device.
      return .json(
        ["error": "no valid aps-environment entitlement string found for application"], status: 403)
    }
    let token = network.mint(environment, bundleId: bundleId, random: context.random)
    context.event(source, "issued a \(environment.rawValue) token to \(bundleId)")
    return .json(["token": token])
  }

  private func notifications(_ request: HTTPRequest) -> HTTPResponse {
    guard let token = request.query("token") else { return .problem(400, "token required") }
    return .json(["notifications": network.drain(token)])
  }
}
