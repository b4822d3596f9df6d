import Artifacts
import Devices
import Foundation
import HTTP
import MockStack
import QualifyCore
import StackPorts

/// The hybrid pack: seed 003's WebView containers — the JS bridge, the notification
/// permission and its answer to the page, FCM token registration with the site and its
/// deletion at logout, pushes whose tap opens their `targetUrl`, and Universal Links / App
/// Links as the OS decides them from the site's `.well-known` files.
enum HybridPack: ScenarioPack {
  static let name = "hybrid"
  static let shells: Set<ShellKind> = [.hybridWebView]

  static let actions: [ActionSpec] = [
    ActionSpec(
      .app, "is opened",
      summary:
        "The user opens the app: at its first start the OS verifies the links it claims and Firebase gives it a token; the WebView loads the site's home page.",
      example: "appplatform is opened"
    ) { context in
      let shell = try context.hybridShell()
      shell.launch()
      return outcome(shell, "opened")
    },
    ActionSpec(
      .app, "browses to", [.value("path", .text)],
      summary: "The user follows a link of the site to PATH inside the WebView.",
      example: "appplatform browses to /messages/42"
    ) { context in
      let shell = try context.hybridShell()
      let path = context.arguments["path"] ?? "/"
      shell.load(shell.origin + (path.hasPrefix("/") ? path : "/" + path))
      return outcome(shell, "browsed to \(path)")
    },
    ActionSpec(
      .app, "is swiped away",
      summary:
        "The user closes the app (its process ends); the site session stays in the WebView's cookies.",
      example: "appplatform is swiped away"
    ) { context in
      let shell = try context.hybridShell()
      shell.close()
      return outcome(shell, "was swiped away")
    },
    ActionSpec(
      .app, "runs on api level", [.value("level", .integer)],
      summary:
        "Android's API level (default 34): from 33 (Android 13) notifications need the POST_NOTIFICATIONS runtime permission.",
      example: "appplatform runs on api level 32"
    ) { context in
      let shell = try context.hybridShell()
      shell.apiLevel = Int(context.arguments["level"] ?? "") ?? 34
      return Outcome("\(shell.name) runs on API level \(shell.apiLevel)")
    },
    ActionSpec(
      .app, "will answer notifications", [.value("answer", .choice(["allow", "deny"]))],
      summary: "What the user answers when the system asks about notifications (default allow).",
      example: "appplatform will answer notifications deny"
    ) { context in
      let shell = try context.hybridShell()
      shell.answersAllow = context.arguments["answer"] != "deny"
      return Outcome("\(shell.name)'s user will \(context.arguments["answer"] ?? "allow")")
    },
    ActionSpec(
      .app, "signs in to the site as", [.value("user", .user)],
      summary:
        "The site's login form in the WebView (`POST /login`, `PHPSESSID`); the signed-in page then carries the user's id and salt, and the container registers its FCM token with them.",
      example: "appplatform signs in to the site as first"
    ) { context in
      let shell = try context.hybridShell()
      guard let user = context.arguments["user"].flatMap({ context.world.users[$0] }) else {
        throw ScenarioRuntimeError("no test user \(context.arguments["user"] ?? "?")")
      }
      shell.signIn(login: user.username, password: user.password ?? "")
      var result = outcome(shell, "signed in as \(user.username)")
      if shell.signedInUser == nil {
        result.problem = .init(
          kind: .failed, message: "\(shell.name) is not signed in: \(describe(shell))",
          reason: .hybridPage)
      }
      return result
    },
    ActionSpec(
      .app, "signs out of the site",
      summary: "The page's logout button (`POST /logout`): the site's LogoutEvent runs.",
      example: "appplatform signs out of the site"
    ) { context in
      let shell = try context.hybridShell()
      shell.signOut()
      return outcome(shell, "signed out")
    },
    ActionSpec(
      .app, "page calls the bridge", [.value("method", .text)],
      summary:
        "The page's script calls the native bridge: `window.AndroidBridge.METHOD(…)` on Android (`getAppVersion`, `openNativeShare` with the page's title and URL), `window.webkit.messageHandlers.METHOD.postMessage({type: 'request'})` on iOS (`notify`).",
      example: "appplatform page calls the bridge getAppVersion"
    ) { context in
      let shell = try context.hybridShell()
      let method = context.arguments["method"] ?? ""
      let answer = shell.callBridge(
        method, arguments: ["AppPlatform", shell.origin + (shell.pagePath ?? "/")])
      return Outcome("\(shell.name)'s page called \(method): \(answer)")
    },
    ActionSpec(
      .app, "taps the settings link",
      summary:
        "The page's link for a user who denied notifications (`appplatform://settings/notifications`): the app's settings activity opens the system's notification settings.",
      example: "appplatform taps the settings link"
    ) { context in
      let shell = try context.hybridShell()
      return Outcome("\(shell.name) tapped the settings link: \(shell.tapSettingsLink())")
    },
    ActionSpec(
      .world, "the site notifies", [.value("user", .user), .keyword("about", "path", .text)],
      summary:
        "A business event for USER (a booking request, a message): FirebaseNotification sends FCM v1 to each of the user's tokens, with `data.targetUrl` the page at PATH (default /).",
      example: "the site notifies first about /booking/123", powers: [.backendHook]
    ) { context in
      let (site, login, user) = try siteUser(context.world, context.arguments)
      let path = context.arguments["path"] ?? "/"
      var result = Outcome("the site notified \(login) about \(path)")
      result.response = try site.notify(
        userId: user.id, title: "AppPlatform", body: "Nouvelle demande",
        targetUrl: site.origin.url(path))
      return result
    },
    ActionSpec(
      .app, "turns notifications", [.value("state", .choice(["off", "on"]))],
      summary:
        "On the site's settings, the user turns its notifications off (or on) for this device: the site records it on the device's token (`Device.notificationActivated`).",
      example: "appplatform turns notifications off", powers: [.backendHook]
    ) { context in
      let shell = try context.hybridShell()
      guard let token = shell.fcmToken, let site = context.world.ports.hybridSite else {
        throw ScenarioRuntimeError("\(shell.name) has no FCM token the site could know")
      }
      let on = context.arguments["state"] == "on"
      try site.setNotifications(token: token, activated: on)
      return Outcome(
        "\(shell.name) turned the site's notifications \(on ? "on" : "off") for this device")
    },
    ActionSpec(
      .app, "taps the newest notification",
      summary:
        "The pushes that reached the device are shown (when notifications are allowed); the user taps the newest: the app opens on its targetUrl.",
      example: "appplatform taps the newest notification"
    ) { context in
      let shell = try context.hybridShell()
      guard shell.tapNotification() else {
        return Outcome(
          "\(shell.name) has no notification to tap",
          problem: .init(
            kind: .failed,
            message:
              "no notification on \(shell.name) (\(shell.received) push\(shell.received == 1 ? "" : "es") reached it; permission \(shell.permission.rawValue)\(shell.tokenProblem.map { "; \($0)" } ?? ""))",
            reason: .pushes))
      }
      return outcome(shell, "tapped the newest notification")
    },
    ActionSpec(
      .app, "is sent a link to", [.value("path", .text)],
      summary:
        "The user taps https://SITE/PATH in another app (a mail): the OS opens the app on it when the app claims the link and the OS verified the site's association file at install, else the browser.",
      example: "appplatform is sent a link to /booking/123"
    ) { context in
      let shell = try context.hybridShell()
      let path = context.arguments["path"] ?? "/"
      shell.openLink(shell.origin + path)
      return outcome(shell, "was sent a link to \(path)")
    },
    ActionSpec(
      .app, "writes a draft",
      summary:
        "The user starts a message on the page shown and leaves it unsent: it lives in that WebView's page (as a form's text, the history and sessionStorage do).",
      example: "appplatform writes a draft"
    ) { context in
      let shell = try context.hybridShell()
      shell.writeDraft()
      return outcome(shell, "has an unsent draft on \(shell.pagePath ?? "no page")")
    },
    ActionSpec(
      .app, "registers its token as",
      [
        .value("user", .user), .flag("wrong-salt"), .flag("without-token"),
        .flag("without-user-id"),
      ],
      summary:
        "The container's registration request itself (`POST /api/<platform>-register` with userId, userToken and appToken, and the WebView's cookie), for USER — with a wrong salt, or a field left out. Leaves the answer for `expect status`.",
      example: "appplatform registers its token as second"
    ) { context in
      let shell = try context.hybridShell()
      let (_, login, user) = try siteUser(context.world, context.arguments)
      guard let token = shell.fcmToken else {
        return Outcome(
          "\(shell.name) has no FCM token to register",
          problem: .init(
            kind: .failed, message: shell.tokenProblem ?? "no FCM token", reason: .fcmToken))
      }
      var result = Outcome("\(shell.name) registered its token as \(login)")
      result.response = shell.registerToken(
        userId: context.arguments.has("without-user-id") ? nil : user.id,
        salt: context.arguments.has("wrong-salt") ? "not-the-salt" : user.salt,
        token: context.arguments.has("without-token") ? nil : token)
      return result
    },
  ]

  static let expectations: [ExpectationSpec] = [
    ExpectationSpec(
      "page on", [.value("app", .app), .value("path", .text)], negatable: true,
      examines: .reasons(.hybridPage),
      summary: "APP shows the site's page at PATH in its WebView.",
      example: "expect page on appplatform /booking/123"
    ) { context in
      let shell = try context.hybridShell("app")
      let path = context.arguments["path"] ?? "/"
      if (shell.pagePath == path) != context.negated { return nil }
      return context.fail(
        .hybridPage, shell.pagePath ?? "none",
        "\(context.negated ? "did not expect" : "expected") \(shell.name) on \(path); it shows \(describe(shell))"
          + (shell.linkNotRouted.map { " (the last link was not loaded: \($0))" } ?? ""))
    },
    ExpectationSpec(
      "draft kept on", [.value("app", .app)],
      examines: .reasons(.pageState),
      summary:
        "The draft APP's user wrote is still in the WebView that shows the page now: what arrived since (a link, a push tap) was loaded in the WebView that ran, not in a new one.",
      example: "expect draft kept on appplatform"
    ) { context in
      let shell = try context.hybridShell("app")
      if shell.draftKept { return nil }
      guard shell.draftIn != nil else {
        return context.missing(.pageState, "\(shell.name)'s user wrote no draft")
      }
      let code = shell.build.hybrid?.code
      let cause = [code?.linksKeepWebView, code?.routesRunningLinks].compactMap { $0 }
        .first { !$0.value }
      return context.fail(
        .pageState, "lost",
        "the draft written in \(shell.name)'s WebView is gone: it shows \(describe(shell)) in another WebView"
          + (cause.map { " (\($0.derivation.first ?? "") — \($0.origin))" } ?? ""))
    },
    ExpectationSpec(
      "link on", [.value("app", .app), .value("where", .choice(["in-app", "in-browser"]))],
      examines: .reasons(.linkTarget),
      summary:
        "The last link the user tapped for APP opened in the app (its page in the WebView) or in the browser.",
      example: "expect link on appplatform in-app"
    ) { context in
      let shell = try context.hybridShell("app")
      let inBrowser: Bool
      if case .browser = shell.screen { inBrowser = true } else { inBrowser = false }
      let wanted = context.arguments["where"] == "in-browser"
      if inBrowser == wanted { return nil }
      let why = shell.verification.values.compactMap { $0 }.first.map { " (\($0))" } ?? ""
      return context.fail(
        .linkTarget, inBrowser ? "browser" : "app",
        "expected the link in the \(wanted ? "browser" : "app"); it opened in the \(inBrowser ? "browser" : "app: \(describe(shell))")\(inBrowser ? why : "")"
      )
    },
    ExpectationSpec(
      "permission on",
      [.value("app", .app), .value("state", .choice(["granted", "denied", "not-asked"]))],
      summary: "APP's notification permission.",
      example: "expect permission on appplatform granted"
    ) { context in
      let shell = try context.hybridShell("app")
      let wanted = context.arguments["state"] ?? ""
      if shell.permission.rawValue == wanted { return nil }
      return context.fail(
        .permission, shell.permission.rawValue,
        "expected the notification permission \(wanted) on \(shell.name); it is \(shell.permission.rawValue) (\(shell.dialogs) dialog\(shell.dialogs == 1 ? "" : "s") shown)"
      )
    },
    ExpectationSpec(
      "permission event on",
      [.value("app", .app), .value("granted", .choice(["granted", "denied"]), optional: true)],
      negatable: true,
      summary:
        "The page got `onNativePermissionResult` (with `granted` true or false when named) since APP started.",
      example: "expect permission event on appplatform granted"
    ) { context in
      let shell = try context.hybridShell("app")
      let wanted = context.arguments["granted"].map { "granted=\($0 == "granted")" }
      let got = shell.pageEvents.contains { event in wanted.map { event.hasSuffix($0) } ?? true }
      if got != context.negated { return nil }
      return context.fail(
        .bridge, "permission-event",
        "\(context.negated ? "did not expect" : "expected") onNativePermissionResult\(wanted.map { " \($0)" } ?? "") on \(shell.name)'s page; it got \(shell.pageEvents.isEmpty ? "none" : shell.pageEvents.joined(separator: ", "))"
      )
    },
    ExpectationSpec(
      "bridge answer on", [.value("app", .app), .value("text", .text)], negatable: true,
      summary: "What the page got back from its last bridge call contains TEXT.",
      example: "expect bridge answer on appplatform \"2.3.0\""
    ) { context in
      let shell = try context.hybridShell("app")
      let text = context.arguments["text"] ?? ""
      let got = shell.bridgeAnswer ?? "nothing"
      if got.contains(text) != context.negated { return nil }
      return context.fail(
        .bridge, "answer",
        "\(context.negated ? "did not expect" : "expected") \"\(text)\" from the bridge on \(shell.name); the page got \(got)"
      )
    },
    ExpectationSpec(
      "fcm token on", [.value("app", .app)], negatable: true,
      summary: "Firebase Messaging gave APP a registration token.",
      example: "expect fcm token on appplatform"
    ) { context in
      let shell = try context.hybridShell("app")
      if (shell.fcmToken != nil) != context.negated { return nil }
      return context.fail(
        .fcmToken, shell.fcmToken == nil ? "none" : "present",
        shell.fcmToken == nil
          ? "\(shell.name) has no FCM token: \(shell.tokenProblem ?? "it was never asked for")"
          : "did not expect an FCM token on \(shell.name)")
    },
    ExpectationSpec(
      "tokens of", [.value("user", .user), .value("count", .integer)],
      summary: "The site's AppToken table holds COUNT rows for USER.",
      example: "expect tokens of first 1"
    ) { context in
      let (site, login, user) = try siteUser(
        context.world, context.arguments, login: context.username())
      let count = try site.tokenCount(userId: user.id)
      let wanted = Int(context.arguments["count"] ?? "") ?? 0
      if count == wanted { return nil }
      return context.fail(
        .deviceTokens, "\(count)",
        "expected \(wanted) AppToken row\(wanted == 1 ? "" : "s") for \(login); the site holds \(count)\(siteCode(context.world))"
      )
    },
    ExpectationSpec(
      "pushes on", [.value("app", .app), .value("count", .integer)],
      summary:
        "COUNT pushes reached APP since it was installed (shown or not: what a device logged out of the site must never get).",
      example: "expect pushes on appplatform 1"
    ) { context in
      let shell = try context.hybridShell("app")
      shell.receivePushes()
      let wanted = Int(context.arguments["count"] ?? "") ?? 0
      if shell.received == wanted { return nil }
      return context.fail(
        .pushes, "\(shell.received)",
        "expected \(wanted) push\(wanted == 1 ? "" : "es") on \(shell.name); \(shell.received) reached it\(shell.tokenProblem.map { " (\($0))" } ?? "")\(siteCode(context.world))"
      )
    },
    ExpectationSpec(
      "notifications shown on", [.value("app", .app), .value("count", .integer)],
      summary:
        "COUNT of the pushes that reached APP were shown: from Android 13 (API 33) only with the notification permission granted.",
      example: "expect notifications shown on appplatform 0"
    ) { context in
      let shell = try context.hybridShell("app")
      shell.receivePushes()
      let wanted = Int(context.arguments["count"] ?? "") ?? 0
      if shell.notifications.count == wanted { return nil }
      return context.fail(
        .shown, "\(shell.notifications.count)",
        "expected \(wanted) notification\(wanted == 1 ? "" : "s") shown on \(shell.name) (API level \(shell.apiLevel), permission \(shell.permission)); \(shell.notifications.count) of \(shell.received) were\(shell.stayedInTray.map { " — \($0)" } ?? "")"
      )
    },
    ExpectationSpec(
      "settings screen on", [.value("app", .app)], negatable: true,
      summary: "The system's notification settings of APP are shown.",
      example: "expect settings screen on appplatform"
    ) { context in
      let shell = try context.hybridShell("app")
      if (shell.screen == .settings) != context.negated { return nil }
      return context.fail(
        .hybridPage, "settings",
        "\(context.negated ? "did not expect" : "expected") the notification settings on \(shell.name); it shows \(describe(shell))"
      )
    },
  ]

  static let mutations: [MutationSpec] = HybridMutations.all

  static let failureReasons: [FailureReason] = [
    .hybridPage, .linkTarget, .permission, .bridge, .fcmToken, .deviceTokens, .pushes,
    .shown, .pageState,
  ]

  static func describe(_ shell: HybridShell) -> String {
    switch shell.screen {
    case .closed: return "nothing (closed)"
    case .page(let url): return "the page \(url)"
    case .browser(let url): return "the browser on \(url)"
    case .settings: return "the notification settings"
    }
  }

  /// The rules the site's own code lacks, with where, for a failure they explain.
  /// The site's port and its account of the scenario's `user`.
  static func siteUser(_ world: World, _ arguments: Arguments, login: String? = nil) throws -> (
    site: HybridSitePort, login: String, account: SiteAccount
  ) {
    guard let site = world.ports.hybridSite,
      let login = login ?? arguments["user"].flatMap({ world.users[$0]?.username }),
      let account = try site.account(login: login)
    else { throw ScenarioRuntimeError("no site user \(arguments["user"] ?? "?")") }
    return (site, login, account)
  }

  static func siteCode(_ world: World) -> String {
    guard let code = world.configuration.build.hybrid?.backendCode else { return "" }
    let facts: [(Sourced<Bool>?, String)] = [
      (code.checksUserSalt, "no salt check"), (code.movesOtherUsersToken, "no token move"),
      (code.idempotentForSameUser, "registration not idempotent"),
      (code.logoutDeletesToken, "no DeleteDeviceTask on LogoutEvent"),
      (code.sendsTargetUrl, "no data.targetUrl"),
      (code.honoursDeviceOptOut, "no per-device opt-out"),
    ]
    let missing = facts.compactMap { fact, text in
      fact.flatMap { $0.value ? nil : "\(text) (\($0.origin))" }
    }
    return missing.isEmpty ? "" : "; the site's code: " + missing.joined(separator: ", ")
  }

  static func outcome(_ shell: HybridShell, _ what: String) -> Outcome {
    Outcome("\(shell.name) \(what): \(describe(shell))")
  }
}

extension FailureReason {
  static let hybridPage = FailureReason(
    "hybrid-page", detail: "the path shown", "The WebView shows another page.")
  static let pageState = FailureReason(
    "page-state", detail: "lost",
    "What the page held (a draft) is gone: a new WebView shows the page.")
  static let linkTarget = FailureReason(
    "link-target", detail: "app or browser", "A link opened where it should not.")
  static let permission = FailureReason(
    "notification-permission", detail: "its state", "The notification permission differs.")
  static let bridge = FailureReason(
    "bridge", detail: "what", "The page and the native code do not reach each other.")
  static let fcmToken = FailureReason(
    "fcm-token", detail: "none or present", "The app has (or lacks) an FCM token.")
  static let deviceTokens = FailureReason(
    "device-tokens", detail: "how many", "The site holds another number of device tokens.")
  static let pushes = FailureReason(
    "pushes", detail: "how many", "Another number of pushes reached the app.")
  static let shown = FailureReason(
    "shown", detail: "how many", "Another number of pushes was shown to the user.")
}

extension ActionContext {
  /// The acting app's hybrid container.
  func hybridShell() throws -> HybridShell {
    let app = try requireApp()
    guard let shell = world.hybrid?.shells[app.name] else {
      throw ScenarioRuntimeError("\(app.name) is not a hybrid WebView app")
    }
    return shell
  }
}

extension ExpectationContext {
  func hybridShell(_ name: String) throws -> HybridShell {
    guard let value = arguments[name], let shell = world.hybrid?.shells[value] else {
      throw ScenarioRuntimeError("no hybrid WebView app \(arguments[name] ?? name) in this world")
    }
    return shell
  }
}
