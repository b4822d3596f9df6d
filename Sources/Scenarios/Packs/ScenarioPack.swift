import QualifyCore

/// A pack of the scenario language: the statements a family of scenarios is written in,
/// declared in one folder beside the world code they drive (`Packs/<Name>/`).
///
/// A new pack is a new folder with its `ScenarioPack` and a line in `Packs.swift`; nothing
/// else in the parser, the runner or the reference changes.
public protocol ScenarioPack: SendableMetatype {
  /// The pack's name in the reference (`authentication`).
  static var name: String { get }
  static var actions: [ActionSpec] { get }
  static var expectations: [ExpectationSpec] { get }
  static var mutations: [MutationSpec] { get }
  /// The reasons its expectations and actions fail a step with (what `because` names).
  static var failureReasons: [FailureReason] { get }
  /// The kinds of shell its statements drive (every kind when they are shell-neutral).
  static var shells: Set<ShellKind> { get }
}

extension ScenarioPack {
  public static var shells: Set<ShellKind> { Set(ShellKind.all) }
}
