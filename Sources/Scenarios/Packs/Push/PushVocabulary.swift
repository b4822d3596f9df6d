import Artifacts
import Devices
import Foundation
import QualifyCore
import StackPorts

/// Push notifications end to end (DESIGN.md fidelity rules 14 and 15): the app's enable
/// flow, a message arriving for a user, the backend's sender and the gateways' answers, and
/// what the OS shows and opens.
enum PushVocabulary {
  static let actions: [ActionSpec] = [
    ActionSpec(
      .app, "enables notifications", [.flag("denied")],
      summary:
        "`enableNativePush()`: the OS permission prompt (the user allows, or refuses with `denied`; Android 13+ denies without asking when the manifest lacks POST_NOTIFICATIONS), the OS registration (an APNs token needs `aps-environment`, an FCM token Play services and a `google-services.json` client for the app id), then `POST /api/v1.0/users/me/channels/`.",
      example: "mail enables notifications"
    ) { context in
      let app = try context.requireApp()
      let result = app.push.enable(userGrants: !context.arguments.has("denied"))
      var outcome = Outcome("\(app.name) enables notifications: \(result.label) (\(result.reason))")
      switch result {
      case .registered: break
      case .denied(let why):
        outcome.problem = Outcome.Problem(kind: .failed, message: why, reason: .pushDenied)
      case .registrationFailed(let why):
        outcome.problem = Outcome.Problem(
          kind: .failed, message: why, reason: .pushRegistrationFailed)
      }
      outcome.pushRegistration = result
      outcome.app = app.name
      return outcome
    },
    ActionSpec(
      .app, "deletes the push device of", [.value("other", .app)],
      summary:
        "`DELETE /api/v1.0/users/me/channels/{id}` for the device OTHER registered, sent by APP's session (another user's: an id learnt from a shared screen, a log): a user deletes only their own devices.",
      example: "tablet-mail deletes the push device of mail"
    ) { context in
      let app = try context.requireApp()
      guard let name = context.arguments["other"], let other = context.world.apps[name] else {
        throw ScenarioRuntimeError("no app \(context.arguments["other"] ?? "")")
      }
      // The id as OTHER's own session lists it: the device its token belongs to.
      let list = other.send(method: "GET", other.apiURL("/api/v1.0/users/me/channels/"), body: [])
      guard case .sent(let exchange) = list,
        let devices = exchange.response?.jsonObject as? [[String: Any]],
        let id = devices.first?["id"] as? String
      else {
        throw ScenarioRuntimeError("\(name) has no registered push device to delete")
      }
      let url = app.apiURL("/api/v1.0/users/me/channels/\(id)/")
      return Outcome.from(app.send(method: "DELETE", url, body: []), label: "DELETE \(url)")
    },
    ActionSpec(
      .world, "fcm answers", [.value("error", .text), .keyword("times", "count", .integer)],
      summary:
        "FCM answers ERROR (`QUOTA_EXCEEDED` 429 with Retry-After, `UNAVAILABLE` 503 with Retry-After, `INTERNAL` 500, `THIRD_PARTY_AUTH_ERROR` 401) to its next COUNT sends (one by default), whatever they carry: an outage of Google's, not the app's mistake.",
      example: "fcm answers UNAVAILABLE times 2",
      powers: [.changesPushGateways]
    ) { context in
      // A fault only the in-process gateway can be made to have: staged, never observed.
      let error = context.arguments["error"] ?? ""
      let times = Int(context.arguments["count"] ?? "1") ?? 1
      guard try context.world.embeddedStack().failNextFCMSends(error, times: times) else {
        throw ScenarioRuntimeError(
          "fcm answers \(error): not an FCM service error (QUOTA_EXCEEDED, UNAVAILABLE, INTERNAL, THIRD_PARTY_AUTH_ERROR)"
        )
      }
      return Outcome(
        "FCM will answer \(error.uppercased()) to its next \(times) send\(times == 1 ? "" : "s")")
    },
    ActionSpec(
      .world, "a message arrives for", [.value("user", .user), .keyword("in", "thread", .text)],
      summary:
        "A new message lands in USER's mailbox (in THREAD; a new thread by default): the backend pushes a content-free notification to each device the user registered, through APNs or FCM, and logs each gateway's answer; then every app's OS collects what its push service delivered and draws the banners.",
      example: "a message arrives for first",
      powers: [.backendHook]
    ) { context in
      let world = context.world
      let role = context.arguments["user"] ?? "first"
      // The backend knows the user by the IdP's subject (a real IdP's opaque `sub`).
      let username = world.users[role].map { $0.subject ?? $0.username } ?? role
      world.messagesArrived += 1
      let thread = context.arguments["thread"] ?? "thread-\(world.messagesArrived)"
      world.lastMessageThread = thread
      let sends: [PushSend]
      do {
        sends = try world.backendPort().deliverMessage(to: username, thread: thread)
      } catch let unsupported as PortUnsupported {
        throw ScenarioNotApplicable(unsupported.description)
      }
      var notifications: [String: [PushClient.Notification]] = [:]
      for (name, app) in world.apps.sorted(by: { $0.key < $1.key }) {
        notifications[name] = app.push.receive()
      }
      let log =
        sends.isEmpty
        ? "no device to push to"
        : sends.map { "\($0.transport) \($0.status) \($0.reason)" }.joined(separator: ", ")
      var outcome = Outcome("a message for \(role) (\(username)) in \(thread): \(log)")
      outcome.pushSends = sends
      outcome.notifications = notifications
      return outcome
    },
    ActionSpec(
      .app, "taps the notification",
      summary:
        "The user taps the last notification the OS showed for the app: the app opens on `pushTargetUrl(data)`, the thread of the message.",
      example: "mail taps the notification"
    ) { context in
      let app = try context.requireApp()
      guard let route = app.push.tapLatest() else {
        return Outcome(
          "\(app.name): no notification to tap",
          problem: Outcome.Problem(
            kind: .failed, message: "the OS shows no notification for \(app.name)",
            reason: .noNotificationToTap))
      }
      var outcome = Outcome("\(app.name) opened on \(route)")
      outcome.openedRoute = route
      outcome.app = app.name
      return outcome
    },
    ActionSpec(
      .app, "has its push token rotated",
      summary:
        "The OS drops the app's push token (APNs and FCM rotate them): the push service forgets it, the next registration gets a new one.",
      example: "mail has its push token rotated"
    ) { context in
      let app = try context.requireApp()
      app.push.rotateToken()
      return Outcome("the OS rotated the push token of \(app.name)")
    },
    ActionSpec(
      .app, "is uninstalled",
      summary:
        "The user deletes the app: its push tokens die (APNs then answers 410 Unregistered, FCM UNREGISTERED).",
      example: "mail is uninstalled"
    ) { context in
      let app = try context.requireApp()
      app.push.uninstall()
      return Outcome("\(app.name) was deleted from the device")
    },
  ]

  static let expectations: [ExpectationSpec] = [
    ExpectationSpec(
      "notifications",
      [
        .value("result", .choice(["registered", "denied", "registration_failed"])),
        .value("reason", .text, optional: true),
      ],
      examines: .reasons(.pushRegistrationFailed, .pushDenied),
      summary:
        "The enable flow's result (`push.ts`: registered, denied, registration_failed) and a word of its reason.",
      example: "expect notifications registration_failed \"SERVICE_NOT_AVAILABLE\""
    ) { context in
      guard let result = context.outcome?.pushRegistration else {
        return context.missing(
          .noPushRegistration, "expected APP enables notifications before this expectation")
      }
      let wanted = context.arguments["result"] ?? "registered"
      guard result.label == wanted else {
        return context.fail(
          .notifications, result.label,
          "expected notifications \(wanted), the enable flow returned \(result.label): \(result.reason)"
        )
      }
      if let word = context.arguments["reason"],
        !result.reason.lowercased().contains(word.lowercased())
      {
        return context.fail(
          .notificationsOtherwise, nil,
          "notifications \(result.label), but not for \"\(word)\": \(result.reason)")
      }
      return nil
    },
    ExpectationSpec(
      "sender log", [.value("reason", .text)], negatable: true,
      summary:
        "The backend's sender log for the last message has (with `no`: has not) a line with REASON: `delivered`, or the gateway's answer (`BadDeviceToken`, `DeviceTokenNotForTopic`, `Unregistered`, `ExpiredProviderToken`, `SENDER_ID_MISMATCH`, `UNREGISTERED`…; case does not matter).",
      example: "expect sender log BadDeviceToken"
    ) { context in
      guard let sends = context.outcome?.pushSends else {
        return context.missing(
          .noMessage, "expected a message (a message arrives for USER) before this expectation")
      }
      let wanted = context.arguments["reason"] ?? "delivered"
      let matching = sends.filter { $0.reason.lowercased() == wanted.lowercased() }
      let log =
        sends.isEmpty
        ? "nothing was sent (no device)"
        : sends.map { "\($0.transport) → \($0.status) \($0.reason) (\($0.device), \($0.detail))" }
          .joined(separator: "; ")
      if context.negated {
        return matching.isEmpty
          ? nil
          : context.fail(.senderLogged, wanted, "the sender logged \(wanted): \(log)")
      }
      guard matching.isEmpty else { return nil }
      let hints = Set(sends.compactMap { PushVocabulary.pairingHint($0.reason, context.world) })
      return context.fail(
        .senderLog, sends.first?.reason ?? "nothing-sent",
        "expected the sender to log \(wanted): \(log)"
          + (hints.isEmpty ? "" : " — " + hints.sorted().joined(separator: "; ")))
    },
    ExpectationSpec(
      "push sent", negatable: true,
      summary:
        "The backend sent at least one push for the last message (with `no`: it had no device of the user to push to).",
      example: "expect no push sent"
    ) { context in
      guard let sends = context.outcome?.pushSends else {
        return context.missing(
          .noMessage, "expected a message (a message arrives for USER) before this expectation")
      }
      if context.negated {
        return sends.isEmpty
          ? nil
          : context.fail(
            .pushSent, sends[0].reason,
            "expected no push, the backend still pushed to \(sends.map { "\($0.device) (\($0.transport) \($0.reason))" }.joined(separator: ", "))"
          )
      }
      return sends.isEmpty
        ? context.fail(.noPushSent, nil, "the backend had no device to push to") : nil
    },
    ExpectationSpec(
      "notification on", [.value("app", .app), .value("text", .text, optional: true)],
      negatable: true,
      summary:
        "With the last message the OS showed a notification for APP whose banner has every loc-key's string in each locale the app ships (and, given TEXT, reads TEXT in one of them); with `no`, it showed nothing.",
      example: "expect notification on mail \"New message\""
    ) { context in
      guard let received = context.outcome?.notifications else {
        return context.missing(
          .noMessage, "expected a message (a message arrives for USER) before this expectation")
      }
      let name = context.arguments["app"] ?? ""
      let all = received[name] ?? []
      let shown = all.filter(\.shown)
      if context.negated {
        return shown.isEmpty
          ? nil
          : context.fail(
            .notificationShown, nil,
            "the OS showed a notification for \(name): \(shown[0].banners.keys.sorted().map { "\($0) \"\(shown[0].text($0))\"" }.joined(separator: ", "))"
          )
      }
      guard let notification = shown.last else {
        if let hidden = all.last {
          return context.fail(
            .noNotification, "hidden",
            "the OS received a push for \(name) but showed nothing: \(hidden.hiddenBecause ?? "")")
        }
        return context.fail(
          .noNotification, nil, "nothing arrived for \(name): the OS received no push")
      }
      let build = context.world.apps[name]?.build
      if notification.banners.isEmpty || notification.locKeys.isEmpty {
        return context.fail(
          .blankBanner, "none",
          "the banner is blank: \(name) ships no strings for \(notification.locKeys.joined(separator: ", "))"
        )
      }
      if let (locale, keys) = notification.blankLocales.first {
        let file = build?.push.bannerFiles[locale] ?? "the \(locale) strings"
        return context.fail(
          .blankBanner, locale,
          "the \(locale) banner lacks \(keys.joined(separator: ", ")): no string in \(file), the OS draws it blank"
        )
      }
      if let text = context.arguments["text"],
        !notification.banners.keys.contains(where: { notification.text($0).contains(text) })
      {
        return context.fail(
          .bannerText, nil,
          "no banner reads \"\(text)\": \(notification.banners.keys.sorted().map { "\($0) \"\(notification.text($0))\"" }.joined(separator: ", "))"
        )
      }
      return nil
    },
    ExpectationSpec(
      "thread opened", [.value("app", .app)],
      summary:
        "The last notification tap opened APP on the thread of the last message (`/mailbox/…/thread/THREAD`).",
      example: "expect thread opened mail"
    ) { context in
      let name = context.arguments["app"] ?? ""
      guard let route = context.world.apps[name]?.push.openedRoute else {
        return context.missing(.noNotificationToTap, "\(name) was not opened by a notification tap")
      }
      guard let thread = context.world.lastMessageThread else {
        return context.missing(.noMessage, "no message arrived before this expectation")
      }
      let path = route.split(separator: "?").first.map(String.init) ?? route
      return path.hasPrefix("/mailbox/") && path.hasSuffix("/thread/\(thread)")
        ? nil
        : context.fail(
          .threadNotOpened, nil,
          "the tap opened \(route), not the thread \(thread) of the message")
    },
  ]

  /// Where a gateway's pairing refusal comes from, naming the settings and their files.
  static func pairingHint(_ reason: String, _ world: World) -> String? {
    let build = world.configuration.build
    // Only a single-origin app's backend sends with settings of the app's env.
    guard let env = build.backend?.env else { return nil }
    func setting(_ key: String) -> String {
      "\(key)=\(env[key] ?? "(unset)")"
        + (env.location(of: key).map { " at \($0.file):\($0.line)" } ?? "")
    }
    func place(_ location: FileLocation?) -> String {
      location.map { " at \($0.file)\($0.line > 0 ? ":\($0.line)" : "")" } ?? ""
    }
    switch reason {
    case "BadDeviceToken":
      let aps = build.push.apsEnvironment
      return
        "\(setting("PUSH_APNS_USE_SANDBOX")) against the build's aps-environment \(aps?.value ?? "(none)")\(place(aps?.location))"
    case "DeviceTokenNotForTopic", "TopicDisallowed", "MissingTopic":
      return
        "\(setting("PUSH_APNS_BUNDLE_ID")) against the app id \(build.appId.value)\(place(build.appId.location))"
    case "SENDER_ID_MISMATCH", "PERMISSION_DENIED":
      let project = build.push.firebaseProjectId
      return
        "\(setting("PUSH_FCM_PROJECT_ID")) against google-services.json's project \(project?.value ?? "(none)")\(place(project?.location))"
    default:
      return nil
    }
  }
}
