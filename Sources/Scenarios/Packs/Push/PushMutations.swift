import Artifacts
import Devices
import QualifyCore

/// Mutations of the push world: the pairing mistakes of rule 14 made by hand, the shell and
/// backend behaviours of rule 15 switched off, and the gateway checks that make a mistake
/// visible.
extension PushVocabulary {
  static let mutations: [MutationSpec] = [
    // `backend.env` (the core pack's) stages rule 14's backend-side mistakes
    // (`backend.env PUSH_APNS_USE_SANDBOX True`).
    MutationSpec(
      "backend.apns-header", [.value("name", .text), .value("value", .text)],
      summary:
        "The backend's APNs sender writes the request header NAME as VALUE (`backend.apns-header apns-expiration 2026-12-31`).",
      breaks:
        "Apple's APNs request headers: apns-id a canonical UUID, apns-expiration epoch seconds"
    ) { configuration, arguments in
      guard let name = arguments["name"] else { return }
      configuration.stack.apnsHeaderOverrides[name] = arguments["value"] ?? ""
    },
    MutationSpec(
      "app.aps-environment", [.value("value", .choice(["removed", "development", "production"]))],
      summary:
        "The iOS build is signed with this `aps-environment` (`removed`: App.entitlements lost the key, the OS gives no token).",
      breaks: "rule 14: the APNs environment of the build's tokens"
    ) { configuration, arguments in
      let location = configuration.build.push.apsEnvironment?.location
      switch arguments["value"] {
      case "removed": configuration.build.push.apsEnvironment = nil
      case let value?: configuration.build.push.apsEnvironment = Sourced(value, at: location)
      case nil: break
      }
    },
    MutationSpec(
      "app.google-services", [.value("change", .choice(["other-project", "without-client"]))],
      summary:
        "The Android build's `google-services.json` comes from another Firebase project (`other-project`), or has no client for the app id (`without-client`).",
      breaks: "rule 14: google-services.json of the backend's project, with a client for the app id"
    ) { configuration, arguments in
      var push = configuration.build.push
      switch arguments["change"] {
      case "other-project":
        let project = push.firebaseProjectId?.value ?? "messages"
        push.firebaseProjectId = Sourced(
          project + "-staging", at: push.firebaseProjectId?.location)
      case "without-client":
        let id = configuration.build.appId.value
        push.firebasePackages.removeAll { $0.value == id }
      default: break
      }
      configuration.build.push = push
    },
    MutationSpec(
      "app.banner-strings-removed",
      summary: "The build's strings lose every banner loc-key, in every locale.",
      breaks: "rule 15: a content-free banner drawn from the build's strings"
    ) { configuration, _ in
      var strings = configuration.build.push.bannerStrings
      let keys = Set(configuration.build.push.requiredBannerKeys)
      for locale in strings.keys {
        strings[locale] = strings[locale]?.filter { !keys.contains($0.key) }
      }
      configuration.build.push.bannerStrings = strings
    },
    MutationSpec(
      "app.post-notifications-undeclared",
      summary:
        "The Android manifest no longer declares android.permission.POST_NOTIFICATIONS (Android 13+ then never asks).",
      breaks: "seed 000, Push notifications: Android 13+ needs POST_NOTIFICATIONS to show anything"
    ) { configuration, _ in
      let location = configuration.build.push.postNotificationsPermission?.location
      configuration.build.push.postNotificationsPermission = Sourced(false, at: location)
    },
    MutationSpec(
      "device.play-services",
      summary: "Every Android device has Google Play services, whatever the scenario declares.",
      breaks: "rule 14: FCM tokens come from Play services"
    ) { configuration, _ in
      configuration.withPlayServices = true
    },
    .shell(
      "app.push-skips-refresh-on-launch",
      "The app does not re-register its push token on launch: a rotated token never reaches the backend.",
      breaks: "seed 000, Push notifications: the token is refreshed on launch"
    ) { $0.pushSkipsRefreshOnLaunch = true },
    .shell(
      "app.push-taps-not-routed",
      "A notification tap opens the app on its home: the tap listener is added after the tap that cold-started the app was replayed.",
      breaks: "rule 15: a tap opens the message's thread"
    ) { $0.pushTapsNotRouted = true },
    .shell(
      "app.push-registers-without-permission",
      "The enable flow registers the device with the backend even when the user refused notifications.",
      breaks: "seed 000, Push notifications: a denied permission registers nothing"
    ) { $0.pushRegistersWithoutPermission = true },
    .stack(
      "backend.keeps-push-devices-on-logout",
      "Logout leaves the devices the session registered in place.",
      breaks: "rule 15: logout deletes the device's push token server-side"
    ) { $0.backendKeepsPushChannelsOnLogout = true },
    .stack(
      "backend.logout-deletes-every-device",
      "Logout deletes every device of the user, not only those the ending session registered: the user's other phones stop getting pushes.",
      breaks: "rule 15: logout deletes the devices of the session that ends"
    ) { $0.backendLogoutDeletesEveryDevice = true },
    .stack(
      "backend.deletes-any-users-device",
      "DELETE /api/v1.0/users/me/channels/{id} deletes the device by its id alone, whoever's session asks.",
      breaks: "rule 15: a user deletes only their own devices"
    ) { $0.backendDeletesAnyUsersDevice = true },
    .stack(
      "backend.push-token-unique-per-user",
      "The device table is unique per user and token: a token registered by another user of the same phone stays theirs too.",
      breaks: "rule 15: a push token belongs to the phone's signed-in user alone"
    ) { $0.backendPushTokenUniquePerUser = true },
    .stack(
      "backend.keeps-dead-tokens",
      "The sender never prunes a device whose token is dead (APNs 410 Unregistered, FCM UNREGISTERED).",
      breaks: "seed 000, Push notifications: Unregistered tokens are pruned"
    ) { $0.backendKeepsDeadTokens = true },
    .stack(
      "backend.never-refreshes-gateway-tokens",
      "The sender mints its APNs provider token and FCM access token once and never renews them.",
      breaks:
        "Apple: a provider token is refused an hour after its iat; Google: access tokens expire"
    ) { $0.backendNeverRefreshesProviderToken = true },
    .stack(
      "backend.fcm-never-retries",
      "The sender gives up on FCM's first QUOTA_EXCEEDED, UNAVAILABLE or INTERNAL: no retry, no backoff.",
      breaks:
        "Google, FCM error codes: 429, 500 and 503 are retried with exponential backoff, after Retry-After"
    ) { $0.backendNeverRetriesFCM = true },
    .stack(
      "backend.fcm-prunes-on-any-error",
      "The sender deletes a device on any FCM error, a passing outage included, not only on UNREGISTERED.",
      breaks: "Google, FCM error codes: only UNREGISTERED (404) says the token is no longer valid"
    ) { $0.backendPrunesOnAnyFCMError = true },
    .stack(
      "apns.accepts-any-environment",
      "APNs delivers a token of either environment on either gateway.",
      breaks: "rule 14: a token sent to the other gateway is rejected BadDeviceToken"
    ) { $0.apnsAcceptsAnyEnvironment = true },
    .stack(
      "apns.ignores-topic", "APNs delivers whatever apns-topic names.",
      breaks: "Apple: a token is only valid for the topic (bundle id) it was issued to"
    ) { $0.apnsIgnoresTopic = true },
    .stack(
      "fcm.ignores-project", "FCM delivers to a registration token of any Firebase project.",
      breaks: "Google: a registration token belongs to its sender (SENDER_ID_MISMATCH)"
    ) { $0.fcmIgnoresProject = true },
  ]
}
