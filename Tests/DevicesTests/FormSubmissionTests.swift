import Foundation
import Testing

@testable import Devices

/// HTML's form-submission algorithm (WHATWG HTML §4.10.21.3 and §4.10.21.4) on forms as real
/// providers write them: what a browser sends is what the simulated user sends.
@Suite struct FormSubmissionTests {
  static let page = "https://idp.test/accounts/login/?next=%2Fopenid%2Fauthorize%3Fclient_id%3Da"

  static func submit(_ html: String, pressing label: String? = nil, at document: String = page)
    throws -> FormSubmission?
  {
    let parsed = HTMLPage(html: html)
    let form = try #require(parsed.forms.first)
    let button = label.flatMap { label in
      form.controls.firstIndex { $0.isSubmitButton && ($0.label == label || $0.value == label) }
    }
    return FormSubmission(form, submitter: button, document: document, base: parsed.base)
  }

  /// Django's login template writes `<form method="post">` or `action=""`: both post back to
  /// the page itself, its `?next=` included (an empty action is not a relative URL).
  @Test(arguments: [
    "<form method=\"post\">", "<form method=\"post\" action=\"\">",
    "<form method=\"POST\" action=\"  \">",
  ])
  func anEmptyOrMissingActionPostsToThePageItself(form: String) throws {
    let sent = try #require(
      try Self.submit(
        form + "<input name=\"username\"><button type=\"submit\">Log In</button></form>"))
    #expect(sent.method == "POST")
    #expect(sent.url == Self.page)
    #expect(sent.contentType == "application/x-www-form-urlencoded")
  }

  @Test func aRelativeActionResolvesAgainstTheBaseButAnEmptyOneDoesNot() throws {
    let html =
      "<base href=\"https://idp.test/realms/x/\"><form action=\"login-actions?a=1\" method=\"post\"><input name=\"u\" value=\"v\"></form>"
    #expect(try Self.submit(html)?.url == "https://idp.test/realms/x/login-actions?a=1")
    let empty = "<base href=\"https://other.test/\"><form action=\"\" method=\"post\"></form>"
    #expect(try Self.submit(empty)?.url == Self.page)
  }

  @Test func aGetFormReplacesTheActionsQueryAndDropsTheFragment() throws {
    let sent = try #require(
      try Self.submit(
        "<form action=\"/search?old=1#top\"><input name=\"q\" value=\"a b&c\"><input name=\"é\" value=\"~*\"></form>"
      ))
    #expect(sent.method == "GET")
    #expect(sent.url == "https://idp.test/search?q=a+b%26c&%C3%A9=%7E*")
    #expect(sent.body.isEmpty)
  }

  /// Only the button pressed is submitted; its formaction, formmethod and formenctype win.
  @Test func onlyThePressedButtonIsSentAndItsOverridesWin() throws {
    let html = """
      <form method="post" action="/authorize">
        <input type="hidden" name="client_id" value="a">
        <input type="submit" value="Decline">
        <input type="submit" name="allow" value="Accept">
        <button name="alt" value="1" formaction="/other" formmethod="get">Other</button>
      </form>
      """
    let accept = try #require(try Self.submit(html, pressing: "Accept"))
    #expect(String(decoding: accept.body, as: UTF8.self) == "client_id=a&allow=Accept")
    let decline = try #require(try Self.submit(html, pressing: "Decline"))
    #expect(String(decoding: decline.body, as: UTF8.self) == "client_id=a")
    let other = try #require(try Self.submit(html, pressing: "Other"))
    #expect(other.method == "GET")
    #expect(other.url == "https://idp.test/other?client_id=a&alt=1")
    let none = try #require(try Self.submit(html))
    #expect(String(decoding: none.body, as: UTF8.self) == "client_id=a")
  }

  @Test func disabledUnnamedAndUncheckedControlsAreNotSent() throws {
    let html = """
      <form method="post" action="/x">
        <input name="a" value="1" disabled><input value="nameless">
        <input type="checkbox" name="remember"><input type="checkbox" name="terms" checked>
        <input type="radio" name="r" value="x"><input type="radio" name="r" value="y" checked>
        <select name="lang"><option value="en">English</option><option selected>fr</option></select>
        <textarea name="note">line1
      line2</textarea>
        <input type="hidden" name="_charset_">
        <input type="reset" name="reset" value="r"><button type="button" name="b">B</button>
      </form>
      """
    let sent = try #require(try Self.submit(html))
    #expect(
      String(decoding: sent.body, as: UTF8.self)
        == "terms=on&r=y&lang=fr&note=line1%0D%0Aline2&_charset_=UTF-8")
  }

  @Test func charsetTabsInTheActionAndANamelessImageFollowTheSpec() throws {
    let html =
      "<form method=\"post\" action=\" /x\n/y\t \"><input type=\"hidden\" name=\"_charset_\" value=\"latin1\"><input type=\"image\" name=\"\"></form>"
    let sent = try #require(try Self.submit(html, pressing: ""))
    #expect(sent.url == "https://idp.test/x/y")
    #expect(String(decoding: sent.body, as: UTF8.self) == "_charset_=UTF-8&x=0&y=0")
  }

  @Test func aControlOutsideItsFormJoinsItByTheFormAttribute() throws {
    let html =
      "<form id=\"f\" method=\"post\" action=\"/x\"></form><input form=\"f\" name=\"late\" value=\"1\">"
    #expect(String(decoding: try #require(try Self.submit(html)).body, as: UTF8.self) == "late=1")
  }

  @Test func multipartAndTextPlainEncodings() throws {
    let multipart = try #require(
      try Self.submit(
        "<form method=\"post\" enctype=\"multipart/form-data\" action=\"/x\"><input name='a\"b' value=\"1\"></form>"
      ))
    let boundary = try #require(multipart.contentType?.components(separatedBy: "boundary=").last)
    #expect(multipart.contentType?.hasPrefix("multipart/form-data; boundary=") == true)
    #expect(
      String(decoding: multipart.body, as: UTF8.self)
        == "--\(boundary)\r\nContent-Disposition: form-data; name=\"a%22b\"\r\n\r\n1\r\n--\(boundary)--\r\n"
    )
    let plain = try #require(
      try Self.submit(
        "<form method=\"post\" enctype=\"text/plain\" action=\"/x\"><input name=\"a\" value=\"b c\"></form>"
      ))
    #expect(String(decoding: plain.body, as: UTF8.self) == "a=b c\r\n")
    #expect(plain.contentType == "text/plain")
  }

  @Test func aDialogFormOrAScriptActionNavigatesNowhere() throws {
    #expect(try Self.submit("<form method=\"dialog\"><input name=\"a\"></form>") == nil)
    #expect(try Self.submit("<form action=\"javascript:void(0)\"><input name=\"a\"></form>") == nil)
  }

  @Test func anInvalidMethodIsGet() throws {
    #expect(
      try Self.submit("<form method=\"put\" action=\"/x\"><input name=\"a\"></form>")?.method
        == "GET")
  }
}

/// The user at the keyboard on a real provider's pages: the login form filled in and sent by
/// its default button, the consent page accepted, and whether the IdP took the login.
@Suite struct ProviderPagesTests {
  typealias Machine = NavigationStateMachine

  static func machine() -> Machine {
    Machine(
      kind: .customTabs, callbackScheme: "stmessages", registeredSchemes: ["stmessages"],
      authorizeEndpoint: "https://idp.test/openid/authorize", stopBeforePath: nil,
      credentials: Credentials(username: "alice", password: "Pa55!w#rd", rememberMe: false))
  }

  static func page(_ body: String) -> Machine.Response {
    .init(status: 200, location: nil, contentSecurityPolicy: nil, body: body)
  }

  static func redirect(_ location: String) -> Machine.Response {
    .init(status: 302, location: location, contentSecurityPolicy: nil, body: "")
  }

  /// django-oidc-provider's example: the login posts back to its page, then the stock
  /// consent page is accepted (not declined), and the code reaches the client.
  @Test func theLoginPostsBackAndTheConsentIsAccepted() throws {
    var machine = Self.machine()
    _ = machine.start(at: "https://idp.test/openid/authorize?client_id=a")
    _ = machine.received(Self.redirect("/accounts/login/?next=/openid/authorize%3Fclient_id%3Da"))
    let login = machine.received(
      Self.page(
        "<form method=\"post\" action=\"\"><input type=\"hidden\" name=\"csrfmiddlewaretoken\" value=\"c\"><input type=\"text\" name=\"username\"><input type=\"password\" name=\"password\"><button type=\"submit\">Log In</button></form>"
      ))
    guard case .send(let posted) = login else { return #expect(Bool(false), "\(login)") }
    #expect(posted.url == "https://idp.test/accounts/login/?next=/openid/authorize%3Fclient_id%3Da")
    #expect(
      String(decoding: posted.body, as: UTF8.self)
        == "csrfmiddlewaretoken=c&username=alice&password=Pa55%21w%23rd")
    _ = machine.received(Self.redirect("/openid/authorize?client_id=a"))
    #expect(!machine.loginAccepted)
    let consent = machine.received(
      Self.page(
        "<h1>Request for Permission</h1><form method=\"post\" action=\"/openid/authorize\"><input name=\"client_id\" type=\"hidden\" value=\"a\"><input type=\"submit\" value=\"Decline\" /><input name=\"allow\" type=\"submit\" value=\"Authorize\" /></form>"
      ))
    guard case .send(let accepted) = consent else { return #expect(Bool(false), "\(consent)") }
    #expect(String(decoding: accepted.body, as: UTF8.self) == "client_id=a&allow=Authorize")
    #expect(machine.notes.last?.contains("accepts the identity provider's page") == true)
    _ = machine.received(Self.redirect("https://api.test/callback/?code=k&state=s"))
    #expect(machine.loginAccepted)
  }

  /// The username goes into the first text field that has a name: an unnamed search box the
  /// page puts first is not where a user types it, and would not be sent anyway.
  @Test func theUsernameGoesIntoANamedField() {
    let form = HTMLPage(
      html:
        "<form method=\"post\"><input type=\"text\" placeholder=\"Search\"><input name=\"login\"><input type=\"password\" name=\"pw\"></form>"
    ).forms[0]
    let filled = Machine.fill(
      form, with: Credentials(username: "alice", password: "p", rememberMe: false))
    #expect(filled.controls.map(\.value) == ["", "alice", "p"])
  }

  /// A login the IdP answered with an error redirect is no LOGIN, though the form was filled.
  @Test func aLoginAnsweredWithAnErrorIsNotAccepted() {
    var machine = Self.machine()
    _ = machine.start(at: "https://idp.test/openid/authorize?client_id=a")
    _ = machine.received(
      Self.page(
        "<form method=\"post\"><input name=\"u\"><input type=\"password\" name=\"p\"></form>"))
    _ = machine.received(
      Self.redirect("https://api.test/callback/?error=access_denied&code=&state=s"))
    #expect(machine.formShown)
    #expect(!machine.loginAccepted)
  }

  /// Off the IdP, or with only refusing buttons, nothing is pressed for the user.
  @Test func nothingIsAcceptedOffTheProviderOrWithoutAnAcceptingButton() {
    let consent = HTMLPage(
      html:
        "<form method=\"post\" action=\"/x\"><input type=\"submit\" name=\"allow\" value=\"Yes\"></form>"
    )
    #expect(
      Machine.approval(on: consent, at: "https://api.test/page", idp: "https://idp.test/a") == nil)
    #expect(
      Machine.approval(on: consent, at: "https://idp.test/p", idp: "https://idp.test/a") != nil)
    // Refusals that carry an accepting word: a negation is a refusal, in either language.
    for label in ["Don't allow", "Do not allow", "Disallow", "Ne pas autoriser", "Cancel,", "No"] {
      let refusing = HTMLPage(
        html:
          "<form method=\"post\" action=\"/x\"><input type=\"submit\" value=\"\(label)\"></form>")
      #expect(
        Machine.approval(on: refusing, at: "https://idp.test/p", idp: "https://idp.test/a") == nil,
        "\(label)")
    }
    // Of a refusing and an accepting button, the accepting one is pressed.
    let both = HTMLPage(
      html:
        "<form method=\"post\" action=\"/x\"><button name=\"deny\">Don't allow</button><button name=\"allow\">Allow</button></form>"
    )
    let pressed = Machine.approval(on: both, at: "https://idp.test/p", idp: "https://idp.test/a")
    #expect(pressed.map { $0.0.controls[$0.1].name } == "allow")
  }
}
