import QualifyCore

/// The authentication pack: logins, logouts, cross-app SSO and the browsers they run in (rules
/// 1-9).
///
/// Everything the pack adds to the language is declared here, beside the code it drives;
/// Packs/Packs.swift lists the packs.
enum AuthenticationPack: ScenarioPack {
  static let name = "authentication"
  static let shells: Set<ShellKind> = [.singleOrigin]
  static let actions: [ActionSpec] =
    AuthenticationVocabulary.actions + AuthenticationVocabulary.moreActions
  static let expectations: [ExpectationSpec] =
    AuthenticationVocabulary.expectations + AuthenticationVocabulary.moreExpectations
  static let mutations: [MutationSpec] = AuthenticationVocabulary.mutations
  static let failureReasons: [FailureReason] = [
    .loginForm, .silentLogin, .authorizeNotReached, .authorizeReached, .notSilentSSO, .idpEvent,
    .noIdpEvent, .appSession, .noAppSession, .csrfCached, .noCSRFCached, .browserEnds, .notBlocked,
    .blockedOtherwise, .handOffPage, .noHandOffPage, .backendSession, .noBackendSession,
    .noBrowserFlow, .loginStuck, .credentialsRefused, .browserBlocked, .noDeepLink, .exchangeFailed,
    .noCallbackCaptured, .logoutNotDelivered, .endedOnPage,
  ]
}

extension FailureReason {

  static let loginForm = FailureReason(
    "login-form", "The identity provider showed its login form: the login was not silent.")
  static let silentLogin = FailureReason(
    "silent-login", "The login went through without the form the step expects.")
  static let authorizeNotReached = FailureReason(
    "authorize-not-reached", "The browser flow never reached the IdP's authorization endpoint.")
  static let authorizeReached = FailureReason(
    "authorize-reached", "The browser flow reached the IdP's authorization endpoint.")
  static let notSilentSSO = FailureReason(
    "not-silent-sso",
    detail:
      "the first cause: authorize-not-reached, login-form, login-event, no-code-to-token, not-delivered",
    "Not the proof of cross-app SSO (rule 8).")
  static let idpEvent = FailureReason(
    "idp-event", detail: "the event type", "The identity provider recorded the event.")
  static let noIdpEvent = FailureReason(
    "no-idp-event", detail: "the event type", "The identity provider recorded no such event.")
  static let appSession = FailureReason("app-session", "The app still has a backend session.")
  static let noAppSession = FailureReason("no-app-session", "The app has no backend session.")
  static let csrfCached = FailureReason("csrf-cached", "The app still caches a CSRF token.")
  static let noCSRFCached = FailureReason("no-csrf-cached", "The app caches no CSRF token.")
  static let browserEnds = FailureReason(
    "browser-ends",
    detail:
      "where it ended: app, web, web-error (an error page of the web app), idp, other, nowhere",
    "The browser flow ended elsewhere than the step says.")
  static let notBlocked = FailureReason(
    "not-blocked", "The browser flow was expected to be blocked; it was not.")
  static let blockedOtherwise = FailureReason(
    "blocked-otherwise", "The browser was blocked, but not for the reason the step names.")
  static let handOffPage = FailureReason(
    "hand-off-page", "The deep link left from the backend's hand-off page.")
  static let noHandOffPage = FailureReason(
    "no-hand-off-page", "The deep link did not leave from the backend's 200 hand-off page.")
  static let backendSession = FailureReason(
    "backend-session", "The backend still holds a live session of the user.")
  static let noBackendSession = FailureReason(
    "no-backend-session", "The backend holds no session of the user.")
  static let noBrowserFlow = FailureReason(
    "no-browser-flow", "The expectation needs a login or logout before it.")
  /// Problems of the browser actions.
  static let loginStuck = FailureReason(
    "login-stuck", "The login stopped on the IdP's form with nobody to type credentials.")
  static let credentialsRefused = FailureReason(
    "credentials-refused", "The identity provider refused the credentials.")
  static let browserBlocked = FailureReason(
    "browser-blocked", "The browser stayed on the IdP, blocked (a CSP form-action violation).")
  static let noDeepLink = FailureReason(
    "no-deep-link", "The browser delivered no auth deep link to the app.")
  static let exchangeFailed = FailureReason(
    "exchange-failed", "The mobile exchange did not answer 200 (a burnt token, a wrong verifier).")
  static let noCallbackCaptured = FailureReason(
    "no-callback-captured", "The attacker's browser never got an OIDC callback to keep.")
  static let logoutNotDelivered = FailureReason(
    "logout-not-delivered", "The logout did not come back on the app's scheme.")
  static let endedOnPage = FailureReason(
    "ended-on-page", "The browser ended on a page instead of returning to the app.")
}
