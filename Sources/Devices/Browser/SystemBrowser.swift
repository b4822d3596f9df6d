import Artifacts
import Foundation
import HTTP
import QualifyCore

/// How an app shows the login and logout flows (DESIGN.md fidelity rule 7).
public enum BrowserKind: String, Sendable, CaseIterable {
  /// iOS `ASWebAuthenticationSession`, non-ephemeral: shares Safari's persistent cookies;
  /// delivers the callback only for a scheme registered in `CFBundleURLTypes`; intercepts
  /// the scheme even after a 302.
  case webAuthSession = "web-auth-session"
  /// iOS `ASWebAuthenticationSession` with `prefersEphemeralWebBrowserSession = true`: an
  /// empty cookie store that is thrown away.
  case ephemeralWebAuthSession = "ephemeral-web-auth-session"
  /// iOS `SFSafariViewController` (the default Browser plugin): a cookie store of the app's
  /// own, isolated from Safari and the other apps.
  case safariViewController = "safari-view-controller"
  /// Android Chrome Custom Tabs: Chrome's cookie store, shared by every app; enforces the
  /// page's CSP `form-action` on the whole redirect chain of a form submission.
  case customTabs = "custom-tabs"
  /// Android without Google Play services: an in-app WebView with isolated cookies.
  case webView = "webview"

  /// Whether the engine is Chromium, which checks `form-action` on redirects.
  var enforcesFormActionOnRedirects: Bool { self == .customTabs || self == .webView }
}

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
/// It follows every redirect itself (the client never does), so each hop is evidence; it
/// submits a login form with its hidden inputs kept when it has credentials, follows a
/// hand-off page's auto-redirect, and hands a custom-scheme navigation to the app only as
/// its kind allows.
final class BrowserNavigator {
  let kind: BrowserKind
  let jar: CookieJar
  let client: HTTPClient
  let environment: DeviceEnvironment
  let source: String
  /// The app's callback scheme and whether the app registered it natively.
  let callbackScheme: String?
  let registeredSchemes: [String]
  /// Where the IdP's authorization endpoint is, to know when the flow reached it.
  let authorizeEndpoint: String?
  /// A path the flow stops before requesting (after the IdP's authorization endpoint).
  var stopBeforePath: String?

  init(
    kind: BrowserKind, jar: CookieJar, client: HTTPClient, environment: DeviceEnvironment,
    source: String,
    callbackScheme: String?, registeredSchemes: [String], authorizeEndpoint: String?
  ) {
    self.kind = kind
    self.jar = jar
    self.environment = environment
    self.source = source
    self.callbackScheme = callbackScheme
    self.registeredSchemes = registeredSchemes.map { $0.lowercased() }
    self.authorizeEndpoint = authorizeEndpoint
    self.client = client
  }

  /// Navigates from `start` until the flow ends.
  func run(from start: String, credentials: Credentials?) -> BrowserResult {
    var url = start
    var method = "GET"
    var body: [UInt8] = []
    var contentType: String?
    var initiator: String? = nil  // the site that initiated the current navigation
    var formActionPolicy: [String]?  // set while following a form submission's redirects
    var formPage: Origin?  // the origin of the page whose form was submitted ('self')
    var hops: [String] = []
    var formShown = false
    var submitted = false
    var authorizeReached = false
    var fromPage = false
    var lastPageBody: String?

    func finish(_ end: BrowserResult.End) -> BrowserResult {
      environment.evidence.append(
        Evidence(
          kind: .cookies, source: source,
          summary: "cookie store after the \(kind.rawValue) session",
          detail: jar.snapshot(redactor: environment.redactor), time: environment.clock.now))
      var result = BrowserResult(
        end: end, hops: hops, formShown: formShown, authorizeReached: authorizeReached)
      result.deliveredFromPage = fromPage
      result.kind = kind
      result.lastPageBody = lastPageBody
      environment.decision(source, result.summary)
      return result
    }

    for _ in 0..<40 {
      hops.append(url)
      guard let target = URLComponents(string: url), let scheme = target.scheme?.lowercased() else {
        return finish(.failed("not a URL: \(url)"))
      }
      if scheme != "http" && scheme != "https" {
        if let policy = formActionPolicy, kind.enforcesFormActionOnRedirects,
          !BrowserNavigator.allows(policy, url, origin: nil, selfOrigin: formPage)
        {
          let why =
            "Refused to send form data to '\(url)' because it violates the Content Security Policy directive \"form-action \(policy.joined(separator: " "))\" (the form submission's redirect chain ends on a custom scheme)"
          return finish(.blocked(why))
        }
        return finish(deliver(url, scheme: scheme))
      }
      fromPage = false
      if let endpoint = authorizeEndpoint, url.hasPrefix(endpoint) { authorizeReached = true }
      if let stop = stopBeforePath, authorizeReached, target.path.hasPrefix(stop) {
        return finish(.intercepted(url))
      }
      if let policy = formActionPolicy, kind.enforcesFormActionOnRedirects,
        let origin = Origin(url: url),
        !BrowserNavigator.allows(policy, url, origin: origin, selfOrigin: formPage)
      {
        return finish(
          .blocked(
            "Refused to send form data to '\(url)': CSP form-action \(policy.joined(separator: " "))"
          ))
      }
      let site = Origin(url: url).map(BrowserNavigator.site)
      let crossSite = initiator != nil && initiator != site
      var headers = HTTPHeaders()
      if let cookie = jar.header(
        for: url, context: .navigation(crossSite: crossSite, topLevelGET: method == "GET"))
      {
        headers.add("Cookie", cookie)
      }
      if let contentType { headers.add("Content-Type", contentType) }
      headers.add("Accept", "text/html,application/xhtml+xml")
      let exchange = client.send(
        ClientRequest(method: method, url: url, headers: headers, body: body))
      environment.evidence.append(
        Evidence(
          kind: .navigation, source: source,
          summary: environment.redactor.redact(navigationSummary(method, url, exchange)),
          detail: exchange.evidence(
            source: source, redactor: environment.redactor, time: environment.clock.now
          ).detail,
          time: environment.clock.now))
      guard let response = exchange.response else {
        return finish(.failed(exchange.error?.message ?? "no response from \(url)"))
      }
      jar.store(response.headers.values("Set-Cookie"), from: url)
      if response.isRedirect, let location = response.headers["Location"] {
        url = BrowserNavigator.resolve(location, against: url)
        if response.status != 307 && response.status != 308 {
          method = "GET"
          body = []
          contentType = nil
        }
        continue
      }
      // A page: the redirect chain of any form submission ends here.
      initiator = site
      formActionPolicy = nil
      let page = HTMLPage(html: response.bodyText)
      if response.status == 200, let form = page.loginForm {
        formShown = true
        if submitted { return finish(.loginRejected(url)) }
        guard let credentials else { return finish(.loginForm(url)) }
        submitted = true
        var fields: [(String, String)] = []
        var filledUser = false
        for input in form.inputs {
          switch input.type {
          case "password": fields.append((input.name, credentials.password))
          case "checkbox":
            if input.name.lowercased().contains("remember") && credentials.rememberMe {
              fields.append((input.name, "on"))
            }
          case "submit": fields.append((input.name, input.value))
          case "text", "email":
            if !filledUser {
              fields.append((input.name, credentials.username))
              filledUser = true
            } else {
              fields.append((input.name, input.value))
            }
          default: fields.append((input.name, input.value))
          }
        }
        environment.decision(
          source,
          "the user types \(credentials.username)'s credentials\(credentials.rememberMe ? ", ticks remember me" : "") and submits the login form"
        )
        formActionPolicy = BrowserNavigator.formAction(response.headers["Content-Security-Policy"])
        formPage = Origin(url: url)
        method = form.method == "post" ? "POST" : "GET"
        let encoded = Query.encode(fields)
        let action = BrowserNavigator.resolve(form.action ?? url, against: url)
        if method == "POST" {
          url = action
          body = Array(encoded.utf8)
          contentType = "application/x-www-form-urlencoded"
        } else {
          url = action + (action.contains("?") ? "&" : "?") + encoded
        }
        continue
      }
      if response.status == 200,
        let next = page.refresh
          ?? page.links.first(where: { !$0.hasPrefix("http") && $0.contains("://") })
      {
        // A hand-off page: its auto-redirect (or the "open the app" link) starts a new
        // navigation from the backend's own page, outside any form submission.
        url = BrowserNavigator.resolve(next, against: url)
        method = "GET"
        body = []
        contentType = nil
        fromPage = true
        continue
      }
      lastPageBody = response.bodyText
      return finish(.page(url, response.status))
    }
    return finish(.failed("too many redirects"))
  }

  /// Hands a custom-scheme URL to the app, as the browser kind allows (rule 7).
  private func deliver(_ url: String, scheme: String) -> BrowserResult.End {
    let registered = registeredSchemes.contains(scheme)
    switch kind {
    case .webAuthSession:
      guard scheme == callbackScheme?.lowercased() else {
        return .undeliverable("\(scheme):// is not the session's callback scheme")
      }
      guard registered else {
        return .undeliverable(
          "ASWebAuthenticationSession (non-ephemeral) only delivers a callback scheme registered in CFBundleURLTypes; \(scheme) is not"
        )
      }
      return .delivered(url)
    case .ephemeralWebAuthSession:
      guard scheme == callbackScheme?.lowercased() else {
        return .undeliverable("\(scheme):// is not the session's callback scheme")
      }
      return .delivered(url)
    case .safariViewController:
      return registered
        ? .delivered(url) : .undeliverable("Safari cannot open \(scheme):// (no app registered it)")
    case .customTabs:
      return registered
        ? .delivered(url)
        : .undeliverable("no activity handles the intent for \(scheme):// (no intent-filter)")
    case .webView:
      return scheme == callbackScheme?.lowercased() || registered
        ? .delivered(url) : .undeliverable("the WebView cannot open \(scheme)://")
    }
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
    if let sources = Self.formAction(response.headers["Content-Security-Policy"]) {
      out += " [CSP form-action \(sources.joined(separator: " "))]"
    }
    return out
  }

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
      authorizeEndpoint: authorizeEndpoint)
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
      authorizeEndpoint: authorizeEndpoint)
    return navigator.run(from: url, credentials: nil)
  }
}
