import Artifacts
import Devices
import Foundation
import HTTP
import MockStack
import QualifyCore
import StackPorts

/// The authentication world (DESIGN.md fidelity rules 1–9): login and logout through the
/// system browser, the one-time token, the IdP events that prove cross-app SSO, the
/// protected API behind CSRF.
enum AuthenticationVocabulary {
  static let actions: [ActionSpec] = [
    ActionSpec(
      .app, "logs in", [.keyword("as", "user", .user), .flag("remember-me")],
      summary:
        "`nativeLogin()`: authenticate in the system browser (typing USER's credentials if the IdP shows its form, ticking remember-me when asked), then the PKCE-bound exchange through the native stack.",
      example: "mail logs in as first remember-me"
    ) { context in
      let app = try context.requireApp()
      let label = "\(app.name) logs in"
      var outcome = browserOutcome(
        try app.startLogin(credentials: context.credentials()), label: label, world: context.world)
      outcome.app = app.name
      guard outcome.problem == nil else { return outcome }
      let delivered = app.pendingDeepLink
      guard let (_, result) = app.exchangePendingDeepLink() else {
        var message = "the browser delivered no auth deep link"
        if let link = delivered, let read = app.build.authSession.callbackParameter {
          // The link came, and the app's login looks for its token under another name.
          message =
            "the app reads the token from \"\(read.value)\" (\(read.origin)), which the delivered link does not carry (\(URLComponents(string: link)?.queryItems?.map(\.name).joined(separator: ", ") ?? "no query")): the login stops with no token"
        }
        outcome.problem = .init(kind: .failed, message: message, reason: .noDeepLink)
        return outcome
      }
      outcome = exchangeOutcome(result, into: outcome, label: label)
      if let response = outcome.response, response.status != 200, outcome.problem == nil {
        outcome.problem = .init(
          kind: .failed, message: "the exchange answered \(response.status)\(excerpt(response))",
          reason: .exchangeFailed)
      }
      return outcome
    },
    ActionSpec(
      .app, "starts login", [.keyword("as", "user", .user), .flag("remember-me")],
      summary:
        "The browser half of `nativeLogin()` only: the deep link the browser delivers is kept for `exchanges the deep link`.",
      example: "mail starts login as first"
    ) { context in
      let app = try context.requireApp()
      var outcome = browserOutcome(
        try app.startLogin(credentials: context.credentials()), label: "\(app.name) starts login",
        world: context.world)
      outcome.app = app.name
      return outcome
    },
    ActionSpec(
      .app, "exchanges the deep link",
      summary:
        "`POST /api/v1.0/mobile/auth/exchange/` with the pending deep link's token and the app's verifier.",
      example: "mail exchanges the deep link"
    ) { context in
      let app = try context.requireApp()
      guard let (_, result) = app.exchangePendingDeepLink() else {
        throw ScenarioRuntimeError("\(app.name) has no pending deep link: start a login first")
      }
      return exchangeOutcome(
        result, into: Outcome(""), label: "\(app.name) exchanges the deep link")
    },
    ActionSpec(
      .app, "exchanges the deep link with a wrong verifier",
      summary:
        "The exchange with a verifier that is not the one the challenge was made from (the token is burnt).",
      example: "mail exchanges the deep link with a wrong verifier"
    ) { context in
      let app = try context.requireApp()
      guard let (_, result) = app.exchangePendingDeepLink(wrongVerifier: true) else {
        throw ScenarioRuntimeError("\(app.name) has no pending deep link: start a login first")
      }
      return exchangeOutcome(
        result, into: Outcome(""), label: "\(app.name) exchanges with a wrong verifier")
    },
    ActionSpec(
      .app, "replays the deep link",
      summary: "Exchanges the last exchanged deep link again, with the right verifier.",
      example: "mail replays the deep link"
    ) { context in
      let app = try context.requireApp()
      guard let result = app.replayLastDeepLink() else {
        throw ScenarioRuntimeError("\(app.name) has exchanged no deep link yet")
      }
      return exchangeOutcome(result, into: Outcome(""), label: "\(app.name) replays the deep link")
    },
    ActionSpec(
      .app, "redeems the deep link of", [.value("victim", .app)],
      summary:
        "An app that claimed the victim's scheme redeems the victim's deep link with its own verifier (the stolen deep link of seed 000).",
      example: "thief redeems the deep link of mail"
    ) { context in
      let app = try context.requireApp()
      let victim = try context.app("victim")
      guard let result = app.redeem(deepLinkOf: victim) else {
        throw ScenarioRuntimeError("\(victim.name) has no deep link to steal")
      }
      return exchangeOutcome(
        result, into: Outcome(""), label: "\(app.name) redeems \(victim.name)'s deep link")
    },
    ActionSpec(
      .app, "logs out",
      summary:
        "`nativeLogout()`: the RP-initiated logout in the system browser, the safety-net POST, then the native cookies and the cached CSRF token are cleared — in the order the app's `auth.ts` takes them, each skipped where that code skips it after a request rejected (a dismissed sheet, no network).",
      example: "mail logs out"
    ) { context in
      let app = try context.requireApp()
      let (browser, safetyNet) = try app.logout()
      var outcome =
        browser.map { browserOutcome($0, label: "\(app.name) logs out", world: context.world) }
        ?? Outcome("\(app.name) logs out (no browser round-trip)")
      outcome.isLogout = true
      if let browser, browser.delivered?.hasSuffix("://logout") != true, outcome.problem == nil {
        outcome.problem = .init(
          kind: .failed,
          message:
            "the logout did not come back on \(app.loginScheme)://logout: \(browser.summary)",
          reason: .logoutNotDelivered)
      }
      if case .sent(let exchange) = safetyNet {
        outcome.safetyNetStatus = exchange.response?.status ?? 0
      }
      return outcome
    },
    ActionSpec(
      .app, "posts",
      [.value("location", .location), .flag("without-csrf"), .flag("without-origin")],
      summary:
        "POST to the API through the native stack, with the cached CSRF token as `X-CSRFToken` and a trusted `Origin` unless told otherwise.",
      example: "mail posts /api/v1.0/blob/upload/ without-origin"
    ) { context in
      let app = try context.requireApp()
      let url = app.apiURL(context.arguments["location"] ?? "/")
      let result = app.send(
        method: "POST", url, body: Array("{}".utf8), contentType: "application/json",
        csrf: !context.arguments.has("without-csrf"),
        origin: !context.arguments.has("without-origin"))
      return Outcome.from(result, label: "POST \(url)")
    },
    ActionSpec(
      .app, "downloads attachment", [.value("id", .text)],
      summary:
        "`nativeDownloadFile()`: GET the attachment through the native stack, carrying the session.",
      example: "mail downloads attachment quarterly-report"
    ) { context in
      let app = try context.requireApp()
      let url = app.apiURL("/api/v1.0/blob/\(context.arguments["id"] ?? "attachment")/download/")
      return Outcome.from(app.send(method: "GET", url, body: []), label: "download \(url)")
    },
    ActionSpec(
      .app, "uploads a file",
      [.flag("without-csrf"), .flag("without-origin"), .keyword("with-origin", "origin", .text)],
      summary:
        "POST an attachment to `/api/v1.0/blob/upload/` through the native stack (the CSRF token path); `with-origin ORIGIN` sends that Origin instead of the app's, or a look-alike of the app's API origin: `other-port` (its host on port 8443), `other-scheme` (its host over http), `look-alike` (a host that ends with its host).",
      example: "mail uploads a file"
    ) { context in
      let app = try context.requireApp()
      let url = app.apiURL("/api/v1.0/blob/upload/")
      let result = app.send(
        method: "POST", url, body: Array("attachment bytes".utf8),
        contentType: "application/octet-stream",
        csrf: !context.arguments.has("without-csrf"),
        origin: !context.arguments.has("without-origin"),
        originOverride: context.arguments["origin"].map { lookAlike($0, of: app.apiOrigin) })
      return Outcome.from(result, label: "upload \(url)")
    },
    ActionSpec(
      .app, "opens outside the app", [.value("location", .location)],
      summary:
        "What an `<a download>` does on native: the URL escapes the WebView into a browser that has none of the app's native session.",
      example: "mail opens outside the app /api/v1.0/blob/quarterly-report/download/"
    ) { context in
      let app = try context.requireApp()
      let url = app.apiURL(context.arguments["location"] ?? "/")
      let client = try app.device.environment.client()
      let exchange = client.send(ClientRequest(url: url))
      context.world.evidence.append(
        exchange.evidence(
          source: "\(app.device.platform.rawValue) browser (outside the app)",
          redactor: context.world.redactor, time: context.world.clock.now))
      guard let response = exchange.response else {
        return Outcome(
          "GET \(url) outside the app",
          problem: .init(kind: .transport, message: exchange.error?.message ?? "no response"))
      }
      return Outcome("GET \(url) outside the app → \(response.status)", response: response)
    },
    ActionSpec(
      .world, "web login on", [.value("device", .text), .keyword("as", "user", .user)],
      summary:
        "The user signs in to the web app in the device's own browser (Safari / Chrome), sharing its cookies — an overlapping web flow.",
      example: "web login on phone as first"
    ) { context in
      guard let device = context.arguments["device"].flatMap({ context.world.devices[$0] }) else {
        throw ScenarioRuntimeError("no device \(context.arguments["device"] ?? "")")
      }
      guard let app = device.apps.first else {
        throw ScenarioRuntimeError("no app on \(device.name) to take the web origin from")
      }
      let result = try device.webLogin(
        at: app.apiURL("/api/v1.0/authenticate/"),
        authorizeEndpoint: app.build.backend?.oidcAuthorizationEndpoint,
        credentials: context.credentials())
      return browserOutcome(
        result, label: "web login on \(device.name)", world: context.world, allowPage: true)
    },
    ActionSpec(
      .world, "attacker captures a callback", [.keyword("as", "user", .user)],
      summary:
        "In a browser of their own, an attacker signs in to the web app as USER and keeps the OIDC callback URL (their code and state) instead of following it — the bait of a login CSRF.",
      example: "attacker captures a callback as second"
    ) { context in
      guard let device = context.world.devices.values.sorted(by: { $0.name < $1.name }).first,
        let app = device.apps.first
      else { throw ScenarioRuntimeError("the scenario declares no device with an app") }
      guard let credentials = context.credentials() else {
        throw ScenarioRuntimeError("attacker captures a callback needs `as USER`")
      }
      let result = try device.captureCallback(
        at: app.apiURL("/api/v1.0/authenticate/"), callbackPath: "/api/v1.0/callback/",
        authorizeEndpoint: app.build.backend?.oidcAuthorizationEndpoint, credentials: credentials)
      guard case .intercepted(let url) = result.end else {
        return Outcome(
          "attacker captures a callback: \(result.summary)",
          problem: .init(
            kind: .failed, message: "no callback to capture: \(result.summary)",
            reason: .noCallbackCaptured))
      }
      context.world.capturedCallback = url
      return browserOutcome(result, label: "the attacker's own login", world: context.world)
    },
    ActionSpec(
      .world, "lure to the captured callback on", [.value("device", .text)],
      summary:
        "The victim's browser on DEVICE opens the attacker's callback URL (a link in a mail, a hidden image): the backend must refuse a state its own session did not issue.",
      example: "lure to the captured callback on phone"
    ) { context in
      guard let device = context.arguments["device"].flatMap({ context.world.devices[$0] }) else {
        throw ScenarioRuntimeError("no device \(context.arguments["device"] ?? "")")
      }
      guard let url = context.world.capturedCallback else {
        throw ScenarioRuntimeError(
          "no callback was captured: run `attacker captures a callback` first")
      }
      let result = try device.openInBrowser(
        url, authorizeEndpoint: device.apps.first?.build.backend?.oidcAuthorizationEndpoint)
      var outcome = browserOutcome(
        result, label: "the victim opens the attacker's callback", world: context.world,
        allowPage: true)
      if case .page(_, let status) = result.end {
        // The page is the answer the expectations examine (`expect status 400`).
        outcome.problem = nil
        outcome.response = HTTPResponse(
          status: status, body: Array((result.lastPageBody ?? "").utf8))
      }
      return outcome
    },
  ]

  /// The outcome of a browser session: the session for the expectations, a problem when the
  /// flow did not end in the app.
  static func browserOutcome(
    _ result: BrowserResult, label: String, world: World, allowPage: Bool = false
  ) -> Outcome {
    var outcome = Outcome("\(label) (\(result.kind.rawValue)): \(result.summary)")
    // Browser flows happen in seed 000's stack only.
    let topology = world.stack?.topology
    func place(_ url: String) -> Outcome.BrowserSession.Place {
      guard let origin = Origin(url: url), let topology else { return .other }
      if origin == topology.identityProvider { return .idp }
      if origin == topology.backend || origin == topology.companionBackend {
        return .web
      }
      return .other
    }
    var ends: Outcome.BrowserSession.Place?
    switch result.end {
    case .delivered:
      ends = .app
    case .loginForm(let url):
      ends = place(url)
      outcome.problem = .init(
        kind: .failed,
        message:
          "the login stopped on the identity provider's form (\(url)) with no credentials to type",
        reason: .loginStuck)
    case .loginRejected(let url):
      ends = place(url)
      outcome.problem = .init(
        kind: .failed, message: "the identity provider refused the credentials at \(url)",
        reason: .credentialsRefused)
    case .blocked(let why):
      ends = .idp
      outcome.problem = .init(
        kind: .failed, message: "the browser stayed stuck on the identity provider: \(why)",
        reason: .browserBlocked)
    case .undeliverable(let why):
      outcome.problem = .init(
        kind: .refused, message: "the deep link never reached the app: \(why)")
    case .page(let url, let status):
      ends = place(url)
      if !allowPage || status >= 400 {
        outcome.problem = .init(
          kind: .failed,
          message: "the browser ended on \(url) (\(status)) instead of returning to the app",
          reason: .endedOnPage)
      }
    case .failed(let why):
      outcome.problem = .init(kind: .transport, message: why)
    case .intercepted:
      break
    }
    outcome.browser = .init(result: result, ends: ends)
    return outcome
  }

  /// Folds an exchange's response into `outcome`.
  static func exchangeOutcome(
    _ result: NativeHTTPStack.Result, into outcome: Outcome, label: String
  ) -> Outcome {
    var outcome = outcome
    switch result {
    case .refused(let reason):
      outcome.problem = .init(kind: .refused, message: reason)
    case .sent(let exchange):
      guard let response = exchange.response else {
        outcome.problem = .init(kind: .transport, message: exchange.error?.message ?? "no response")
        return outcome
      }
      outcome.response = response
      outcome.description = "\(label): exchange → \(response.status)"
      outcome.exchangeStatus = response.status
    }
    return outcome
  }
}

extension AuthenticationVocabulary {
  static let moreActions: [ActionSpec] = [
    ActionSpec(
      .app, "resumes login", [.keyword("as", "user", .user), .flag("remember-me")],
      summary:
        "The user comes back to the login page an earlier attempt stopped on and signs in there.",
      example: "mail resumes login as first"
    ) { context in
      let app = try context.requireApp()
      guard let result = try app.resumeLogin(credentials: context.credentials()) else {
        throw ScenarioRuntimeError(
          "\(app.name) has no abandoned login page: start a login without credentials first")
      }
      return browserOutcome(
        result, label: "\(app.name) resumes login", world: context.world, allowPage: true)
    }
  ]

  static let moreExpectations: [ExpectationSpec] = [
    ExpectationSpec(
      "hand-off page", negatable: true,
      summary:
        "The deep link of the last login left from the backend's 200 hand-off page (auto-redirect / \"open the app\"), not from a 302 — what survives a strict CSP `form-action`.",
      example: "expect hand-off page"
    ) { context in
      guard let browser = context.outcome?.browser else {
        return context.missing(.noBrowserFlow, "expected a login before this expectation")
      }
      let fromPage = browser.ends == .app && browser.result.deliveredFromPage
      if fromPage != context.negated { return nil }
      return context.negated
        ? context.fail(.handOffPage, nil, "the deep link left from a hand-off page")
        : context.fail(
          .noHandOffPage, nil,
          "the deep link did not leave from a 200 hand-off page (\(browser.result.summary)): a direct redirect to the scheme is blocked by a strict CSP after the IdP's form"
        )
    },
    ExpectationSpec(
      "backend session for", [.value("user", .user)], negatable: true,
      summary:
        "The backend holds a live session of USER: any session cookie it ever gave the devices still signs in as USER when the backend is asked (`GET /api/v1.0/users/me/`), whatever the app's jar holds now.",
      example: "expect no backend session for first"
    ) { context in
      let user = context.backendIdentity() ?? ""
      let count = try context.world.liveBackendSessions(of: context.identities())
      if (count > 0) != context.negated { return nil }
      let label = context.userLabel() ?? user
      return context.negated
        ? context.fail(
          .backendSession, nil,
          "the backend still holds \(count) live session\(count == 1 ? "" : "s") of \(label)")
        : context.fail(.noBackendSession, nil, "the backend holds no session of \(label)")
    },
  ]
}

extension World {
  /// Why the IdP showed its form: its own reason when it gave one, else the browser kind the
  /// login ran in (an isolated cookie store shares no IdP session).
  func formCause(_ outcome: Outcome?) -> String {
    let kind = outcome?.browser?.result.kind.rawValue ?? "?"
    let reason = evidence.since(stepEvidenceStart).last {
      $0.source == "idp" && $0.summary.contains("re-authentication is required")
    }?.summary
    var isolated = ""
    switch kind {
    case "ephemeral-web-auth-session": isolated = "an ephemeral auth session starts with no cookie"
    case "safari-view-controller":
      isolated = "SFSafariViewController's cookie store is isolated from Safari"
    case "webview": isolated = "the fallback WebView's cookies are isolated (no Play services)"
    default: isolated = "the \(kind) session carried no usable IdP session cookie"
    }
    return reason.map { "the IdP says: \($0)" } ?? "the login ran in \(kind): \(isolated)"
  }
}

extension AuthenticationVocabulary {
  /// A look-alike of `origin` where an Origin check breaks, or `written` itself.
  static func lookAlike(_ written: String, of origin: Origin?) -> String {
    guard let origin else { return written }
    switch written {
    case "other-port":
      return Origin(
        scheme: origin.scheme, host: origin.host, port: origin.port == 8443 ? 9443 : 8443
      )
      .description
    case "other-scheme":
      return Origin(
        scheme: origin.scheme == "https" ? "http" : "https", host: origin.host, port: nil
      )
      .description
    case "look-alike":
      return Origin(
        scheme: origin.scheme, host: "evil" + origin.host,
        port: origin.hasDefaultPort ? nil : origin.port
      ).description
    default:
      return written
    }
  }
}
