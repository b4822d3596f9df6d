import Artifacts
import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

/// The app's `nativeLogin()` and `nativeLogout()` (seed 000, *Authentication architecture*,
/// *Logout*): the OIDC flow in the system browser, the PKCE-bound exchange through the native
/// stack, the CSRF token cached in local storage.
extension App {
  /// The browser kind this app's auth flows open (rule 7): what the build and the device give.
  public var browserKind: BrowserKind {
    if let forced = device.forcedBrowser { return forced }
    switch device.platform {
    case .ios:
      guard build.authSession.usesWebAuthenticationSession else { return .safariViewController }
      return build.authSession.prefersEphemeral?.value == true
        ? .ephemeralWebAuthSession : .webAuthSession
    case .android:
      return device.hasPlayServices ? .customTabs : .webView
    }
  }

  /// The `mobile_scheme` the app's login and logout send: a build of a kind without a native
  /// callback sends an empty one, which the backend refuses as it would any unlisted scheme.
  public var loginScheme: String { build.callbackScheme?.value ?? "" }

  /// The local-storage key of the cached CSRF token (`csrf.ts`).
  public var csrfStorageKey: String { "\(build.name)_native-csrf-token" }

  /// Runs `url` in a fresh system-browser session of the app's kind.
  public func openInSystemBrowser(_ url: String, credentials: Credentials?) throws -> BrowserResult
  {
    let kind = browserKind
    let jar: CookieJar
    switch kind.cookieStore {
    case .devicePersistentCookies:
      // Shares Safari's persistent cookies; session cookies stay in this session.
      jar = CookieJar(clock: device.environment.clock)
      jar.insert(device.systemCookies.all.filter(\.isPersistent))
    case .fresh:
      jar = CookieJar(clock: device.environment.clock)
    case .appBrowser:
      jar = inAppBrowserCookies
    case .device:
      jar = device.systemCookies
    case .appWebView:
      jar = webViewCookies
    }
    let navigator = BrowserNavigator(
      kind: kind, jar: jar, client: try device.environment.client(),
      environment: device.environment,
      source: "\(device.platform.rawValue)/\(name) \(kind.rawValue)",
      callbackScheme: build.callbackScheme?.value,
      registeredSchemes: build.registeredSchemes.map(\.value), registry: build.schemeRegistry,
      authorizeEndpoint: build.backend?.oidcAuthorizationEndpoint)
    navigator.offline = device.offline
    device.environment.decision(
      "\(device.platform.rawValue)/\(name)", "opens \(url) in \(kind.rawValue)",
      detail: "cookies at start:\n" + jar.snapshot(redactor: device.environment.redactor))
    let result = navigator.run(from: url, credentials: credentials)
    switch kind.cookieStore {
    case .devicePersistentCookies:
      device.systemCookies.insert(jar.all.filter(\.isPersistent))
    case .appBrowser:
      jar.removeSessionCookies()
    case .fresh, .device, .appWebView:
      break
    }
    return result
  }

  /// The browser half of `nativeLogin()`: a fresh PKCE verifier, `authenticate` in the
  /// system browser, and the deep link it delivers (kept for `exchange`).
  public func startLogin(credentials: Credentials?) throws -> BrowserResult {
    let verifier = device.environment.random.token(byteCount: 48)
    device.environment.redactor.register(verifier)
    pendingVerifier = verifier
    pendingDeepLink = nil
    let challenge = Digest.pkceChallenge(verifier: verifier)
    let url = apiURL(
      "/api/v1.0/authenticate/?"
        + Query.encode([
          ("mobile_scheme", loginScheme), ("code_challenge", challenge),
          ("code_challenge_method", "S256"),
        ]))
    return try followLogin(url, credentials: credentials)
  }

  /// Opens the login page a previous attempt stopped on again (the user comes back to it),
  /// typing `credentials` this time.
  public func resumeLogin(credentials: Credentials?) throws -> BrowserResult? {
    guard let page = abandonedLoginPage else { return nil }
    return try followLogin(page, credentials: credentials)
  }

  private func followLogin(_ url: String, credentials: Credentials?) throws -> BrowserResult {
    let result = try openInSystemBrowser(url, credentials: credentials)
    if let link = result.delivered,
      link.lowercased().hasPrefix(loginScheme.lowercased() + "://auth")
    {
      pendingDeepLink = link
    }
    if case .loginForm = result.end, let page = result.hops.last(where: { $0.hasPrefix("http") }) {
      abandonedLoginPage =
        result.hops.first { $0.contains("client_id=") && $0.contains("state=") } ?? page
    } else {
      abandonedLoginPage = nil
    }
    return result
  }

  /// The token of a delivered `S://auth?token=…` link, under `parameter`.
  public static func token(in deepLink: String, parameter: String = "token") -> String? {
    URLComponents(string: deepLink)?.queryItems?.first { $0.name == parameter }?.value
  }

  /// The token as the app's login reads it: under the parameter its `auth.ts` names. A name
  /// the backend does not send finds nothing, and the app stops at "no token in the login
  /// callback".
  func appToken(in deepLink: String) -> String? {
    App.token(in: deepLink, parameter: build.authSession.callbackParameter?.value ?? "token")
  }

  /// `POST /api/v1.0/mobile/auth/exchange/ {token, code_verifier}` through the native stack;
  /// on success the session cookies land in the native jar and the CSRF token in local storage.
  public func exchange(token: String, verifier: String) -> NativeHTTPStack.Result {
    let body =
      (try? JSONSerialization.data(withJSONObject: ["token": token, "code_verifier": verifier]))
      ?? Data()
    let result = native.send(
      ClientRequest(
        method: "POST", url: apiURL("/api/v1.0/mobile/auth/exchange/"),
        headers: ["Content-Type": "application/json"], body: Array(body)))
    if case .sent(let exchange) = result, let response = exchange.response, response.status == 200,
      let csrf = (response.jsonObject as? [String: Any])?["csrf_token"] as? String
    {
      localStorage[csrfStorageKey] = csrf
    }
    return result
  }

  /// The logout of seed 000: the RP-initiated logout in the system browser, then the
  /// safety-net POST, then the native cookies and the cached CSRF token are cleared — in the
  /// order the app's `nativeLogout()` takes them, each skipped where that code skips it after
  /// a request rejected (a dismissed sheet, no network). An app whose web code was not read
  /// takes every step.
  public func logout() throws -> (browser: BrowserResult?, safetyNet: NativeHTTPStack.Result?) {
    typealias Step = NativeLogoutFlow.Step
    let flow = build.authSession.nativeLogout?.simulated
    let source = "\(device.platform.rawValue)/\(name)"
    var browser: BrowserResult?
    var safetyNet: NativeHTTPStack.Result?
    var rejected: Set<Step> = []
    for step in flow?.order ?? Step.allCases {
      if let flow, !flow.runs(step, rejected: rejected) {
        let after = rejected.map(\.rawValue).sorted().joined(separator: " and ")
        device.environment.decision(
          source, "nativeLogout() skips \(step.rawValue): \(after) rejected (\(flow.file))")
        continue
      }
      switch step {
      case .browserLogout:
        guard !behaviours.logoutSkipsBrowser else { continue }
        let result = try openInSystemBrowser(
          apiURL(
            "/api/v1.0/logout/?" + Query.encode([("mobile_scheme", loginScheme)])),
          credentials: nil)
        browser = result
        // openAuthSession() resolves only when the sheet hands the scheme back.
        if case .delivered = result.end {} else { rejected.insert(.browserLogout) }
      case .safetyNet:
        guard !behaviours.logoutSkipsSafetyNet else { continue }
        let result = send(method: "POST", apiURL("/api/v1.0/mobile/auth/logout/"), body: [])
        safetyNet = result
        // fetch() rejects on a network failure only; an HTTP error status resolves.
        if case .sent(let exchange) = result, exchange.response != nil {
        } else {
          rejected.insert(.safetyNet)
        }
      case .clearCookies:
        native.jar.removeAll()
        device.environment.decision(source, "native cookies cleared")
      case .clearCSRFToken:
        localStorage[csrfStorageKey] = nil
        device.environment.decision(source, "the cached CSRF token cleared")
      }
    }
    return (browser, safetyNet)
  }

  /// An API call as `getHeaders()` makes it: unsafe methods echo the cached CSRF token as
  /// `X-CSRFToken` and carry an `Origin` the backend trusts (the API origin).
  public func send(
    method: String, _ url: String, body: [UInt8], contentType: String? = nil, csrf: Bool = true,
    origin: Bool = true, originOverride: String? = nil
  ) -> NativeHTTPStack.Result {
    var headers = HTTPHeaders()
    if method != "GET" && method != "HEAD" {
      if csrf && !behaviours.csrfTokenNotSent, let token = localStorage[csrfStorageKey] {
        headers.add("X-CSRFToken", token)
      }
      if let originOverride {
        headers.add("Origin", originOverride)
      } else if origin && !behaviours.originNotSent, let apiOrigin {
        headers.add("Origin", apiOrigin.description)
      }
    }
    if let contentType { headers.add("Content-Type", contentType) }
    return native.send(ClientRequest(method: method, url: url, headers: headers, body: body))
  }
}

extension App {
  /// Exchanges the pending deep link with the pending verifier (or a wrong one), as the app
  /// does once the browser hands the link back. Returns nil when no link is pending.
  public func exchangePendingDeepLink(wrongVerifier: Bool = false) -> (
    link: String, result: NativeHTTPStack.Result
  )? {
    guard let link = pendingDeepLink, let token = appToken(in: link),
      let verifier = pendingVerifier
    else { return nil }
    pendingDeepLink = nil
    lastExchangedDeepLink = link
    let used = wrongVerifier ? device.environment.random.token(byteCount: 48) : verifier
    if wrongVerifier { device.environment.redactor.register(used) }
    return (link, exchange(token: token, verifier: used))
  }

  /// Exchanges the last deep link again with the right verifier (a replay).
  public func replayLastDeepLink() -> NativeHTTPStack.Result? {
    guard let link = lastExchangedDeepLink, let token = appToken(in: link),
      let verifier = pendingVerifier
    else { return nil }
    return exchange(token: token, verifier: verifier)
  }

  /// Redeems a deep link meant for `victim` with this app's own verifier: what an app that
  /// claimed the victim's custom scheme can do with a stolen link.
  public func redeem(deepLinkOf victim: App) -> NativeHTTPStack.Result? {
    guard let link = victim.pendingDeepLink ?? victim.lastExchangedDeepLink,
      let token = App.token(in: link)
    else {
      return nil
    }
    let verifier = device.environment.random.token(byteCount: 48)
    device.environment.redactor.register(verifier)
    let body =
      (try? JSONSerialization.data(withJSONObject: ["token": token, "code_verifier": verifier]))
      ?? Data()
    return native.send(
      ClientRequest(
        method: "POST", url: victim.apiURL("/api/v1.0/mobile/auth/exchange/"),
        headers: ["Content-Type": "application/json"],
        body: Array(body)))
  }
}
