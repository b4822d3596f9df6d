import Artifacts
import Foundation
import HTTP
import QualifyCore

/// The shell's push side, as La Suite Messages' `features/native/push.ts` drives
/// `@capacitor/push-notifications` (seed 000, *Push notifications in dev*, checklist item 8):
/// the enable flow (permission, OS registration, `POST /users/me/channels/`), the idempotent
/// re-registration on launch, and what the OS shows and opens when a push arrives.
///
/// The OS half is modelled from the platforms' rules: iOS hands out an APNs token only to a
/// build signed with `aps-environment`, in that environment; Android hands out an FCM token
/// only with Google Play services and a `google-services.json` holding a client for the
/// build's application id; Android 13+ shows nothing without `POST_NOTIFICATIONS` granted.
/// Pushes are received with the app in the background, where the OS draws the banner from
/// the app's own strings (the payload is content-free: loc-keys and routing ids only).
public final class PushClient {
  /// What `enableNativePush()` returns.
  public enum EnableResult: Sendable, Equatable {
    case registered(token: String)
    /// The user refused the permission (or Android never asked: the manifest lacks it).
    case denied(String)
    /// The OS or the backend registration failed; the message says which and why.
    case registrationFailed(String)

    /// The label `push.ts` uses (`registered`, `denied`, `registration_failed`).
    public var label: String {
      switch self {
      case .registered: "registered"
      case .denied: "denied"
      case .registrationFailed: "registration_failed"
      }
    }

    public var reason: String {
      switch self {
      case .registered(let token): "token \(token.prefix(8))…"
      case .denied(let why), .registrationFailed(let why): why
      }
    }
  }

  /// The notification permission (`checkPermissions().receive`).
  public enum Permission: String, Sendable {
    case prompt, granted, denied
  }

  /// A push the OS received for the app.
  public struct Notification: Sendable {
    /// `apns` or `fcm`.
    public var transport: String
    /// The content-free routing ids (`thread_id`, `mailbox_id`, `message_id`).
    public var data: [String: String]
    /// The loc-keys the payload names, in display order (title, body).
    public var locKeys: [String]
    /// The banner as the OS draws it in each locale the app ships: the strings of the
    /// loc-keys, an empty part where the app has no string for one.
    public var banners: [String: [String]]
    /// Whether the OS showed it; when not, why.
    public var shown: Bool
    public var hiddenBecause: String?

    /// The banner's text in `locale`, parts joined.
    public func text(_ locale: String) -> String {
      (banners[locale] ?? []).filter { !$0.isEmpty }.joined(separator: " — ")
    }

    /// The locales whose banner lacks a part (a blank title or body), with the keys missing.
    public var blankLocales: [(locale: String, keys: [String])] {
      banners.keys.sorted().compactMap { locale in
        let parts = banners[locale] ?? []
        let missing = zip(locKeys, parts).filter { $0.1.isEmpty }.map(\.0)
        return missing.isEmpty ? nil : (locale, missing)
      }
    }
  }

  unowned let app: App
  public private(set) var permission: Permission = .prompt
  /// The opt-in marker `setPushOptIn` leaves: the on-launch refresh runs only for it.
  public private(set) var optedIn = false
  /// The token the OS gave the app last, and every token it ever gave this installation.
  public private(set) var token: String?
  public private(set) var tokens: [String] = []
  /// Everything the OS received for the app, oldest first.
  public private(set) var received: [Notification] = []
  /// Where the last tap opened the app.
  public private(set) var openedRoute: String?
  public private(set) var uninstalled = false

  init(app: App) {
    self.app = app
  }

  private var device: Device { app.device }
  private var source: String { "\(device.platform.rawValue)/\(app.name)" }
  private var osSource: String { "\(device.platform.rawValue)/os" }

  /// The local-storage key of the last registered token (`push-native-token`).
  public var tokenStorageKey: String { "\(app.build.name)_push-native-token" }

  // MARK: Enable

  /// `enableNativePush()`: the permission prompt (the user answers `grants`), the OS
  /// registration, the channel upsert.
  public func enable(userGrants grants: Bool = true) -> EnableResult {
    if permission == .prompt { permission = askPermission(grants: grants) }
    if permission != .granted {
      let why =
        device.platform == .android && app.build.push.postNotificationsPermission?.value != true
        ? "the manifest does not declare android.permission.POST_NOTIFICATIONS: Android 13+ never asks and refuses"
        : "the user refused notifications"
      if app.behaviours.pushRegistersWithoutPermission {
        // The bug this models registers before it looks at the answer.
        let result = registerDevice()
        device.environment.decision(
          source, "notifications: registered without permission (\(result.reason))")
      }
      device.environment.decision(source, "notifications: denied (\(why))")
      return .denied(why)
    }
    let result = registerDevice()
    if case .registered = result { optedIn = true }
    device.environment.decision(source, "notifications: \(result.label) (\(result.reason))")
    return result
  }

  private func askPermission(grants: Bool) -> Permission {
    if device.platform == .android && app.build.push.postNotificationsPermission?.value != true {
      // A runtime permission missing from the manifest is denied without a prompt.
      return .denied
    }
    device.environment.decision(
      source, "the OS asks to allow notifications: the user \(grants ? "allows" : "refuses")")
    return grants ? .granted : .denied
  }

  /// `refreshNativePushRegistration()`: only for a user who opted in, with the permission
  /// already granted; never prompts. Best-effort, like the app's.
  func refreshOnLaunch() {
    guard optedIn, permission == .granted, !uninstalled else { return }
    if app.behaviours.pushSkipsRefreshOnLaunch {
      device.environment.decision(source, "launch: the push registration is not refreshed")
      return
    }
    let result = registerDevice()
    device.environment.decision(
      source, "launch: push registration refreshed: \(result.label) (\(result.reason))")
  }

  private func registerDevice() -> EnableResult {
    let token: String
    switch obtainToken() {
    case .failure(let why): return .registrationFailed(why.message)
    case .success(let value): token = value
    }
    let body: [String: Any] = [
      "type": "push", "platform": device.platform == .ios ? "apns" : "fcm", "token": token,
      "name": device.name, "app_version": app.build.capacitor.updaterVersion?.value ?? "builtin",
    ]
    let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
    switch app.send(
      method: "POST", app.apiURL("/api/v1.0/users/me/channels/"), body: Array(data),
      contentType: "application/json")
    {
    case .refused(let why):
      return .registrationFailed("POST /users/me/channels/ refused: \(why)")
    case .sent(let exchange):
      guard let response = exchange.response else {
        return .registrationFailed(
          "POST /users/me/channels/: \(exchange.error?.message ?? "no response")")
      }
      guard response.status == 200 || response.status == 201 else {
        return .registrationFailed("POST /users/me/channels/ → \(response.status)")
      }
    }
    app.localStorage[tokenStorageKey] = token
    return .registered(token: token)
  }

  // MARK: The OS

  struct OSError: Error {
    var message: String
  }

  /// The OS registration: the cached token, or a new one from the platform's push service.
  private func obtainToken() -> Result<String, OSError> {
    if let token { return .success(token) }
    let build = app.build
    let request: (origin: Origin, body: [String: Any])
    switch device.platform {
    case .ios:
      guard let environment = build.push.apsEnvironment?.value else {
        return .failure(
          OSError(
            message:
              "no valid \"aps-environment\" entitlement string found for application (\(build.appId.value))"
          ))
      }
      let origin =
        environment == "production"
        ? Origin(scheme: "https", host: "api.push.apple.com")
        : Origin(scheme: "https", host: "api.sandbox.push.apple.com")
      request = (origin, ["bundleId": build.appId.value])
    case .android:
      guard device.hasPlayServices else {
        return .failure(OSError(message: "SERVICE_NOT_AVAILABLE: no Google Play services"))
      }
      guard let project = build.push.firebaseProjectId?.value else {
        return .failure(
          OSError(
            message:
              "Default FirebaseApp is not initialized: the build has no google-services.json"))
      }
      guard build.push.firebasePackages.contains(where: { $0.value == build.appId.value }) else {
        return .failure(
          OSError(
            message:
              "No matching client found for package name '\(build.appId.value)' in google-services.json"
          ))
      }
      request = (
        Origin(scheme: "https", host: "fcm.googleapis.com"),
        ["projectId": project, "package": build.appId.value]
      )
    }
    let data =
      (try? JSONSerialization.data(withJSONObject: request.body, options: [.sortedKeys])) ?? Data()
    guard
      let response = osSend(
        ClientRequest(
          method: "POST", url: request.origin.url("/_device/register"),
          headers: ["Content-Type": "application/json"], body: Array(data)))
    else {
      return .failure(OSError(message: "\(request.origin.host) unreachable"))
    }
    guard response.status == 200,
      let token = (response.jsonObject as? [String: Any])?["token"] as? String
    else {
      let error = (response.jsonObject as? [String: Any])?["error"] as? String
      return .failure(
        OSError(message: error ?? "\(request.origin.host) answered \(response.status)"))
    }
    // A push token routes to one phone: evidence names it by a prefix, never whole.
    device.environment.redactor.register(token)
    self.token = token
    tokens.append(token)
    return .success(token)
  }

  /// A request of the device's OS to a push service (no app cookies, no app transport
  /// policy: the OS keeps its own channel), recorded as evidence.
  private func osSend(_ request: ClientRequest) -> HTTPResponse? {
    guard let client = try? device.environment.client() else { return nil }
    let exchange = client.send(request)
    device.environment.evidence.append(
      exchange.evidence(
        source: osSource, redactor: device.environment.redactor,
        time: device.environment.clock.now))
    return exchange.response
  }

  private func serviceOrigin(of token: String) -> Origin {
    if device.platform == .android { return Origin(scheme: "https", host: "fcm.googleapis.com") }
    return app.build.push.apsEnvironment?.value == "production"
      ? Origin(scheme: "https", host: "api.push.apple.com")
      : Origin(scheme: "https", host: "api.sandbox.push.apple.com")
  }

  /// The OS drops the app's current token (a rotation): the push service forgets it, and the
  /// next registration gets a new one.
  public func rotateToken() {
    guard let old = token else { return }
    unregister(old)
    token = nil
    device.environment.decision(osSource, "the push token of \(app.name) was rotated by the OS")
  }

  /// The app is deleted from the device: its tokens die with it.
  public func uninstall() {
    for token in tokens { unregister(token) }
    token = nil
    uninstalled = true
    optedIn = false
    device.environment.decision(osSource, "\(app.name) was deleted from the device")
  }

  private func unregister(_ token: String) {
    let data = (try? JSONSerialization.data(withJSONObject: ["token": token])) ?? Data()
    _ = osSend(
      ClientRequest(
        method: "POST", url: serviceOrigin(of: token).url("/_device/unregister"),
        headers: ["Content-Type": "application/json"], body: Array(data)))
  }

  // MARK: Receiving

  /// What the OS received for the app since the last call, rendered as the OS renders it.
  @discardableResult
  public func receive() -> [Notification] {
    guard !uninstalled else { return [] }
    var new: [Notification] = []
    for token in tokens {
      guard
        let response = osSend(
          ClientRequest(
            url: serviceOrigin(of: token).url("/_device/notifications?token=\(token)"))),
        let payloads = (response.jsonObject as? [String: Any])?["notifications"] as? [String]
      else { continue }
      for payload in payloads {
        guard
          let object = try? JSONSerialization.jsonObject(with: Data(payload.utf8))
            as? [String: Any]
        else { continue }
        new.append(render(object))
      }
    }
    for notification in new {
      let banner = notification.banners.keys.sorted().map {
        "\($0) \"\(notification.text($0))\""
      }.joined(separator: ", ")
      device.environment.decision(
        osSource,
        notification.shown
          ? "notification for \(app.name) shown: \(banner.isEmpty ? "no strings" : banner)"
          : "notification for \(app.name) received, not shown: \(notification.hiddenBecause ?? "")")
    }
    received += new
    return new
  }

  /// The banner the OS draws: APNs `aps.alert.loc-key`, FCM `android.notification`
  /// `title_loc_key`/`body_loc_key`, each looked up in the app's strings of every locale it
  /// ships (a missing string draws nothing).
  private func render(_ payload: [String: Any]) -> Notification {
    var keys: [String] = []
    var data: [String: String] = [:]
    let transport: String
    if let aps = payload["aps"] as? [String: Any] {
      transport = "apns"
      if let alert = aps["alert"] as? [String: Any] {
        for name in ["title-loc-key", "loc-key"] {
          if let key = alert[name] as? String { keys.append(key) }
        }
      }
      for (key, value) in payload where key != "aps" { data[key] = "\(value)" }
    } else {
      transport = "fcm"
      if let notification = (payload["android"] as? [String: Any])?["notification"]
        as? [String: Any]
      {
        for name in ["title_loc_key", "body_loc_key"] {
          if let key = notification[name] as? String { keys.append(key) }
        }
      }
      for (key, value) in payload["data"] as? [String: Any] ?? [:] { data[key] = "\(value)" }
    }
    var banners: [String: [String]] = [:]
    let strings = app.build.push.bannerStrings
    let locales = Set(strings.keys).union(app.build.push.bannerFiles.keys)
    for locale in locales {
      banners[locale] = keys.map { strings[locale]?[$0] ?? "" }
    }
    var hidden: String?
    if permission != .granted {
      hidden =
        device.platform == .android
        ? "POST_NOTIFICATIONS is not granted" : "notifications are not allowed for the app"
    }
    return Notification(
      transport: transport, data: data, locKeys: keys, banners: banners, shown: hidden == nil,
      hiddenBecause: hidden)
  }

  /// The user taps the last notification shown: the app opens on `pushTargetUrl(data)`.
  public func tapLatest() -> String? {
    guard let notification = received.last(where: \.shown) else { return nil }
    let route: String
    if app.behaviours.pushTapsNotRouted {
      route = "/"
    } else {
      route = PushClient.targetURL(notification.data)
    }
    openedRoute = route
    device.environment.decision(source, "notification tapped: the app opens \(route)")
    return route
  }

  /// `pushTargetUrl`: the thread view with the message anchor; `/` without routing ids.
  public static func targetURL(_ data: [String: String]) -> String {
    guard let mailbox = data["mailbox_id"], !mailbox.isEmpty, let thread = data["thread_id"],
      !thread.isEmpty
    else { return "/" }
    let hash = data["message_id"].flatMap { $0.isEmpty ? nil : "#thread-message-\($0)" } ?? ""
    return "/mailbox/\(mailbox)/thread/\(thread)?has_active=1\(hash)"
  }
}
