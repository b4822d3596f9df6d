/// Why a step failed, as a value: what a control's `because` names, instead of words of the
/// message (docs/scenario-language.md, *Failure reasons*).
///
/// A reason may carry a detail — the status received, the rule of a finding, the update's
/// decision — that `because REASON DETAIL` pins too.
public struct FailureReason: Sendable, Hashable, CustomStringConvertible {
  public let name: String
  /// What the step saw, in a sentence, for the vocabulary reference.
  public let summary: String
  /// What the detail word is, nil when the reason takes none.
  public let detail: String?

  public init(_ name: String, detail: String? = nil, _ summary: String) {
    self.name = name
    self.summary = summary
    self.detail = detail
  }

  public var description: String { name }

  public static func == (a: FailureReason, b: FailureReason) -> Bool { a.name == b.name }
  public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// A step's failure: its reason, the detail, and the message a person reads.
public struct Failure: Sendable {
  public var reason: FailureReason
  public var detail: String?
  public var message: String

  public init(_ reason: FailureReason, _ detail: String? = nil, _ message: String) {
    self.reason = reason
    self.detail = detail
    self.message = message
  }

  /// `status 200`: what `because` is compared with.
  public var label: String { detail.map { "\(reason.name) \($0)" } ?? reason.name }

  /// Whether a control's `because` names this failure: the reason, and the detail when it
  /// gives one.
  public func matches(_ because: Because) -> Bool {
    guard reason.name == because.reason else { return false }
    guard let wanted = because.detail else { return true }
    return detail?.lowercased() == wanted.lowercased()
  }
}

/// A control's `because REASON [DETAIL]`.
public struct Because: Sendable, Equatable, CustomStringConvertible {
  public var reason: String
  public var detail: String?

  public init(reason: String, detail: String? = nil) {
    self.reason = reason
    self.detail = detail
  }

  public var description: String { detail.map { "\(reason) \($0)" } ?? reason }
}

extension FailureReason {
  // MARK: Requests and responses (the core pack)

  static let status = FailureReason(
    "status", detail: "the status received", "The response had another HTTP status.")
  static let wentOut = FailureReason(
    "went-out", detail: "the status received",
    "The shell was expected to refuse the request, and sent it.")
  static let refusedOtherwise = FailureReason(
    "refused-otherwise", "The shell refused, but not for the reason the step names.")
  static let noTransportError = FailureReason(
    "no-transport-error", "A transport error was expected; the request got an HTTP response.")
  static let transportOtherwise = FailureReason(
    "transport-otherwise", "The transport error was not the one the step names.")
  static let json = FailureReason("json", "A JSON field did not hold what the step says.")
  static let header = FailureReason("header", "A response header did not hold what the step says.")
  static let body = FailureReason("body", "The response body did not hold what the step says.")
  static let noResponse = FailureReason(
    "no-response", "There was no HTTP response to examine (no action, or it got none).")
  /// An action's problem no expectation examined.
  static let refused = FailureReason(
    "refused",
    "The shell refused the action before sending anything (transport policy, an unregistered scheme)."
  )
  static let transportError = FailureReason(
    "transport-error", "The request got no HTTP response (TLS verification, connection).")

  // MARK: Guards

  static let finding = FailureReason(
    "finding", detail: "the rule", "The inspection reported an error finding of the rule.")
  static let noFinding = FailureReason(
    "no-finding", detail: "the rule", "The inspection was expected to report the rule; it did not.")
  static let blockingFindings = FailureReason(
    "blocking-findings", "The inspection reported findings that block a release.")
  static let noBlockingFindings = FailureReason(
    "no-blocking-findings", "Blocking findings were expected; there are none.")
  static let noInspection = FailureReason(
    "no-inspection", "The expectation needs an inspection (APP is inspected) before it.")
  static let webView = FailureReason(
    "webview", detail: "what it loaded: blank, embedded, dev-server",
    "The WebView loaded something else than the step says.")

  // MARK: Authentication

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
    "browser-ends", detail: "where it ended: app, web, idp, other, nowhere",
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

  // MARK: OTA

  static let update = FailureReason(
    "update", detail: "the decision: applied, skipped, refused, failed, disabled",
    "The update check decided otherwise than the step says.")
  static let updateOtherwise = FailureReason(
    "update-otherwise", "The update check decided as said, but not for the reason the step names.")
  static let noLaunch = FailureReason(
    "no-launch", "The expectation needs a launch (APP launches) before it.")
  static let noUpdateCheck = FailureReason(
    "no-update-check", "No update check ran (a crash on boot, or no launch before).")
  static let runningBundle = FailureReason(
    "running-bundle", "The app runs another bundle than the step says.")
  static let bootCrashed = FailureReason("boot-crashed", "The bundle crashed on boot.")
  static let bootDidNotCrash = FailureReason("booted", "The bundle booted.")
  static let bundleDownloaded = FailureReason(
    "bundle-downloaded", "A bundle was downloaded this step.")
  static let noBundleDownloaded = FailureReason(
    "no-bundle-downloaded", "No bundle was downloaded this step.")
  static let notPublished = FailureReason(
    "not-published", "The pipeline did not publish the version the step says.")
  static let publishRefused = FailureReason(
    "publish-refused", "The pipeline's publish was refused by its guard.")
  static let publishNotRefused = FailureReason(
    "publish-not-refused", "The publish was expected to be refused; it went through.")
  static let runningContent = FailureReason(
    "running-content", "The running bundle carries other content than the step says.")

  /// Every reason a step can fail with, for the parser and the reference.
  public static let all: [FailureReason] = [
    .status, .wentOut, .refusedOtherwise, .noTransportError, .transportOtherwise, .json, .header,
    .body, .noResponse, .refused, .transportError, .finding, .noFinding, .blockingFindings,
    .noBlockingFindings, .noInspection, .webView, .loginForm, .silentLogin, .authorizeNotReached,
    .authorizeReached, .notSilentSSO, .idpEvent, .noIdpEvent, .appSession, .noAppSession,
    .csrfCached, .noCSRFCached, .browserEnds, .notBlocked, .blockedOtherwise, .handOffPage,
    .noHandOffPage, .backendSession, .noBackendSession, .noBrowserFlow, .loginStuck,
    .credentialsRefused, .browserBlocked, .noDeepLink, .exchangeFailed, .noCallbackCaptured,
    .logoutNotDelivered, .endedOnPage, .update, .updateOtherwise, .noLaunch, .noUpdateCheck,
    .runningBundle, .bootCrashed, .bootDidNotCrash, .bundleDownloaded, .noBundleDownloaded,
    .notPublished, .publishRefused, .publishNotRefused, .runningContent,
  ]

  public static func named(_ name: String) -> FailureReason? { all.first { $0.name == name } }
}
