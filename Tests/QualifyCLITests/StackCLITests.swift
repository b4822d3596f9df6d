import Foundation
import QualifyTestSupport
import Testing

/// A real OpenID provider from PyPI on loopback, in a venv the test installs once under
/// `.build/`: django-oauth-toolkit in its OIDC mode with Django's login form
/// (Tests/Fixtures/interop/oidc_provider.py), or django-oidc-provider as its example project
/// sets it up, with its stock consent page and end-session prompt
/// (Tests/Fixtures/interop/django_oidc_provider.py).
final class RealOIDCProvider {
  enum Implementation {
    case oauthToolkit
    /// django-oidc-provider; `loginAction` is the login form's action attribute (nil: none).
    case oidcProvider(loginAction: String?)
  }

  static let clients = [
    (
      "messages-app", "QUALIFY_TEST_APP_SECRET", "app-secret-6b1f0c",
      "https://messages.example/api/v1.0/callback/"
    ),
    (
      "calendar-app", "QUALIFY_TEST_COMPANION_SECRET", "companion-secret-2d9e",
      "https://calendar.messages.example/api/v1.0/callback/"
    ),
  ]
  /// Passwords as people choose them: short, with punctuation a form encodes.
  static let users = [("alice", "Pa55!w#rd"), ("bob", "b0b&Co+1")]

  let process: Process
  let issuer: String
  private static let installing = NSLock()
  /// Whether it serves Keycloak's admin API (the realm's events) to an admin.
  let admin: Bool
  static let adminPassword = "kc-Admin!9"

  /// The venv's python, made (and the provider's and the backend's packages installed into
  /// it) on first use.
  static func python() throws -> String {
    // Suites that use the venv run in parallel: one of them makes it, the others wait.
    installing.lock()
    defer { installing.unlock() }
    let venv = Fixtures.root + "/.build/test-venv-oidc"
    let python = venv + "/bin/python"
    let packages = [
      "django>=4.2", "django-oauth-toolkit>=2.3", "mozilla-django-oidc>=4",
      "django-oidc-provider>=0.8",
    ]
    // Named after what it holds: a venv from before a package was added is completed.
    let marker = venv + "/.installed-\(packages.count)"
    if FileManager.default.fileExists(atPath: marker) { return python }
    if !FileManager.default.fileExists(atPath: venv + "/bin/pip") {
      let made = try Programs.run("/usr/bin/python3", ["-m", "venv", venv])
      guard made.status == 0 else { throw Failure("python3 -m venv: \(made.stderr)") }
    }
    let pip = try Programs.run(venv + "/bin/pip", ["install", "--quiet"] + packages)
    guard pip.status == 0 else { throw Failure("pip install \(packages): \(pip.stderr)") }
    FileManager.default.createFile(atPath: marker, contents: Data())
    return python
  }

  /// - Parameter redirects: the app's and the companion's redirect URIs, when their backends
  ///   are not the sample app's mocked ones.
  /// - Parameter input: more members of the peer's input (`fail_token`, …).
  init(
    persistentSession: Bool, scratch: URL, admin: Bool = false,
    redirects: (app: String, companion: String)? = nil,
    implementation: Implementation = .oauthToolkit, input more: [String: Any] = [:]
  ) throws {
    self.admin = admin
    var input: [String: Any] = [
      "database": scratch.appendingPathComponent("provider.sqlite").path,
      "session_cookie_persistent": persistentSession,
      "clients": RealOIDCProvider.clients.enumerated().map { index, client in
        let redirect = redirects.map { index == 0 ? $0.app : $0.companion } ?? client.3
        // The app's own post-logout return, the one a backend sends (its logout callback).
        let logout = redirect.replacingOccurrences(of: "/callback/", with: "/logout-callback/")
        return [
          "client_id": client.0, "client_secret": client.2, "redirect_uri": redirect,
          "post_logout_redirect_uri": logout,
        ]
      },
      "users": RealOIDCProvider.users.map { ["username": $0.0, "password": $0.1] },
    ]
    input.merge(more) { $1 }
    var script = "interop/oidc_provider.py"
    if case .oidcProvider(let action) = implementation {
      script = "interop/django_oidc_provider.py"
      input["login_action"] = action ?? NSNull()
    }
    if admin {
      input["admin"] = [
        "username": "kc-admin", "password": RealOIDCProvider.adminPassword, "realm": "qualify",
      ]
    }
    let peer = try TestPeer(
      python: try RealOIDCProvider.python(), script: script, input: input)
    process = peer.process
    guard let issuer = peer.ready["issuer"] as? String else {
      peer.stop()
      throw Failure("the provider did not start: \(peer.ready)")
    }
    self.issuer = issuer
  }

  /// The provider's endpoints, as its discovery document names them (django-oauth-toolkit's
  /// paths under the issuer).
  var endpoints: [String: String] {
    [
      "authorization": issuer + "/authorize/", "token": issuer + "/token/",
      "jwks": issuer + "/.well-known/jwks.json", "userinfo": issuer + "/userinfo/",
    ]
  }

  /// The stack file naming it, and the environment holding its secrets.
  /// - Parameter parts: more members of the file's object (`"backend": {…},`), each ending
  ///   with a comma.
  func stackFile(in scratch: URL, parts: String = "") throws -> (
    path: String, environment: [String: String]
  ) {
    var environment: [String: String] = [:]
    for (_, variable, secret, _) in RealOIDCProvider.clients { environment[variable] = secret }
    for (index, user) in RealOIDCProvider.users.enumerated() {
      environment["QUALIFY_TEST_PASSWORD_\(index)"] = user.1
    }
    // Users are created in order: their subjects are the provider's primary keys 1, 2, …
    let users = RealOIDCProvider.users.enumerated().map {
      "{\"username\": \"\($0.element.0)\", \"passwordEnv\": \"QUALIFY_TEST_PASSWORD_\($0.offset)\", \"subject\": \"\($0.offset + 1)\"}"
    }
    let origin =
      URL(string: issuer).map { "\($0.scheme ?? "http")://\($0.host ?? ""):\($0.port ?? 80)" }
      ?? issuer
    let admin =
      self.admin
      ? ",\n    \"admin\": {\"url\": \"\(origin)\", \"realm\": \"qualify\", \"usernameEnv\": \"QUALIFY_TEST_ADMIN\", \"passwordEnv\": \"QUALIFY_TEST_ADMIN_PASSWORD\"}"
      : ""
    environment["QUALIFY_TEST_ADMIN"] = "kc-admin"
    environment["QUALIFY_TEST_ADMIN_PASSWORD"] = RealOIDCProvider.adminPassword
    let text = """
      {
        "identityProvider": {
          "issuer": "\(issuer)",
          "profile": "generic",
          "app": {"clientId": "messages-app", "clientSecretEnv": "QUALIFY_TEST_APP_SECRET"},
          "companion": {"clientId": "calendar-app", "clientSecretEnv": "QUALIFY_TEST_COMPANION_SECRET"},
          "testUsers": [\(users.joined(separator: ", "))]\(admin)
        },
        \(parts)
        "timeout": "10s"
      }
      """
    let path = scratch.appendingPathComponent("stack.json")
    try Data(text.utf8).write(to: path)
    return (path.path, environment)
  }

  func stop() {
    // SIGKILL: a test harness may hand its children an ignored SIGTERM.
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }
}

/// `--stack` against a real OpenID provider (issue 14): the IdP-side half of cross-app SSO
/// (seed 000, checklist item 1) proven against a real system, and the persistent-cookie
/// condition the seed names failing iOS when the real IdP does not meet it.
@Suite(.serialized) struct StackCLITests {
  let scratch: URL

  init() throws {
    scratch = try Fixtures.temporaryDirectory("qualify-stack")
  }

  func qualify(_ provider: RealOIDCProvider) throws -> ProcessResult {
    let (stack, environment) = try provider.stackFile(in: scratch)
    return try CLI.run(
      [
        "--channel", "prod", "--stack", stack, "--filter", "sso/*", "--app", Fixtures.sampleApp,
        "--scenarios", CLI.scenarios, "--seed", "3", "--json",
      ], in: scratch, environment: environment)
  }

  static func results(_ run: ProcessResult) throws -> [String: [String: Any]] {
    let document = try #require(
      try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    var out: [String: [String: Any]] = [:]
    for result in document["results"] as? [[String: Any]] ?? [] {
      out["\(result["scenarioID"] ?? "") [\(result["platform"] ?? "")]"] = result
    }
    return out
  }

  @Test func crossAppSSOHoldsAgainstARealProviderWithAPersistentSession() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let provider = try RealOIDCProvider(persistentSession: true, scratch: scratch)
    defer { provider.stop() }
    let run = try qualify(provider)
    let results = try Self.results(run)
    for platform in ["ios", "android"] {
      let cross = try #require(results["sso/cross-app [\(platform)]"], "\(run.stderr.suffix(800))")
      #expect(cross["verdict"] as? String == "passed", "\(platform): \(cross["message"] ?? "")")
      #expect(cross["proof"] as? String == "real")
    }
    // The evidence says the proof is browser-side, and the secrets never show: not in the
    // JSON, the terminal, the report, its evidence page or the store, in no encoding.
    #expect(run.stdout.contains("gives no event feed: the proof of single sign-on is browser-side"))
    var written = run.stdout + run.stderr
    let reports = scratch.appendingPathComponent("Reports")
    let files = FileManager.default.enumerator(at: reports, includingPropertiesForKeys: nil)
    while let file = files?.nextObject() as? URL {
      if let data = FileManager.default.contents(atPath: file.path) {
        written += String(decoding: data, as: UTF8.self)
      }
    }
    for secret in [
      "app-secret-6b1f0c", "companion-secret-2d9e", "Pa55!w#rd", "Pa55%21w%23rd", "b0b%26Co%2B1",
    ] {
      #expect(!written.contains(secret), "\(secret) leaked")
    }
    // A scenario about the mock's ProConnect profile is not run against another IdP.
    #expect(results["sso/proconnect-csp [android]"]?["verdict"] as? String == "not-applicable")
    #expect(run.status == 0, "\(run.stderr.suffix(1500))")

    // Beyond SSO: push and the safety-net logout find the user by the IdP's subject, and the
    // app's own https-origins guard judges the app's files, not the loopback IdP of the stack.
    let (stack, environment) = try provider.stackFile(in: scratch)
    let more = try CLI.run(
      [
        "--channel", "prod", "--stack", stack, "--filter", "push/receive", "--filter",
        "logout/safety-net", "--filter", "guards/https-origins", "--app", Fixtures.sampleApp,
        "--scenarios", CLI.scenarios, "--seed", "3", "--json",
      ], in: scratch, environment: environment)
    let others = try Self.results(more)
    for (id, result) in others {
      #expect(result["verdict"] as? String == "passed", "\(id): \(result["message"] ?? "")")
    }
    #expect(others.count == 5, "\(others.keys.sorted())")
  }

  /// A wrong client secret is found before the run, not mid-run as the app's failure.
  @Test func aClientTheRealProviderRefusesIsBadInput() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let provider = try RealOIDCProvider(persistentSession: true, scratch: scratch)
    defer { provider.stop() }
    var (stack, environment) = try provider.stackFile(in: scratch)
    environment["QUALIFY_TEST_COMPANION_SECRET"] = "not-the-registered-secret"
    let run = try CLI.run(
      ["--channel", "prod", "--stack", stack, "--filter", "sso/*"], in: scratch,
      environment: environment)
    #expect(run.status == 2)
    #expect(
      run.stderr.contains("the real identity provider refuses the companion client calendar-app"))
    #expect(!run.stderr.contains("not-the-registered-secret"))
  }

  /// With Keycloak's admin API (the realm's events, read as an admin), the proof is the IdP's
  /// own record: no CODE_TO_TOKEN where single sign-on should have given one silently.
  @Test func aSessionCookieThatDiesWithTheBrowserBreaksCrossAppSSOOnIOS() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let provider = try RealOIDCProvider(persistentSession: false, scratch: scratch, admin: true)
    defer { provider.stop() }
    let run = try qualify(provider)
    let results = try Self.results(run)
    let ios = try #require(results["sso/cross-app [ios]"], "\(run.stderr.suffix(800))")
    #expect(ios["verdict"] as? String == "failed")
    #expect((ios["message"] as? String)?.contains("the IdP showed its login form") == true)
    // The IdP's own record: no CODE_TO_TOKEN, since the login stopped on its form.
    #expect((ios["message"] as? String)?.contains("no CODE_TO_TOKEN event at the IdP") == true)
    #expect(run.stdout.contains("single sign-on is proven by its own events"))
    #expect(!run.stdout.contains(RealOIDCProvider.adminPassword))
    #expect(results["sso/cross-app [android]"]?["verdict"] as? String == "passed")
    #expect(run.status == 1)
  }

  @Test func anUnreachableIdentityProviderIsBadInputNamingIt() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    // A port nothing listens on.
    let closed = "http://127.0.0.1:9/o"
    try Data(
      """
      {"identityProvider": {"issuer": "\(closed)", "app": {"clientId": "a", "clientSecretEnv": "S"},
        "companion": {"clientId": "b", "clientSecretEnv": "S"},
        "testUsers": [{"username": "u", "passwordEnv": "S"}]}, "timeout": "2s"}
      """.utf8
    ).write(to: scratch.appendingPathComponent("stack.json"))
    let run = try CLI.run(
      ["--channel", "prod", "--stack", "stack.json", "--filter", "sso/*"], in: scratch,
      environment: ["S": "a-secret-value"])
    #expect(run.status == 2)
    #expect(
      run.stderr.contains(
        "the real identity provider is unreachable: \(closed)/.well-known/openid-configuration"))
  }

  @Test func aStackFileMistakeNamesItsLine() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    try Data(
      """
      {
        "identityProvider": {
          "issuer": "http://127.0.0.1:9/o",
          "app": {"clientId": "a", "clientSecretEnv": "QUALIFY_UNSET_SECRET"},
          "companion": {"clientId": "b"},
          "testUsers": []
        },
        "backend": {"baseURL": "http://api.example"}
      }
      """.utf8
    ).write(to: scratch.appendingPathComponent("stack.json"))
    let run = try CLI.run(["--stack", "stack.json"], in: scratch)
    #expect(run.status == 2)
    #expect(
      run.stderr.contains(
        "stack.json:4:1: error: the environment variable QUALIFY_UNSET_SECRET is not set"))
    #expect(
      run.stderr.contains(
        "stack.json:5:1: error: \"clientSecretEnv\" must name an environment variable"))
    #expect(run.stderr.contains("error: \"testUsers\" must list the test accounts"))
    #expect(
      run.stderr.contains(
        "stack.json:8:1: error: the backend http://api.example is cleartext http on another machine"
      ))
  }
}

/// `--stack` against a second certified provider the other tests do not use
/// (django-oidc-provider), set up as its example project is: a login form with an empty
/// action, its stock consent page, clients registered with the app's own redirect URIs only.
@Suite(.serialized) struct SecondProviderCLITests {
  let scratch: URL

  init() throws {
    scratch = try Fixtures.temporaryDirectory("qualify-stack-dop")
  }

  func qualify(_ provider: RealOIDCProvider, filters: [String]) throws -> ProcessResult {
    let (stack, environment) = try provider.stackFile(in: scratch)
    return try CLI.run(
      [
        "--channel", "prod", "--stack", stack, "--app", Fixtures.sampleApp,
        "--scenarios", CLI.scenarios, "--seed", "3", "--json",
      ] + filters.flatMap { ["--filter", $0] }, in: scratch, environment: environment)
  }

  /// sso/* and logout/* complete out of the box: the login form posts back to its page, the
  /// stock consent page is accepted, the end session returns to the app. A result is "real"
  /// only when its deciding steps ran against the real IdP: push/receive logs in through it
  /// but proves push against the mock gateway.
  @Test func ssoAndLogoutCompleteAgainstDjangoOIDCProvider() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let provider = try RealOIDCProvider(
      persistentSession: true, scratch: scratch, implementation: .oidcProvider(loginAction: ""))
    defer { provider.stop() }
    let run = try qualify(provider, filters: ["sso/*", "logout/*", "push/receive"])
    try #require(run.status != 2, "\(run.stderr.suffix(3000))")
    let results = try StackCLITests.results(run)
    #expect(run.status == 0, "\(run.stdout.suffix(3000))")
    for (id, result) in results.sorted(by: { $0.key < $1.key }) {
      #expect(
        ["passed", "not-applicable"].contains(result["verdict"] as? String),
        "\(id): \(result["verdict"] ?? "") \(result["message"] ?? "")")
    }
    for platform in ["ios", "android"] {
      for id in ["sso/cross-app", "logout/ends-both-sessions"] {
        let result = try #require(results["\(id) [\(platform)]"])
        #expect(result["verdict"] as? String == "passed", "\(id) \(platform)")
        #expect(result["proof"] as? String == "real", "\(id) \(platform)")
      }
      #expect(results["push/receive [\(platform)]"]?["proof"] as? String == "simulated")
    }
    #expect(results["logout/safety-net [ios]"]?["proof"] as? String == "simulated")
    #expect(run.stdout.contains("LOGOUT read from the browser"))
    #expect(run.stdout.contains("accepts the identity provider's page"))
  }

  /// The provider goes down mid-run (its token endpoint answers 503 after the credentials
  /// check): the results are errors naming it, never the app's failures.
  @Test func anOutageOfTheRealProviderIsAnErrorNamingItNotAFailure() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    // The credentials check makes two token requests, one per client.
    let provider = try RealOIDCProvider(
      persistentSession: true, scratch: scratch, implementation: .oidcProvider(loginAction: nil),
      input: ["fail_token_after": 2])
    defer { provider.stop() }
    let run = try qualify(provider, filters: ["sso/cross-app", "logout/ends-both-sessions"])
    let results = try StackCLITests.results(run)
    #expect(!results.isEmpty, "\(run.stderr.suffix(2000))")
    for (id, result) in results {
      #expect(result["verdict"] as? String == "error", "\(id): \(result["message"] ?? "")")
      #expect(
        (result["message"] as? String)?.contains(
          "the real identity provider at \(provider.issuer) answered HTTP 503") == true, "\(id)")
    }
    // The environment's error (exit 4), not a bug in qualify (3) nor the app's failure (1).
    #expect(run.status == 4)
    #expect(run.stdout.contains("not judged (harness error): 1"))
  }

  /// django-oidc-provider answers invalid_client to any redirect URI the client did not
  /// register: the check before the run must not invent one, and a wrong secret still stops
  /// the run, worded by what the provider answered.
  @Test func aWrongSecretIsBadInputAndARightOneIsNotRefusedForARedirectURI() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let provider = try RealOIDCProvider(
      persistentSession: true, scratch: scratch, implementation: .oidcProvider(loginAction: nil))
    defer { provider.stop() }
    var (stack, environment) = try provider.stackFile(in: scratch)
    environment["QUALIFY_TEST_APP_SECRET"] = "not-the-registered-secret"
    let wrong = try CLI.run(
      [
        "--channel", "prod", "--stack", stack, "--filter", "sso/cross-app", "--app",
        Fixtures.sampleApp,
      ],
      in: scratch, environment: environment)
    #expect(wrong.status == 2)
    #expect(
      wrong.stderr.contains(
        "the real identity provider refuses the app client messages-app: it answered invalid_client"
      ))
    #expect(!wrong.stderr.contains("not-the-registered-secret"))
  }
}
