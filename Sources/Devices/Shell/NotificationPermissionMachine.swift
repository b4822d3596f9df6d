import QualifyCore

/// The OS's notification permission as a user meets it, without I/O: the shells ask and say
/// what happened; this decides whether a dialog shows and what the permission becomes.
///
/// iOS shows its dialog once and keeps the answer. Android 13 (API 33) made
/// `POST_NOTIFICATIONS` a runtime permission: a request for one the manifest does not declare
/// is refused without a dialog, and after two refusals the system shows none any more. An app
/// targeting API 32 or lower on Android 13 is asked by the system itself when it creates its
/// first notification channel; its later requests return the state that prompt left. Below
/// API 33 nothing asks (the shells do not call it there).
struct NotificationPermissionMachine: Sendable, Equatable {
  enum State: String, Sendable {
    case notAsked = "not-asked"
    case granted, denied
  }

  struct Facts: Sendable, Equatable {
    var platform: Platform
    /// The build's `targetSdkVersion` (Android), nil when unread or on iOS.
    var targetSdk: Int?
    var declaresPostNotifications: Bool

    init(platform: Platform, targetSdk: Int? = nil, declaresPostNotifications: Bool) {
      self.platform = platform
      self.targetSdk = targetSdk
      self.declaresPostNotifications = declaresPostNotifications
    }

    /// Android's legacy behaviour: the app targets API 32 or lower.
    var targetsLegacy: Bool { platform == .android && (targetSdk ?? 33) < 33 }
  }

  /// What a request did.
  enum Request: Sendable, Equatable {
    /// The system's dialog showed; `state` holds the user's answer.
    case dialog
    /// Android: the manifest does not declare `POST_NOTIFICATIONS`; refused with no dialog.
    case undeclared
    /// Android: refused twice before; the system shows no dialog any more.
    case deniedTwice
    /// Android, targetSdk below 33: the request returns what the system's own prompt left.
    case legacy(targetSdk: Int)
    /// Decided before with no dialog now: iOS keeps its answer, Android returns a grant.
    case decided
  }

  let facts: Facts
  private(set) var state: State = .notAsked
  /// How many times the system showed its dialog.
  private(set) var dialogs = 0

  init(facts: Facts) { self.facts = facts }

  /// `requestPermissions` / `requestAuthorization`.
  mutating func request(userGrants: Bool) -> Request {
    switch facts.platform {
    case .android:
      if facts.targetsLegacy { return .legacy(targetSdk: facts.targetSdk ?? 0) }
      // Granted already: the request returns it with no dialog.
      if state == .granted { return .decided }
      if !facts.declaresPostNotifications {
        state = .denied
        return .undeclared
      }
      if state == .denied && dialogs >= 2 { return .deniedTwice }
      show(userGrants)
      return .dialog
    case .ios:
      guard state == .notAsked else { return .decided }
      show(userGrants)
      return .dialog
    }
  }

  /// Android 13, an app targeting API 32 or lower: the system asks by itself when the app
  /// creates its first notification channel. Returns whether it asked.
  mutating func firstChannelCreated(userGrants: Bool) -> Bool {
    guard facts.targetsLegacy else { return false }
    show(userGrants)
    return true
  }

  private mutating func show(_ userGrants: Bool) {
    dialogs += 1
    state = userGrants ? .granted : .denied
  }
}
