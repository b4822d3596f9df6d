import QualifyCore

/// One shell kind's reader: what it reads of the app's repository for a channel. The
/// registry below is the only place that maps a kind to its reader; a new kind adds its
/// `BuildReader+<Kind>.swift` and one line here.
protocol ShellBuildReader: SendableMetatype {
  static var kind: ShellKind { get }
  /// What the command line's env files are to this kind's builds.
  static var envFiles: EnvFileRoles { get }
  /// The parts `qualify.json`'s `parts` may place (`handoffServer`), each with where the
  /// reader looks when the profile does not say.
  static var parts: [String: String] { get }
  /// The optional features a profile may declare for this kind (`features` in qualify.json).
  static var features: Set<AppProfile.Feature> { get }
  static func read(_ reader: inout BuildReader) throws -> [Platform: AppBuild]
}

/// What `--backend-env` and `--frontend-env` are to a kind's builds, nil for a file the kind
/// reads none of: a pipeline that gives one is told so (exit 2) rather than have it ignored,
/// which would qualify the committed env while the pipeline believes its own was judged.
struct EnvFileRoles: Sendable {
  var backend: String?
  var frontend: String?

  /// The option given for a role the kind does not read, nil when there is none.
  func refusal(of extra: AppRepository.ExtraEnv, kind: ShellKind) -> InputError? {
    for (option, paths, role, other) in [
      ("--backend-env", extra.backend, backend, frontend.map { ("--frontend-env", $0) }),
      ("--frontend-env", extra.frontend, frontend, backend.map { ("--backend-env", $0) }),
    ] where !paths.isEmpty && role == nil {
      return InputError(
        "\(option) \(paths.joined(separator: " ")): a \(kind.id) app has no \(option.dropFirst(2).replacingOccurrences(of: "-env", with: "")) env qualify reads, so the file would be ignored",
        hint: other.map { "the \(kind.id) kind reads \($0.1): give it with \($0.0)" }
          ?? "a \(kind.id) app is read from its repository alone; drop \(option)")
    }
    return nil
  }
}

extension ShellBuildReader {
  static var parts: [String: String] { [:] }
  static var features: Set<AppProfile.Feature> { [.ota, .push] }
}

enum ShellBuildReaders {
  static let all: [any ShellBuildReader.Type] = [
    SingleOriginShellReader.self, InstanceShellReader.self, SessionShellReader.self,
    HybridShellReader.self, BridgeShellReader.self,
  ]

  static func type(of kind: ShellKind) -> any ShellBuildReader.Type {
    guard let type = all.first(where: { $0.kind == kind }) else {
      preconditionFailure("shell kind \(kind.id) has no reader in ShellBuildReaders.all")
    }
    return type
  }
}

enum SingleOriginShellReader: ShellBuildReader {
  static let kind = ShellKind.singleOrigin
  static let envFiles = EnvFileRoles(
    backend: "the backend's env (OIDC, MOBILE_*, PUSH_*), over the channel's files",
    frontend: "the frontend's build env (NEXT_PUBLIC_*, MOBILE_*), over the channel's files")
  static func read(_ reader: inout BuildReader) throws -> [Platform: AppBuild] {
    try reader.readSingleOrigin()
  }
}

enum InstanceShellReader: ShellBuildReader {
  static let kind = ShellKind.multiInstance
  static let features: Set<AppProfile.Feature> = [.ota, .push, .deepLinks, .deviceBridge]
  static let envFiles = EnvFileRoles()
  static func read(_ reader: inout BuildReader) -> [Platform: AppBuild] {
    reader.readMultiInstance()
  }
}

enum SessionShellReader: ShellBuildReader {
  static let kind = ShellKind.sessionContract
  static let parts = [
    "client": "the folders of the TypeScript files calling the contract's /v1/ routes"
  ]
  static let envFiles = EnvFileRoles()
  static func read(_ reader: inout BuildReader) -> [Platform: AppBuild] {
    reader.readSessionContract()
  }
}

enum HybridShellReader: ShellBuildReader {
  static let kind = ShellKind.hybridWebView
  static let envFiles = EnvFileRoles(
    backend: "the site's env (FIREBASE_PROJECT_ID), over its .env files", frontend: nil)
  static func read(_ reader: inout BuildReader) -> [Platform: AppBuild] { reader.readHybrid() }
}

enum BridgeShellReader: ShellBuildReader {
  static let kind = ShellKind.reactNativeBridge
  static let parts = [
    "handoffServer":
      "files with handoff in their path under \(BridgeReader.servers.joined(separator: " and "))",
    "handoffClient":
      "the web page's call to the handoff's exchange, under \(BridgeReader.webClients.joined(separator: " and "))",
  ]
  static let envFiles = EnvFileRoles(
    backend:
      "the handoff server's env as deployed (the Origin allowlist its routes read, such as MOBILE_AUTH_ALLOWED_ORIGINS)",
    frontend:
      "the Expo build env apps/mobile/config/mobileConfig.ts reads (OPENMAPX_MOBILE_*), over apps/mobile/.env*"
  )
  static func read(_ reader: inout BuildReader) -> [Platform: AppBuild] { reader.readBridge() }
}
