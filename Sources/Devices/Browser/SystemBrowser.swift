import Artifacts
import Foundation
import HTTP
import QualifyCore

/// The user at the keyboard when a login form shows up.
public struct Credentials: Sendable {
  public var username: String
  public var password: String
  public var rememberMe: Bool

  public init(username: String, password: String, rememberMe: Bool) {
    self.username = username
    self.password = password
    self.rememberMe = rememberMe
  }
}

/// How a browser session ended.
public struct BrowserResult: Sendable {
  public enum End: Sendable, Equatable {
    /// A custom-scheme URL was handed to the app.
    case delivered(String)
    /// The flow stopped on a login form and nobody typed credentials.
    case loginForm(String)
    /// The login form came back after the credentials were submitted (a login error).
    case loginRejected(String)
    /// A navigation was blocked (CSP `form-action`).
    case blocked(String)
    /// A custom-scheme navigation found no app to deliver to.
    case undeliverable(String)
    /// The flow stopped on an ordinary page (URL, status).
    case page(String, Int)
    /// The network failed.
    case failed(String)
    /// The flow was stopped before requesting a URL (an attacker keeping a callback URL).
    case intercepted(String)
  }

  public var end: End
  /// Every URL the session navigated to, in order.
  public var hops: [String]
  /// Whether an identity-provider login form was displayed.
  public var formShown: Bool
  /// Whether a login form was submitted and the IdP then issued a code (not an error, not
  /// the form again).
  public var loginAccepted = false
  /// The identity provider's pages the user accepted on the way (a consent page, a logout
  /// prompt): not a login, but an interaction a silent sign-on did not have.
  public var acceptedPages: [String] = []
  /// Whether the flow went through the IdP's authorization endpoint.
  public var authorizeReached: Bool
  /// Whether the custom-scheme navigation left from a page (the hand-off page) rather than
  /// from a redirect.
  public var deliveredFromPage: Bool = false
  /// The browser kind the session ran in.
  public var kind: BrowserKind = .customTabs
  /// The body of the page the flow ended on, when it ended on one.
  public var lastPageBody: String?

  /// The delivered custom-scheme URL.
  public var delivered: String? {
    if case .delivered(let url) = end { return url }
    return nil
  }

  /// One sentence for messages.
  public var summary: String {
    switch end {
    case .delivered(let url): return "delivered \(url) to the app"
    case .loginForm(let url): return "stopped on the login form at \(url)"
    case .loginRejected(let url): return "the credentials were refused at \(url)"
    case .blocked(let why): return "blocked: \(why)"
    case .undeliverable(let why): return "could not deliver: \(why)"
    case .page(let url, let status): return "ended on \(url) (\(status))"
    case .failed(let why): return "failed: \(why)"
    case .intercepted(let url): return "stopped before requesting \(url)"
    }
  }
}

/// One browser session: a cookie store, an HTTP client, and the rules of its kind.
///
/// The decisions are `NavigationStateMachine`'s; this is the loop around it that sends each
/// request (the client never follows a redirect, so each hop is evidence), keeps the session's
/// cookies and records what happened.
final class BrowserNavigator {
  let kind: BrowserKind
  let jar: CookieJar
  let client: HTTPClient
  let environment: DeviceEnvironment
  let source: String
  /// The app's callback scheme and the schemes the apps registered natively.
  let callbackScheme: String?
  let registeredSchemes: [String]
  let registry: String?
  /// Where the IdP's authorization endpoint is, to know when the flow reached it.
  let authorizeEndpoint: String?
  /// A path the flow stops before requesting (after the IdP's authorization endpoint).
  var stopBeforePath: String?
  /// The device has no network: every hop fails as a connection would.
  var offline = false

  init(
    kind: BrowserKind, jar: CookieJar, client: HTTPClient, environment: DeviceEnvironment,
    source: String,
    callbackScheme: String?, registeredSchemes: [String], registry: String? = nil,
    authorizeEndpoint: String?
  ) {
    self.registry = registry
    self.kind = kind
    self.jar = jar
    self.environment = environment
    self.source = source
    self.callbackScheme = callbackScheme
    self.registeredSchemes = registeredSchemes
    self.authorizeEndpoint = authorizeEndpoint
    self.client = client
  }

  /// Navigates from `start` until the flow ends.
  func run(from start: String, credentials: Credentials?) -> BrowserResult {
    var machine = NavigationStateMachine(
      kind: kind, callbackScheme: callbackScheme, registeredSchemes: registeredSchemes,
      registry: registry,
      authorizeEndpoint: authorizeEndpoint, stopBeforePath: stopBeforePath,
      credentials: credentials)
    var action = machine.start(at: start)
    var said = 0
    while true {
      for note in machine.notes.dropFirst(said) { environment.decision(source, note) }
      said = machine.notes.count
      switch action {
      case .finish(let end):
        return finish(end, machine)
      case .send(let request):
        action = send(request, &machine)
      }
    }
  }

  private func send(
    _ request: NavigationStateMachine.Request, _ machine: inout NavigationStateMachine
  ) -> NavigationStateMachine.Action {
    var headers = HTTPHeaders()
    if let cookie = jar.header(
      for: request.url,
      context: .navigation(crossSite: request.crossSite, topLevelGET: request.method == "GET"))
    {
      headers.add("Cookie", cookie)
    }
    if let contentType = request.contentType { headers.add("Content-Type", contentType) }
    headers.add("Accept", "text/html,application/xhtml+xml")
    let outgoing = ClientRequest(
      method: request.method, url: request.url, headers: headers, body: request.body)
    let exchange = offline ? HTTPExchange.offline(outgoing) : client.send(outgoing)
    environment.evidence.append(
      Evidence(
        kind: .navigation, source: source,
        summary: environment.redactor.redact(
          navigationSummary(request.method, request.url, exchange)),
        detail: exchange.evidence(
          source: source, redactor: environment.redactor, time: environment.clock.now
        ).detail,
        time: environment.clock.now))
    guard let response = exchange.response else {
      return machine.failed(exchange.error?.message ?? "no response from \(request.url)")
    }
    jar.store(response.headers.values("Set-Cookie"), from: request.url)
    return machine.received(
      NavigationStateMachine.Response(
        status: response.status, location: response.headers["Location"],
        contentSecurityPolicy: response.headers["Content-Security-Policy"],
        body: response.bodyText))
  }

  private func finish(_ end: BrowserResult.End, _ machine: NavigationStateMachine)
    -> BrowserResult
  {
    environment.evidence.append(
      Evidence(
        kind: .cookies, source: source,
        summary: "cookie store after the \(kind.rawValue) session",
        detail: jar.snapshot(redactor: environment.redactor), time: environment.clock.now))
    var result = BrowserResult(
      end: end, hops: machine.hops, formShown: machine.formShown,
      authorizeReached: machine.authorizeReached)
    result.deliveredFromPage = machine.deliveredFromPage
    result.loginAccepted = machine.loginAccepted
    result.acceptedPages = machine.accepted
    result.kind = kind
    result.lastPageBody = machine.lastPageBody
    environment.decision(source, result.summary)
    return result
  }

  private func navigationSummary(_ method: String, _ url: String, _ exchange: HTTPExchange)
    -> String
  {
    guard let response = exchange.response else {
      return "\(method) \(url) ✗ \(exchange.error?.message ?? "")"
    }
    var out = "\(method) \(url) → \(response.status)"
    if let location = response.headers["Location"] { out += " → \(location)" }
    // Only form-action matters to a login redirect; the mocks' blanket page policy is noise.
    if let sources = NavigationStateMachine.formAction(response.headers["Content-Security-Policy"])
    {
      out += " [CSP form-action \(sources.joined(separator: " "))]"
    }
    return out
  }
}

extension Device {
  /// A sign-in to the web app in the device's own browser — Safari or Chrome, with the
  /// device's shared cookie store — the flow any user can start outside the apps. A
  /// custom-scheme navigation goes to whichever installed app registered the scheme.
  public func webLogin(at url: String, authorizeEndpoint: String?, credentials: Credentials?) throws
    -> BrowserResult
  {
    let kind: BrowserKind = platform == .ios ? .safariViewController : .customTabs
    let navigator = BrowserNavigator(
      kind: kind, jar: systemCookies, client: try environment.client(), environment: environment,
      source: "\(platform.rawValue) \(platform == .ios ? "Safari" : "Chrome")", callbackScheme: nil,
      registeredSchemes: apps.flatMap { $0.build.registeredSchemes.map(\.value) },
      registry: apps.lazy.compactMap { $0.build.schemeRegistry }.first,
      authorizeEndpoint: authorizeEndpoint)
    navigator.offline = offline
    return navigator.run(from: url, credentials: credentials)
  }

  /// An attacker's own browser on another machine (a cookie store of its own) signs in as
  /// `credentials` and keeps the callback URL the IdP sends back — code and state of the
  /// attacker's login — without following it.
  public func captureCallback(
    at url: String, callbackPath: String, authorizeEndpoint: String?, credentials: Credentials
  ) throws -> BrowserResult {
    let navigator = BrowserNavigator(
      kind: .customTabs, jar: CookieJar(clock: environment.clock), client: try environment.client(),
      environment: environment, source: "attacker's browser", callbackScheme: nil,
      registeredSchemes: [], authorizeEndpoint: authorizeEndpoint)
    navigator.stopBeforePath = callbackPath
    return navigator.run(from: url, credentials: credentials)
  }

  /// The device's own browser (Safari, Chrome) opens `url`, as a link in a mail or on a web
  /// page makes it, with the device's shared cookies.
  public func openInBrowser(_ url: String, authorizeEndpoint: String?) throws -> BrowserResult {
    let navigator = BrowserNavigator(
      kind: platform == .ios ? .safariViewController : .customTabs, jar: systemCookies,
      client: try environment.client(), environment: environment,
      source: "\(platform.rawValue) \(platform == .ios ? "Safari" : "Chrome")", callbackScheme: nil,
      registeredSchemes: apps.flatMap { $0.build.registeredSchemes.map(\.value) },
      registry: apps.lazy.compactMap { $0.build.schemeRegistry }.first,
      authorizeEndpoint: authorizeEndpoint)
    navigator.offline = offline
    return navigator.run(from: url, credentials: nil)
  }
}
