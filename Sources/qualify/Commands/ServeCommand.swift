import Artifacts
import Foundation
import HTTP
import MockStack
import QualifyCore

/// `qualify serve`: the embedded mock stack on loopback, for a real browser, curl or another
/// OIDC library, until interrupted.
struct ServeCommand {
  static let options: [OptionSpec] = [
    .value("channel", "dev|staging|prod", "Whose configuration the stack takes (default: dev)."),
    .value("app", "DIR", "The app repository (default: the bundled sample app)."),
    .value("https-port", "N", "Loopback port of the HTTPS listener (default: ephemeral)."),
    .value("http-port", "N", "Loopback port of the HTTP listener (default: ephemeral)."),
    .value(
      "ca-out", "FILE", "Where to write the run's CA certificate (default: Reports/serve-ca.pem)."),
    .flag(
      "json", "Print the endpoints as one JSON line on stdout (for scripts), events on stderr."),
    .flag("help", "Show this help."),
  ]

  let parsed: ParsedOptions

  init(arguments: [String]) throws {
    parsed = try ParsedOptions.parse(arguments, ServeCommand.options, command: "qualify serve")
  }

  static let help =
    helpText(
      usage:
        "qualify serve [--channel C] [--app DIR] [--https-port N] [--http-port N] [--ca-out FILE] [--json]",
      summary: """
        Starts the embedded stack (backend, identity provider, OTA bucket, push gateways) on \
        127.0.0.1 with the app's configuration and serves until interrupted, printing each \
        component's origin, the CA certificate to trust, the test users and the OIDC clients. \
        Origins keep their real names: reach them with curl --connect-to (printed), or by \
        mapping the names to 127.0.0.1. It serves single-origin apps (seed 000's stack) and \
        hybrid-webview apps (the site and its .well-known files); other shell kinds are \
        refused with exit 2.
        """, options: ServeCommand.options)

  func execute() throws -> ExitCode {
    let out = Terminal.standardOutput
    if parsed.has("help") {
      out.write(Self.help)
      return .qualified
    }
    let channel = try channelOption(parsed, default: .dev)
    func port(_ name: String) throws -> UInt16 {
      guard let value = parsed.value(name) else { return 0 }
      guard let port = UInt16(value) else {
        throw InputError("--\(name) must be a port number, got '\(value)'")
      }
      return port
    }
    let ports = (https: try port("https-port"), http: try port("http-port"))
    let repository = try AppRepository(directory: parsed.value("app") ?? Paths.sampleApp)
    guard
      let build = try repository.builds(for: channel)[.ios]
        ?? repository.builds(for: channel)[.android]
    else {
      throw InputError("the app has no build for the \(channel.rawValue) channel")
    }
    let caPath = parsed.value("ca-out") ?? "Reports/serve-ca.pem"
    guard build.shell.commands.contains(.serve) else {
      throw InputError(
        "qualify serve starts the world of a \(ShellKind.serving(.serve).joined(separator: " or ")) app; \(repository.profile.name) is a \(build.shell.id) app",
        hint: "its world is started by its scenarios: qualify --app \(parsed.value("app") ?? "DIR")"
      )
    }
    // A hybrid app's world is its site; every other served kind's is the embedded stack.
    if build.hybrid != nil {
      return try serveHybrid(
        build, repository: repository, channel: channel, ports: ports, caPath: caPath)
    }
    let topology = try StackTopology(build: build)
    // Each serve has keys of its own: a client that cached one serve's JWKS must not
    // validate another's tokens.
    let material = try StackMaterial(
      hosts: topology.secureHosts, seed: UInt64.random(in: 1...UInt64.max))

    let context = serveContext(channel)
    let stack: Stack
    do {
      stack = try Stack(build: build, material: material, context: context, listeningOn: ports)
    } catch let error as HTTPServerError {
      throw EnvironmentError(
        error.description, hint: "another qualify serve may hold the port; pick others or stop it")
    }
    defer { stack.stop() }
    // Only once the listeners run: a serve that cannot start must not replace the CA of the
    // one already serving.
    try ReportFiles.writeText(material.authority.certificatePEM, to: caPath)
    let components = Self.components(of: stack, topology)
    let users = stack.identityProvider?.testUsers.map(\.username) ?? []
    let clients = stack.identityProvider?.clientSummaries ?? []
    if parsed.has("json") {
      let document: [String: Any] = [
        "channel": channel.rawValue, "ca": URL(fileURLWithPath: caPath).path,
        "components": components, "users": users,
        "clients": clients, "https": stack.ports.https, "http": stack.ports.http,
      ]
      let data = try JSONSerialization.data(
        withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])
      out.line(String(decoding: data, as: UTF8.self))
    } else {
      printStack(
        components, users: users, clients: clients, caPath: caPath, channel: channel,
        app: repository.profile.name)
    }
    waitForInterrupt()
    return .qualified
  }

  /// Each component of the stack: its public origin, its loopback port, and what to ask it.
  static func components(of stack: Stack, _ topology: StackTopology) -> [[String: Any]] {
    var components: [[String: Any]] = []
    func add(_ name: String, _ origin: Origin?, _ extra: [String: Any] = [:]) {
      guard let origin else { return }
      let loopback = origin.isSecure ? stack.ports.https : stack.ports.http
      var entry: [String: Any] = [
        "name": name, "origin": origin.description, "loopback": "127.0.0.1:\(loopback)",
        "connectTo": "\(origin.host):\(origin.port):127.0.0.1:\(loopback)",
      ]
      entry.merge(extra) { $1 }
      components.append(entry)
    }
    add("backend", topology.backend, ["config": topology.backend.url("/api/v1.0/config/")])
    add("companion backend", topology.companionBackend)
    if let idp = stack.identityProvider {
      add(
        "identity provider (\(idp.profile.name))", topology.identityProvider,
        ["issuer": idp.issuer, "discovery": idp.issuer + "/.well-known/openid-configuration"])
    }
    add("OTA bucket", topology.bucket)
    add(
      "APNs (development)", StackTopology.apnsSandbox,
      ["send": StackTopology.apnsSandbox.url("/3/device/<token>")])
    add(
      "APNs (production)", StackTopology.apnsProduction,
      ["send": StackTopology.apnsProduction.url("/3/device/<token>")])
    add(
      "FCM HTTP v1", StackTopology.fcm,
      ["send": StackTopology.fcm.url("/v1/projects/<project>/messages:send")])
    add(
      "Google OAuth (FCM tokens)", StackTopology.googleOAuth,
      ["token": StackTopology.googleOAuth.url("/token")])
    return components
  }

  /// The stack as a person reads it, with a curl line to try.
  private func printStack(
    _ components: [[String: Any]], users: [String], clients: [[String: Any]], caPath: String,
    channel: Channel, app: String
  ) {
    let out = Terminal.standardOutput
    out.line(
      out.style("qualify serve", .bold)
        + " · \(app) · channel \(channel.rawValue) · loopback only")
    for component in components {
      out.line(
        "  \((component["name"] as? String ?? "").padding(toLength: 34, withPad: " ", startingAt: 0)) \(component["origin"] ?? "") → \(component["loopback"] ?? "")"
      )
      if let issuer = component["issuer"] { out.line("      issuer \(issuer)") }
      if let send = component["send"] { out.line("      send \(send)") }
    }
    out.line("  CA certificate to trust: \(caPath)")
    out.line(
      "  test users: \(users.joined(separator: ", ")) (passwords as in the realm export; not printed)"
    )
    for client in clients {
      out.line(
        "  OIDC client \(client["client_id"] ?? "") → \((client["redirect_uris"] as? [String])?.joined(separator: " ") ?? "")"
      )
    }
    if let backend = components.first {
      out.line(
        "  try: curl --cacert \(caPath) --connect-to \(backend["connectTo"] ?? "") \(backend["config"] ?? "")"
      )
    }
    out.line("serving until interrupted (Ctrl-C)")
  }

  /// Real time, fresh randomness, and every event and exchange printed on stderr as it
  /// happens.
  private func serveContext(_ channel: Channel) -> StackContext {
    let events = Terminal.standardError
    let evidence = EvidenceLog()
    evidence.observe { entry in
      guard entry.kind == .event || entry.kind == .http else { return }
      events.line("\(events.style(entry.source, .bold)) \(entry.summary)")
    }
    return StackContext(
      clock: .realTime(), random: RandomSource(seed: UInt64.random(in: 1...UInt64.max)),
      evidence: evidence, redactor: Redactor(), channel: channel, behaviours: StackBehaviours())
  }

  /// Blocks until SIGINT or SIGTERM.
  private func waitForInterrupt() {
    let done = DispatchSemaphore(value: 0)
    var sources: [DispatchSourceSignal] = []
    for signalNumber in [SIGINT, SIGTERM] {
      signal(signalNumber, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
      source.setEventHandler { done.signal() }
      source.resume()
      sources.append(source)
    }
    done.wait()
    Terminal.standardError.line("stopping")
  }

  /// A hybrid WebView app's world (seed 003): its site — pages, token registration, the
  /// `.well-known` association files as the repository holds them — and Firebase.
  private func serveHybrid(
    _ build: AppBuild, repository: AppRepository, channel: Channel,
    ports: (https: UInt16, http: UInt16), caPath: String
  ) throws -> ExitCode {
    let out = Terminal.standardOutput
    let material = try StackMaterial(
      hosts: HybridServers.secureHosts(build), seed: UInt64.random(in: 1...UInt64.max))
    let context = serveContext(channel)
    let servers: HybridServers
    do {
      servers = try HybridServers(build: build, material: material, context: context, ports: ports)
    } catch let error as HTTPServerError {
      throw EnvironmentError(
        error.description, hint: "another qualify serve may hold the port; pick others or stop it")
    }
    defer { servers.stop() }
    try ReportFiles.writeText(material.authority.certificatePEM, to: caPath)
    guard let site = Origin(url: build.hybrid?.webOrigin.value ?? "") else { return .badInput }
    let connectTo = "\(site.host):\(site.port):127.0.0.1:\(servers.ports.https)"
    let users = servers.backend.users.map(\.login)
    if parsed.has("json") {
      let document: [String: Any] = [
        "channel": channel.rawValue, "ca": URL(fileURLWithPath: caPath).path,
        "components": [
          [
            "name": "site", "origin": site.description,
            "loopback": "127.0.0.1:\(servers.ports.https)", "connectTo": connectTo,
            "appleAppSiteAssociation": site.url(AssociationFiles.applePath),
            "assetLinks": site.url(AssociationFiles.androidPath),
          ]
        ],
        "users": users, "https": servers.ports.https, "http": servers.ports.http,
      ]
      let data = try JSONSerialization.data(
        withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])
      out.line(String(decoding: data, as: UTF8.self))
    } else {
      out.line(
        out.style("qualify serve", .bold)
          + " · \(repository.profile.name) · channel \(channel.rawValue) · loopback only")
      out.line("  site                               \(site) → 127.0.0.1:\(servers.ports.https)")
      out.line("      \(site.url(AssociationFiles.applePath))")
      out.line("      \(site.url(AssociationFiles.androidPath))")
      out.line("  FCM HTTP v1 and Google OAuth       → 127.0.0.1:\(servers.ports.https)")
      out.line("  CA certificate to trust: \(caPath)")
      out.line("  test users: \(users.joined(separator: ", ")) (passwords not printed)")
      out.line(
        "  try: qualify links verify --domain \(site) --app \(repository.root.path) --channel prod --cacert \(caPath) --connect-to \(connectTo)"
      )
      out.line("serving until interrupted (Ctrl-C)")
    }
    waitForInterrupt()
    return .qualified
  }
}
