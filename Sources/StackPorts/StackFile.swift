import Artifacts
import Foundation
import HTTP
import OTA
import QualifyCore

/// Reads a stack file (docs/stack-file.md): which parts of the stack are real systems, where
/// they are, and which environment variables hold their secrets. Secrets are read from the
/// environment only, never from the file, and never printed. A mistake in the file, a
/// variable that is not set, or a real part that cannot be reached is bad input (exit 2)
/// naming the file and line, or the part and its URL.
public enum StackFile {
  /// The largest stack file: a page of JSON naming a few systems.
  public static let maximumSize = 1 << 20

  /// The system's trust store, as Debian ships it.
  static let systemBundles = [
    "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem",
    "/etc/ssl/ca-bundle.pem",
  ]

  /// - Parameter shell: the app's kind of shell: a part it does not have is bad input, not a
  ///   real system reported and never used.
  public static func load(
    path: String, environment: [String: String] = ProcessInfo.processInfo.environment,
    shell: ShellKind = .singleOrigin
  ) throws -> RealSystems {
    let data: Data
    do {
      // A stack file is a page of JSON; a link is followed (the command line names it).
      guard
        let read = try ConfinedFile.read(path, within: ["/"], limit: StackFile.maximumSize)
      else { throw InputError("cannot read the stack file \(path)") }
      data = read
    } catch let refusal as ConfinedFile.Refusal {
      throw InputError(refusal.describe("the stack file \(path)"))
    }
    let document: JSONDocument
    do {
      document = try JSONDocument(text: String(decoding: data, as: UTF8.self), file: path)
    } catch let diagnostic as Diagnostic {
      throw InputError("\(path) is not valid JSON", diagnostics: [diagnostic])
    }
    let root = document.value
    var diagnostics: [Diagnostic] = []
    func fail(_ line: Int?, _ message: String, hint: String? = nil) {
      diagnostics.append(
        Diagnostic.error(
          at: FileLocation(file: path, line: line ?? 1, column: 1), message, hint: hint))
    }
    guard case .object(let members) = root else {
      throw InputError(
        "\(path) has errors",
        diagnostics: [
          Diagnostic.error(
            at: FileLocation(file: path, line: 1, column: 1), "a stack file is a JSON object")
        ])
    }
    let known = [
      "$comment", "identityProvider", "backend", "ota", "instances", "testUsers", "caFile",
      "timeout",
    ]
    for member in members where !known.contains(member.key) {
      fail(
        member.line, "unknown key \"\(member.key)\"",
        hint: Suggestions.closest(to: member.key, among: known).map { "did you mean \"\($0)\"?" })
    }
    if shell == .hybridWebView || shell == .reactNativeBridge {
      // What a real site would be checked for here is its association files: that has its
      // own command, and nothing else of a real site is driven yet.
      throw InputError(
        "\(path) has errors",
        diagnostics: [
          Diagnostic.error(
            at: FileLocation(file: path, line: 1, column: 1),
            "a hybrid-webview app's scenarios run against the embedded site only: a stack file names nothing for it",
            hint:
              "check the real site's .well-known files with qualify links verify --domain https://…"
          )
        ])
    }
    if shell == .sessionContract {
      // Contract mode: a real backend and the test accounts the client signs in with.
      for member in members
      where !["$comment", "caFile", "timeout", "backend", "testUsers"].contains(member.key) {
        fail(
          member.line,
          "\"\(member.key)\": a session-contract app's stack file names its backend and testUsers only"
        )
      }
      if root["backend"] == nil {
        fail(1, "a session-contract app's stack file names the backend under test (\"backend\")")
      }
    } else if root["testUsers"] != nil {
      fail(
        root.line(of: "testUsers"),
        "top-level \"testUsers\" are a session-contract backend's: an IdP's go under identityProvider"
      )
    }
    let foreign =
      shell == .multiInstance
      ? ["identityProvider", "backend", "ota"] : shell == .singleOrigin ? ["instances"] : []
    for member in members where foreign.contains(member.key) {
      fail(
        member.line,
        shell == .multiInstance
          ? "\"\(member.key)\": the app is a multi-instance shell, with no identity provider, backend or OTA channel of its own"
          : "\"instances\" are a multi-instance shell's, and the app is a \(shell.id) shell",
        hint: shell == .multiInstance ? "name its real instances under \"instances\"" : nil)
    }
    // Where a missing key would be: the object's own first line.
    func line(_ object: JSONValue, _ key: String) -> Int? {
      if let line = object.line(of: key) { return line }
      if case .object(let members) = object { return members.first?.line }
      return nil
    }
    func secret(_ object: JSONValue, _ key: String) -> String? {
      guard let name = object[key]?.string, !name.isEmpty else {
        fail(line(object, key), "\"\(key)\" must name an environment variable")
        return nil
      }
      guard let value = environment[name], !value.isEmpty else {
        fail(line(object, key), "the environment variable \(name) is not set")
        return nil
      }
      // A real system's error body may echo it back: never printed from here on.
      Redactor.process.registerLiteral(value)
      return value
    }
    func text(_ object: JSONValue, _ key: String) -> String? {
      guard let value = object[key]?.string, !value.isEmpty else {
        fail(line(object, key), "\"\(key)\" is required (a non-empty string)")
        return nil
      }
      return value
    }
    // Secrets, passwords and sessions cross the network: cleartext only on this machine's
    // loopback.
    func requireSecure(_ url: String, _ object: JSONValue, _ key: String, _ what: String) {
      if let origin = Origin(url: url), !origin.isSecure,
        !["127.0.0.1", "localhost", "::1"].contains(origin.host)
      {
        fail(
          object.line(of: key),
          "\(what) \(url) is cleartext http on another machine: \(what == "the issuer" ? "client secrets and passwords" : "sessions and bundles") would cross the network in clear",
          hint: "use https (http is accepted on 127.0.0.1 and localhost only)")
      }
    }
    func checkKeys(_ object: JSONValue, _ keys: [String], in part: String) {
      guard case .object(let members) = object else {
        fail(root.line(of: part), "\"\(part)\" must be a JSON object")
        return
      }
      for member in members where !keys.contains(member.key) {
        fail(
          member.line, "unknown key \"\(member.key)\" in \(part)",
          hint: Suggestions.closest(to: member.key, among: keys).map { "did you mean \"\($0)\"?" })
      }
    }
    var timeout: TimeInterval = 10
    if let value = root["timeout"] {
      if let seconds = value.string.flatMap(Durations.parse), seconds > 0 {
        timeout = seconds
      } else {
        fail(root.line(of: "timeout"), "\"timeout\" must be a duration such as 10s")
      }
    }
    var trusted: String?
    if let caFile = root["caFile"]?.string {
      let resolved = URL(
        fileURLWithPath: caFile, relativeTo: URL(fileURLWithPath: path).deletingLastPathComponent()
      ).path
      if let pem = FileManager.default.contents(atPath: resolved),
        String(decoding: pem, as: UTF8.self).contains("BEGIN CERTIFICATE")
      {
        trusted = String(decoding: pem, as: UTF8.self)
      } else {
        fail(root.line(of: "caFile"), "\(caFile) is not a readable PEM file of CA certificates")
      }
    } else {
      let candidates = [environment["SSL_CERT_FILE"]].compactMap { $0 } + systemBundles
      trusted = candidates.lazy.compactMap { FileManager.default.contents(atPath: $0) }.first
        .map { String(decoding: $0, as: UTF8.self) }
    }
    var admin: KeycloakAdmin?
    var partial:
      (
        issuer: String, profile: String, app: RealSystems.IdentityProvider.Client,
        companion: RealSystems.IdentityProvider.Client, users: [RealmSettings.User]
      )?
    if let idp = root["identityProvider"] {
      let issuer = text(idp, "issuer")
      checkKeys(
        idp, ["issuer", "profile", "app", "companion", "testUsers", "admin"],
        in: "identityProvider")
      if let issuer { requireSecure(issuer, idp, "issuer", "the issuer") }
      let profile = idp["profile"]?.string ?? "generic"
      if !["keycloak", "proconnect", "generic"].contains(profile) {
        fail(
          idp.line(of: "profile"),
          "\"profile\" is keycloak, proconnect or generic, not \"\(profile)\"")
      }
      var clients: [RealSystems.IdentityProvider.Client] = []
      for role in ["app", "companion"] {
        guard let client = idp[role] else {
          fail(
            idp.line(of: role) ?? root.line(of: "identityProvider"),
            "\"identityProvider.\(role)\" is required: {\"clientId\", \"clientSecretEnv\"}")
          continue
        }
        if let id = text(client, "clientId"), let value = secret(client, "clientSecretEnv") {
          clients.append(.init(id: id, secret: value))
        }
      }
      var users: [RealmSettings.User] = []
      if let list = idp["testUsers"]?.array, !list.isEmpty {
        for entry in list {
          if let name = text(entry, "username"), let password = secret(entry, "passwordEnv") {
            var user = RealmSettings.User(
              username: name, password: password, email: entry["email"]?.string,
              firstName: nil, lastName: nil)
            user.subject = entry["subject"]?.string
            users.append(user)
          }
        }
      } else {
        fail(
          idp.line(of: "testUsers") ?? root.line(of: "identityProvider"),
          "\"testUsers\" must list the test accounts: [{\"username\", \"passwordEnv\"}]")
      }
      // Keycloak's admin API: the realm's events, read with an admin's credentials.
      if let entry = idp["admin"] {
        let username = secret(entry, "usernameEnv")
        let password = secret(entry, "passwordEnv")
        // Keycloak's issuer is `<url>/realms/<realm>`: both come from it unless given.
        let parts = issuer?.components(separatedBy: "/realms/")
        let url = entry["url"]?.string ?? (parts?.count == 2 ? parts?[0] : nil)
        let realm =
          entry["realm"]?.string
          ?? (parts?.count == 2 ? parts?[1].split(separator: "/").first.map(String.init) : nil)
        if url == nil || realm == nil {
          fail(
            idp.line(of: "admin"),
            "the issuer is not Keycloak's <url>/realms/<realm>: give admin.url and admin.realm")
        }
        if let username, let password, let url, let realm {
          admin = KeycloakAdmin(url: url, realm: realm, username: username, password: password)
        }
      }
      if let issuer, clients.count == 2 {
        partial = (issuer, profile, clients[0], clients[1], users)
      }
    }
    var backend: RealSystems.Backend?
    if let entry = root["backend"] {
      checkKeys(entry, ["baseURL", "sessionCookie"], in: "backend")
      if let url = text(entry, "baseURL") {
        if let origin = Origin(url: url),
          ["", "/"].contains(URLComponents(string: url)?.path ?? "")
        {
          requireSecure(url, entry, "baseURL", "the backend")
          backend = RealSystems.Backend(
            origin: origin, sessionCookie: entry["sessionCookie"]?.string ?? "sessionid")
        } else {
          fail(
            entry.line(of: "baseURL"),
            "\"baseURL\" is the backend's origin (https://host[:port]), not \(url)")
        }
      }
      // The real backend redeems codes at its own IdP: the harness must sign in there too.
      if root["identityProvider"] == nil && shell != .sessionContract {
        fail(
          root.line(of: "backend"),
          "a real backend signs users in at its real identity provider: name it in \"identityProvider\" (its test users, the app's and the companion's clients)"
        )
      }
    }
    var manifestURL: String?
    if let entry = root["ota"] {
      checkKeys(entry, ["manifestURL"], in: "ota")
      if let url = text(entry, "manifestURL") {
        if Origin(url: url) != nil {
          requireSecure(url, entry, "manifestURL", "the OTA manifest")
          manifestURL = url
        } else {
          fail(entry.line(of: "manifestURL"), "\"manifestURL\" is not an http(s) URL: \(url)")
        }
      }
    }
    var contractUsers: [RealmSettings.User] = []
    if shell == .sessionContract {
      if let list = root["testUsers"]?.array, !list.isEmpty {
        for entry in list {
          if let name = text(entry, "username"), let password = secret(entry, "passwordEnv") {
            contractUsers.append(
              RealmSettings.User(
                username: name, password: password, email: nil, firstName: nil, lastName: nil))
          }
        }
      } else if root["backend"] != nil {
        fail(
          root.line(of: "testUsers") ?? root.line(of: "backend"),
          "\"testUsers\" must list the backend's test accounts: [{\"username\", \"passwordEnv\"}]")
      }
    }
    var instances: [String: Origin] = [:]
    if let entry = root["instances"] {
      checkKeys(entry, RealSystems.instanceSiteNames, in: "instances")
      for member in entry.members ?? [] where RealSystems.instanceSiteNames.contains(member.key) {
        guard let url = member.value.string, let origin = Origin(url: url),
          ["", "/"].contains(URLComponents(string: url)?.path ?? "")
        else {
          fail(member.line, "instances.\(member.key) is an instance's origin (https://host[:port])")
          continue
        }
        // The shell under qualification is a release build: its instances are https.
        guard origin.isSecure else {
          fail(
            member.line,
            "instances.\(member.key) is \(url): a release shell reaches instances over https only",
            hint: "serve the test instance over https (with caFile naming its CA)")
          continue
        }
        if let same = instances.first(where: { $0.value == origin }) {
          fail(
            member.line,
            "instances.\(member.key) and instances.\(same.key) are the same origin \(origin): the scenarios need distinct instances"
          )
          continue
        }
        instances[member.key] = origin
      }
    }
    let secureURLs =
      [partial?.issuer, backend?.origin.description, manifestURL].compactMap { $0 }
      + instances.values.map(\.description)
    if trusted == nil, let url = secureURLs.first(where: { $0.lowercased().hasPrefix("https") }) {
      fail(
        1,
        "no CA certificates to verify \(url) with: no caFile, no SSL_CERT_FILE, and no system trust store at \(systemBundles.joined(separator: ", "))"
      )
    }
    if !diagnostics.isEmpty {
      throw InputError(
        "\(path) has errors",
        diagnostics: diagnostics.sorted { ($0.location?.line ?? 0) < ($1.location?.line ?? 0) })
    }
    var real = RealSystems(
      identityProvider: nil, trustedCertificatesPEM: trusted ?? "", timeout: timeout, file: path)
    if let partial {
      real.identityProvider = try discover(
        partial.issuer, profile: partial.profile, app: partial.app, companion: partial.companion,
        users: partial.users, trusted: trusted, timeout: timeout)
      if let admin {
        // Signed in and able to read events before the run, or bad input now.
        real.identityProvider?.admin = admin
        let client = try real.client()
        let token = try admin.token(client)
        let answer = client.send(
          ClientRequest(
            url: admin.url + "/admin/realms/\(admin.realm)/events/config",
            headers: ["Authorization": "Bearer \(token)"]))
        guard (answer.response?.jsonObject as? [String: Any])?["eventsEnabled"] as? Bool == true
        else {
          throw InputError(
            "the realm \(admin.realm) does not store events (events/config answered \(answer.response.map { String($0.status) } ?? "nothing")): the harness would read an empty feed",
            hint: "enable \"Save events\" for the realm, with LOGIN and CODE_TO_TOKEN")
        }
      }
    }
    if let backend {
      real.backend = backend
      real.contractTestUsers = contractUsers
      if shell == .sessionContract {
        try probe(contractBackend: backend, real)
      } else {
        try probe(backend: backend, real)
      }
    }
    if let manifestURL {
      real.ota = try probe(manifestURL: manifestURL, real)
    }
    real.instances = instances
    for (name, origin) in instances.sorted(by: { $0.key < $1.key }) {
      try probe(instance: name, at: origin, real)
    }
    return real
  }

  /// The real backend answers its config endpoint (`GET /api/v1.0/config/`) before the run,
  /// or the run does not start.
  static func probe(backend: RealSystems.Backend, _ real: RealSystems) throws {
    let url = backend.origin.url("/api/v1.0/config/")
    let exchange = try real.client().send(ClientRequest(url: url))
    guard let response = exchange.response else {
      throw InputError(
        "the real backend is unreachable: \(url): \(exchange.error?.message ?? "no answer")",
        hint:
          "check backend.baseURL in the stack file and that the backend answers from this machine")
    }
    guard response.status == 200, response.jsonObject is [String: Any] else {
      throw InputError(
        "the real backend answered \(response.status) at \(url), not the app's config: is backend.baseURL the app's API origin?"
      )
    }
  }

  /// A session-contract backend answers its bootstrap without a token as the contract says:
  /// 401 with a JSON error, before the run, or the run does not start.
  static func probe(contractBackend backend: RealSystems.Backend, _ real: RealSystems) throws {
    let url = backend.origin.url("/v1/mobile/api/me")
    let exchange = try real.client().send(ClientRequest(url: url))
    guard let response = exchange.response else {
      throw InputError(
        "the real backend is unreachable: \(url): \(exchange.error?.message ?? "no answer")",
        hint: "check backend.baseURL in the stack file")
    }
    guard response.status == 401, (response.jsonObject as? [String: Any])?["error"] is String
    else {
      throw InputError(
        "the real backend answered \(response.status) at \(url) without a token, not the contract's 401 with an error: is backend.baseURL the contract's API origin?"
      )
    }
    // The test accounts sign in now, or the run would blame the app for a wrong password;
    // each session opened here is closed again.
    let client = try real.client()
    for user in real.contractTestUsers {
      let login = backend.origin.url("/v1/mobile/auth/password/login")
      let body = try JSONSerialization.data(
        withJSONObject: ["login": user.username, "password": user.password ?? ""])
      let answer = client.send(
        ClientRequest(
          method: "POST", url: login, headers: ["Content-Type": "application/json"],
          body: Array(body)))
      guard let response = answer.response, response.status == 200,
        let token = (response.jsonObject as? [String: Any])?["accessToken"] as? String
      else {
        throw InputError(
          "the real backend refuses the test account \(user.username) at \(login): \(answer.response.map { "HTTP \($0.status) \((($0.jsonObject as? [String: Any])?["error"] as? String) ?? "")" } ?? answer.error?.message ?? "no answer")",
          hint: "check testUsers and the variables their passwordEnv name")
      }
      _ = client.send(
        ClientRequest(
          method: "POST", url: backend.origin.url("/v1/mobile/session/logout"),
          headers: ["Authorization": "Bearer \(token)"]))
    }
  }

  /// A real instance answers `GET /api/instance` as a Sovereign instance (seed 004's
  /// contract) before the run, or the run does not start.
  static func probe(instance name: String, at origin: Origin, _ real: RealSystems) throws {
    let url = origin.url("/api/instance")
    let exchange = try real.client().send(ClientRequest(url: url))
    guard let response = exchange.response else {
      throw InputError(
        "the real instance \(name) is unreachable: \(url): \(exchange.error?.message ?? "no answer")",
        hint: "check instances.\(name) in the stack file")
    }
    let body = response.jsonObject as? [String: Any]
    guard response.status == 200, body?["status"] as? String == "ok",
      body?["product"] as? String == "sovereign", body?["instanceName"] is String,
      body?["platformVersion"] is String
    else {
      throw InputError(
        "the real instance \(name) at \(url) does not answer as a Sovereign instance (HTTP \(response.status); expected {status: \"ok\", product: \"sovereign\", instanceName, platformVersion})"
      )
    }
  }

  /// The real channel serves a manifest before the run, or the run does not start; its
  /// bundle's origin is reached over the network too.
  static func probe(manifestURL: String, _ real: RealSystems) throws -> RealSystems.OTAChannel {
    var origins = [Origin(url: manifestURL)].compactMap { $0 }
    var probing = real
    probing.ota = RealSystems.OTAChannel(manifestURL: manifestURL, origins: origins)
    let exchange = try probing.client().send(ClientRequest(url: manifestURL))
    guard let response = exchange.response else {
      throw InputError(
        "the real OTA channel is unreachable: \(manifestURL): \(exchange.error?.message ?? "no answer")",
        hint:
          "check ota.manifestURL in the stack file and that the bucket answers from this machine"
      )
    }
    guard response.status == 200 else {
      throw InputError(
        "the real OTA channel answered \(response.status) at \(manifestURL): no manifest is published there",
        hint: "publish to the channel first, or leave \"ota\" out to use the in-process bucket")
    }
    let manifest: Manifest
    do {
      manifest = try Manifest.parse(response.body, source: manifestURL)
    } catch {
      throw InputError("the real OTA channel's manifest at \(manifestURL) does not parse: \(error)")
    }
    let bundleURL = Manifest.resolve(manifest.url, against: manifestURL)
    if let bundle = Origin(url: bundleURL), !origins.contains(bundle) {
      origins.append(bundle)
    }
    // The bundle must be there too: a channel whose manifest names a missing bundle would
    // fail every device, and the run would blame the app.
    probing.ota = RealSystems.OTAChannel(manifestURL: manifestURL, origins: origins)
    let head = try probing.client().send(ClientRequest(method: "HEAD", url: bundleURL))
    guard let answer = head.response, answer.status == 200 else {
      throw InputError(
        "the real OTA channel's bundle \(manifest.version) cannot be downloaded: \(bundleURL): \(head.response.map { "HTTP \($0.status)" } ?? head.error?.message ?? "no answer")",
        hint: "the manifest at \(manifestURL) names it")
    }
    return RealSystems.OTAChannel(manifestURL: manifestURL, origins: origins)
  }

  /// Reads the IdP's discovery document: the endpoints the run uses, and the proof it answers.
  static func discover(
    _ issuer: String, profile: String, app: RealSystems.IdentityProvider.Client,
    companion: RealSystems.IdentityProvider.Client, users: [RealmSettings.User], trusted: String?,
    timeout: TimeInterval
  ) throws -> RealSystems.IdentityProvider {
    let url =
      (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer)
      + "/.well-known/openid-configuration"
    guard let origin = Origin(url: issuer) else {
      throw InputError("the identity provider's issuer is not an http(s) URL: \(issuer)")
    }
    var configuration = RealSystems.clientConfiguration(
      trusted: trusted, timeout: timeout, authorities: [origin.authority])
    configuration.maxResponseBytes = 1 << 20
    let exchange = try HTTPClient(configuration: configuration).send(ClientRequest(url: url))
    guard let response = exchange.response else {
      throw InputError(
        "the real identity provider is unreachable: \(url): \(exchange.error?.message ?? "no answer")",
        hint: "check the issuer in the stack file and that the IdP answers from this machine")
    }
    guard response.status == 200, let document = response.jsonObject as? [String: Any] else {
      throw InputError(
        "the real identity provider answered \(response.status) at \(url), not a discovery document"
      )
    }
    func endpoint(_ key: String) throws -> String {
      guard let value = document[key] as? String, Origin(url: value) != nil else {
        throw InputError("the discovery document at \(url) has no \(key)")
      }
      return value
    }
    guard document["issuer"] as? String == issuer else {
      throw InputError(
        "the discovery document at \(url) names the issuer \(document["issuer"] as? String ?? "none"), not \(issuer) (OIDC Discovery §4.3)"
      )
    }
    let tokenEndpoint = try endpoint("token_endpoint")
    let notes = try ClientProbe.check(
      [("app", app), ("companion", companion)], at: tokenEndpoint,
      offered: document["token_endpoint_auth_methods_supported"] as? [String],
      configuration: configuration)
    var provider = RealSystems.IdentityProvider(
      issuer: issuer, profile: profile,
      authorizationEndpoint: try endpoint("authorization_endpoint"),
      tokenEndpoint: try endpoint("token_endpoint"), jwksURI: try endpoint("jwks_uri"),
      userinfoEndpoint: document["userinfo_endpoint"] as? String,
      endSessionEndpoint: document["end_session_endpoint"] as? String, app: app,
      companion: companion, testUsers: users)
    provider.unchecked = notes
    return provider
  }
}
