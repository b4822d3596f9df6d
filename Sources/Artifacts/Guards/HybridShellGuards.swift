import QualifyCore

/// The static guards of a hybrid WebView app (seed 003): what its builds and its site must
/// carry for links to open in the app, for notifications to be asked for, and for its FCM
/// tokens to belong to the project the backend sends with.
extension BuildGuards {
  static let hybridShellRules: [GuardRule] = [
    GuardRule(
      id: "apple-app-site-association",
      title: "The site's apple-app-site-association names the app and its paths",
      source: "seed 003, 5.3 (AppID = TeamID.BundleID, the paths the app takes)",
      devAllows: false, shells: [.hybridWebView],
      check: { build in
        guard build.platform == .ios, let hybrid = build.hybrid else { return [] }
        guard let file = hybrid.appleAssociation else {
          return [
            GuardHit(
              "the site has no public/.well-known/apple-app-site-association: iOS opens every link of \(hybrid.host) in Safari",
              at: nil)
          ]
        }
        guard let team = hybrid.teamId else {
          return [
            GuardHit(
              "the app target sets no DEVELOPMENT_TEAM: its appID (TeamID.BundleID) is unknown",
              at: build.appId.location)
          ]
        }
        return AssociationFiles.appleProblems(
          file.text, appID: "\(team.value).\(build.appId.value)", paths: hybrid.links
        ).map { problem in
          GuardHit(
            "\(problem.field) \(problem.message)",
            at: FileLocation(file: file.path, line: problem.line ?? 0, column: 1),
            value: problem.field)
        }
      },
      fix:
        "name \"TEAMID.bundle.id\" (the target's DEVELOPMENT_TEAM and PRODUCT_BUNDLE_IDENTIFIER) under applinks.details and cover the app's paths in its components"
    ),
    GuardRule(
      id: "assetlinks",
      title: "The site's assetlinks.json names the package and its release certificate",
      source: "seed 003, 5.3 (the SHA-256 of the signing certificate and the package name)",
      devAllows: true, shells: [.hybridWebView],
      check: { build in
        guard build.platform == .android, let hybrid = build.hybrid else { return [] }
        guard let file = hybrid.assetLinks else {
          return [
            GuardHit(
              "the site has no public/.well-known/assetlinks.json: Android verifies no App Link of \(hybrid.host)",
              at: nil)
          ]
        }
        guard let fingerprint = hybrid.signingCertificateSHA256 else { return [] }
        return AssociationFiles.androidProblems(
          file.text, package: build.appId.value, fingerprint: fingerprint.value,
          debugFingerprint: hybrid.debugCertificateSHA256
        ).map { problem in
          GuardHit(
            "\(problem.field) \(problem.message)",
            at: FileLocation(file: file.path, line: problem.line ?? 0, column: 1),
            value: problem.field)
        }
      },
      fix:
        "list the release (app-signing) certificate's SHA-256 under sha256_cert_fingerprints of the statement for the release package"
    ),
    GuardRule(
      id: "associated-domains", title: "iOS claims the site's domain (applinks:)",
      source: "seed 003, 4.2 and 5.3 (Universal Links)", devAllows: false,
      shells: [.hybridWebView],
      check: { build in
        guard build.platform == .ios, let hybrid = build.hybrid else { return [] }
        let claimed = hybrid.associatedDomains.contains {
          $0.value.lowercased().split(separator: "?").first.map(String.init)
            == "applinks:\(hybrid.host)"
        }
        if claimed { return [] }
        guard let file = hybrid.entitlementsFile else {
          return [
            GuardHit(
              "the app target signs with no entitlements file (CODE_SIGN_ENTITLEMENTS): it claims no domain, and links of \(hybrid.host) open in Safari",
              at: build.appId.location)
          ]
        }
        return [
          GuardHit(
            "\(file) has no applinks:\(hybrid.host) in com.apple.developer.associated-domains: links of the site open in Safari",
            at: hybrid.associatedDomains.first?.location
              ?? FileLocation(file: file, line: 0, column: 1), value: "applinks:\(hybrid.host)")
        ]
      },
      fix: "add applinks:<host> to com.apple.developer.associated-domains"
    ),
    GuardRule(
      id: "app-links-verified", title: "Android claims the site's links with autoVerify",
      source: "seed 003, 5.3 (App Links)", devAllows: false, shells: [.hybridWebView],
      check: { build in
        guard build.platform == .android, let hybrid = build.hybrid else { return [] }
        var hits: [GuardHit] = []
        for path in hybrid.links {
          let taking = hybrid.linkFilters.filter { $0.takes(host: hybrid.host, path: path) }
          if taking.contains(where: { $0.autoVerify && $0.isBrowsable }) { continue }
          if let filter = taking.first {
            hits.append(
              GuardHit(
                filter.autoVerify
                  ? "the intent filter of \(filter.activity) taking \(hybrid.webOrigin.value)\(path) lacks the DEFAULT and BROWSABLE categories: the link never reaches the app"
                  : "the intent filter of \(filter.activity) taking \(hybrid.webOrigin.value)\(path) has no android:autoVerify=\"true\": Android 12+ opens the link in the browser",
                at: filter.location, value: path))
          } else {
            hits.append(
              GuardHit(
                "no intent filter takes \(hybrid.webOrigin.value)\(path): the link opens in the browser",
                at: build.files["android.manifest"].map {
                  FileLocation(file: $0, line: 0, column: 1)
                }, value: path))
          }
        }
        return hits
      },
      fix:
        "an intent-filter android:autoVerify=\"true\" with VIEW, DEFAULT, BROWSABLE, scheme https, the site's host and the paths"
    ),
    GuardRule(
      id: "notification-permission", title: "Android 13+ can ask for POST_NOTIFICATIONS",
      source: "seed 003, 3 (Android 13+: POST_NOTIFICATIONS)", devAllows: false,
      shells: [.hybridWebView],
      check: { build in
        guard build.platform == .android, let hybrid = build.hybrid,
          let declared = hybrid.declaresPostNotifications, !declared.value,
          (hybrid.targetSdk?.value ?? 33) >= 33
        else { return [] }
        return [
          GuardHit(
            "AndroidManifest.xml declares no android.permission.POST_NOTIFICATIONS while targetSdk is \(hybrid.targetSdk.map { String($0.value) } ?? "unknown"): on Android 13+ the request is refused without a dialog and no push is ever shown",
            at: declared.location)
        ]
      },
      fix: "<uses-permission android:name=\"android.permission.POST_NOTIFICATIONS\" />"
    ),
    GuardRule(
      id: "firebase-app", title: "The Firebase config registers this app, in the backend's project",
      source: "seed 003, 4-5 (FCM tokens, FirebaseNotification with FIREBASE_PROJECT_ID)",
      devAllows: false, shells: [.hybridWebView],
      check: { build in
        guard let hybrid = build.hybrid else { return [] }
        let config = build.platform == .ios ? "GoogleService-Info.plist" : "google-services.json"
        guard let project = hybrid.firebaseProject else {
          return [
            GuardHit(
              "no \(config) found: Firebase Messaging gives the app no FCM token", at: nil)
          ]
        }
        var hits: [GuardHit] = []
        if !hybrid.firebaseMissing.isEmpty {
          hits.append(
            GuardHit(
              "\(config) has no \(hybrid.firebaseMissing.joined(separator: ", ")): Firebase Messaging cannot ask for a token (FirebaseOptions), so the app gets no FCM token",
              at: hybrid.firebaseConfigFile.map { FileLocation(file: $0, line: 0, column: 1) },
              value: hybrid.firebaseMissing.joined(separator: ", ")))
        }
        if !hybrid.firebaseApps.contains(where: { $0.value == build.appId.value }) {
          let listed = hybrid.firebaseApps.map(\.value).joined(separator: ", ")
          hits.append(
            GuardHit(
              "\(config) registers \(listed.isEmpty ? "no app" : listed), not \(build.appId.value): \(build.platform == .ios ? "Firebase gives the app no FCM token" : "the google-services plugin fails the build (no matching client)")",
              at: hybrid.firebaseApps.first?.location ?? project.location, value: listed))
        }
        if build.platform == .ios, hybrid.entitlementsFile != nil, hybrid.apsEnvironment == nil {
          hits.append(
            GuardHit(
              "\(hybrid.entitlementsFile ?? "the entitlements") have no aps-environment: iOS gives the app no APNs token, so Firebase gives it no FCM token",
              at: hybrid.associatedDomains.first?.location
                ?? hybrid.entitlementsFile.map { FileLocation(file: $0, line: 0, column: 1) },
              value: "aps-environment"))
        }
        if let sender = hybrid.backendFirebaseProject, sender.value != project.value {
          hits.append(
            GuardHit(
              "\(config) is of project \(project.value) but the backend sends with FIREBASE_PROJECT_ID=\(sender.value) (\(sender.origin)): FCM refuses every push (SENDER_ID_MISMATCH)",
              at: project.location, value: project.value))
        }
        return hits
      },
      fix: "download the config of the backend's Firebase project with this app's id"
    ),
    GuardRule(
      id: "settings-link", title: "The notification-settings link opens the app's settings",
      source: "seed 003, 3 (SettingsDeepLinkActivity, appplatform://settings/notifications)",
      devAllows: false, shells: [.hybridWebView],
      check: { build in
        guard build.platform == .android, let hybrid = build.hybrid,
          let link = hybrid.settingsLink,
          let scheme = link.value.split(separator: ":").first.map(String.init),
          !build.registers(scheme: scheme)
        else { return [] }
        return [
          GuardHit(
            "no activity of AndroidManifest.xml takes \(scheme)://: the page's \(link.value) link for a user who denied notifications does nothing",
            at: link.location, value: link.value)
        ]
      },
      fix: "an exported activity with a VIEW, DEFAULT, BROWSABLE intent-filter for the scheme"
    ),
    GuardRule(
      id: "container-code", title: "The container's code keeps seed 003's rules",
      source:
        "seed 003, sections 3 and 4 (the bridge, the permission and its answer, the APNs token, the token registration, targetUrl, the links)",
      devAllows: false, shells: [.hybridWebView],
      check: { build in
        guard let hybrid = build.hybrid else { return [] }
        let code = hybrid.code
        // No source file where the container's code should be: every rule below would read
        // as absent-but-unjudged, and the simulated container would follow them all.
        if let unread = code.unread {
          return [
            GuardHit(
              "no source file of the \(build.platform.displayName) container at \(unread): its code was not read, so seed 003's rules in it are unverified",
              at: nil, value: unread, unverified: true)
          ]
        }
        var out: [GuardHit] = []
        func missing(_ fact: Sourced<Bool>?, _ message: String, value: String) {
          if let hit = GuardHit.missing(fact, message, value: value) { out.append(hit) }
        }
        switch build.platform {
        case .android:
          if let name = code.bridgeName, name.value != "AndroidBridge" {
            out.append(
              GuardHit(
                "the bridge is added as window.\(name.value), where the site calls window.AndroidBridge: every call from the page fails",
                at: name.location, value: name.value))
          }
          // What the site calls on window.AndroidBridge (seed 003, section 3).
          if !code.bridgeMethods.isEmpty {
            for method in ["getAppVersion", "openNativeShare"]
            where !code.bridgeMethods.contains(method) {
              out.append(
                GuardHit(
                  "\(code.bridgeClass?.value ?? "the bridge class") exposes no @JavascriptInterface \(method): the site's window.AndroidBridge.\(method)() fails",
                  at: code.bridgeClass?.location, value: method))
            }
          }
          missing(
            code.asksPermissionOnPageLoad,
            "no POST_NOTIFICATIONS request when a page finishes loading (onPageFinished): on Android 13+ the app never asks and shows no push",
            value: "no permission request")
          missing(
            code.opensLinks,
            "no App Link's intent data is loaded in the WebView (intent.data with loadUrl): a link opens the app on its home page",
            value: "no intent.data routing")
          missing(
            code.routesRunningLinks,
            "a link that arrives while the app runs is not loaded by the running activity's onNewIntent: the app comes forward on the page it showed",
            value: "no onNewIntent routing")
        case .ios:
          if let name = code.bridgeName, name.value != "notify" {
            out.append(
              GuardHit(
                "the script message handler is added as \(name.value), where the site posts to messageHandlers.notify: the page cannot ask for notifications",
                at: name.location, value: name.value))
          }
          if hybrid.firebaseProxyEnabled?.value == false {
            missing(
              code.apnsHandoff,
              "FirebaseAppDelegateProxyEnabled is NO (\(hybrid.firebaseProxyEnabled?.origin ?? "Info.plist")) and no Messaging.messaging().apnsToken = deviceToken: Firebase Messaging never gets the APNs token, so no FCM token",
              value: "no apnsToken handoff")
          }
          missing(
            code.sharesNatively,
            "the script message handler opens no share sheet (UIActivityViewController): the site's share button does nothing on iOS, where Android opens openNativeShare",
            value: "no native share")
          missing(
            code.validatesBridgeMessage,
            "the script message handler acts without checking the message's name and its action (message.name == \"notify\", body[\"type\"] == \"request\"): any script of a page can trigger the native request",
            value: "message validation")
          missing(
            code.presentsInForeground,
            "the notification center's delegate does not complete willPresent with .banner (or .list/.alert): a push that arrives while the app is open is never shown",
            value: "no foreground presentation")
          missing(
            code.opensLinks,
            "continue userActivity does not route NSUserActivityTypeBrowsingWeb's webpageURL to the WebView: a Universal Link opens the app on its home page",
            value: "no webpageURL routing")
        }
        missing(
          code.linksKeepWebView,
          "a link that arrives while the app runs is shown in a new \(build.platform == .ios ? "web view or view controller" : "activity or fragment") rather than loaded in the WebView that runs: what the page held (a draft, the history) is lost (seed 003: navigation within the WebView \"sans perte d'état\")",
          value: "new WebView for a link")
        missing(
          code.loadsLiveSite,
          "the WebView starts on a copy bundled in the app, not the live site: its views and forms are those of the day the app was built, and its pages are not of the site's origin (no session cookie, no Universal Link routing)",
          value: "bundled copy")
        missing(
          code.permissionEvent,
          "the permission answer is never dispatched to the page (onNativePermissionResult): the site cannot adapt or offer the settings link",
          value: "no onNativePermissionResult")
        missing(
          code.registersToken,
          "the FCM token is never posted to /api/\(build.platform == .ios ? "ios" : "android")-register: the site cannot push to the device",
          value: "no token registration")
        missing(
          code.opensTargetUrl,
          "a push tap is not routed to the push's targetUrl: the user lands on the home page",
          value: "no targetUrl routing")
        if build.platform == .android {
          missing(
            code.enablesJavaScript,
            "the WebView runs no JavaScript (settings.javaScriptEnabled is not true): the site's scripts, the bridge calls and the permission answer never run",
            value: "javaScriptEnabled")
          missing(
            code.enablesDomStorage,
            "the WebView keeps no DOM storage (settings.domStorageEnabled is not true): what the site keeps in localStorage is gone at every page",
            value: "domStorageEnabled")
          for (fact, setting) in [
            (code.enablesJavaScript, "javaScriptEnabled"),
            (code.enablesDomStorage, "domStorageEnabled"),
          ] where fact == nil && code.unread == nil {
            out.append(
              GuardHit(
                "the WebView's \(setting) is not read (set to something other than a literal, or no WebView found in the container's code): whether it is on is not verified",
                at: nil, value: setting, unverified: true))
          }
          missing(
            code.autoCancels,
            "the notification the messaging service builds stays in the tray when tapped (setAutoCancel is not true; NotificationCompat's default is false): the user taps it again into a page already open",
            value: "setAutoCancel is not true")
        }
        return out
      },
      fix: "restore the rule in the container's code (seed 003, sections 3 and 4)"
    ),
    GuardRule(
      id: "site-code", title: "The site's code keeps seed 003's token rules",
      source: "seed 003, 5.1 and 5.2 (RegisterNotificationDeviceApi, DeleteDeviceTask, targetUrl)",
      devAllows: false, shells: [.hybridWebView],
      check: { build in
        guard let code = build.hybrid?.backendCode else { return [] }
        var out: [GuardHit] = []
        func missing(_ fact: Sourced<Bool>?, _ message: String, value: String) {
          if let hit = GuardHit.missing(fact, message, value: value) { out.append(hit) }
        }
        missing(
          code.checksUserSalt,
          "the registration does not compare the user's salt (getSalt() → 401): anyone knowing a user id can receive that user's pushes",
          value: "no salt check")
        missing(
          code.movesOtherUsersToken,
          "a token registered to another user is not removed first: the previous user's pushes keep reaching the device",
          value: "no token move")
        missing(
          code.idempotentForSameUser,
          "the same user's token is registered again on each request: the user gets each push several times",
          value: "not idempotent")
        missing(
          code.logoutDeletesToken,
          "LogoutEvent does not run DeleteDeviceTask: a signed-out device keeps receiving the user's pushes",
          value: "no DeleteDeviceTask")
        missing(
          code.sendsTargetUrl,
          "the FCM payload carries no data.targetUrl: a tap opens the home page",
          value: "no targetUrl")
        missing(
          code.honoursDeviceOptOut,
          "sendToDevice does not return early when the device's notifications are off (!$device->isNotificationActivated()): a device whose user turned them off keeps getting pushes",
          value: "no per-device opt-out")
        return out
      },
      fix: "restore the rule in the site's code (seed 003, section 5)"
    ),
  ]
}
