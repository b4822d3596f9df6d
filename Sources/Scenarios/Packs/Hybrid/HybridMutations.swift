import Artifacts
import Foundation
import QualifyCore

/// Edits a control makes to a hybrid WebView app (seed 003): its native code, its manifest
/// and entitlements, its Firebase config, its site's `.well-known` files and its backend's
/// code — each a mistake the seed's rules exist for.
enum HybridMutations {
  private static let at = FileLocation(file: "(mutation)", line: 0, column: 1)

  static let all: [MutationSpec] = [
    MutationSpec(
      "app.container-lacks",
      [
        .value(
          "rule",
          .choice([
            "bridge", "permission-on-load", "permission-event", "apns-handoff",
            "token-registration", "target-url", "link-routing", "foreground-banner",
            "auto-cancel", "javascript", "dom-storage", "message-validation", "live-site",
            "native-share", "link-keeps-webview", "running-link",
          ]))
      ],
      summary:
        "The container's code loses one of seed 003's rules: the JS bridge under its name, the permission asked on page load (Android), the answer dispatched to the page, the APNs token handed to Firebase Messaging (iOS), the token registration, the push tap's targetUrl routing, the link routing, or the banner of a push that arrives in the foreground (iOS), or the tapped notification leaving the tray (Android's auto-cancel), or the WebView's JavaScript or DOM storage turned on (Android), or the script message's name and action checked (iOS), or the live site loaded rather than a bundled copy, or the share sheet opened natively (iOS), or a link that arrives while the app runs loaded in the running WebView (not a new one) or reaching the running activity's onNewIntent (Android).",
      breaks: "seed 003, sections 3 and 4"
    ) { configuration, arguments in
      guard var code = configuration.build.hybrid?.code else { return }
      let no = Sourced(false, at: at)
      switch arguments["rule"] {
      case "bridge":
        code.bridgeName = Sourced(
          configuration.platform == .ios ? "notifications" : "Bridge", at: at)
      case "permission-on-load": code.asksPermissionOnPageLoad = no
      case "permission-event": code.permissionEvent = no
      case "apns-handoff": code.apnsHandoff = no
      case "token-registration": code.registersToken = no
      case "target-url": code.opensTargetUrl = no
      case "foreground-banner": code.presentsInForeground = no
      case "auto-cancel": code.autoCancels = no
      case "javascript": code.enablesJavaScript = no
      case "dom-storage": code.enablesDomStorage = no
      case "message-validation": code.validatesBridgeMessage = no
      case "live-site": code.loadsLiveSite = no
      case "native-share": code.sharesNatively = no
      case "link-keeps-webview": code.linksKeepWebView = no
      case "running-link": code.routesRunningLinks = no
      default: code.opensLinks = no
      }
      configuration.build.hybrid?.code = code
    },
    MutationSpec(
      "app.firebase-proxy-off-without-handoff",
      summary:
        "Info.plist sets FirebaseAppDelegateProxyEnabled to NO and AppDelegate never sets Messaging.messaging().apnsToken.",
      breaks: "seed 003, 4.2: the APNs token handed to Firebase Messaging"
    ) { configuration, _ in
      configuration.build.hybrid?.firebaseProxyEnabled = Sourced(false, at: at)
      configuration.build.hybrid?.code.apnsHandoff = Sourced(false, at: at)
    },
    MutationSpec(
      "app.manifest-lacks-post-notifications",
      summary: "AndroidManifest.xml does not declare android.permission.POST_NOTIFICATIONS.",
      breaks: "seed 003, 3: Android 13+ needs the runtime permission"
    ) { configuration, _ in
      configuration.build.hybrid?.declaresPostNotifications = Sourced(false, at: at)
    },
    MutationSpec(
      "app.link-claim-dropped",
      summary:
        "The app stops claiming the site's links: no applinks: entitlement (iOS), no android:autoVerify on the intent filter (Android).",
      breaks: "seed 003, 5.3: Universal Links and App Links"
    ) { configuration, _ in
      configuration.build.hybrid?.associatedDomains = []
      if let filters = configuration.build.hybrid?.linkFilters {
        configuration.build.hybrid?.linkFilters = filters.map {
          var filter = $0
          filter.autoVerify = false
          return filter
        }
      }
    },
    MutationSpec(
      "app.association-mistake",
      [
        .value(
          "mistake",
          .choice(["wrong-team-id", "missing-path", "debug-fingerprint", "wrong-package"]))
      ],
      summary:
        "The site's association file is wrong: apple-app-site-association with another team id or without the /booking/ paths; assetlinks.json with the debug certificate's fingerprint or the debug package.",
      breaks: "seed 003, 5.3: AppID = TeamID.BundleID; the release certificate's SHA-256"
    ) { configuration, arguments in
      guard var hybrid = configuration.build.hybrid else { return }
      switch arguments["mistake"] {
      case "wrong-team-id":
        if let team = hybrid.teamId?.value, var file = hybrid.appleAssociation {
          file.text = file.text.replacingOccurrences(of: team + ".", with: "ZZ9Y8X7W6V.")
          hybrid.appleAssociation = file
        }
      case "missing-path":
        if var file = hybrid.appleAssociation {
          file.text = file.text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.contains("/booking/") }.joined(separator: "\n")
          hybrid.appleAssociation = file
        }
      case "debug-fingerprint":
        if var file = hybrid.assetLinks, let release = hybrid.signingCertificateSHA256?.value {
          let debug =
            hybrid.debugCertificateSHA256
            ?? AssociationFiles.localDebugFingerprint
          file.text = replacingFingerprint(release, with: debug, in: file.text)
          hybrid.assetLinks = file
          hybrid.debugCertificateSHA256 = debug
        }
      default:
        if var file = hybrid.assetLinks {
          let package = configuration.build.appId.value
          file.text = file.text.replacingOccurrences(
            of: "\"\(package)\"", with: "\"\(package).debug\"")
          hybrid.assetLinks = file
        }
      }
      configuration.build.hybrid = hybrid
    },
    MutationSpec(
      "app.firebase-config-of-another-app",
      summary:
        "The Firebase config (google-services.json, GoogleService-Info.plist) registers another app id.",
      breaks: "seed 003, 4-5: the FCM token of this app"
    ) { configuration, _ in
      configuration.build.hybrid?.firebaseApps = [Sourced("com.example.other", at: at)]
    },
    MutationSpec(
      "app.settings-scheme-unregistered",
      summary: "No activity takes the settings link's scheme (SettingsDeepLinkActivity is gone).",
      breaks: "seed 003, 3: appplatform://settings/notifications"
    ) { configuration, _ in
      let scheme = configuration.build.hybrid?.settingsLink?.value.split(separator: ":").first
        .map { String($0).lowercased() }
      configuration.build.registeredSchemes.removeAll { $0.value.lowercased() == scheme }
    },
    MutationSpec(
      "backend.code-lacks",
      [
        .value(
          "rule",
          .choice([
            "salt-check", "token-move", "idempotence", "logout-delete", "target-url", "opt-out",
          ]))
      ],
      summary:
        "The backend's code loses one of seed 003's rules: the user salt check (401), moving a token registered to another user, the same user's registration changing nothing, DeleteDeviceTask at logout, data.targetUrl in the push, or the early return for a device whose notifications are off.",
      breaks: "seed 003, 5.1 and 5.2"
    ) { configuration, arguments in
      guard var code = configuration.build.hybrid?.backendCode else { return }
      let no = Sourced(false, at: at)
      switch arguments["rule"] {
      case "salt-check": code.checksUserSalt = no
      case "token-move": code.movesOtherUsersToken = no
      case "idempotence": code.idempotentForSameUser = no
      case "logout-delete": code.logoutDeletesToken = no
      case "opt-out": code.honoursDeviceOptOut = no
      default: code.sendsTargetUrl = no
      }
      configuration.build.hybrid?.backendCode = code
    },
    MutationSpec(
      "backend.well-known-redirects",
      summary: "The site answers /.well-known/* with a 301 to its www host.",
      breaks: "Apple and Android fetch the association files without following redirects"
    ) { configuration, _ in
      configuration.stack.wellKnownRedirects = true
    },
    MutationSpec(
      "backend.firebase-project-mismatch",
      summary: "The backend sends with FIREBASE_PROJECT_ID of another Firebase project.",
      breaks: "seed 003, 5.2: tokens belong to the app's project (SENDER_ID_MISMATCH)"
    ) { configuration, _ in
      configuration.build.hybrid?.backendFirebaseProject = Sourced("appplatform-staging", at: at)
    },
  ]

  /// `text` with every spelling of the fingerprint `old` (any case, with or without colons)
  /// replaced by `new`.
  private static func replacingFingerprint(_ old: String, with new: String, in text: String)
    -> String
  {
    guard let regex = try? NSRegularExpression(pattern: "[0-9A-Fa-f][0-9A-Fa-f:]{62,}[0-9A-Fa-f]")
    else { return text }
    var out = text
    for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).reversed() {
      guard let range = Range(match.range, in: out),
        AssociationFiles.normalized(String(out[range])) == AssociationFiles.normalized(old)
      else { continue }
      out.replaceSubrange(range, with: new)
    }
    return out
  }
}
