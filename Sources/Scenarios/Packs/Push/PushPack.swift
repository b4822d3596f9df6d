import QualifyCore

/// The push pack: the enable flow, the backend's sender, the APNs and FCM gateways and what
/// the OS shows and opens (DESIGN.md fidelity rules 14 and 15, checklist item 8).
///
/// Everything the pack adds to the language is declared here, beside the code it drives;
/// Packs/Packs.swift lists the packs.
enum PushPack: ScenarioPack {
  static let name = "push"
  static let shells: Set<ShellKind> = [.singleOrigin]
  static let actions: [ActionSpec] = PushVocabulary.actions
  static let expectations: [ExpectationSpec] = PushVocabulary.expectations
  static let mutations: [MutationSpec] = PushVocabulary.mutations
  static let failureReasons: [FailureReason] = [
    .notifications, .notificationsOtherwise, .pushRegistrationFailed, .pushDenied,
    .noPushRegistration, .senderLog, .senderLogged, .noMessage, .pushSent, .noPushSent,
    .noNotification, .notificationShown, .blankBanner, .bannerText, .threadNotOpened,
    .noNotificationToTap,
  ]
}

extension FailureReason {
  static let notifications = FailureReason(
    "notifications", detail: "the enable flow's result: registered, denied, registration_failed",
    "The enable flow ended otherwise than the step says.")
  static let notificationsOtherwise = FailureReason(
    "notifications-otherwise",
    "The enable flow ended as said, but not for the reason the step names.")
  static let pushRegistrationFailed = FailureReason(
    "registration-failed",
    "Enabling notifications failed (the OS gave no token, or the backend refused the device) and no expectation examined it."
  )
  static let pushDenied = FailureReason(
    "notifications-denied",
    "Enabling notifications was denied (the permission) and no expectation examined it.")
  static let noPushRegistration = FailureReason(
    "no-enable", "The expectation needs an enable flow (APP enables notifications) before it.")
  static let senderLog = FailureReason(
    "sender-log",
    detail: "what the sender logged instead (delivered, a gateway reason, nothing-sent)",
    "The backend's sender log for the last message has no line with the reason the step names.")
  static let senderLogged = FailureReason(
    "sender-logged", detail: "the reason the step says must not appear",
    "The backend's sender log for the last message has a line the step says it must not have.")
  static let noMessage = FailureReason(
    "no-message", "The expectation needs a message (a message arrives for USER) before it.")
  static let pushSent = FailureReason(
    "push-sent", detail: "the gateway's answer to the first push",
    "The backend sent a push for the last message (it still had a device for the user).")
  static let noPushSent = FailureReason(
    "no-push-sent", "The backend sent no push for the last message: it had no device for the user.")
  static let noNotification = FailureReason(
    "no-notification", detail: "hidden when the OS received it but did not show it",
    "The OS showed no notification for the app with the last message.")
  static let notificationShown = FailureReason(
    "notification-shown", "The OS showed a notification the step says must not appear.")
  static let blankBanner = FailureReason(
    "blank-banner", detail: "the locale whose banner lacks a string",
    "The notification's banner is blank (or lacks a part) in a locale the app ships.")
  static let bannerText = FailureReason(
    "banner-text", "The banner does not read as the step says in any locale.")
  static let threadNotOpened = FailureReason(
    "thread-not-opened", "The tap did not open the app on the message's thread.")
  static let noNotificationToTap = FailureReason(
    "nothing-to-tap", "The app has no shown notification to tap.")
}
