import Artifacts
import Devices
import MockStack

/// Mutations of the authentication world, each switching off one behaviour of rules 1–9.
extension AuthenticationVocabulary {
  static let mutations: [MutationSpec] = [
    .stack(
      "backend.skips-idp-logout",
      "The backend's logout ends its own session and returns to the scheme without the IdP's end_session.",
      breaks: "rule 9: logout ends the IdP session"
    ) { $0.backendSkipsIdPLogout = true },
    .stack(
      "backend.direct-scheme-redirect",
      "The callback answers with a 302 to the custom scheme instead of the 200 hand-off page.",
      breaks: "rule 4: the hand-off page (a strict CSP blocks the direct redirect)"
    ) { $0.backendRedirectsDirectlyToScheme = true },
    .stack(
      "backend.flag-ignores-state", "The callback consumes a mobile flag whatever its state.",
      breaks: "rule 2: the flag is bound to its OIDC state"
    ) { $0.backendFlagIgnoresState = true },
    .stack(
      "backend.flag-ignores-age", "The callback consumes a mobile flag whatever its age.",
      breaks: "rule 2: a flag older than 10 minutes is ignored"
    ) { $0.backendFlagIgnoresAge = true },
    MutationSpec(
      "backend.flag-max-age", [.value("seconds", .integer)],
      summary:
        "The callback honours a mobile flag for SECONDS instead of 10 minutes (a unit slip: `backend.flag-max-age 60`).",
      breaks: "rule 2: a flag lives 10 minutes"
    ) { configuration, arguments in
      configuration.stack.backendFlagMaxAge = arguments["seconds"].flatMap(Double.init)
    },
    .stack(
      "backend.verifies-before-deleting",
      "The exchange verifies before deleting the token, so a failed attempt can be retried.",
      breaks: "rule 5: delete before verify"
    ) { $0.backendVerifiesBeforeDeleting = true },
    .stack(
      "backend.token-reusable",
      "The exchange never deletes a token: a deep link can be redeemed twice.",
      breaks: "rule 5: a token works once"
    ) { $0.backendTokenReusable = true },
    .stack(
      "backend.ignores-token-ttl", "The exchange accepts a token past MOBILE_AUTH_TOKEN_TTL.",
      breaks: "rule 4: the one-time token lives 60 s"
    ) { $0.backendIgnoresTokenTTL = true },
    .stack(
      "backend.skips-pkce", "The exchange does not check S256(code_verifier).",
      breaks: "rule 5: a stolen deep link is useless without the verifier"
    ) { $0.backendSkipsPKCE = true },
    .stack(
      "backend.skips-scheme-allowlist", "authenticate accepts any mobile_scheme.",
      breaks: "rule 2: MOBILE_AUTH_CALLBACK_SCHEMES"
    ) { $0.backendSkipsSchemeAllowlist = true },
    .stack(
      "backend.scheme-prefix-match",
      "authenticate accepts a mobile_scheme that starts with an allowlisted scheme (stmessages-evil).",
      breaks: "rule 2: MOBILE_AUTH_CALLBACK_SCHEMES is compared whole"
    ) { $0.backendSchemePrefixMatch = true },
    .stack(
      "backend.origin-compares-host",
      "The Origin check compares hosts only: the trusted host on another port, or over http, passes.",
      breaks: "rule 6: CSRF_TRUSTED_ORIGINS are whole origins (scheme, host, port)"
    ) { $0.backendOriginComparesHost = true },
    .stack(
      "backend.origin-suffix-match",
      "The Origin check accepts any host that ends with a trusted host (evilmessages.example).",
      breaks: "rule 6: CSRF_TRUSTED_ORIGINS are whole origins"
    ) { $0.backendOriginSuffixMatch = true },
    .stack(
      "backend.short-circuits-valid-session",
      "authenticate mints a mobile token without the IdP when the browser holds a valid backend session.",
      breaks: "rule 8: a login that never reaches /authorize proves nothing"
    ) { $0.backendShortCircuitsValidSession = true },
    .stack(
      "backend.ignores-mobile-logout",
      "POST /api/v1.0/mobile/auth/logout/ does not end the session.",
      breaks: "rule 9: the safety-net logout"
    ) { $0.backendIgnoresMobileLogout = true },
    .stack(
      "backend.logout-ends-every-session",
      "Logout ends every session of the user: the user's other devices are signed out too.",
      breaks: "rule 9: logout ends the session of the device that logs out"
    ) { $0.backendLogoutEndsEverySession = true },
    .stack(
      "backend.skips-origin-check", "HTTPS unsafe requests pass without a trusted Origin.",
      breaks: "rule 6: CSRF Origin on HTTPS"
    ) { $0.backendSkipsOriginCheck = true },
    .stack(
      "backend.trusts-any-origin",
      "HTTPS unsafe requests pass with any Origin; only a missing one is refused.",
      breaks: "rule 6: the Origin must be listed in CSRF_TRUSTED_ORIGINS"
    ) { $0.backendTrustsAnyOrigin = true },
    .stack(
      "backend.callback-ignores-state",
      "The OIDC callback redeems any code without comparing state to the one it stored.",
      breaks: "rule 2: the callback checks state (login CSRF)"
    ) { $0.backendCallbackIgnoresState = true },
    .stack(
      "backend.skips-csrf-token", "Unsafe requests pass without the CSRF token.",
      breaks: "rule 6: the CSRF token is echoed as X-CSRFToken"
    ) { $0.backendSkipsCSRFToken = true },
    .stack(
      "idp.identity-cookie-always-persistent",
      "The IdP's identity cookie is persistent even without remember-me.",
      breaks: "rule 3: remember-me makes the identity cookie persistent"
    ) { $0.identityCookieAlwaysPersistent = true },
    .stack(
      "idp.keeps-session-on-logout", "The IdP's end_session redirects but keeps its session.",
      breaks: "rule 9: the next login stops on the form"
    ) { $0.idpKeepsSessionOnLogout = true },
    MutationSpec(
      "realm.acr-map-empty",
      summary: "The realm export's client loses its acr.loa.map: eidas1 is no longer mapped.",
      breaks: "rule 3: an empty acr.loa.map forces re-authentication on every flow"
    ) { configuration, _ in
      guard var realm = configuration.build.realm else { return }
      for index in realm.clients.indices { realm.clients[index].acrLevels = [:] }
      configuration.build.realm = realm
    },
    .shell(
      "app.logout-skips-browser",
      "nativeLogout() only posts the safety net: no RP-initiated logout in the system browser.",
      breaks: "rule 9: logout ends the IdP session"
    ) { $0.logoutSkipsBrowser = true },
    .shell(
      "app.logout-skips-safety-net", "nativeLogout() does not post /api/v1.0/mobile/auth/logout/.",
      breaks: "rule 9: the safety net"
    ) { $0.logoutSkipsSafetyNet = true },
    MutationSpec(
      "app.logout-flush-awaits-safety-net",
      summary:
        "nativeLogout() clears the native cookies inside the try that awaits the safety-net POST: a rejected POST (no network) skips the flush.",
      breaks: "seed 000, Logout: the app clears the native cookies and the cached CSRF token"
    ) { configuration, _ in
      var flow =
        configuration.build.authSession.nativeLogout?.simulated ?? .seed(file: "(mutation)")
      guard var flush = flow.steps[.clearCookies] else { return }
      flush.after[.safetyNet] = NativeLogoutFlow.Reach(whenResolved: true, whenRejected: false)
      flow.steps[.clearCookies] = flush
      configuration.build.authSession.nativeLogout = flow
    },
    .shell(
      "app.csrf-not-sent", "getHeaders() no longer echoes the cached CSRF token.",
      breaks: "rule 6: X-CSRFToken from local storage"
    ) { $0.csrfTokenNotSent = true },
    .shell(
      "app.origin-not-sent", "The fetch wrapper no longer injects a trusted Origin.",
      breaks: "rule 6 and seed 000, Production hardening: CSRF Origin on HTTPS"
    ) { $0.originNotSent = true },
    .shell(
      "app.native-jar-disabled", "The native HTTP stack keeps no cookies.",
      breaks: "rule 6: the session lives in the native cookie jar"
    ) { $0.nativeJarDisabled = true },
    MutationSpec(
      "device.browser", [.value("kind", .choice(BrowserKind.allCases.map(\.rawValue)))],
      summary:
        "Every app of the device opens its auth flows in this browser kind (e.g. safari-view-controller, the default Browser plugin).",
      breaks: "rule 7: the browser kind decides which cookies are shared"
    ) { configuration, arguments in
      configuration.forcedBrowser = arguments["kind"].flatMap(BrowserKind.init(rawValue:))
    },
    MutationSpec(
      "device.without-play-services",
      summary:
        "The Android device has no Google Play services: Custom Tabs fall back to an isolated WebView.",
      breaks: "rule 7: Android cross-app SSO needs Chrome Custom Tabs"
    ) { configuration, _ in
      configuration.withoutPlayServices = true
    },
  ]
}
