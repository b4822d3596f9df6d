import Artifacts
import Foundation
import QualifyCore

/// A parsed `.scenario` file: one checklist behaviour, the world it needs, its steps and the
/// negative controls that must make it fail. See docs/scenario-language.md.
public struct Scenario: Sendable {
  /// `<pack>/<name>`, from the file's path below the scenarios root.
  public var id: String
  public var title: String
  public var about: [String] = []
  /// The kind of shell the scenario drives (`shell multi-instance`): it runs only on apps of
  /// that kind, and its checklist items are that kind's.
  public var shell: ShellKind = .default
  /// Items of its shell kind's release checklist this scenario automates.
  public var checklist: [Int] = []
  /// Checklist items it adds evidence to without proving them (`supports 8`): shown beside
  /// the item, never enough to mark it passed.
  public var supports: [Int] = []
  /// Optional features of the shell it needs (`requires ota`): on a build that does not
  /// enable one, the scenario is not applicable.
  public var requires: [AppProfile.Feature] = []
  /// `ota-ordering count|sequence`: it checks one way of ordering OTA releases, and does not
  /// apply to an app that orders them the other way (`ota.ordering` of its profile).
  public var otaOrdering: String?
  public var platforms: [Platform] = Platform.allCases
  public var channels: [Channel] = Channel.allCases
  /// Mutations the check itself runs under (`given backend.env PUSH_APNS_USE_SANDBOX True`):
  /// a scenario about a known mistake sets it up, and its controls apply on top.
  public var given: [MutationUse] = []
  public var tags: [String] = []
  /// Wall-clock limit of one execution (the check or one control).
  public var timeout: TimeInterval = 10
  /// Overrides the channel's identity-provider profile.
  public var identityProvider: String?
  public var devices: [DeviceDeclaration] = []
  public var apps: [AppDeclaration] = []
  public var users: [String] = []
  public var steps: [Step] = []
  public var controls: [Control] = []
  public var file: String

  /// Whether it only reads the app's files (every action is `is inspected`): its proof is
  /// static, not simulated.
  public var isStatic: Bool {
    let actions = steps.flatMap(\.lines).compactMap { line -> ActionSpec? in
      if case .action(let spec) = line.kind { return spec }
      return nil
    }
    return !actions.isEmpty && actions.allSatisfy { $0.phrase == ["is", "inspected"] }
  }

  /// Whether a step drives a real browser engine (`renders thread`).
  public var drivesEngine: Bool {
    steps.flatMap(\.lines).contains { line in
      if case .action(let spec) = line.kind { return spec.drivesEngine }
      return false
    }
  }

  /// The pack: the first component of the id.
  public var pack: String { String(id.split(separator: "/").first ?? "") }

  public func applies(to platform: Platform, channel: Channel) -> Bool {
    platforms.contains(platform) && channels.contains(channel)
  }
}

/// `device NAME [browser KIND] [without play-services]`.
public struct DeviceDeclaration: Sendable {
  public var name: String
  /// An explicit system-browser kind; nil lets the build decide.
  public var browser: String?
  public var hasPlayServices: Bool
  public var location: FileLocation
}

/// `app NAME on DEVICE [as companion]`.
public struct AppDeclaration: Sendable {
  public enum Role: String, Sendable {
    /// The app under qualification.
    case underTest
    /// A second La Suite app built like the first, registered at the same IdP.
    case companion
  }

  public var name: String
  public var device: String
  public var role: Role
  public var location: FileLocation
}

/// `step "title"` and its lines.
public struct Step: Sendable {
  /// 1-based position.
  public var index: Int
  public var title: String
  public var lines: [StepLine] = []
  public var location: FileLocation
}

/// One action or expectation of a step, possibly conditional.
public struct StepLine: Sendable {
  public enum Kind: Sendable {
    case action(ActionSpec)
    case expectation(ExpectationSpec, negated: Bool)
  }

  public var kind: Kind
  public var arguments: Arguments
  public var condition: Condition?
  /// The actor (`mail` in `mail fetches config`) for app and device actions.
  public var actor: String?
  /// The statement as written, for messages.
  public var text: String
  public var location: FileLocation
}

/// `on dev:`, `on release, ios:` — channels OR'd, platforms OR'd, the two AND'd.
public struct Condition: Sendable, Hashable {
  public var channels: Set<Channel> = []
  public var platforms: Set<Platform> = []

  public func holds(platform: Platform, channel: Channel) -> Bool {
    (channels.isEmpty || channels.contains(channel))
      && (platforms.isEmpty || platforms.contains(platform))
  }
}

/// `control "name"`: a mutation of the world under which the scenario must fail at a step.
public struct Control: Sendable {
  public var name: String
  public var mutations: [MutationUse] = []
  /// The step at which the scenario must fail (1-based).
  public var failsAt: Int = 0
  /// The reason (and detail) the failure must have, when given.
  public var because: Because?
  public var platforms: [Platform]?
  public var channels: [Channel]?
  public var location: FileLocation

  public func applies(to platform: Platform, channel: Channel) -> Bool {
    (platforms?.contains(platform) ?? true) && (channels?.contains(channel) ?? true)
  }
}

/// `mutate NAME [ARGS]` inside a control.
public struct MutationUse: Sendable {
  public var spec: MutationSpec
  public var arguments: Arguments
  public var text: String
  public var location: FileLocation
}

/// Typed arguments of a statement, by parameter name.
public struct Arguments: Sendable {
  public var values: [String: String] = [:]
  public var flags: Set<String> = []

  public init() {}

  public subscript(name: String) -> String? { values[name] }

  public func has(_ flag: String) -> Bool { flags.contains(flag) }

  public func duration(_ name: String) -> TimeInterval? { values[name].flatMap(Durations.parse) }

  public func integer(_ name: String) -> Int? { values[name].flatMap { Int($0) } }
}

extension Scenario {
  /// What its steps and `given` mutations need that only a mock gives (docs/stack-file.md):
  /// against a real part of the stack the scenario does not run where it needs a power over
  /// that part. Its controls' needs are their own.
  public var needs: Set<MockPower> {
    var out = Set(given.flatMap(\.spec.powers))
    for step in steps {
      for line in step.lines {
        if case .action(let spec) = line.kind { out.formUnion(spec.powers) }
      }
    }
    return out
  }
}

extension Control {
  /// What its mutations need that only a mock gives.
  public var needs: Set<MockPower> { Set(mutations.flatMap(\.spec.powers)) }
}
