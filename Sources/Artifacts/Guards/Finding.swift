import QualifyCore

/// One static finding about a build: a guard rule, where it was found and the offending
/// value.
public struct Finding: Sendable, Codable, Hashable {
  public enum Severity: String, Sendable, Codable {
    /// The build must not ship like this.
    case error
    /// A dev setting the dev channel allows.
    case allowed
  }

  /// The rule's id (`dev-server-url`).
  public var rule: String
  public var platform: Platform
  public var severity: Severity
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

/// A build guard of seed 000 (*Production hardening*, *Release checklist* items 1, 7, 8).
public struct GuardRule: Sendable {
  public var id: String
  public var title: String
  /// Where the rule comes from.
  public var source: String
  /// Whether the dev channel allows what the rule forbids on release channels.
  public var devAllows: Bool
  let check: @Sendable (AppBuild) -> [(message: String, location: FileLocation?, value: String?)]
  public var fix: String
}
