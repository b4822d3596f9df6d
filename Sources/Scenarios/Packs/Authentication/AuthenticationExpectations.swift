import Artifacts
import Devices
import Foundation
import HTTP
import MockStack
import QualifyCore
import StackPorts

extension AuthenticationVocabulary {
  static let expectations: [ExpectationSpec] = [
    ExpectationSpec(
      "login form", negatable: true, examines: .reasons(.loginStuck, .credentialsRefused),
      summary:
        "The identity provider showed its login form during the last login (a silent SSO login shows none).",
      example: "expect no login form"
    ) { context in
      guard let browser = context.outcome?.browser else {
        return context.missing(.noBrowserFlow, "expected a login or logout before this expectation")
      }
      if browser.result.formShown != context.negated { return nil }
      return context.negated
        ? context.fail(
          .loginForm, nil,
          "the identity provider showed its login form: the login was not silent (\(context.world.formCause(context.outcome)))"
        )
        : context.fail(
          .silentLogin, nil,
          "expected the identity provider's login form, the login went through silently (\(browser.result.summary))"
        )
    },
    ExpectationSpec(
      "authorize reached", negatable: true,
      summary:
        "The last browser flow went through the IdP's authorization endpoint (a login that never reaches it proves nothing about SSO).",
      example: "expect authorize reached"
    ) { context in
      guard let browser = context.outcome?.browser else {
        return context.missing(.noBrowserFlow, "expected a browser flow before this expectation")
      }
      if browser.result.authorizeReached != context.negated { return nil }
      return context.negated
        ? context.fail(
          .authorizeReached, nil, "the flow reached the IdP's authorization endpoint")
        : context.fail(
          .authorizeNotReached, nil,
          "the flow never reached /authorize (the IdP's authorization endpoint): it proves nothing about IdP SSO (seed 000, false positive to avoid)"
        )
    },
    ExpectationSpec(
      "silent sso", observesIdentityEvents: true,
      summary:
        "The objective proof of cross-app SSO (rule 8): the last login reached the IdP's /authorize, showed no login form, and this step recorded CODE_TO_TOKEN without LOGIN at the IdP.",
      example: "expect silent sso"
    ) { context in
      guard let outcome = context.outcome, let browser = outcome.browser else {
        return context.missing(.noBrowserFlow, "expected a login before this expectation")
      }
      var missing: [(cause: String, message: String)] = []
      if !browser.result.authorizeReached {
        missing.append(
          (
            "authorize-not-reached",
            "the login never reached /authorize (a still-valid backend session proves nothing)"
          ))
      }
      if browser.result.formShown {
        missing.append(
          ("login-form", "the IdP showed its login form (\(context.world.formCause(outcome)))"))
      }
      // A consent page accepted on the way is no second login, so single sign-on holds; the
      // evidence says the user was asked.
      if let page = browser.result.acceptedPages.first {
        context.world.note(
          "idp",
          "the user accepted the identity provider's page at \(page) (consent for this client): no credentials were asked for"
        )
      }
      var types: [String] = []
      if let issuer = context.world.realIdentityProvider {
        // A real IdP without an event feed: the proof is what the browser saw — /authorize
        // reached, no form, and a code delivered to the app (checked below).
        context.world.note(
          "idp",
          "the real identity provider at \(issuer) gives no event feed: the proof of single sign-on is browser-side (/authorize reached, no login form, the code delivered to the app)"
        )
        // A code was issued when the flow reached a callback with one; what became of it
        // after (a deep link that never reached the app) is judged below, as with the mock.
        if !browser.result.hops.contains(where: { $0.contains("code=") }) {
          missing.append(("no-code-to-token", "the identity provider issued no code"))
        }
      } else {
        types = try context.world.stepEvents().map(\.type)
        if types.contains("LOGIN") {
          missing.append(("login-event", "a LOGIN event: the user typed credentials again"))
        }
        if !types.contains("CODE_TO_TOKEN") {
          missing.append(("no-code-to-token", "no CODE_TO_TOKEN event at the IdP"))
        }
      }
      if let problem = outcome.problem, browser.ends != .app {
        missing.append(("not-delivered", problem.message))
      }
      guard let first = missing.first else { return nil }
      return context.fail(
        .notSilentSSO, first.cause,
        "not a silent SSO login: " + missing.map(\.message).joined(separator: "; ")
          + " (IdP events this step: \(types.isEmpty ? "none" : types.joined(separator: ", ")))")
    },
    ExpectationSpec(
      "idp event",
      [
        .value("type", .choice(["LOGIN", "LOGIN_ERROR", "CODE_TO_TOKEN", "LOGOUT"])),
        .keyword("by", "app", .app), .keyword("for", "user", .user),
      ],
      negatable: true, observesIdentityEvents: true,
      summary:
        "The identity provider recorded an event of TYPE during this step (by the IdP client of APP, for USER).",
      example: "expect idp event CODE_TO_TOKEN by calendar"
    ) { context in
      let type = context.arguments["type"] ?? ""
      if let issuer = context.world.realIdentityProvider {
        return try AuthenticationVocabulary.browserSideEvent(type, issuer: issuer, context)
      }
      let stepEvents = try context.world.stepEvents()
      var events = stepEvents.filter { $0.type == type }
      if let appName = context.arguments["app"], let app = context.world.apps[appName] {
        let client = app.build.backend?.oidcClientId
        events = events.filter { $0.clientId == client }
      }
      // Keycloak names the user by its id (the id_token's subject); the mock by its username.
      let names = context.identities()
      if !names.isEmpty { events = events.filter { $0.userId.map(names.contains) == true } }
      if events.isEmpty != context.negated {
        let all = stepEvents.map {
          "\($0.type)\($0.clientId.map { " (\($0))" } ?? "")"
        }
        return context.negated
          ? context.fail(
            .idpEvent, type, "the identity provider recorded \(type) this step (\(events.count)×)")
          : context.fail(
            .noIdpEvent, type,
            "the identity provider recorded no \(type) this step (events: \(all.isEmpty ? "none" : all.joined(separator: ", ")))"
          )
      }
      return nil
    },
    ExpectationSpec(
      "session for", [.value("app", .app), .keyword("as", "user", .user)], negatable: true,
      summary:
        "APP's native stack has a live backend session (`GET /api/v1.0/users/me/` answers 200, as USER).",
      example: "expect session for mail as first"
    ) { context in
      guard let name = context.arguments["app"], let app = context.world.apps[name] else {
        return context.missing(.noAppSession, "unknown app")
      }
      let url = app.apiURL("/api/v1.0/users/me/")
      guard case .sent(let exchange) = app.send(method: "GET", url, body: []),
        let response = exchange.response
      else {
        return context.noResponse("could not ask the backend who \(name) is")
      }
      let who = (response.jsonObject as? [String: Any])?["id"] as? String
      let names = context.identities()
      let live =
        response.status == 200
        && (names.isEmpty || !HTTPBackend.names(ofMe: response).isDisjoint(with: names))
      if live != context.negated { return nil }
      return context.negated
        ? context.fail(
          .appSession, nil, "\(name) still has a backend session (as \(who ?? "?"))")
        : context.fail(
          .noAppSession, nil,
          "\(name) has no backend session for \(context.userLabel() ?? "anyone") (GET \(url) → \(response.status)\(who.map { " as \($0)" } ?? ""))"
        )
    },
    ExpectationSpec(
      "csrf token cached for", [.value("app", .app)], negatable: true,
      summary: "APP holds the CSRF token the exchange returned, in local storage (`csrf.ts`).",
      example: "expect csrf token cached for mail"
    ) { context in
      guard let name = context.arguments["app"], let app = context.world.apps[name] else {
        return context.missing(.noCSRFCached, "unknown app")
      }
      let cached = app.localStorage[app.csrfStorageKey] != nil
      if cached != context.negated { return nil }
      return context.negated
        ? context.fail(.csrfCached, nil, "\(name) still caches a CSRF token")
        : context.fail(.noCSRFCached, nil, "\(name) has no CSRF token in local storage")
    },
    ExpectationSpec(
      "browser ends in", [.value("place", .choice(["app", "web", "idp"]))],
      examines: .reasons(.loginStuck, .credentialsRefused, .browserBlocked, .endedOnPage),
      summary:
        "Where the last browser flow ended: handed to the `app` by its scheme, on the `web` app, or stuck at the `idp`.",
      example: "expect browser ends in web"
    ) { context in
      let wanted = context.arguments["place"] ?? "app"
      guard let browser = context.outcome?.browser else {
        return context.missing(.noBrowserFlow, "expected a browser flow before this expectation")
      }
      let ended = browser.ends?.rawValue ?? "nowhere"
      // An error page of the web app is not the web app: a login that broke on the way (a
      // refused code, an expired token) must not pass for one that landed.
      if ended == "web", wanted == "web", case .page(let url, let status) = browser.result.end,
        status >= 400
      {
        return context.fail(
          .browserEnds, "web-error",
          "expected the browser to land on the web app, it ended on an error page: \(url) (\(status))"
        )
      }
      return ended == wanted
        ? nil
        : context.fail(
          .browserEnds, ended,
          "expected the browser to end in the \(wanted), it \(browser.result.summary)")
    },
    ExpectationSpec(
      "browser blocked", [.value("reason", .text, optional: true)],
      examines: .reasons(.browserBlocked),
      summary:
        "The last browser flow was blocked (a CSP `form-action` violation); REASON must appear in the message.",
      example: "expect browser blocked \"form-action\""
    ) { context in
      guard let problem = context.outcome?.problem, problem.reason == .browserBlocked else {
        return context.fail(
          .notBlocked, nil,
          "expected the browser to be blocked, it \(context.outcome?.browser?.result.summary ?? "did not run")"
        )
      }
      if let reason = context.arguments["reason"], !problem.message.contains(reason) {
        return context.fail(
          .blockedOtherwise, nil, "blocked, but not for \"\(reason)\": \(problem.message)")
      }
      return nil
    },
  ]
}

extension AuthenticationVocabulary {
  /// `expect idp event` against a real IdP without an event feed: LOGIN, CODE_TO_TOKEN and
  /// LOGOUT are read from the last browser flow (a submitted login the IdP answered with a
  /// code; a code delivered to the app; a logout that went through the IdP's pages and was
  /// sent on to the app), and the evidence says so; other events cannot be seen.
  static func browserSideEvent(_ type: String, issuer: String, _ context: ExpectationContext)
    throws -> Failure?
  {
    guard ["LOGIN", "CODE_TO_TOKEN", "LOGOUT"].contains(type) else {
      throw ScenarioNotApplicable(
        "needs the event feed of the real identity provider at \(issuer) to see \(type), which it does not give"
      )
    }
    // A logout without a browser round trip never reached the IdP: no LOGOUT, not a mistake
    // in the scenario.
    guard let outcome = context.outcome, outcome.browser != nil || outcome.isLogout else {
      return context.missing(.noBrowserFlow, "expected a login before this expectation")
    }
    let forApp = context.arguments["app"].map { $0 == outcome.app } ?? true
    let browser = outcome.browser
    let seen: String
    var happened: Bool
    switch type {
    case "LOGIN":
      seen = "the login form was submitted and the IdP issued a code"
      happened = !outcome.isLogout && browser?.result.loginAccepted == true
    case "CODE_TO_TOKEN":
      seen = "a code reached the app"
      happened = !outcome.isLogout && browser?.ends == .app && outcome.problem == nil
    default:
      // RP-initiated logout: the browser was on the IdP's end-session pages (the origin of
      // its end_session_endpoint, which may not be the issuer's), and the IdP sent it on (to
      // the client's post-logout redirect) rather than stopping on an error.
      seen = "the logout went through the IdP, which sent the browser back to the app"
      let provider = Origin(url: context.world.realEndSessionEndpoint ?? issuer)
      let hops = browser?.result.hops ?? []
      let atIdP = hops.lastIndex { Origin(url: $0) == provider }
      happened =
        outcome.isLogout && outcome.problem == nil && browser?.ends == .app
        && atIdP.map { $0 < hops.count - 1 } == true
    }
    happened = happened && forApp
    context.world.note(
      "idp",
      "the real identity provider at \(issuer) gives no event feed: \(type) read from the browser (\(seen)): \(happened ? "yes" : "no"))"
    )
    if happened != context.negated { return nil }
    return context.negated
      ? context.fail(.idpEvent, type, "the browser shows a \(type) at the real identity provider")
      : context.fail(
        .noIdpEvent, type, "the browser shows no \(type) at the real identity provider")
  }
}
