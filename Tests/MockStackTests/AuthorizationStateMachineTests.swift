import Artifacts
import Foundation
import QualifyCrypto
import Testing

@testable import MockStack

/// The IdP's rules (DESIGN.md rules 3 and 9, RFC 6749 and 7636) driven through the state
/// machine alone: no socket, no HTML, a clock and tokens the test decides.
@Suite struct AuthorizationStateMachineTests {
  typealias Machine = AuthorizationStateMachine

  /// Tokens `t1`, `t2`, … and a clock the test moves.
  final class Fixture {
    var now = Date(timeIntervalSince1970: 1_800_000_000)
    var counter = 0
    var keepsSession = false

    var environment: Machine.Environment {
      Machine.Environment(
        now: now, secret: { _ in self.next() }, token: { _ in self.next() },
        hex: { _ in self.next() }, keepsSessionOnLogout: keepsSession)
    }

    func next() -> String {
      counter += 1
      return "t\(counter)"
    }
  }

  static let client = IdentityProvider.Client(
    id: "rp", secret: "rp-secret", redirectURIs: ["https://rp.test/cb", "https://rp.test/wild/*"],
    postLogoutRedirectURIs: ["https://rp.test/bye"], acrLevels: ["eidas1": 1])

  static func machine(
    _ profile: IdentityProviderProfile, acr: [String: Int] = ["eidas1": 1], rememberMe: Bool = true
  ) -> Machine {
    var client = client
    client.acrLevels = acr
    return Machine(
      profile: profile, realm: "messages", realmFile: "realm.json",
      issuer: "https://idp.test/base", realmRememberMe: rememberMe, clients: [client],
      users: [
        .init(username: "alice", password: "pw", email: nil, firstName: nil, lastName: nil)
      ])
  }

  /// A state and a nonce as long as ProConnect requires, and a PKCE verifier as RFC 7636
  /// writes them (43 characters at least).
  static let state = String(repeating: "s", count: 32)
  static let nonce = String(repeating: "n", count: 32)
  static let verifier = String(repeating: "v", count: 43)

  static func authorize(
    acr: String? = "eidas1", redirect: String = "https://rp.test/cb", cookie: String? = nil,
    prompt: String? = nil, method: String? = "S256", client: String = "rp",
    challenge: String? = Digest.pkceChallenge(verifier: verifier), maxAge: String? = nil,
    responseType: String? = "code"
  ) -> Machine.AuthorizeRequest {
    Machine.AuthorizeRequest(
      responseType: responseType, clientID: client, redirectURI: redirect, acr: acr,
      state: state, nonce: nonce, codeChallenge: challenge, codeChallengeMethod: method,
      scope: "openid email", prompt: prompt, maxAge: maxAge, identityCookie: cookie)
  }

  /// Logs alice in from a fresh authorize; returns the code and the identity cookie.
  static func logIn(
    _ machine: inout Machine, _ fixture: Fixture, rememberMe: Bool = false
  ) throws -> (code: String, cookie: Machine.CookieChange) {
    let shown = machine.authorize(authorize(), fixture.environment)
    let tab: String
    let pending: Machine.Pending
    switch shown.action {
    case .loginForm(let t, let p, _, _): (tab, pending) = (t, p)
    case .interaction(let t, _):
      guard case .loginForm(_, let p, _, _) = machine.interaction(tab: t).action else {
        throw Unexpected(shown.action)
      }
      (tab, pending) = (t, p)
    default: throw Unexpected(shown.action)
    }
    let done = machine.login(
      .init(
        tab: tab, bindingCookie: pending.binding, formToken: pending.formToken, username: "alice",
        password: "pw", rememberMeTicked: rememberMe), fixture.environment)
    guard case .authorized(_, let parameters, let cookies) = done.action,
      let code = parameters["code"] ?? nil,
      let identity = cookies.first(where: { $0.name == machine.profile.identityCookie })
    else { throw Unexpected(done.action) }
    #expect(done.events.map(\.type) == ["LOGIN"])
    return (code, identity)
  }

  struct Unexpected: Error, CustomStringConvertible {
    var description: String
    init(_ action: Machine.Action) { description = "unexpected \(action)" }
  }

  static func isForm(_ action: Machine.Action) -> Bool {
    switch action {
    case .loginForm, .interaction: return true
    default: return false
    }
  }

  static func isAuthorized(_ action: Machine.Action) -> Bool {
    if case .authorized = action { return true }
    return false
  }

  // MARK: Authorization (rule 3)

  @Test(arguments: [
    (IdentityProviderProfile.keycloakDev, true), (IdentityProviderProfile.proconnect, false),
  ])
  func withoutASessionTheFormShowsWhereTheProfileShowsIt(
    profile: IdentityProviderProfile, inline: Bool
  ) {
    var machine = Self.machine(profile)
    let decision = machine.authorize(Self.authorize(), Fixture().environment)
    switch decision.action {
    case .loginForm: #expect(inline)
    case .interaction: #expect(!inline)
    default: Issue.record("no form: \(decision.action)")
    }
  }

  /// Each row: the profile, the client's acr.loa.map, the requested ACR, `prompt`, and
  /// whether a live session is reused without the form.
  @Test(
    arguments: [
      (IdentityProviderProfile.keycloakDev, ["eidas1": 1], "eidas1", nil, true),
      (.keycloakDev, [:], "eidas1", nil, false),  // an empty map forces re-authentication
      (.keycloakDev, ["eidas1": 2], "eidas1", nil, false),  // mapped above the session's level
      (.keycloakDev, ["eidas1": 1], nil, nil, true),
      (.keycloakDev, ["eidas1": 1], "eidas1", "login", false),  // prompt=login honoured
      (.proconnect, [:], "eidas1", nil, true),  // ProConnect reuses its session for eidas1
      (.proconnect, [:], "eidas1", "login", true),  // and ignores prompt=login
    ] as [(IdentityProviderProfile, [String: Int], String?, String?, Bool)])
  func aLiveSessionIsReusedOnlyWhenItSatisfiesTheRequest(
    profile: IdentityProviderProfile, map: [String: Int], acr: String?, prompt: String?,
    reused: Bool
  ) throws {
    let fixture = Fixture()
    // The session was opened for an ACR mapped at level 1.
    var machine = Self.machine(profile, acr: ["eidas1": 1])
    let (_, cookie) = try Self.logIn(&machine, fixture)
    machine.register(
      .init(
        id: "rp", secret: "rp-secret", redirectURIs: Self.client.redirectURIs,
        postLogoutRedirectURIs: [], acrLevels: map))
    let again = machine.authorize(
      Self.authorize(
        acr: acr ?? (profile.requiredACR ?? nil), cookie: cookie.value, prompt: prompt),
      fixture.environment)
    #expect(Self.isAuthorized(again.action) == reused, "\(again.action)")
    #expect(Self.isForm(again.action) == !reused)
    #expect(again.events.isEmpty, "reusing a session records no LOGIN")
  }

  @Test func proConnectRequiresEidas1() {
    var proconnect = Self.machine(.proconnect)
    guard
      case .redirectError(_, "invalid_request", let why, Self.state, false) = proconnect.authorize(
        Self.authorize(acr: nil), Fixture().environment
      ).action
    else {
      Issue.record("no error redirect")
      return
    }
    #expect(why.contains("eidas1"))
  }

  /// The OAuth error an authorization request gets back at the client, or nil.
  static func redirectError(_ decision: Machine.Decision) -> String? {
    if case .redirectError(_, let error, _, _, let fragment) = decision.action {
      return error + (fragment ? " (fragment)" : "")
    }
    return nil
  }

  /// Deviations an independent OIDC client found in the authorization endpoint, each fixed:
  /// the row's request and what the client must get back.
  @Test(
    arguments: [
      // RFC 7636 §4.3: no method means plain; an unknown method is refused.
      (
        "a challenge with no method is plain",
        Self.authorize(method: nil, challenge: Self.verifier), nil
      ),
      ("an unknown challenge method", Self.authorize(method: "S512"), "invalid_request"),
      ("a challenge shorter than 43", Self.authorize(challenge: "abc"), "invalid_request"),
      // RFC 6749 §4.1.2.1 / §4.2.2.1: an unsupported response type goes back to the client.
      (
        "response_type=token", Self.authorize(responseType: "token"),
        "unsupported_response_type (fragment)"
      ),
      ("no response_type", Self.authorize(responseType: nil), "invalid_request"),
      // OIDC Core §3.1.2.1: prompt=none never shows a form.
      ("prompt=none without a session", Self.authorize(prompt: "none"), "login_required"),
    ] as [(String, Machine.AuthorizeRequest, String?)])
  func theAuthorizationEndpointAnswersAsTheSpecsSay(
    label: String, request: Machine.AuthorizeRequest, error: String?
  ) {
    var machine = Self.machine(.keycloakDev)
    let decision = machine.authorize(request, Fixture().environment)
    #expect(Self.redirectError(decision) == error, "\(label): \(decision.action)")
    if error == nil { #expect(Self.isForm(decision.action), "\(label)") }
  }

  @Test func aRedirectURIWithAFragmentIsNeverRedirectedTo() {
    var machine = Self.machine(.keycloakDev)
    let decision = machine.authorize(
      Self.authorize(redirect: "https://rp.test/wild/x#frag"), Fixture().environment)
    guard case .errorPage(let message) = decision.action else {
      Issue.record("\(decision.action)")
      return
    }
    #expect(message.contains("redirect_uri"))
  }

  /// max_age: Keycloak re-authenticates a session older than it (max_age=0 always);
  /// ProConnect documents max_age as not implemented.
  @Test(arguments: [
    (IdentityProviderProfile.keycloakDev, "0", false), (.keycloakDev, "3600", true),
    (.proconnect, "0", true),
  ])
  func maxAgeForcesAFreshLoginWhereTheProfileHonoursIt(
    profile: IdentityProviderProfile, maxAge: String, reused: Bool
  ) throws {
    let fixture = Fixture()
    var machine = Self.machine(profile)
    let (_, cookie) = try Self.logIn(&machine, fixture)
    fixture.now += 10
    let again = machine.authorize(
      Self.authorize(cookie: cookie.value, maxAge: maxAge), fixture.environment)
    #expect(Self.isAuthorized(again.action) == reused, "\(again.action)")
    // With a live session but max_age exceeded, prompt=none answers login_required.
    if !reused {
      let silent = machine.authorize(
        Self.authorize(cookie: cookie.value, prompt: "none", maxAge: maxAge), fixture.environment)
      #expect(Self.redirectError(silent) == "login_required")
    }
  }

  /// ProConnect's documented authorization request: its parameters only, state and nonce of
  /// 32 characters at least, openid the one scope required ("Un seul scope est obligatoire :
  /// openid", doc_fs/donnees_fournies.md), `login_hint` among the parameters
  /// (doc_fs/implementation_technique.md §2.2).
  @Test func proConnectRefusesWhatItsDocumentationDoesNot() {
    var machine = Self.machine(.proconnect)
    var unknown = Self.authorize()
    unknown.parameterNames = ["response_type", "client_id", "foo"]
    guard case .errorPage(let message) = machine.authorize(unknown, Fixture().environment).action
    else {
      Issue.record("an unknown parameter was accepted")
      return
    }
    #expect(message.contains("Y000400") && message.contains("foo"))
    var short = Self.authorize()
    short.state = "short"
    guard case .errorPage(let why) = machine.authorize(short, Fixture().environment).action else {
      Issue.record("a short state was accepted")
      return
    }
    #expect(why.contains("state is required, at least 32 characters"))
    var narrow = Self.authorize()
    narrow.scope = "email"
    #expect(Self.redirectError(machine.authorize(narrow, Fixture().environment)) == "invalid_scope")
    var openid = Self.authorize()
    openid.scope = "openid"
    openid.parameterNames = [
      "response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "login_hint",
      "acr_values",
    ]
    #expect(Self.isForm(machine.authorize(openid, Fixture().environment).action))
  }

  /// The token request carries client_id and client_secret in its body
  /// (doc_fs/implementation_technique.md §2.3.3): HTTP Basic is not a way ProConnect takes.
  @Test func proConnectTakesTheSecretInTheBodyOnly() throws {
    let fixture = Fixture()
    var machine = Self.machine(.proconnect)
    let (code, _) = try Self.logIn(&machine, fixture)
    var basic = Self.token(code)
    basic.authMethod = "client_secret_basic"
    #expect(
      Self.tokenError(machine.token(basic, fixture.environment))?.hasPrefix(
        "invalid_client: client authentication by client_secret_basic is not accepted") == true)
    #expect(Self.tokenError(machine.token(Self.token(code), fixture.environment)) == nil)
    var keycloak = Self.machine(.keycloakDev)
    let (other, _) = try Self.logIn(&keycloak, fixture)
    var header = Self.token(other)
    header.authMethod = "client_secret_basic"
    #expect(Self.tokenError(keycloak.token(header, fixture.environment)) == nil)
  }

  @Test(arguments: [
    ("https://rp.test/cb", true), ("https://rp.test/wild/anything", true),
    ("https://rp.test/cb/extra", false), ("https://evil.test/cb", false),
  ])
  func redirectURIsMatchExactlyOrByTheirWildcard(uri: String, accepted: Bool) {
    var machine = Self.machine(.keycloakDev)
    let decision = machine.authorize(Self.authorize(redirect: uri), Fixture().environment)
    if case .errorPage(let message) = decision.action {
      #expect(!accepted)
      #expect(message.contains("redirect_uri"))
    } else {
      #expect(accepted)
    }
  }

  // MARK: Login

  @Test func aFormSubmittedFromAnotherBrowserOrWithWrongCredentialsIsRefused() {
    let fixture = Fixture()
    var machine = Self.machine(.keycloakDev)
    guard
      case .loginForm(let tab, let pending, _, _) = machine.authorize(
        Self.authorize(), fixture.environment
      ).action
    else {
      Issue.record("no form")
      return
    }
    let stolen = machine.login(
      .init(
        tab: tab, bindingCookie: "other-browser", formToken: pending.formToken, username: "alice",
        password: "pw", rememberMeTicked: false), fixture.environment)
    #expect(stolen.events.map(\.error) == ["invalid_code"])
    let wrong = machine.login(
      .init(
        tab: tab, bindingCookie: pending.binding, formToken: pending.formToken, username: "alice",
        password: "nope", rememberMeTicked: false), fixture.environment)
    guard case .loginForm(_, _, let error, _) = wrong.action else {
      Issue.record("\(wrong.action)")
      return
    }
    #expect(error == "Invalid username or password.")
    #expect(wrong.events.map(\.error) == ["invalid_user_credentials"])
  }

  /// Rule 3: "remember me" makes the identity cookie persistent; ProConnect always does.
  @Test(
    arguments: [
      (IdentityProviderProfile.keycloakDev, true, true, true),
      (.keycloakDev, false, true, false), (.keycloakDev, true, false, false),
      (.proconnect, false, false, true),
    ] as [(IdentityProviderProfile, Bool, Bool, Bool)])
  func theIdentityCookieIsPersistentOnlyWhenRemembered(
    profile: IdentityProviderProfile, ticked: Bool, realmAllows: Bool, persistent: Bool
  ) throws {
    var machine = Self.machine(profile, rememberMe: realmAllows)
    let (_, cookie) = try Self.logIn(&machine, Fixture(), rememberMe: ticked)
    #expect((cookie.maxAge != nil) == persistent)
  }

  // MARK: Token (RFC 6749 §4.1.3, RFC 7636 §4.6)

  static func token(
    _ code: String, secret: String = "rp-secret", verifier: String? = verifier,
    redirect: String? = "https://rp.test/cb"
  ) -> Machine.TokenRequest {
    .init(
      clientID: "rp", clientSecret: secret, grantType: "authorization_code", code: code,
      redirectURI: redirect, codeVerifier: verifier)
  }

  static func tokenError(_ decision: Machine.Decision) -> String? {
    if case .tokenError(let code, let description, _) = decision.action {
      return "\(code): \(description)"
    }
    return nil
  }

  @Test func aCodeIsRedeemedOnceByItsClientWithItsVerifier() throws {
    let fixture = Fixture()
    var machine = Self.machine(.keycloakDev)
    let (code, _) = try Self.logIn(&machine, fixture)
    #expect(
      Self.tokenError(machine.token(Self.token(code, secret: "wrong"), fixture.environment))
        == "invalid_client: Invalid client or Invalid client credentials")
    let redeemed = machine.token(Self.token(code), fixture.environment)
    guard case .tokens(_, let claims, _) = redeemed.action else {
      Issue.record("\(redeemed.action)")
      return
    }
    #expect(claims["sub"] == .string("alice"))
    #expect(claims["acr"] == .string("eidas1"))
    #expect(claims["nonce"] == .string(Self.nonce))
    #expect(redeemed.events.map(\.type) == ["CODE_TO_TOKEN"])
    #expect(
      Self.tokenError(machine.token(Self.token(code), fixture.environment))
        == "invalid_grant: Code already used; the tokens issued from it are revoked")
  }

  /// ProConnect answers userinfo as a JWT for the client that asked (its partner
  /// documentation); Keycloak as JSON.
  @Test(
    arguments: [
      (IdentityProviderProfile.proconnect, "rp"), (.keycloakDev, nil),
    ] as [(IdentityProviderProfile, String?)])
  func userinfoIsSignedWhereTheProfileSignsIt(profile: IdentityProviderProfile, audience: String?)
    throws
  {
    let fixture = Fixture()
    var machine = Self.machine(profile)
    let (code, _) = try Self.logIn(&machine, fixture)
    guard
      case .tokens(let accessToken, _, _) = machine.token(Self.token(code), fixture.environment)
        .action
    else {
      Issue.record("no token")
      return
    }
    guard
      case .userinfo(let claims, let signedFor) = machine.userinfo(
        accessToken: accessToken, now: fixture.now
      ).action
    else {
      Issue.record("no userinfo")
      return
    }
    #expect(claims["sub"] == "alice")
    #expect(signedFor == audience)
    // ProConnect names the user as doc_fs/donnees_fournies.md lists: given_name, usual_name,
    // email, uid and siret always, and idp_id; not OpenID's family_name.
    if profile.name == "proconnect" {
      for name in ["given_name", "usual_name", "email", "uid", "siret", "idp_id"] {
        #expect(claims[name] != nil, "\(name)")
      }
      #expect(claims["siret"]?.count == 14 && claims["siret"]?.allSatisfy(\.isNumber) == true)
      #expect(claims["family_name"] == nil)
    } else {
      #expect(claims["preferred_username"] == "alice")
    }
    // The access token lives as long as the profile says: 60 s at ProConnect.
    fixture.now += profile.accessTokenLifetime + 1
    guard case .invalidToken = machine.userinfo(accessToken: accessToken, now: fixture.now).action
    else {
      Issue.record("an expired access token still works")
      return
    }
  }

  /// RFC 6749 §4.1.2: a code presented twice revokes the access token it bought.
  @Test func aReusedCodeRevokesTheTokenItBought() throws {
    let fixture = Fixture()
    var machine = Self.machine(.keycloakDev)
    let (code, _) = try Self.logIn(&machine, fixture)
    guard
      case .tokens(let accessToken, _, _) = machine.token(Self.token(code), fixture.environment)
        .action
    else {
      Issue.record("no token")
      return
    }
    guard case .userinfo = machine.userinfo(accessToken: accessToken, now: fixture.now).action
    else {
      Issue.record("the fresh token does not work")
      return
    }
    _ = machine.token(Self.token(code), fixture.environment)
    guard case .invalidToken = machine.userinfo(accessToken: accessToken, now: fixture.now).action
    else {
      Issue.record("the token of a reused code still works")
      return
    }
  }

  /// Deviations an independent client found at the token endpoint, each fixed.
  @Test(arguments: [
    ("no code", "invalid_request: Missing parameter: code"),
    ("no grant_type", "invalid_request: Missing parameter: grant_type"),
    ("password grant", "unsupported_grant_type: only authorization_code is supported"),
    (
      "a 3-character verifier",
      "invalid_grant: code_verifier must be 43 to 128 unreserved characters"
    ),
    ("no redirect_uri", "invalid_request: Missing parameter: redirect_uri"),
  ])
  func theTokenEndpointAnswersAsRFC6749Says(label: String, expected: String) throws {
    let fixture = Fixture()
    var machine = Self.machine(.keycloakDev)
    let (code, _) = try Self.logIn(&machine, fixture)
    var request = Self.token(code)
    switch label {
    case "no code": request.code = nil
    case "no grant_type": request.grantType = nil
    case "password grant": request.grantType = "password"
    case "a 3-character verifier": request.codeVerifier = "abc"
    default: request.redirectURI = nil
    }
    #expect(Self.tokenError(machine.token(request, fixture.environment)) == expected, "\(label)")
  }

  /// A verifier for a code issued without a challenge is refused (a downgrade of PKCE).
  @Test func aVerifierWithoutAChallengeIsRefused() throws {
    let fixture = Fixture()
    var machine = Self.machine(.keycloakDev)
    let shown = machine.authorize(Self.authorize(method: nil, challenge: nil), fixture.environment)
    guard case .loginForm(let tab, let pending, _, _) = shown.action else {
      Issue.record("\(shown.action)")
      return
    }
    let done = machine.login(
      .init(
        tab: tab, bindingCookie: pending.binding, formToken: pending.formToken, username: "alice",
        password: "pw", rememberMeTicked: false), fixture.environment)
    guard case .authorized(_, let parameters, _) = done.action, let code = parameters["code"] ?? nil
    else {
      Issue.record("\(done.action)")
      return
    }
    #expect(
      Self.tokenError(machine.token(Self.token(code), fixture.environment))
        == "invalid_grant: a code_verifier for a code issued without code_challenge")
  }

  /// Keycloak's `+` in post-logout redirect URIs stands for the client's redirect URIs, not
  /// for any URI.
  @Test func aPlusPostLogoutURIMeansTheRedirectURIs() {
    var machine = Self.machine(.keycloakDev)
    machine.register(
      .init(
        id: "rp", secret: "rp-secret", redirectURIs: ["https://rp.test/cb"],
        postLogoutRedirectURIs: ["+"], acrLevels: [:]))
    for (target, allowed) in [("https://rp.test/cb", true), ("https://evil.test/", false)] {
      let decision = machine.endSession(
        .init(
          hintAudience: nil, clientID: "rp", postLogoutRedirectURI: target, state: "x",
          identityCookie: nil), Fixture().environment)
      if case .errorPage = decision.action {
        #expect(!allowed, "\(target)")
      } else {
        #expect(allowed, "\(target)")
      }
    }
  }

  @Test func aCodeFailsWhenLateWithAnotherRedirectOrWithoutItsVerifier() throws {
    for (mutate, expected) in [
      ({ (f: Fixture) in f.now += 61 }, "Code expired"),
      ({ _ in }, "Incorrect redirect_uri"),
      ({ _ in }, "PKCE verification failed"),
    ] as [((Fixture) -> Void, String)] {
      let fixture = Fixture()
      var machine = Self.machine(.keycloakDev)
      let (code, _) = try Self.logIn(&machine, fixture)
      mutate(fixture)
      let request =
        expected == "Incorrect redirect_uri"
        ? Self.token(code, redirect: "https://rp.test/other")
        : expected == "PKCE verification failed"
          ? Self.token(code, verifier: String(repeating: "w", count: 43)) : Self.token(code)
      #expect(
        Self.tokenError(machine.token(request, fixture.environment))
          == "invalid_grant: \(expected)")
    }
  }

  // MARK: Logout (rule 9)

  @Test func logoutEndsTheSessionSoTheNextLoginShowsTheForm() throws {
    let fixture = Fixture()
    var machine = Self.machine(.proconnect)
    let (_, cookie) = try Self.logIn(&machine, fixture)
    let out = machine.endSession(
      .init(
        hintAudience: .some("rp"), clientID: nil, postLogoutRedirectURI: "https://rp.test/bye",
        state: "x", identityCookie: cookie.value), fixture.environment)
    guard case .loggedOut("https://rp.test/bye", "x", let cookies) = out.action else {
      Issue.record("\(out.action)")
      return
    }
    #expect(cookies.contains { $0.name == "_session" && $0.maxAge == 0 })
    #expect(out.events.map(\.type) == ["LOGOUT"])
    // ProConnect ignores prompt=login: only the torn-down session forces the form.
    let next = machine.authorize(Self.authorize(cookie: cookie.value), fixture.environment)
    #expect(Self.isForm(next.action))
  }

  @Test func aSessionKeptOnLogoutStillSignsTheNextLoginIn() throws {
    let fixture = Fixture()
    fixture.keepsSession = true
    var machine = Self.machine(.proconnect)
    let (_, cookie) = try Self.logIn(&machine, fixture)
    _ = machine.endSession(
      .init(
        hintAudience: nil, clientID: "rp", postLogoutRedirectURI: nil, state: nil,
        identityCookie: cookie.value), fixture.environment)
    #expect(
      Self.isAuthorized(
        machine.authorize(Self.authorize(cookie: cookie.value), fixture.environment).action))
  }

  @Test func logoutRefusesAnUnregisteredTargetAndABadHint() {
    var machine = Self.machine(.keycloakDev)
    let fixture = Fixture()
    for request in [
      Machine.EndSessionRequest(
        hintAudience: .some("rp"), clientID: nil, postLogoutRedirectURI: "https://evil.test",
        state: nil, identityCookie: nil),
      Machine.EndSessionRequest(
        hintAudience: .some(nil), clientID: nil, postLogoutRedirectURI: nil, state: nil,
        identityCookie: nil),
    ] {
      guard case .errorPage = machine.endSession(request, fixture.environment).action else {
        Issue.record("accepted \(request)")
        return
      }
    }
  }
}

/// The OIDC leftovers an independent client found: a parameter sent twice (RFC 6749 §3.1) and
/// an end-session `client_id` that is not the hint's audience (RP-Initiated Logout 1.0 §2).
@Suite struct RepeatedParameterTests {
  typealias Machine = AuthorizationStateMachine
  typealias Base = AuthorizationStateMachineTests

  static let names = [
    "response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge",
    "code_challenge_method", "acr_values",
  ]

  @Test func aRepeatedParameterIsRefusedAndRepeatedClientOrRedirectNeverRedirects() {
    let fixture = Base.Fixture()
    var machine = Base.machine(.keycloakDev)
    var scope = Base.authorize()
    scope.parameterNames = Self.names + ["scope"]
    let refused = machine.authorize(scope, fixture.environment)
    #expect(Base.redirectError(refused) == "invalid_request", "\(refused.action)")
    for name in ["client_id", "redirect_uri"] {
      var request = Base.authorize()
      request.parameterNames = Self.names + [name]
      guard case .errorPage(let text) = machine.authorize(request, fixture.environment).action
      else {
        Issue.record("\(name) repeated still redirects")
        continue
      }
      #expect(text.contains(name))
    }
    var once = Base.authorize()
    once.parameterNames = Self.names
    #expect(Base.redirectError(machine.authorize(once, fixture.environment)) == nil)
  }

  @Test func aTokenRequestWithARepeatedParameterIsInvalid() throws {
    let fixture = Base.Fixture()
    var machine = Base.machine(.keycloakDev)
    let (code, _) = try Base.logIn(&machine, fixture)
    var request = Base.token(code)
    request.parameterNames = ["grant_type", "code", "redirect_uri", "code_verifier", "code"]
    #expect(
      Base.tokenError(machine.token(request, fixture.environment))
        == "invalid_request: parameter code sent twice")
    // Refused before the code was looked at: it still redeems once, sent properly.
    request.parameterNames = ["grant_type", "code", "redirect_uri", "code_verifier"]
    #expect(Base.tokenError(machine.token(request, fixture.environment)) == nil)
  }

  @Test func anEndSessionClientThatIsNotTheHintsAudienceIsRefused() throws {
    let fixture = Base.Fixture()
    var machine = Base.machine(.keycloakDev)
    let (_, cookie) = try Base.logIn(&machine, fixture)
    let other = machine.endSession(
      .init(
        hintAudience: .some("rp"), clientID: "someone-else",
        postLogoutRedirectURI: "https://rp.test/bye", state: "x", identityCookie: cookie.value),
      fixture.environment)
    guard case .errorPage(let text) = other.action else {
      Issue.record("\(other.action)")
      return
    }
    #expect(text.contains("client_id does not match"))
    #expect(other.events.isEmpty)
    let same = machine.endSession(
      .init(
        hintAudience: .some("rp"), clientID: "rp", postLogoutRedirectURI: "https://rp.test/bye",
        state: "x", identityCookie: cookie.value), fixture.environment)
    #expect(same.events.map(\.type) == ["LOGOUT"])
  }
}
