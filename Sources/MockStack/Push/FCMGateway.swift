import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

/// FCM HTTP v1 (`POST /v1/projects/<project>/messages:send`): the I/O around
/// `FCMStateMachine.decide`, which holds the rules; here, parsing and Google's error shapes
/// (`{"error": {code, message, status, details: [{errorCode}]}}`).
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
    _ code: Int, _ status: String, _ message: String, fcm errorCode: String? = nil,
    retryAfter: Int? = nil
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
    context.event(
      "fcm",
      "rejected: \(code) \(errorCode ?? status): \(message)\(retryAfter.map { " (Retry-After: \($0))" } ?? "")"
    )
    var response = HTTPResponse.json(["error": error], status: code)
    if let retryAfter { response.headers.set("retry-after", String(retryAfter)) }
    return response
  }

  private func send(_ request: HTTPRequest, project: String) -> HTTPResponse {
    let authorization = request.headers["authorization"]
    let bearer =
      authorization.flatMap { $0.lowercased().hasPrefix("bearer ") ? String($0.dropFirst(7)) : nil }
    let message = request.jsonObject?["message"] as? [String: Any]
    let token = message?["token"] as? String
    let body =
      (try? JSONSerialization.data(withJSONObject: message ?? [:], options: [.sortedKeys]))
      .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    switch network.send(
      FCMStateMachine.Send(
        project: project, bearer: bearer, token: token,
        nonStringData: ((message?["data"] as? [String: Any]) ?? [:]).filter {
          !($0.value is String)
        }
        .keys.sorted(),
        androidPriority: (message?["android"] as? [String: Any])?["priority"] as? String),
      message: body,
      now: context.clock.now)
    {
    case .rejected(let code, let status, let errorCode, let message, let retryAfter):
      return error(code, status, message, fcm: errorCode, retryAfter: retryAfter)
    case .accepted(let package):
      let name = "projects/\(project)/messages/\(context.random.hex(byteCount: 8))"
      context.event(
        "fcm", "accepted for \(package) (token \((token ?? "").prefix(8))…, \(project))")
      return .json(["name": name])
    }
  }

  /// Play services register the app with the sender id of its `google-services.json`.
  private func register(_ request: HTTPRequest) -> HTTPResponse {
    guard let object = request.jsonObject, let projectId = object["projectId"] as? String,
      let package = object["package"] as? String
    else { return .problem(400, "projectId and package required") }
    guard let token = network.mint(project: projectId, package: package, random: context.random)
    else {
      return .json(["error": "SERVICE_NOT_AVAILABLE"], status: 403)
    }
    context.event("fcm", "issued a registration token to \(package) (\(projectId))")
    return .json(["token": token])
  }
}
