import Foundation
import HTTP
import QualifyCore

/// One browser session's navigation, with no I/O: follows redirects itself, submits a login
/// form with its hidden inputs, follows a hand-off page's auto-redirect, checks `form-action`
/// where the browser kind does, and decides which custom-scheme navigation reaches an app.
///
/// `start` and `received` return what to do next: a request to send, or the end of the
/// session. `BrowserNavigator` is the loop around it that sends the requests, keeps the
/// cookies and writes the evidence (rule 7).
struct NavigationStateMachine {
  /// A request to send, with what its cookies depend on (`SameSite`).
  struct Request: Sendable, Equatable {
    var method: String
    var url: String
    var body: [UInt8]
    var contentType: String?
    /// Whether the navigation was initiated from another site.
    var crossSite: Bool
  }

  /// What came back, as far as navigation goes.
  struct Response: Sendable {
    var status: Int
    var location: String?
    var contentSecurityPolicy: String?
    var body: String
  }

  enum Action: Sendable, Equatable {
    case send(Request)
    case finish(BrowserResult.End)
  }

  let kind: BrowserKind
  let callbackScheme: String?
  let registeredSchemes: [String]
  /// Where the apps' scheme registrations are written (`…/Info.plist:32`): a refused
  /// delivery names it, so that the failure points at the line to fix.
  let registry: String?
  let authorizeEndpoint: String?
  /// A path the flow stops before requesting, once past the authorization endpoint.
  let stopBeforePath: String?
  let credentials: Credentials?

  /// Decisions worth saying in the evidence (the user typing credentials).
  private(set) var notes: [String] = []
  private(set) var hops: [String] = []
  private(set) var formShown = false
  private(set) var authorizeReached = false
  /// Whether the custom-scheme navigation left from a page rather than from a redirect.
  private(set) var deliveredFromPage = false
  private(set) var lastPageBody: String?

  private var url = ""
  private var method = "GET"
  private var body: [UInt8] = []
  private var contentType: String?
  /// The site that initiated the current navigation.
  private var initiator: String?
  /// Set while following a form submission's redirects.
  private var formActionPolicy: [String]?
  /// The origin of the page whose form was submitted (`'self'`).
  private var formPage: Origin?
  private var submitted = false
  /// The hop the login form was submitted at: what follows says whether the IdP took it.
  private(set) var submittedAtHop: Int?
  private var approvals = 0
  /// The provider's pages the user accepted (consent, a logout prompt), in order.
  private(set) var accepted: [String] = []

  /// Whether the IdP took the submitted login: after the submission, the flow went on to a
  /// URL carrying an authorization `code` and no `error` (the redirect to the client).
  var loginAccepted: Bool {
    guard let at = submittedAtHop else { return false }
    return hops.dropFirst(at).contains { hop in
      let items = URLComponents(string: hop)?.queryItems ?? []
      return items.contains { $0.name == "code" } && !items.contains { $0.name == "error" }
    }
  }
  /// Consent or confirmation pages accepted in one session before it is called a loop.
  static let maximumApprovals = 3

  /// Redirects and pages followed before giving up, as browsers do (Chromium stops at 20
  /// redirects; a login adds a form and a hand-off page).
  static let maximumHops = 40

  init(
    kind: BrowserKind, callbackScheme: String?, registeredSchemes: [String],
    registry: String? = nil, authorizeEndpoint: String?, stopBeforePath: String? = nil,
    credentials: Credentials?
  ) {
    self.kind = kind
    self.callbackScheme = callbackScheme
    self.registeredSchemes = registeredSchemes.map { $0.lowercased() }
    self.registry = registry
    self.authorizeEndpoint = authorizeEndpoint
    self.stopBeforePath = stopBeforePath
    self.credentials = credentials
  }

  mutating func start(at start: String) -> Action {
    url = start
    return navigate()
  }

  /// The current navigation failed on the network.
  mutating func failed(_ message: String) -> Action {
    .finish(.failed(message))
  }

  /// The response to the current request.
  mutating func received(_ response: Response) -> Action {
    if [301, 302, 303, 307, 308].contains(response.status), let location = response.location {
      url = NavigationStateMachine.resolve(location, against: url)
      if response.status != 307 && response.status != 308 {
        method = "GET"
        body = []
        contentType = nil
      }
      return navigate()
    }
    // A page: the redirect chain of any form submission ends here.
    initiator = Origin(url: url).map(NavigationStateMachine.site)
    formActionPolicy = nil
    let page = HTMLPage(html: response.body)
    if response.status == 200, let form = page.loginForm {
      formShown = true
      if submitted { return .finish(.loginRejected(url)) }
      guard let credentials else { return .finish(.loginForm(url)) }
      submitted = true
      submittedAtHop = hops.count
      notes.append(
        "the user types \(credentials.username)'s credentials\(credentials.rememberMe ? ", ticks remember me" : "") and submits the login form"
      )
      formActionPolicy = NavigationStateMachine.formAction(response.contentSecurityPolicy)
      formPage = Origin(url: url)
      let filled = NavigationStateMachine.fill(form, with: credentials)
      // Enter in the password field presses the form's default button. HTML takes the first
      // submit button and submits nothing when it is disabled; login pages disable theirs
      // until a script sees the fields filled, which the user's typing would trigger, so the
      // first enabled one is pressed.
      let button = filled.controls.indices.first {
        filled.controls[$0].isSubmitButton && !filled.controls[$0].disabled
      }
      return submit(filled, pressing: button, on: page)
    }
    if response.status == 200, approvals < NavigationStateMachine.maximumApprovals,
      let (form, button) = NavigationStateMachine.approval(
        on: page, at: url, idp: authorizeEndpoint)
    {
      // A provider's consent page ("Client X would like to access…") or its "log out?"
      // prompt: the user, who started the flow, accepts.
      approvals += 1
      accepted.append(url)
      notes.append(
        "the user accepts the identity provider's page at \(url) (\"\(form.controls[button].label.isEmpty ? form.controls[button].value : form.controls[button].label)\")"
      )
      formActionPolicy = NavigationStateMachine.formAction(response.contentSecurityPolicy)
      formPage = Origin(url: url)
      return submit(form, pressing: button, on: page)
    }
    if response.status == 200,
      let next = page.refresh
        ?? page.links.first(where: { !$0.hasPrefix("http") && $0.contains("://") })
    {
      // A hand-off page: its auto-redirect (or the "open the app" link) starts a new
      // navigation from the backend's own page, outside any form submission.
      url = NavigationStateMachine.resolve(next, against: url)
      method = "GET"
      body = []
      contentType = nil
      return navigate(fromPage: true)
    }
    lastPageBody = response.body
    return .finish(.page(url, response.status))
  }

  /// Decides what the navigation to `url` is: a request, a delivery to an app, a block.
  private mutating func navigate(fromPage: Bool = false) -> Action {
    guard hops.count < NavigationStateMachine.maximumHops else {
      return .finish(.failed("too many redirects"))
    }
    hops.append(url)
    deliveredFromPage = fromPage
    guard let target = URLComponents(string: url), let scheme = target.scheme?.lowercased() else {
      return .finish(.failed("not a URL: \(url)"))
    }
    if scheme != "http" && scheme != "https" {
      if let policy = formActionPolicy, kind.enforcesFormActionOnRedirects,
        !NavigationStateMachine.allows(policy, url, origin: nil, selfOrigin: formPage)
      {
        return .finish(
          .blocked(
            "Refused to send form data to '\(url)' because it violates the Content Security Policy directive \"form-action \(policy.joined(separator: " "))\" (the form submission's redirect chain ends on a custom scheme)"
          ))
      }
      if let refusal = kind.delivers(
        scheme, callbackScheme: callbackScheme, registered: registeredSchemes.contains(scheme))
      {
        return .finish(
          .undeliverable(refusal + (registry.map { " (the app's URL schemes: \($0))" } ?? "")))
      }
      return .finish(.delivered(url))
    }
    deliveredFromPage = false
    if let endpoint = authorizeEndpoint, url.hasPrefix(endpoint) { authorizeReached = true }
    if let stop = stopBeforePath, authorizeReached, target.path.hasPrefix(stop) {
      return .finish(.intercepted(url))
    }
    if let policy = formActionPolicy, kind.enforcesFormActionOnRedirects,
      let origin = Origin(url: url),
      !NavigationStateMachine.allows(policy, url, origin: origin, selfOrigin: formPage)
    {
      return .finish(
        .blocked(
          "Refused to send form data to '\(url)': CSP form-action \(policy.joined(separator: " "))"
        ))
    }
    let site = Origin(url: url).map(NavigationStateMachine.site)
    return .send(
      Request(
        method: method, url: url, body: body, contentType: contentType,
        crossSite: initiator != nil && initiator != site))
  }

  /// The form as the user leaves it: the first named text field gets the username, every password
  /// field the password, a "remember" checkbox is ticked when asked; the rest keeps the
  /// values the page gave.
  static func fill(_ form: HTMLPage.Form, with credentials: Credentials) -> HTMLPage.Form {
    var out = form
    var filledUser = false
    for index in out.controls.indices where out.controls[index].element == .input {
      let control = out.controls[index]
      guard !control.disabled else { continue }
      switch control.type {
      case "password": out.controls[index].value = credentials.password
      case "checkbox" where control.name?.lowercased().contains("remember") == true:
        out.controls[index].checked = credentials.rememberMe
      case "text", "email":
        // An unnamed field is never sent: not where the username goes.
        if !filledUser && control.name.map({ !$0.isEmpty }) == true {
          out.controls[index].value = credentials.username
          filledUser = true
        }
      default: break
      }
    }
    return out
  }

  /// Words on a button that accepts (a consent page's "Authorize", a logout prompt's "Yes"),
  /// and words that refuse, in the languages of the providers modelled.
  static let acceptWords = [
    "allow", "accept", "authorize", "authorise", "approve", "consent", "agree", "yes", "confirm",
    "continue", "oui", "autoriser", "accepter", "valider", "continuer",
  ]
  /// Words that make a button refuse, negations ("Don't allow", "Ne pas autoriser") included.
  static let refuseWords = [
    "decline", "deny", "cancel", "reject", "refuse", "annuler", "non", "no", "not", "don",
    "dont", "never", "pas", "disallow", "disagree", "refuser", "ignorer",
  ]

  /// A button's words, lowercased, split on anything that is not a letter.
  static func words(_ text: String) -> [String] {
    text.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init)
  }

  /// Whether a button reads as accepting: an accepting word and no refusing one.
  static func accepts(_ control: HTMLPage.Control) -> Bool {
    let words = words([control.name ?? "", control.value, control.label].joined(separator: " "))
    return !words.contains(where: refuseWords.contains)
      && words.contains(where: acceptWords.contains)
  }

  /// A form on the identity provider's own pages whose enabled submit button accepts: the
  /// form and the button's index. Nil off the IdP, or when no button reads as accepting.
  static func approval(on page: HTMLPage, at url: String, idp: String?) -> (HTMLPage.Form, Int)? {
    guard let idp, let provider = Origin(url: idp), Origin(url: url) == provider else { return nil }
    for form in page.forms where !form.isLogin {
      for (index, control) in form.controls.enumerated()
      where control.isSubmitButton && !control.disabled && accepts(control) {
        return (form, index)
      }
    }
    return nil
  }

  /// Submits `form` as HTML does and navigates to what it sends.
  private mutating func submit(_ form: HTMLPage.Form, pressing button: Int?, on page: HTMLPage)
    -> Action
  {
    guard let submission = FormSubmission(form, submitter: button, document: url, base: page.base)
    else {
      lastPageBody = nil
      return .finish(
        .failed(
          "the form on \(url) submits nowhere a browser would send it (action \(form.action ?? "none"), method \(form.method))"
        ))
    }
    url = submission.url
    method = submission.method
    body = submission.body
    contentType = submission.contentType
    return navigate()
  }

  // MARK: CSP and URLs

  /// The sources of the `form-action` directive of a CSP header, nil when it has none.
  static func formAction(_ csp: String?) -> [String]? {
    guard let csp else { return nil }
    for directive in csp.split(separator: ";") {
      let parts = directive.split(separator: " ").map(String.init)
      if parts.first?.lowercased() == "form-action" { return Array(parts.dropFirst()) }
    }
    return nil
  }

  /// Whether a `form-action` source list allows navigating to `url` (CSP3 source matching:
  /// `*` and host sources match network schemes only).
  static func allows(_ sources: [String], _ url: String, origin: Origin?, selfOrigin: Origin?)
    -> Bool
  {
    let scheme = (URLComponents(string: url)?.scheme ?? "").lowercased()
    for source in sources {
      let lowered = source.lowercased()
      if lowered == "'none'" { return false }
      if lowered.hasSuffix(":") && !lowered.contains("/") {
        if lowered.dropLast() == scheme { return true }
        continue
      }
      guard let origin else { continue }  // Every remaining source form needs a network URL.
      if lowered == "*" { return true }
      if lowered == "'self'" {
        if origin == selfOrigin { return true }
        continue
      }
      let host = lowered.replacingOccurrences(of: "https://", with: "").replacingOccurrences(
        of: "http://", with: "")
      if host.hasPrefix("*.") ? origin.host.hasSuffix(host.dropFirst()) : origin.host == host {
        return true
      }
    }
    return false
  }

  /// The registrable domain, approximated by the last two labels.
  static func site(_ origin: Origin) -> String {
    if origin.isIPLiteral || !origin.host.contains(".") { return origin.host }
    return origin.host.split(separator: ".").suffix(2).joined(separator: ".")
  }

  static func resolve(_ location: String, against base: String) -> String {
    if location.contains("://") || location.hasPrefix("mailto:") { return location }
    return URL(string: location, relativeTo: URL(string: base))?.absoluteString ?? location
  }
}
