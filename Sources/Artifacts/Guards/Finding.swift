import QualifyCore

/// One static finding about a build: a guard rule, where it was found and the offending
/// value.
public struct Finding: Sendable, Codable, Hashable {
  public enum Severity: String, Sendable, Codable {
    /// The build must not ship like this.
    case error
    /// A dev setting the dev channel allows.
    case allowed
    /// The rule reads an env the channel did not supply (only dev defaults were found): it
    /// was not checked, and says so.
    case unverified
  }

  /// The rule's id (`dev-server-url`).
  public var rule: String
  public var platform: Platform
  public var severity: Severity

  /// How an `unverified` finding over an env the channel did not supply begins.
  static let unsuppliedInputPrefix = "not checked: it reads the "

  /// Unverified because the channel's env was not supplied, not because the app's code was
  /// not read: the run is partial for the environment's sake.
  public var isInputNotSupplied: Bool {
    severity == .unverified && message.hasPrefix(Finding.unsuppliedInputPrefix)
  }
  /// What is wrong, naming the file and the value.
  public var message: String
  public var location: FileLocation?
  public var value: String?
  /// How to fix it.
  public var fix: String

  /// `path:line: message`.
  public var description: String {
    let place = location.map { $0.line > 0 ? "\($0.file):\($0.line)" : $0.file }
    return (place.map { "\($0): " } ?? "") + message
  }
}

/// What a guard rule reads, so that a rule over an env the channel did not supply is
/// reported as unverified rather than failed on dev defaults.
public enum GuardInput: String, Sendable {
  /// The app's committed files (and the synced Capacitor config).
  case files
  case backendEnv
  case frontendEnv
}

/// One hit of a rule.
public struct GuardHit: Sendable {
  public var message: String
  public var location: FileLocation?
  public var value: String?
  /// Whether the dev channel allows it (nil: the rule's default).
  public var devAllows: Bool?
  /// The decision the rule judges could not be read (issue 23): neither passed nor failed,
  /// so the scenario resting on it is not proven.
  public var unverified = false

  public init(
    _ message: String, at location: FileLocation?, value: String? = nil, devAllows: Bool? = nil,
    unverified: Bool = false
  ) {
    self.message = message
    self.location = location
    self.value = value
    self.devAllows = devAllows
    self.unverified = unverified
  }
}

extension GuardHit {
  /// A hit for a code fact that was read as absent, at the file that would hold it; nil when
  /// the fact holds or the code was not found.
  static func missing(_ fact: Sourced<Bool>?, _ message: String, value: String) -> GuardHit? {
    guard let fact, !fact.value else { return nil }
    // How the code came to lack it (a name posted and observed nowhere), when known.
    let how = fact.derivation.isEmpty ? "" : " — \(fact.derivation.joined(separator: "; "))"
    return GuardHit(message + how, at: fact.location, value: value)
  }
}

/// A build guard of seed 000 (*Production hardening*, *Release checklist* items 1, 7, 8).
public struct GuardRule: Sendable {
  public var id: String
  public var title: String
  /// Where the rule comes from.
  public var source: String
  /// Whether the dev channel allows what the rule forbids on release channels.
  public var devAllows: Bool
  /// What it reads.
  public var reads: Set<GuardInput>
  /// The shell kinds it judges.
  public var shells: Set<ShellKind>
  let check: @Sendable (AppBuild) -> [GuardHit]
  public var fix: String

  init(
    id: String, title: String, source: String, devAllows: Bool, reads: Set<GuardInput> = [.files],
    shells: Set<ShellKind> = [.singleOrigin],
    check: @escaping @Sendable (AppBuild) -> [GuardHit], fix: String
  ) {
    self.shells = shells
    self.id = id
    self.title = title
    self.source = source
    self.devAllows = devAllows
    self.reads = reads
    self.check = check
    self.fix = fix
  }
}
