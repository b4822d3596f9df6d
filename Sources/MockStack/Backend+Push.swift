import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

/// The backend's push side as La Suite Messages implements it (docs/push-notifications.md in
/// the app's repository; seed 000 *Push notifications in dev*, checklist item 8): one device
/// row per installation, registered with `POST /users/me/channels/`, stamped with the session
/// that registered it and deleted when that session logs out; a content-free new-message push
/// per device through APNs or FCM; gateway errors in the sender's log; dead tokens pruned.
extension Backend {
  /// A registered device (`Channel(type="push")`).
  struct PushChannel: Sendable {
    var id: String
    var user: String
    /// The transport: `apns` or `fcm`.
    var platform: String
    var token: String
    var name: String
    /// The session that registered it: its logout deletes the row.
    var sessionKey: String
    var created: Date
  }

  /// The loc-keys of a new-message push (the app ships their strings): the app profile's
  /// banner keys, title then body, or La Suite Messages' own when the profile names none.
  var apnsAlert: [String: String] {
    switch pushLocKeys.count {
    case 0: ["loc-key": "NEW_MESSAGE"]
    case 1: ["loc-key": pushLocKeys[0]]
    default: ["title-loc-key": pushLocKeys[0], "loc-key": pushLocKeys[1]]
    }
  }

  var fcmNotification: [String: String] {
    switch pushLocKeys.count {
    case 0: ["title_loc_key": "new_message_title", "body_loc_key": "new_message_body"]
    case 1: ["body_loc_key": pushLocKeys[0]]
    default: ["title_loc_key": pushLocKeys[0], "body_loc_key": pushLocKeys[1]]
    }
  }

  /// `POST /api/v1.0/users/me/channels/ {type: "push", platform, token, name, app_version}`:
  /// an idempotent upsert (201, then 200), reclaiming the token from another user.
  func registerChannel(_ request: HTTPRequest, _ session: Session) -> HTTPResponse {
    guard settings.pushEnabled, push != nil else { return .notFound }
    guard let body = request.jsonObject, body["type"] as? String == "push",
      let platform = body["platform"] as? String, ["apns", "fcm"].contains(platform),
      let token = body["token"] as? String, !token.isEmpty, let user = session.user
    else {
      return .problem(400, "type=push, platform (apns|fcm) and token are required.")
    }
    let name = body["name"] as? String ?? platform
    if let index = pushChannels.firstIndex(where: {
      $0.token == token && (!context.behaviours.backendPushTokenUniquePerUser || $0.user == user)
    }) {
      if pushChannels[index].user == user {
        pushChannels[index].sessionKey = session.key
        pushChannels[index].name = name
        event("push: device \(name) of \(user) refreshed (\(platform))")
        return .json(channelJSON(pushChannels[index]), status: 200)
      }
      event("push: token reclaimed from \(pushChannels[index].user) for \(user)")
      pushChannels.remove(at: index)
    }
    let channel = PushChannel(
      id: context.random.hex(byteCount: 8), user: user, platform: platform, token: token,
      name: name, sessionKey: session.key, created: context.clock.now)
    pushChannels.append(channel)
    event("push: device \(name) of \(user) registered (\(platform))")
    return .json(channelJSON(channel), status: 201)
  }

  func listChannels(_ request: HTTPRequest, _ session: Session) -> HTTPResponse {
    guard settings.pushEnabled, push != nil else { return .notFound }
    return .json(pushChannels.filter { $0.user == session.user }.map(channelJSON))
  }

  func deleteChannel(_ request: HTTPRequest, _ session: Session) -> HTTPResponse {
    let id = request.path.split(separator: "/").last.map(String.init) ?? ""
    guard
      let index = pushChannels.firstIndex(where: {
        $0.id == id && ($0.user == session.user || context.behaviours.backendDeletesAnyUsersDevice)
      })
    else { return .notFound }
    pushChannels.remove(at: index)
    return HTTPResponse(status: 204)
  }

  private func channelJSON(_ channel: PushChannel) -> [String: Any] {
    [
      "id": channel.id, "type": "push", "platform": channel.platform, "name": channel.name,
      "created_at": Int(channel.created.timeIntervalSince1970),
      "token_hash": Hex.encode(Digest.sha256(Array("push:\(channel.token)".utf8))),
    ]
  }

  /// The `user_logged_out` receiver: the devices the logging-out session registered go.
  func logoutDeletesChannels(of session: Session) {
    guard !context.behaviours.backendKeepsPushChannelsOnLogout else { return }
    let everyDevice = context.behaviours.backendLogoutDeletesEveryDevice
    let goes = { (channel: PushChannel) in
      everyDevice ? channel.user == session.user : channel.sessionKey == session.key
    }
    let gone = pushChannels.filter(goes)
    guard !gone.isEmpty else { return }
    pushChannels.removeAll(where: goes)
    event(
      "push: logout deleted \(gone.count) device\(gone.count == 1 ? "" : "s") of \(gone[0].user)")
  }

  /// `POST /api/v1.0/_qualify/messages/ {to}`: a message arrives in the user's mailbox (what
  /// another account sending mail would cause); the push goes to each of the user's devices.
  /// Answers what each gateway said, as the sender's log would.
  func deliverMessage(_ request: HTTPRequest) -> HTTPResponse {
    guard let user = request.jsonObject?["to"] as? String else {
      return .problem(400, "to is required")
    }
    guard settings.pushEnabled, let push else {
      event("push: a message for \(user); push is off (PUSH_ENABLED)")
      return .json(["sent": [] as [Any]])
    }
    let thread = request.jsonObject?["thread"] as? String ?? "thread-1"
    let devices = pushChannels.filter { $0.user == user }
    event(
      "push: a new message for \(user) in \(thread): \(devices.count) device\(devices.count == 1 ? "" : "s")"
    )
    var sent: [[String: Any]] = []
    for device in devices {
      if let off = device.platform == "apns" ? push.apnsProblem : push.fcmProblem {
        let (status, reason, detail) = log(
          device.platform, 0, "not-configured", device, detail: off)
        sent.append([
          "platform": device.platform, "device": device.name, "status": status, "reason": reason,
          "detail": detail,
        ])
        continue
      }
      let (status, reason, detail) =
        device.platform == "apns"
        ? sendAPNs(device, thread: thread, credentials: push)
        : sendFCM(device, thread: thread)
      sent.append([
        "platform": device.platform, "device": device.name, "status": status, "reason": reason,
        "detail": detail,
      ])
      let dead =
        (device.platform == "apns" && status == 410)
        || (device.platform == "fcm"
          && (["UNREGISTERED", "NOT_FOUND"].contains(reason)
            || (context.behaviours.backendPrunesOnAnyFCMError && status != 200)))
      if dead && !context.behaviours.backendKeepsDeadTokens {
        pushChannels.removeAll { $0.token == device.token }
        event("push: \(device.name) pruned: its token is dead (\(reason))")
      }
    }
    return .json(["sent": sent])
  }

  // MARK: APNs

  private func sendAPNs(_ device: PushChannel, thread: String, credentials: PushCredentials)
    -> (Int, String, String)
  {
    let gateway =
      settings.apnsUseSandbox == true ? StackTopology.apnsSandbox : StackTopology.apnsProduction
    let now = context.clock.now
    if apnsProviderToken == nil
      || (now.timeIntervalSince(apnsProviderToken?.issued ?? now) > 3000
        && !context.behaviours.backendNeverRefreshesProviderToken)
    {
      let claims: [String: Any] = [
        "iss": credentials.apnsTeamId, "iat": Int(now.timeIntervalSince1970),
      ]
      guard
        let token = try? JWT.sign(
          claims, key: credentials.apnsKey, keyID: credentials.apnsKeyId, algorithm: .es256)
      else { return log("apns", 0, "provider token could not be signed", device) }
      context.redactor.register(token)
      apnsProviderToken = (token, now)
    }
    let unread = 1  // the mailbox of a scenario holds the one new message
    let payload: [String: Any] = [
      "aps": [
        "alert": apnsAlert, "badge": unread, "mutable-content": 1,
        "sound": "default",
      ],
      "type": "new_message", "thread_id": thread, "message_id": context.random.hex(byteCount: 8),
      "mailbox_id": "mailbox-1", "unread_count": unread,
    ]
    let body =
      (try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])).map(
        Array.init) ?? []
    var headers: HTTPHeaders = [
      "authorization": "bearer \(apnsProviderToken?.token ?? "")",
      "apns-topic": settings.apnsBundleId ?? "", "apns-push-type": "alert",
      "apns-priority": "10", "apns-collapse-id": thread, "content-type": "application/json",
    ]
    for (name, value) in context.behaviours.apnsHeaderOverrides.sorted(by: { $0.key < $1.key }) {
      headers.set(name, value)
    }
    let request = ClientRequest(
      method: "POST", url: gateway.url("/3/device/\(device.token)"), headers: headers, body: body)
    guard let response = backChannel(request) else {
      return log("apns", 0, "\(gateway.host) unreachable", device)
    }
    let reason =
      (response.jsonObject as? [String: Any])?["reason"] as? String
      ?? (response.status == 200 ? "delivered" : "HTTP \(response.status)")
    return log(
      "apns", response.status, reason, device,
      detail:
        "\(gateway.host), apns-topic \(settings.apnsBundleId ?? "(none)"), apns-push-type alert")
  }

  // MARK: FCM

  private func sendFCM(_ device: PushChannel, thread: String) -> (Int, String, String) {
    let project = settings.fcmProjectId ?? ""
    let message: [String: Any] = [
      "token": device.token,
      "android": [
        "priority": "high",
        "notification": fcmNotification.merging(["channel_id": "new_messages"]) { $1 },
      ],
      "data": [
        "type": "new_message", "thread_id": thread,
        "message_id": context.random.hex(byteCount: 8), "mailbox_id": "mailbox-1",
        "unread_count": "1",
      ],
    ]
    let (status, reason) = fcmSender?.send(message, project: project) ?? (0, "not-configured")
    return log("fcm", status, reason, device, detail: "project \(project)")
  }

  /// A line of the sender's log, in the evidence.
  private func log(
    _ transport: String, _ status: Int, _ reason: String, _ device: PushChannel,
    detail: String = ""
  ) -> (Int, String, String) {
    context.event(
      "push-sender",
      "\(transport) → \(status) \(reason) for \(device.name) of \(device.user) (token \(device.token.prefix(8))…\(detail.isEmpty ? "" : ", \(detail)"))"
    )
    return (status, reason, detail)
  }
}
