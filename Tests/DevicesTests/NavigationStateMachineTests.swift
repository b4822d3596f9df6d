import Devices
import Testing

@testable import Devices

/// Rule 7 driven through the navigation state machine alone: responses are written by the
/// test, nothing is sent.
@Suite struct NavigationStateMachineTests {
  typealias Machine = NavigationStateMachine

  static let loginPage = """
    <form action="/login" method="post"><input name="username" type="text">
    <input name="password" type="password"><input type="hidden" name="form_token" value="ft">
    <input type="checkbox" name="rememberMe"></form>
    """

  static func machine(
    _ kind: BrowserKind, callback: String? = "stmessages", registered: [String] = ["stmessages"],
    credentials: Credentials? = Credentials(username: "u", password: "p", rememberMe: true),
    stopBefore: String? = nil
  ) -> Machine {
    Machine(
      kind: kind, callbackScheme: callback, registeredSchemes: registered,
      authorizeEndpoint: "https://idp.test/authorize", stopBeforePath: stopBefore,
      credentials: credentials)
  }

  static func page(_ body: String, status: Int = 200, csp: String? = nil) -> Machine.Response {
    .init(status: status, location: nil, contentSecurityPolicy: csp, body: body)
  }

  static func redirect(_ location: String, status: Int = 302) -> Machine.Response {
    .init(status: status, location: location, contentSecurityPolicy: nil, body: "")
  }

  static func sent(_ action: Machine.Action) -> Machine.Request? {
    if case .send(let request) = action { return request }
    return nil
  }

  /// Each row: the kind, the scheme navigated to, whether it is the session's callback
  /// scheme and registered by the app, and whether the app gets it.
  @Test(
    arguments: [
      (BrowserKind.webAuthSession, "stmessages", ["stmessages"], true),
      (.webAuthSession, "stmessages", [], false),  // not in CFBundleURLTypes
      (.webAuthSession, "other", ["other"], false),  // not the callback scheme
      (.ephemeralWebAuthSession, "stmessages", [], true),
      (.safariViewController, "other", ["other"], true),
      (.safariViewController, "stmessages", [], false),
      (.customTabs, "stmessages", ["stmessages"], true),
      (.customTabs, "stmessages", [], false),  // no intent-filter
      (.webView, "stmessages", [], true),
      (.webView, "other", [], false),
    ] as [(BrowserKind, String, [String], Bool)])
  func customSchemesReachAnAppAsTheKindAllows(
    kind: BrowserKind, scheme: String, registered: [String], delivered: Bool
  ) {
    var machine = Self.machine(kind, registered: registered)
    let action = machine.start(at: "\(scheme)://auth?token=t")
    if case .finish(.delivered) = action {
      #expect(delivered)
    } else if case .finish(.undeliverable) = action {
      #expect(!delivered)
    } else {
      Issue.record("\(action)")
    }
  }

  /// Rule 7: after the IdP's form, a 302 chain that ends on a custom scheme is blocked by a
  /// Chromium browser when the login page's CSP says `form-action 'self' *`; an iOS auth
  /// session intercepts it anyway.
  @Test(arguments: [
    (BrowserKind.customTabs, false), (.webView, false), (.webAuthSession, true),
    (.safariViewController, true),
  ])
  func aFormSubmissionRedirectingToACustomSchemeFollowsTheKindsCSPRule(
    kind: BrowserKind, delivered: Bool
  ) throws {
    var machine = Self.machine(kind)
    #expect(Self.sent(machine.start(at: "https://idp.test/authorize?x=1")) != nil)
    let posted = try #require(
      Self.sent(
        machine.received(
          Self.page(Self.loginPage, csp: "default-src 'self'; form-action 'self' *"))))
    #expect(posted.method == "POST")
    #expect(posted.url == "https://idp.test/login")
    let form = String(decoding: posted.body, as: UTF8.self)
    #expect(form.contains("username=u") && form.contains("form_token=ft"))
    #expect(form.contains("rememberMe=on"))
    // The IdP redirects to the app's backend, which redirects to the custom scheme.
    #expect(Self.sent(machine.received(Self.redirect("https://api.test/callback"))) != nil)
    let end = machine.received(Self.redirect("stmessages://auth?token=t"))
    if case .finish(.delivered) = end {
      #expect(delivered)
    } else if case .finish(.blocked(let why)) = end {
      #expect(!delivered)
      #expect(why.contains("form-action"))
    } else {
      Issue.record("\(end)")
    }
  }

  /// The backend's hand-off page starts a new navigation outside the form's chain: Chromium
  /// delivers it (rule 4, the reason the backend answers with a page, not a bare 302).
  @Test func aHandOffPageIsDeliveredEvenUnderTheFormsPolicy() throws {
    var machine = Self.machine(.customTabs)
    _ = machine.start(at: "https://idp.test/authorize")
    _ = machine.received(Self.page(Self.loginPage, csp: "form-action 'self' *"))
    _ = machine.received(Self.redirect("https://api.test/callback"))
    let end = machine.received(
      Self.page("<meta http-equiv=\"refresh\" content=\"0;url=stmessages://auth?token=t\">"))
    #expect(end == .finish(.delivered("stmessages://auth?token=t")))
    #expect(machine.deliveredFromPage)
    #expect(machine.authorizeReached)
    #expect(machine.formShown)
  }

  @Test func withoutCredentialsTheFlowStopsOnTheFormAndAFormTwiceIsARejection() {
    var anonymous = Self.machine(.customTabs, credentials: nil)
    _ = anonymous.start(at: "https://idp.test/authorize")
    #expect(
      anonymous.received(Self.page(Self.loginPage))
        == .finish(.loginForm("https://idp.test/authorize")))
    var user = Self.machine(.customTabs)
    _ = user.start(at: "https://idp.test/authorize")
    _ = user.received(Self.page(Self.loginPage))
    #expect(
      user.received(Self.page(Self.loginPage)) == .finish(.loginRejected("https://idp.test/login")))
  }

  @Test(arguments: [(303, "GET"), (302, "GET"), (307, "POST"), (308, "POST")])
  func aRedirectAfterAPostKeepsTheMethodOnlyFor307And308(status: Int, method: String) throws {
    var machine = Self.machine(.customTabs)
    _ = machine.start(at: "https://idp.test/authorize")
    _ = machine.received(Self.page(Self.loginPage))
    let next = try #require(
      Self.sent(machine.received(Self.redirect("https://idp.test/next", status: status))))
    #expect(next.method == method)
    #expect(next.body.isEmpty == (method == "GET"))
  }

  @Test func anAttackerStopsBeforeTheCallbackOnceTheIdPWasReached() {
    var machine = Self.machine(.customTabs, stopBefore: "/api/v1.0/callback/")
    _ = machine.start(at: "https://idp.test/authorize")
    let end = machine.received(Self.redirect("https://api.test/api/v1.0/callback/?code=c"))
    #expect(end == .finish(.intercepted("https://api.test/api/v1.0/callback/?code=c")))
  }

  @Test func aRedirectLoopEndsAfterTheLimit() {
    var machine = Self.machine(.customTabs)
    var action = machine.start(at: "https://a.test/0")
    var count = 0
    while case .send = action, count < 100 {
      count += 1
      action = machine.received(Self.redirect("https://a.test/\(count)"))
    }
    #expect(action == .finish(.failed("too many redirects")))
    #expect(machine.hops.count == Machine.maximumHops)
  }

  @Test func aNavigationFromAnotherSitesPageIsCrossSite() throws {
    var machine = Self.machine(.customTabs)
    let first = try #require(Self.sent(machine.start(at: "https://shop.other/")))
    #expect(!first.crossSite)
    _ = machine.received(Self.page("<a href=\"https://api.test/x\">x</a>"))
    // A page ended the flow; a new navigation from it is what a link click would be.
    var followed = Self.machine(.customTabs)
    _ = followed.start(at: "https://shop.other/")
    let next = try #require(
      Self.sent(
        followed.received(
          Self.page("<meta http-equiv=\"refresh\" content=\"0;url=https://api.test/x\">"))))
    #expect(next.crossSite)
  }
}
