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
  /// `a`, `a and b`, `a, b and c`.
  static func list(_ names: [String]) -> String {
    names.count < 2
      ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
  }

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
    shell: ShellKind = .default
  ) throws -> RealSystems {
    let document = try document(at: path)
    guard case .object = document.value else {
      throw InputError(
        "\(path) has errors",
        diagnostics: [
          Diagnostic.error(
            at: FileLocation(file: path, line: 1, column: 1), "a stack file is a JSON object")
        ])
    }
    var parser = Parser(path: path, root: document.value, environment: environment, shell: shell)
    return try connect(try parser.parse(), path: path, shell: shell)
  }

  /// The file's JSON, read within its size limit.
  static func document(at path: String) throws -> JSONDocument {
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
    do {
      return try JSONDocument(text: String(decoding: data, as: UTF8.self), file: path)
    } catch let diagnostic as Diagnostic {
      throw InputError("\(path) is not valid JSON", diagnostics: [diagnostic])
    }
  }

  /// An identity provider as the file names it, before its discovery document is read.
  typealias PartialProvider = (
    issuer: String, profile: String, app: RealSystems.IdentityProvider.Client,
    companion: RealSystems.IdentityProvider.Client, users: [RealmSettings.User]
  )

  /// What the file names, checked but not yet asked.
  struct Parsed {
    var timeout: TimeInterval
    var trusted: String?
    var identityProvider: PartialProvider?
    var admin: KeycloakAdmin?
    var backend: RealSystems.Backend?
    var manifestURL: String?
    var contractUsers: [RealmSettings.User]
    var instances: [String: Origin]
  }

  /// The real systems the file names, each asked before the run: the IdP's discovery and
  /// admin API, the backend's config, the channel's manifest, each instance.
  static func connect(_ parsed: Parsed, path: String, shell: ShellKind) throws -> RealSystems {
    let trusted = parsed.trusted
    let timeout = parsed.timeout
    let admin = parsed.admin
    let backend = parsed.backend
    let manifestURL = parsed.manifestURL
    let contractUsers = parsed.contractUsers
    let instances = parsed.instances
    var real = RealSystems(
      identityProvider: nil, trustedCertificatesPEM: trusted ?? "", timeout: timeout, file: path)
    if let partial = parsed.identityProvider {
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
      switch shell.stack.backend {
      case .sessionContract?: try probe(contractBackend: backend, real)
      case .cookieSession?, nil: try probe(backend: backend, real)
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

  /// The file's checks, each mistake collected with its line and thrown together.
  struct Parser {
    let path: String
    let root: JSONValue
    let environment: [String: String]
    let shell: ShellKind
    var diagnostics: [Diagnostic] = []

    init(path: String, root: JSONValue, environment: [String: String], shell: ShellKind) {
      self.path = path
      self.root = root
      self.environment = environment
      self.shell = shell
    }

    mutating func fail(_ line: Int?, _ message: String, hint: String? = nil) {
      diagnostics.append(
        Diagnostic.error(
          at: FileLocation(file: path, line: line ?? 1, column: 1), message, hint: hint))
    }

    mutating func parse() throws -> Parsed {
      try checkSchema()
      let timeout = timeout()
      let trusted = trust()
      let (partial, admin) = identityProvider()
      let backend = backend()
      let manifestURL = manifestURL()
      let contractUsers = contractUsers()
      let instances = instances()
      let secureURLs =
        [partial?.issuer, backend?.origin.description, manifestURL].compactMap { $0 }
        + instances.values.map(\.description)
      if trusted == nil, let url = secureURLs.first(where: { $0.lowercased().hasPrefix("https") }) {
        fail(
          1,
          "no CA certificates to verify \(url) with: no caFile, no SSL_CERT_FILE, and no system trust store at \(StackFile.systemBundles.joined(separator: ", "))"
        )
      }
      if !diagnostics.isEmpty {
        throw InputError(
          "\(path) has errors",
          diagnostics: diagnostics.sorted { ($0.location?.line ?? 0) < ($1.location?.line ?? 0) })
      }
      return Parsed(
        timeout: timeout, trusted: trusted, identityProvider: partial, admin: admin,
        backend: backend, manifestURL: manifestURL, contractUsers: contractUsers,
        instances: instances)
    }

    /// The keys this kind's schema takes; a kind whose file names nothing is refused now.
    mutating func checkSchema() throws {
      guard case .object(let members) = root else { return }
      let schema = shell.stack
      let known = ShellKind.StackSchema.common + ShellKind.all.flatMap(\.stack.parts)
      for member in members where !known.contains(member.key) {
        fail(
          member.line, "unknown key \"\(member.key)\"",
          hint: Suggestions.closest(to: member.key, among: known).map { "did you mean \"\($0)\"?" })
      }
      if let nothing = schema.nothing {
        throw InputError(
          "\(path) has errors",
          diagnostics: [
            Diagnostic.error(
              at: FileLocation(file: path, line: 1, column: 1), nothing, hint: schema.nothingHint)
          ])
      }
      // A part another kind's stack file names: say whose it is and what this one names.
      for member in members where known.contains(member.key) {
        guard !ShellKind.StackSchema.common.contains(member.key), !schema.parts.contains(member.key)
        else { continue }
        let owners = ShellKind.all.filter { $0.stack.parts.contains(member.key) }.map(\.id)
        fail(
          member.line,
          "\"\(member.key)\" is named by a \(owners.joined(separator: " or ")) app's stack file, and the app is a \(shell.id) shell: its stack file names \(StackFile.list(schema.parts)) only",
          hint: member.key == "testUsers" && schema.parts.contains("identityProvider")
            ? "the identity provider's test users go under identityProvider" : nil)
      }
      for part in schema.required where root[part] == nil {
        fail(1, "a \(shell.id) app's stack file names the \(part) under test (\"\(part)\")")
      }
    }

    // Where a missing key would be: the object's own first line.
    func line(_ object: JSONValue, _ key: String) -> Int? {
      if let line = object.line(of: key) { return line }
      if case .object(let members) = object { return members.first?.line }
      return nil
    }
    mutating func secret(_ object: JSONValue, _ key: String) -> String? {
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
    mutating func text(_ object: JSONValue, _ key: String) -> String? {
      guard let value = object[key]?.string, !value.isEmpty else {
        fail(line(object, key), "\"\(key)\" is required (a non-empty string)")
        return nil
      }
      return value
    }
    // Secrets, passwords and sessions cross the network: cleartext only on this machine's
    // loopback.
    mutating func requireSecure(_ url: String, _ object: JSONValue, _ key: String, _ what: String) {
      if let origin = Origin(url: url), !origin.isSecure,
        !["127.0.0.1", "localhost", "::1"].contains(origin.host)
      {
        fail(
          object.line(of: key),
          "\(what) \(url) is cleartext http on another machine: \(what == "the issuer" ? "client secrets and passwords" : "sessions and bundles") would cross the network in clear",
          hint: "use https (http is accepted on 127.0.0.1 and localhost only)")
      }
    }
    mutating func checkKeys(_ object: JSONValue, _ keys: [String], in part: String) {
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

    /// How long one request to a real system may take (`timeout`, 10 s by default).
    mutating func timeout() -> TimeInterval {
      var timeout: TimeInterval = 10
      if let value = root["timeout"] {
        if let seconds = value.string.flatMap(Durations.parse), seconds > 0 {
          timeout = seconds
        } else {
          fail(root.line(of: "timeout"), "\"timeout\" must be a duration such as 10s")
        }
      }
      return timeout
    }

    /// The CA certificates the real systems are verified with: `caFile`, else `SSL_CERT_FILE`,
    /// else the system's trust store.
    mutating func trust() -> String? {
      var trusted: String?
      if let caFile = root["caFile"]?.string {
        let resolved = URL(
          fileURLWithPath: caFile,
          relativeTo: URL(fileURLWithPath: path).deletingLastPathComponent()
        ).path
        if let pem = FileManager.default.contents(atPath: resolved),
          String(decoding: pem, as: UTF8.self).contains("BEGIN CERTIFICATE")
        {
          trusted = String(decoding: pem, as: UTF8.self)
        } else {
          fail(root.line(of: "caFile"), "\(caFile) is not a readable PEM file of CA certificates")
        }
      } else {
        let candidates = [environment["SSL_CERT_FILE"]].compactMap { $0 } + StackFile.systemBundles
        trusted = candidates.lazy.compactMap { FileManager.default.contents(atPath: $0) }.first
          .map { String(decoding: $0, as: UTF8.self) }
      }
      return trusted
    }

    /// `identityProvider`: the issuer, the two clients, the test users and Keycloak's admin API.
    mutating func identityProvider() -> (provider: PartialProvider?, admin: KeycloakAdmin?) {
      var admin: KeycloakAdmin?
      var partial: PartialProvider?
      guard let idp = root["identityProvider"] else { return (nil, nil) }
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
      return (partial, admin)
    }

    /// `backend`: a real deployment's origin.
    mutating func backend() -> RealSystems.Backend? {
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
        if root["identityProvider"] == nil && shell.stack.backend == .cookieSession {
          fail(
            root.line(of: "backend"),
            "a real backend signs users in at its real identity provider: name it in \"identityProvider\" (its test users, the app's and the companion's clients)"
          )
        }
      }
      return backend
    }

    /// `ota`: a real channel's manifest.
    mutating func manifestURL() -> String? {
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
      return manifestURL
    }

    /// A session-contract backend's own test accounts (top-level `testUsers`).
    mutating func contractUsers() -> [RealmSettings.User] {
      var contractUsers: [RealmSettings.User] = []
      if shell.stack.backend == .sessionContract {
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
            "\"testUsers\" must list the backend's test accounts: [{\"username\", \"passwordEnv\"}]"
          )
        }
      }
      return contractUsers
    }

    /// `instances`: a multi-instance shell's real instance sites.
    mutating func instances() -> [String: Origin] {
      var instances: [String: Origin] = [:]
      if let entry = root["instances"] {
        checkKeys(entry, RealSystems.instanceSiteNames, in: "instances")
        for member in entry.members ?? [] where RealSystems.instanceSiteNames.contains(member.key) {
          guard let url = member.value.string, let origin = Origin(url: url),
            ["", "/"].contains(URLComponents(string: url)?.path ?? "")
          else {
            fail(
              member.line, "instances.\(member.key) is an instance's origin (https://host[:port])")
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
      return instances
    }
  }
}
