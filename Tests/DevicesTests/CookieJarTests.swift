import Devices
import Foundation
import HTTP
import QualifyCore
import Testing

@Suite struct CookieJarTests {
  let clock = VirtualClock()
  var jar: CookieJar { CookieJar(clock: clock) }

  @Test func hostOnlyCookiesStayOnTheirHost() {
    let jar = self.jar
    jar.store(
      ["sessionid=abc; Path=/; HttpOnly; Secure"], from: "https://messages.example/api/v1.0/x")
    #expect(jar.header(for: "https://messages.example/api/") == "sessionid=abc")
    #expect(jar.header(for: "https://calendar.messages.example/") == nil)
    #expect(jar.header(for: "https://auth.proconnect.example/") == nil)
    // Nor does it reach its parent: a host-only cookie of a subdomain is not the parent's.
    jar.store(["calendar=1; Path=/"], from: "https://calendar.messages.example/")
    #expect(jar.header(for: "https://messages.example/") == "sessionid=abc")
    #expect(jar.header(for: "https://calendar.messages.example/") == "calendar=1")
  }

  @Test func domainCookiesReachSubdomains() {
    let jar = self.jar
    jar.store(["sso=1; Domain=.example.org; Path=/"], from: "https://auth.example.org/login")
    #expect(jar.header(for: "https://mail.example.org/") == "sso=1")
    #expect(jar.header(for: "https://example.org/") == "sso=1")
  }

  @Test func aDomainTheHostDoesNotBelongToIsIgnored() {
    let jar = self.jar
    jar.store(["evil=1; Domain=bank.example"], from: "https://attacker.example/")
    #expect(jar.all.isEmpty)
  }

  @Test func secureCookiesNeedHTTPSExceptOnLocalhost() {
    let jar = self.jar
    jar.store(["s=1; Secure"], from: "https://messages.example/")
    #expect(jar.header(for: "http://messages.example/") == nil)
    jar.store(["dev=1; Secure"], from: "http://localhost:8901/")
    #expect(jar.header(for: "http://localhost:8901/") == "dev=1")
  }

  @Test func maxAgeExpiresOnTheVirtualClock() {
    let jar = self.jar
    jar.store(["sessionid=abc; Max-Age=43200"], from: "https://messages.example/")
    clock.advance(by: 43_199)
    #expect(jar.header(for: "https://messages.example/") == "sessionid=abc")
    clock.advance(by: 2)
    #expect(jar.header(for: "https://messages.example/") == nil)
  }

  @Test func anExpiryInThePastDeletes() {
    let jar = self.jar
    jar.store(["sessionid=abc"], from: "https://messages.example/")
    jar.store(["sessionid=; Max-Age=0"], from: "https://messages.example/")
    #expect(jar.all.isEmpty)
  }

  @Test func sessionCookiesGoWithTheBrowserSession() {
    let jar = self.jar
    jar.store(
      ["KEYCLOAK_SESSION=a; Path=/", "KEYCLOAK_IDENTITY=b; Max-Age=600; Path=/"],
      from: "https://auth.example/")
    #expect(jar.all.filter(\.isPersistent).map(\.name) == ["KEYCLOAK_IDENTITY"])
    jar.removeSessionCookies()
    #expect(jar.all.map(\.name) == ["KEYCLOAK_IDENTITY"])
  }

  @Test func pathsMatchOnSegments() {
    let jar = self.jar
    jar.store(["a=1; Path=/api"], from: "https://x.example/")
    #expect(jar.header(for: "https://x.example/api/v1") == "a=1")
    #expect(jar.header(for: "https://x.example/api") == "a=1")
    #expect(jar.header(for: "https://x.example/apix") == nil)
  }

  @Test func sameSiteRulesOnCrossSiteNavigations() {
    let jar = self.jar
    jar.store(
      ["lax=1; SameSite=Lax", "strict=1; SameSite=Strict", "none=1; SameSite=None; Secure"],
      from: "https://x.example/")
    let crossGET = jar.header(
      for: "https://x.example/", context: .navigation(crossSite: true, topLevelGET: true))
    #expect(crossGET?.contains("lax=1") == true)
    #expect(crossGET?.contains("strict=1") == false)
    let crossPOST = jar.header(
      for: "https://x.example/", context: .navigation(crossSite: true, topLevelGET: false))
    #expect(crossPOST == "none=1")
  }

  @Test func setCookieRoundTrips() throws {
    let cookie = try #require(
      SetCookie(
        header:
          "sessionid=abc; Domain=.example; Path=/api; Max-Age=60; Secure; HttpOnly; SameSite=Lax"))
    #expect(cookie.domain == "example")
    #expect(cookie.maxAge == 60)
    #expect(cookie.sameSite == .lax)
    let reparsed = try #require(SetCookie(header: cookie.header))
    #expect(reparsed == cookie)
  }
}
