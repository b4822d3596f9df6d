import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

/// Apple's provider API for one environment (`POST /3/device/<token>`): the I/O around
/// `APNsStateMachine`, which holds the rules. Here: reading the headers, verifying the
/// provider token's ES256 signature against the team's key its `kid` names, and answering
/// with Apple's status codes, `reason` bodies and `apns-id`.
///
/// HTTP/1.1 here where Apple speaks HTTP/2: only qualify's own backend model talks to it, and
/// what the verdict rests on is the headers and the answers, not the framing.
///
/// `/_device/…` is the device's OS side (the private channel a phone keeps with APNs):
/// registering for a token, and receiving what the gateway accepted.
final class APNsGateway: HTTPHandler, Sendable {
  let environment: APNsEnvironment
  let network: ApplePushNetwork
  let context: StackContext

  init(environment: APNsEnvironment, network: ApplePushNetwork, context: StackContext) {
    self.environment = environment
    self.network = network
    self.context = context
  }

  private var source: String { environment == .production ? "apns" : "apns-sandbox" }

  func handle(_ request: HTTPRequest) -> HTTPResponse {
    let path = request.path
    if path.hasPrefix("/3/device/") || path == "/3/device" {
      // "The request used an invalid :method value. Only POST requests are supported."
      guard request.method == "POST" else {
        return HTTPResponse.json(["reason": "MethodNotAllowed"], status: 405)
          .with("apns-id", apnsID())
      }
      return send(request, token: String(path.dropFirst(min(path.count, "/3/device/".count))))
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
    case (_, let other) where !other.hasPrefix("/_device/"):
      // "The request contained an invalid :path value."
      return HTTPResponse.json(["reason": "BadPath"], status: 404).with("apns-id", apnsID())
    default: return .notFound
    }
  }

  /// The provider token as Apple reads it: the signature checked with the key of its `kid`.
  private func providerToken(_ request: HTTPRequest) -> APNsStateMachine.ProviderToken? {
    guard let authorization = request.headers["authorization"],
      authorization.lowercased().hasPrefix("bearer ")
    else { return nil }
    let jwt = String(authorization.dropFirst(7))
    guard let (header, claims, _, _) = JWT.parse(jwt) else {
      return APNsStateMachine.ProviderToken(signatureVerifies: false, team: nil, issuedAt: 0)
    }
    let verifies =
      header["kid"] != nil && JWT.verify(jwt, keys: network.account.keys, algorithm: .es256) != nil
    return APNsStateMachine.ProviderToken(
      signatureVerifies: verifies, team: claims["iss"] as? String,
      issuedAt: (claims["iat"] as? NSNumber)?.doubleValue ?? 0, keyID: header["kid"] as? String)
  }

  private func send(_ request: HTTPRequest, token: String) -> HTTPResponse {
    let push = APNsStateMachine.Push(
      environment: environment, token: token, provider: providerToken(request),
      topic: request.headers["apns-topic"], pushType: request.headers["apns-push-type"],
      payloadBytes: request.body.count,
      payloadIsObject: (try? JSONSerialization.jsonObject(with: Data(request.body)))
        is [String: Any], apnsID: request.headers["apns-id"],
      priority: request.headers["apns-priority"], expiration: request.headers["apns-expiration"],
      collapseID: request.headers["apns-collapse-id"])
    let answer = network.send(
      push, payload: String(decoding: request.body, as: UTF8.self), now: context.clock.now)
    let tokenNote = push.provider == nil ? "" : " (token \(token.prefix(8))…)"
    switch answer {
    case .accepted:
      let known = network.token(token)
      context.event(
        source,
        "accepted \(push.pushType ?? "alert") push for \(push.topic ?? "")\(tokenNote), a \(known?.environment.rawValue ?? environment.rawValue) token"
      )
      // The notification's apns-id is echoed; APNs makes one up when the request had none.
      return HTTPResponse(status: 200).with("apns-id", push.apnsID ?? apnsID())
    case .rejected(let status, let reason, let why):
      var body: [String: Any] = ["reason": reason]
      if status == 410, let time = network.token(token)?.unregistered {
        body["timestamp"] = Int(time.timeIntervalSince1970 * 1000)
      }
      context.event(source, "rejected: \(status) \(reason)\(tokenNote): \(why)")
      return HTTPResponse.json(body, status: status).with("apns-id", push.apnsID ?? apnsID())
    }
  }

  /// The OS asks for a token for an app whose build carries `aps-environment`.
  private func register(_ request: HTTPRequest) -> HTTPResponse {
    guard let bundleId = request.jsonObject?["bundleId"] as? String else {
      return .problem(400, "bundleId required")
    }
    guard let token = network.mint(environment, bundleId: bundleId, random: context.random) else {
      // The App ID has no Push capability: registration fails on the device.
      return .json(
        ["error": "no valid aps-environment entitlement string found for application"],
        status: 403)
    }
    context.event(source, "issued a \(environment.rawValue) token to \(bundleId)")
    return .json(["token": token])
  }

  private func notifications(_ request: HTTPRequest) -> HTTPResponse {
    guard let token = request.query("token") else { return .problem(400, "token required") }
    return .json(["notifications": network.drain(token)])
  }

  /// An `apns-id` (a UUID) from the world's seeded randomness, so that evidence replays.
  private func apnsID() -> String {
    let hex = context.random.hex(byteCount: 16).uppercased()
    let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
      String(hex.dropFirst(range.lowerBound).prefix(range.count))
    }
    return parts.joined(separator: "-")
  }
}
