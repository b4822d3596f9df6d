import Artifacts
import Foundation
import HTTP
import QualifyCore

/// The shell's push decisions, with no I/O: the app's `push.ts` (`enableNativePush`,
/// `refreshNativePushRegistration`, `pushTargetUrl`) over the platforms' rules for a push
/// token and for showing a notification (seed 000, *Push notifications in dev* and checklist
/// item 8; seed 003 sections 3-5; DESIGN.md rules 14 and 15).
///
/// `PushClient` is the I/O around it: the OS's requests to the push services, the channel
/// upsert to the backend, the evidence.
struct PushRegistrationStateMachine: Sendable {
  struct Behaviours: Sendable {
    var registersWithoutPermission = false
    var skipsRefreshOnLaunch = false
    var tapsNotRouted = false
  }

  /// What the build and the phone decide before any request.
  struct Facts: Sendable {
    var platform: Platform
    var appId: String
    /// iOS: the signed `aps-environment`, nil without the entitlement.
    var apsEnvironment: String?
    /// iOS: the entitlements file the build signs with, named when the entitlement is missing.
    var entitlementsFile: String?
    /// Android: Google Play services on the phone.
    var hasPlayServices: Bool
    /// Android: `google-services.json`'s project and the packages it has clients for.
    var firebaseProject: String?
    var firebasePackages: [String]
    /// Android: `POST_NOTIFICATIONS` declared in the manifest.
    var declaresPostNotifications: Bool

    init(
      platform: Platform, appId: String, apsEnvironment: String?, hasPlayServices: Bool,
      firebaseProject: String?, firebasePackages: [String], declaresPostNotifications: Bool
    ) {
      self.platform = platform
      self.appId = appId
      self.apsEnvironment = apsEnvironment
      self.hasPlayServices = hasPlayServices
      self.firebaseProject = firebaseProject
      self.firebasePackages = firebasePackages
      self.declaresPostNotifications = declaresPostNotifications
    }

    init(build: AppBuild, hasPlayServices: Bool) {
      platform = build.platform
      appId = build.appId.value
      apsEnvironment = build.push.apsEnvironment?.value
      entitlementsFile = build.files["ios.entitlements"]
      self.hasPlayServices = hasPlayServices
      firebaseProject = build.push.firebaseProjectId?.value
      firebasePackages = build.push.firebasePackages.map(\.value)
      declaresPostNotifications = build.push.postNotificationsPermission?.value == true
    }
  }

  /// How the OS gets the app a token.
  enum TokenRequest: Sendable, Equatable {
    /// The token it already holds.
    case cached(String)
    /// Ask the push service at `origin` with `body` (`/_device/register`).
    case ask(Origin, [String: String])
    /// It cannot: the registration error the app's listener receives.
    case impossible(String)
  }

  typealias Permission = PushClient.Permission

  let facts: Facts
  let behaviours: Behaviours
  /// The OS's side of the permission (Capacitor's `prompt` is its `notAsked`).
  private var os: NotificationPermissionMachine
  var permission: Permission {
    switch os.state {
    case .notAsked: .prompt
    case .granted: .granted
    case .denied: .denied
    }
  }
  private(set) var optedIn = false
  private(set) var token: String?
  private(set) var tokens: [String] = []
  private(set) var uninstalled = false

  init(facts: Facts, behaviours: Behaviours) {
    self.facts = facts
    self.behaviours = behaviours
    os = NotificationPermissionMachine(
      facts: .init(
        platform: facts.platform, declaresPostNotifications: facts.declaresPostNotifications))
  }

  /// The push services the phone's OS keeps a channel to.
  static func apns(_ environment: String) -> Origin {
    Origin(
      scheme: "https",
      host: environment == "production" ? "api.push.apple.com" : "api.sandbox.push.apple.com")
  }
  static let fcm = Origin(scheme: "https", host: "fcm.googleapis.com")

  /// The permission prompt, only while undecided (`checkPermissions` then
  /// `requestPermissions`). Returns why it is not granted, nil when it is.
  mutating func askPermission(userGrants: Bool) -> String? {
    // The app requests only while `checkPermissions` says prompt; the OS decides the rest.
    if permission == .prompt { _ = os.request(userGrants: userGrants) }
    guard permission != .granted else { return nil }
    return facts.platform == .android && !facts.declaresPostNotifications
      ? "the manifest does not declare android.permission.POST_NOTIFICATIONS: Android 13+ never asks and refuses"
      : "the user refused notifications"
  }

  /// Whether the prompt showed at all (Android never shows it for an undeclared permission).
  var promptShows: Bool { !(facts.platform == .android && !facts.declaresPostNotifications) }

  /// `enableNativePush` goes on to register only with the permission granted — unless the
  /// bug of `registersWithoutPermission` registers first.
  var registersAfterDenial: Bool { behaviours.registersWithoutPermission }

  /// `PushNotifications.register()`: what the OS does for a token.
  func tokenRequest() -> TokenRequest {
    if let token { return .cached(token) }
    switch facts.platform {
    case .ios:
      // Apple issues a token only to a build signed with the entitlement, in its environment.
      guard let environment = facts.apsEnvironment else {
        return .impossible(
          "no valid \"aps-environment\" entitlement string found for application (\(facts.appId))"
            + (facts.entitlementsFile.map { " (the app's entitlements: \($0))" } ?? ""))
      }
      return .ask(PushRegistrationStateMachine.apns(environment), ["bundleId": facts.appId])
    case .android:
      // FirebaseMessaging.getToken() needs Play services and an initialised FirebaseApp
      // (google-services.json with a client for the application id).
      guard facts.hasPlayServices else {
        return .impossible("SERVICE_NOT_AVAILABLE: no Google Play services")
      }
      guard let project = facts.firebaseProject else {
        return .impossible(
          "Default FirebaseApp is not initialized: the build has no google-services.json")
      }
      guard facts.firebasePackages.contains(facts.appId) else {
        return .impossible(
          "No matching client found for package name '\(facts.appId)' in google-services.json")
      }
      return .ask(PushRegistrationStateMachine.fcm, ["projectId": project, "package": facts.appId])
    }
  }

  mutating func tokenIssued(_ value: String) {
    token = value
    if !tokens.contains(value) { tokens.append(value) }
  }

  /// `setPushOptIn`: the enable flow registered the device.
  mutating func optIn() { optedIn = true }

  /// `refreshNativePushRegistration()` on launch: nil when it does not apply (no opt-in, the
  /// permission not granted: it never prompts), false when the app skips it.
  func refreshesOnLaunch() -> Bool? {
    guard optedIn, permission == .granted, !uninstalled else { return nil }
    return !behaviours.skipsRefreshOnLaunch
  }

  /// The OS drops the current token; the next registration gets a new one.
  mutating func rotate() -> String? {
    defer { token = nil }
    return token
  }

  /// The app is deleted: every token it had dies with it.
  mutating func uninstall() -> [String] {
    uninstalled = true
    optedIn = false
    token = nil
    return tokens
  }

  /// Why the OS does not show a notification, nil when it does: only with the permission.
  func hiddenBecause() -> String? {
    guard permission != .granted else { return nil }
    return facts.platform == .android
      ? "POST_NOTIFICATIONS is not granted" : "notifications are not allowed for the app"
  }

  /// `pushTargetUrl`: the thread view with the message anchor; `/` without routing ids.
  func route(_ data: [String: String]) -> String {
    behaviours.tapsNotRouted ? "/" : PushRegistrationStateMachine.targetURL(data)
  }

  static func targetURL(_ data: [String: String]) -> String {
    guard let mailbox = data["mailbox_id"], !mailbox.isEmpty, let thread = data["thread_id"],
      !thread.isEmpty
    else { return "/" }
    let hash = data["message_id"].flatMap { $0.isEmpty ? nil : "#thread-message-\($0)" } ?? ""
    return "/mailbox/\(mailbox)/thread/\(thread)?has_active=1\(hash)"
  }

  /// The loc-keys of a payload, in display order, and its routing data: APNs
  /// `aps.alert.title-loc-key`/`loc-key`, FCM `android.notification.title_loc_key`/
  /// `body_loc_key` with `data`.
  static func read(_ payload: [String: Any]) -> (
    transport: String, keys: [String], data: [String: String]
  ) {
    var keys: [String] = []
    var data: [String: String] = [:]
    if let aps = payload["aps"] as? [String: Any] {
      if let alert = aps["alert"] as? [String: Any] {
        for name in ["title-loc-key", "loc-key"] {
          if let key = alert[name] as? String { keys.append(key) }
        }
      }
      for (key, value) in payload where key != "aps" { data[key] = "\(value)" }
      return ("apns", keys, data)
    }
    if let notification = (payload["android"] as? [String: Any])?["notification"]
      as? [String: Any]
    {
      for name in ["title_loc_key", "body_loc_key"] {
        if let key = notification[name] as? String { keys.append(key) }
      }
    }
    for (key, value) in payload["data"] as? [String: Any] ?? [:] { data[key] = "\(value)" }
    return ("fcm", keys, data)
  }

  /// The banner the OS draws for `keys` in each locale the app ships: Android resolves a
  /// string missing from `values-<locale>/` in the default `values/`; an iOS alert's loc-key is
  /// looked up in the device language's table only. A key without a string draws nothing.
  static func banners(
    _ keys: [String], platform: Platform, strings: [String: [String: String]],
    files: [String: String]
  ) -> [String: [String]] {
    let fallback =
      platform == .android
      ? files.first { $0.value.hasSuffix("/values/strings.xml") }?.key : nil
    var banners: [String: [String]] = [:]
    for locale in Set(strings.keys).union(files.keys) {
      banners[locale] = keys.map {
        strings[locale]?[$0] ?? fallback.flatMap { strings[$0] }?[$0] ?? ""
      }
    }
    return banners
  }
}
