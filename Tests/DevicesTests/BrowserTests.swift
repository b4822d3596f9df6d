import Devices
import HTTP
import Testing

@testable import Devices

@Suite struct HTMLPageTests {
  @Test func readsFormsWithHiddenInputsAndEntities() {
    let page = HTMLPage(
      html: """
        <html><head><script>var x = "<form>";</script></head><body>
        <!-- <form action="/fake"> -->
        <form id="kc-form-login" action="/login?tab_id=a&amp;client_id=b" method="POST">
          <input name="username" type="text"><input name=password type="password">
          <input type="hidden" name="form_token" value="t&#39;k">
          <input type="checkbox" name="rememberMe">
        </form></body></html>
        """)
    #expect(page.forms.count == 1)
    let form = page.forms[0]
    #expect(form.action == "/login?tab_id=a&client_id=b")
    #expect(form.method == "post")
    #expect(form.isLogin)
    #expect(form.controls.map(\.name) == ["username", "password", "form_token", "rememberMe"])
    #expect(form.controls[2].value == "t'k")
  }

  @Test func findsTheHandOffTargets() {
    let page = HTMLPage(
      html:
        "<meta http-equiv=\"refresh\" content=\"0;url=stmessages://auth?token=abc&amp;x=1\"><a href=\"stmessages://auth?token=abc\">Open</a>"
    )
    #expect(page.refresh == "stmessages://auth?token=abc&x=1")
    #expect(page.links == ["stmessages://auth?token=abc"])
    #expect(page.loginForm == nil)
  }
}

@Suite struct FormActionTests {
  let idp = Origin(scheme: "https", host: "auth.proconnect.example")

  @Test func starMatchesNetworkSchemesOnly() {
    let policy = ["'self'", "*"]
    #expect(
      NavigationStateMachine.allows(
        policy, "https://messages.example/cb", origin: Origin(url: "https://messages.example/cb"),
        selfOrigin: idp))
    #expect(
      !NavigationStateMachine.allows(
        policy, "stmessages://auth?token=x", origin: nil, selfOrigin: idp))
  }

  @Test func aSchemeSourceAllowsItsScheme() {
    #expect(
      NavigationStateMachine.allows(
        ["'self'", "stmessages:"], "stmessages://auth", origin: nil, selfOrigin: idp))
  }

  @Test func selfAndHostSources() {
    #expect(
      NavigationStateMachine.allows(
        ["'self'"], "https://auth.proconnect.example/x", origin: idp, selfOrigin: idp))
    #expect(
      !NavigationStateMachine.allows(
        ["'self'"], "https://messages.example/x", origin: Origin(url: "https://messages.example/x"),
        selfOrigin: idp))
    #expect(
      NavigationStateMachine.allows(
        ["*.example"], "https://messages.example/x",
        origin: Origin(url: "https://messages.example/x"), selfOrigin: idp))
    #expect(
      !NavigationStateMachine.allows(
        ["'none'"], "https://auth.proconnect.example/x", origin: idp, selfOrigin: idp))
  }

  @Test func formActionIsReadFromTheHeader() {
    #expect(
      NavigationStateMachine.formAction(
        "default-src 'self'; form-action 'self' *; frame-ancestors 'none'") == ["'self'", "*"])
    #expect(NavigationStateMachine.formAction("default-src 'self'") == nil)
  }
}
