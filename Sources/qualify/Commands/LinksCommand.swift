import Artifacts
import Foundation
import HTTP
import QualifyCore
import StackPorts

/// `qualify links verify --domain URL`: a real domain's `.well-known` association files
/// against the app's builds, as iOS and Android judge them (seed 003, 5.3).
struct LinksCommand {
  static let options: [OptionSpec] = [
    .value("domain", "URL", "The site whose files are checked (https://host)."),
    .value("app", "DIR", "The app repository (default: the bundled hybrid sample app)."),
    .value(
      "channel", "dev|staging|prod",
      "Whose build the files must certify (default: prod, signed with the release certificate)."),
    .value("platform", "ios|android", "Only this platform's file."),
    .value("cacert", "FILE", "PEM CA certificates to trust instead of the system store."),
    .value(
      "connect-to", "HOST:PORT:127.0.0.1:PORT",
      "Reach HOST:PORT on a loopback port instead (a test deployment, qualify serve; repeatable).",
      repeatable: true),
    .value("timeout", "DURATION", "How long each request may take (default: 10s)."),
    .flag("json", "Print the verdicts as JSON."),
    .flag("help", "Show this help."),
  ]

  let parsed: ParsedOptions

  init(arguments: [String]) throws {
    guard arguments.first == "verify" || arguments.contains("--help") || arguments.contains("-h")
    else {
      throw InputError(
        "qualify links takes a subcommand: verify",
        hint: "qualify links verify --domain https://www.example.org")
    }
    parsed = try ParsedOptions.parse(
      arguments.enumerated().filter { $0.offset != arguments.firstIndex(of: "verify") }.map(
        \.element),
      LinksCommand.options,
      command: "qualify links verify")
  }

  static let help =
    helpText(
      usage:
        "qualify links verify --domain URL [--app DIR] [--channel C] [--cacert FILE] [--connect-to H:P:127.0.0.1:P] [--json]",
      summary: """
        Fetches https://DOMAIN/.well-known/apple-app-site-association and \
        /.well-known/assetlinks.json as the OS does (no redirect followed, at most 128 KiB) \
        and checks them against the app: the iOS appID (DEVELOPMENT_TEAM and bundle id) and \
        the paths in qualify.json's hybrid.links; the Android package and the SHA-256 of the \
        certificate the channel's build is signed with (hybrid.releaseCertificate). Exit 0 \
        when both files certify the app, 1 when one does not, 2 on bad input or an \
        unreachable domain.
        """, options: LinksCommand.options)

  func execute() throws -> ExitCode {
    let out = Terminal.standardOutput
    if parsed.has("help") {
      out.write(Self.help)
      return .qualified
    }
    let domain = try Self.domain(parsed)
    let channel = try channelOption(parsed)
    let platforms = try platformOption(parsed)
    let repository = try AppRepository(directory: parsed.value("app") ?? Paths.hybridSampleApp)
    guard repository.profile.shell.commands.contains(.links) else {
      let kinds = ShellKind.serving(.links)
      throw InputError(
        "\(repository.profile.name) is a \(repository.profile.shell.id) app: only a \(kinds.joined(separator: " or ")) app names the files its site must serve",
        hint: "set \"shell\": \"\(kinds.first ?? "")\" and its section in qualify.json")
    }
    let builds = try repository.builds(for: channel)
    let client = try self.client(for: domain)
    let verdicts = try AssociationCheck.verify(
      domain: domain, builds: platforms.compactMap { builds[$0] }, client: client)
    let failed = verdicts.contains { !$0.problems.isEmpty }
    if parsed.has("json") {
      let document: [[String: Any]] = verdicts.map {
        [
          "platform": $0.platform.rawValue, "url": $0.url, "certifies": $0.subject,
          "ok": $0.problems.isEmpty, "problems": $0.problems,
        ]
      }
      let data = try JSONSerialization.data(
        withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
      out.line(String(decoding: data, as: UTF8.self))
      return failed ? .notQualified : .qualified
    }
    out.line(
      out.style("links verify", .bold)
        + " · \(repository.profile.title) · channel \(channel.rawValue) · \(domain)")
    for verdict in verdicts {
      let mark = verdict.problems.isEmpty ? out.style("ok   ", .green) : out.style("FAIL ", .red)
      out.line("\(mark) \(verdict.platform.displayName): \(verdict.url) for \(verdict.subject)")
      for problem in verdict.problems { out.line("      \(problem)") }
    }
    if channel == .dev, failed,
      builds.values.contains(where: { $0.hybrid?.debugCertificateSHA256 == nil })
    {
      out.line(
        "note: a dev build is signed with this machine's debug keystore, which qualify does not have (name it as hybrid.debugCertificate); the release build is --channel prod"
      )
    }
    out.line(
      failed
        ? "the site does not certify the app: its links open in the browser"
        : "the site certifies the app on \(verdicts.map(\.platform.displayName).joined(separator: " and "))"
    )
    return failed ? .notQualified : .qualified
  }

  /// `--domain`: an https origin on port 443, as the OS fetches the files.
  static func domain(_ parsed: ParsedOptions) throws -> Origin {
    guard let raw = parsed.value("domain") else {
      throw InputError(
        "qualify links verify needs --domain", hint: "--domain https://www.example.org")
    }
    guard let domain = Origin(url: raw), domain.isSecure,
      ["", "/"].contains(URLComponents(string: raw)?.path ?? "")
    else {
      throw InputError(
        "--domain must be an https origin (https://host), not \(raw)",
        hint: "the OS fetches the association files over HTTPS only")
    }
    if let port = URLComponents(string: raw)?.port, port != 443 {
      throw InputError(
        "--domain \(raw) names port \(port): iOS and Android fetch the association files from port 443 only",
        hint:
          "name the host alone; reach a test deployment on another port with --connect-to HOST:443:127.0.0.1:PORT"
      )
    }
    return domain
  }

  /// The client that fetches the files: the CA to trust (`--cacert`), loopback stand-ins for
  /// the domain (`--connect-to`), the timeout; redirects are not followed, as the OS does not.
  func client(for domain: Origin) throws -> HTTPClient {
    let trusted: String?
    if let path = parsed.value("cacert") {
      guard let data = FileManager.default.contents(atPath: path) else {
        throw InputError("the CA file \(path) does not exist")
      }
      trusted = String(decoding: data, as: UTF8.self)
    } else {
      trusted = nil
    }
    var origins: [String: UInt16] = [:]
    for entry in parsed.all("connect-to") {
      let parts = entry.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
      guard parts.count == 4, !parts[0].isEmpty, UInt16(parts[1]) != nil,
        ["127.0.0.1", "localhost", "::1"].contains(parts[2]), let port = UInt16(parts[3])
      else {
        throw InputError(
          "--connect-to must be HOST:PORT:127.0.0.1:PORT (loopback only), not \(entry)")
      }
      origins["\(parts[0].lowercased()):\(parts[1])"] = port
    }
    var timeout: TimeInterval = 10
    if let value = parsed.value("timeout") {
      guard let seconds = Durations.parse(value), seconds > 0 else {
        throw InputError("--timeout must be a duration such as 10s, not \(value)")
      }
      timeout = seconds
    }
    var configuration = HTTPClient.Configuration(
      trustedCertificatesPEM: trusted, origins: origins, allowsOutsideOrigins: true,
      timeout: timeout, userAgent: "qualify-links-verify",
      maxResponseBytes: AssociationCheck.maximumBytes)
    configuration.realAuthorities = [domain.authority]
    return try HTTPClient(configuration: configuration)
  }
}
