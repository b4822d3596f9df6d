import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

/// A backend's side of FCM HTTP v1: an OAuth access token for its service account (an RS256
/// JWT bearer assertion to Google's token endpoint, kept for the hour it lasts) and
/// `messages:send` with it. Both backends of the world send through one (La Suite Messages'
/// push sender, seed 003's `FirebaseNotification`).
final class FCMSender: Sendable {
  let credentials: PushCredentials
  let context: StackContext
  private let backChannel: @Sendable (ClientRequest) -> HTTPResponse?
  private let accessToken = Locked<(token: String, expires: Date)?>(nil)

  init(
    credentials: PushCredentials, context: StackContext,
    backChannel: @escaping @Sendable (ClientRequest) -> HTTPResponse?
  ) {
    self.credentials = credentials
    self.context = context
    self.backChannel = backChannel
  }

  /// Sends `message` (the body's `message` object) in `project`: the HTTP status and FCM's
  /// reason (`delivered`, `UNREGISTERED`, `SENDER_ID_MISMATCH`, …); status 0 when nothing
  /// answered.
  func send(_ message: [String: Any], project: String) -> (status: Int, reason: String) {
    // "FCM error codes": QUOTA_EXCEEDED (429), UNAVAILABLE (503) and INTERNAL (500) are
    // retried with exponential backoff, after `Retry-After` when FCM sends one; the token is
    // kept whatever the outcome. Four attempts in all.
    var wait = 1
    var attempt = 1
    while true {
      let (status, reason, retryAfter) = sendOnce(message, project: project)
      guard [429, 500, 503].contains(status), attempt < 4,
        !context.behaviours.backendNeverRetriesFCM
      else { return (status, reason) }
      let delay = retryAfter ?? wait
      context.event(
        "push-sender",
        "fcm → \(status) \(reason): retrying in \(delay) s (attempt \(attempt + 1) of 4)")
      context.clock.advance(by: TimeInterval(delay))
      wait *= 2
      attempt += 1
    }
  }

  private func sendOnce(_ message: [String: Any], project: String) -> (
    status: Int, reason: String, retryAfter: Int?
  ) {
    guard let token = bearer() else {
      return (401, "the OAuth token endpoint refused the service account", nil)
    }
    let body =
      (try? JSONSerialization.data(withJSONObject: ["message": message], options: [.sortedKeys]))
      .map(Array.init) ?? []
    guard
      let response = backChannel(
        ClientRequest(
          method: "POST", url: StackTopology.fcm.url("/v1/projects/\(project)/messages:send"),
          headers: ["authorization": "Bearer \(token)", "content-type": "application/json"],
          body: body))
    else { return (0, "fcm.googleapis.com unreachable", nil) }
    var reason = response.status == 200 ? "delivered" : "HTTP \(response.status)"
    if let error = (response.jsonObject as? [String: Any])?["error"] as? [String: Any] {
      reason =
        ((error["details"] as? [[String: Any]])?.first?["errorCode"] as? String)
        ?? error["status"] as? String ?? reason
    }
    return (response.status, reason, response.headers["retry-after"].flatMap { Int($0) })
  }

  /// The access token, asked for again a minute before it expires (unless a control makes
  /// the backend never refresh it).
  private func bearer() -> String? {
    let now = context.clock.now
    if let held = accessToken.withLock({ $0 }),
      held.expires > now.addingTimeInterval(60)
        || context.behaviours.backendNeverRefreshesProviderToken
    {
      return held.token
    }
    let claims: [String: Any] = [
      "iss": credentials.fcmClientEmail, "scope": GoogleOAuth.scope,
      "aud": credentials.fcmTokenURI, "iat": Int(now.timeIntervalSince1970),
      "exp": Int(now.timeIntervalSince1970) + 3600,
    ]
    guard
      let assertion = try? JWT.sign(
        claims, key: credentials.fcmKey, keyID: credentials.fcmKeyId, algorithm: .rs256)
    else { return nil }
    context.redactor.register(assertion)
    let form = Query.encode([
      ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", assertion),
    ])
    guard
      let answer = backChannel(
        ClientRequest(
          method: "POST", url: credentials.fcmTokenURI,
          headers: ["content-type": "application/x-www-form-urlencoded"],
          body: Array(form.utf8))),
      answer.status == 200,
      let token = (answer.jsonObject as? [String: Any])?["access_token"] as? String
    else { return nil }
    context.redactor.register(token)
    accessToken.withLock { $0 = (token, now.addingTimeInterval(3600)) }
    return token
  }
}
