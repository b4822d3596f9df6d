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
  private var machine: PushRegistrationStateMachine
  /// Everything the OS received for the app, oldest first.
  public private(set) var received: [Notification] = []
  /// Where the last tap opened the app.
  public private(set) var openedRoute: String?

  init(app: App) {
    self.app = app
    machine = PushRegistrationStateMachine(
      facts: .init(build: app.build, hasPlayServices: app.device.hasPlayServices),
      behaviours: .init(
        registersWithoutPermission: app.behaviours.pushRegistersWithoutPermission,
        skipsRefreshOnLaunch: app.behaviours.pushSkipsRefreshOnLaunch,
        tapsNotRouted: app.behaviours.pushTapsNotRouted))
  }

  public var permission: Permission { machine.permission }
  /// The opt-in marker `setPushOptIn` leaves: the on-launch refresh runs only for it.
  public var optedIn: Bool { machine.optedIn }
  /// The token the OS gave the app last, and every token it ever gave this installation.
  public var token: String? { machine.token }
  public var tokens: [String] { machine.tokens }
  public var uninstalled: Bool { machine.uninstalled }

  private var device: Device { app.device }
  private var source: String { "\(device.platform.rawValue)/\(app.name)" }
  private var osSource: String { "\(device.platform.rawValue)/os" }

  /// The local-storage key of the last registered token (`push-native-token`).
  public var tokenStorageKey: String { "\(app.build.name)_push-native-token" }

  // MARK: Enable

  /// `enableNativePush()`: the permission prompt (the user answers `grants`), the OS
  /// registration, the channel upsert.
  public func enable(userGrants grants: Bool = true) -> EnableResult {
    let prompted = machine.permission == .prompt && machine.promptShows
    let denial = machine.askPermission(userGrants: grants)
    if prompted {
      device.environment.decision(
        source, "the OS asks to allow notifications: the user \(grants ? "allows" : "refuses")")
    }
    if let why = denial {
      if machine.registersAfterDenial {
        let result = registerDevice()
        device.environment.decision(
          source, "notifications: registered without permission (\(result.reason))")
      }
      device.environment.decision(source, "notifications: denied (\(why))")
      return .denied(why)
    }
    let result = registerDevice()
    if case .registered = result { machine.optIn() }
    device.environment.decision(source, "notifications: \(result.label) (\(result.reason))")
    return result
  }

  /// `refreshNativePushRegistration()`: best-effort, like the app's.
  func refreshOnLaunch() {
    switch machine.refreshesOnLaunch() {
    case nil: return
    case false?:
      device.environment.decision(source, "launch: the push registration is not refreshed")
    case true?:
      let result = registerDevice()
      device.environment.decision(
        source, "launch: push registration refreshed: \(result.label) (\(result.reason))")
    }
  }

  /// The OS registration, then the channel upsert (`registerNativeDevice`).
  private func registerDevice() -> EnableResult {
    let token: String
    switch obtainToken() {
    case .failure(let why): return .registrationFailed(why.message)
    case .success(let value): token = value
    }
    let body: [String: Any] = [
      "type": "push", "platform": device.platform == .ios ? "apns" : "fcm", "token": token,
      "name": device.name, "app_version": app.build.capacitor?.updaterVersion?.value ?? "builtin",
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

  private func obtainToken() -> Result<String, OSError> {
    let (origin, body): (Origin, [String: String])
    switch machine.tokenRequest() {
    case .cached(let token): return .success(token)
    case .impossible(let why): return .failure(OSError(message: why))
    case .ask(let service, let request): (origin, body) = (service, request)
    }
    let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
    guard
      let response = osSend(
        ClientRequest(
          method: "POST", url: origin.url("/_device/register"),
          headers: ["Content-Type": "application/json"], body: Array(data)))
    else {
      return .failure(OSError(message: "\(origin.host) unreachable"))
    }
    guard response.status == 200,
      let token = (response.jsonObject as? [String: Any])?["token"] as? String
    else {
      let error = (response.jsonObject as? [String: Any])?["error"] as? String
      return .failure(OSError(message: error ?? "\(origin.host) answered \(response.status)"))
    }
    // A push token routes to one phone: evidence names it by a prefix, never whole.
    device.environment.redactor.register(token)
    machine.tokenIssued(token)
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

  private var serviceOrigin: Origin {
    device.platform == .android
      ? PushRegistrationStateMachine.fcm
      : PushRegistrationStateMachine.apns(app.build.push.apsEnvironment?.value ?? "development")
  }

  /// The OS drops the app's current token (a rotation): the push service forgets it, and the
  /// next registration gets a new one.
  public func rotateToken() {
    guard let old = machine.rotate() else { return }
    unregister(old)
    device.environment.decision(osSource, "the push token of \(app.name) was rotated by the OS")
  }

  /// The app is deleted from the device: its tokens die with it.
  public func uninstall() {
    for token in machine.uninstall() { unregister(token) }
    device.environment.decision(osSource, "\(app.name) was deleted from the device")
  }

  private func unregister(_ token: String) {
    let data = (try? JSONSerialization.data(withJSONObject: ["token": token])) ?? Data()
    _ = osSend(
      ClientRequest(
        method: "POST", url: serviceOrigin.url("/_device/unregister"),
        headers: ["Content-Type": "application/json"], body: Array(data)))
  }

  // MARK: Receiving

  /// What the OS received for the app since the last call, rendered as the OS renders it.
  @discardableResult
  public func receive() -> [Notification] {
    guard !machine.uninstalled else { return [] }
    var new: [Notification] = []
    for token in machine.tokens {
      guard
        let response = osSend(
          ClientRequest(url: serviceOrigin.url("/_device/notifications?token=\(token)"))),
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

  private func render(_ payload: [String: Any]) -> Notification {
    let (transport, keys, data) = PushRegistrationStateMachine.read(payload)
    let hidden = machine.hiddenBecause()
    return Notification(
      transport: transport, data: data, locKeys: keys,
      banners: PushRegistrationStateMachine.banners(
        keys, platform: device.platform, strings: app.build.push.bannerStrings,
        files: app.build.push.bannerFiles),
      shown: hidden == nil, hiddenBecause: hidden)
  }

  /// The user taps the last notification shown: the app opens on `pushTargetUrl(data)`.
  public func tapLatest() -> String? {
    guard let notification = received.last(where: \.shown) else { return nil }
    let route = machine.route(notification.data)
    openedRoute = route
    device.environment.decision(source, "notification tapped: the app opens \(route)")
    return route
  }
}
