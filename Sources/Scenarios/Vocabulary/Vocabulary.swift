import Artifacts
import Devices
import MockStack
import QualifyCore

/// A parameter of an action, expectation or mutation.
public struct Parameter: Sendable {
  public enum Kind: Sendable {
    /// A word from a closed set.
    case choice([String])
    /// A word or a quoted string.
    case text
    case integer
    /// `61s`, `10m`, `12h`.
    case duration
    /// A user declared with `user NAME`.
    case user
    /// An app declared with `app NAME on DEVICE`.
    case app
    /// A path on the API origin (`/api/v1.0/config/`) or an absolute URL.
    case location
  }

  public var name: String
  public var kind: Kind
  /// A word introducing the value (`as` in `as first`); nil for a positional parameter.
  public var keyword: String?
  /// A bare word that is present or not (`remember-me`).
  public var isFlag: Bool
  public var isOptional: Bool

  /// A positional parameter.
  public static func value(_ name: String, _ kind: Kind, optional: Bool = false) -> Parameter {
    Parameter(name: name, kind: kind, keyword: nil, isFlag: false, isOptional: optional)
  }

  /// A parameter introduced by `keyword`, always optional.
  public static func keyword(_ keyword: String, _ name: String, _ kind: Kind) -> Parameter {
    Parameter(name: name, kind: kind, keyword: keyword, isFlag: false, isOptional: true)
  }

  /// A bare-word flag.
  public static func flag(_ word: String) -> Parameter {
    Parameter(name: word, kind: .text, keyword: nil, isFlag: true, isOptional: true)
  }

  /// How the parameter reads in a synopsis: `PATH`, `[as USER]`, `[remember-me]`.
  public var synopsis: String {
    if isFlag { return "[\(name)]" }
    let placeholder: String
    switch kind {
    case .choice(let words): placeholder = words.joined(separator: "|")
    default: placeholder = name.uppercased()
    }
    let body = keyword.map { "\($0) \(placeholder)" } ?? placeholder
    return isOptional ? "[\(body)]" : body
  }
}

/// Which problems of an action an expectation examines.
public struct ProblemFilter: Sendable {
  let kinds: Set<Outcome.Problem.Kind>
  let reasons: Set<FailureReason>

  /// Examines nothing: a problem left by the action still fails the step.
  public static let none = ProblemFilter(kinds: [], reasons: [])

  /// Examines every problem of this kind.
  public static func kind(_ kind: Outcome.Problem.Kind) -> ProblemFilter {
    ProblemFilter(kinds: [kind], reasons: [])
  }

  /// Examines the problems with one of these reasons.
  public static func reasons(_ reasons: FailureReason...) -> ProblemFilter {
    ProblemFilter(kinds: [], reasons: Set(reasons))
  }

  func matches(_ problem: Outcome.Problem) -> Bool {
    kinds.contains(problem.kind) || reasons.contains(problem.reason)
  }
}

/// Who performs an action.
public enum Actor: Sendable {
  /// `mail fetches config`: an app declared in the scenario.
  case app
  /// `advance 61s`: the world itself (the clock, the stack).
  case world
}

/// An action statement: what a step does.
/// What only an in-process mock can be made to do: a scenario or control that needs one of
/// these cannot run where that part of the stack is a real system (`--stack`), and says so.
public enum MockPower: String, Sendable, CaseIterable, Comparable {
  /// Changes the identity provider's behaviour (a `mutate idp.…`, a profile override).
  case changesIdentityProvider = "changes-idp"
  /// Changes the backend's behaviour (`mutate backend.…`).
  case changesBackend = "changes-backend"
  /// Reaches into the backend through a hook a real deployment does not have (a message
  /// arriving on demand).
  case backendHook = "backend-hook"
  /// Moves the clock the backend reads (`advance`): a real backend's tokens and flags age with
  /// the wall clock only.
  case movesBackendClock = "backend-clock"
  /// Writes to the OTA bucket (the pipeline's upload, a substituted bundle, a rewritten
  /// manifest, a staged fault).
  case writesBucket = "writes-bucket"
  /// Changes the push gateways' behaviour (`mutate apns.…`, `mutate fcm.…`).
  case changesPushGateways = "changes-push"

  /// The part of the stack the power is over.
  public var part: String {
    switch self {
    case .changesIdentityProvider: return "identity provider"
    case .changesBackend, .backendHook, .movesBackendClock: return "backend"
    case .writesBucket: return "OTA bucket"
    case .changesPushGateways: return "push gateways"
    }
  }

  public static func < (a: MockPower, b: MockPower) -> Bool { a.rawValue < b.rawValue }
}

public struct ActionSpec: Sendable {
  public var actor: Actor
  /// The words after the actor (`fetches config`, `advance`).
  public var phrase: [String]
  public var parameters: [Parameter]
  public var summary: String
  public var example: String
  /// What it needs that only a mock gives.
  public var powers: Set<MockPower>
  /// Whether it drives a real browser engine: one scenario at a time per engine, and each
  /// such step takes a good part of a second, so a run starts these scenarios first.
  public var drivesEngine: Bool
  let perform: @Sendable (ActionContext) throws -> Outcome

  public init(
    _ actor: Actor, _ phrase: String, _ parameters: [Parameter] = [], summary: String,
    example: String, powers: Set<MockPower> = [], drivesEngine: Bool = false,
    perform: @escaping @Sendable (ActionContext) throws -> Outcome
  ) {
    self.actor = actor
    self.phrase = phrase.split(separator: " ").map(String.init)
    self.parameters = parameters
    self.summary = summary
    self.example = example
    self.powers = powers
    self.drivesEngine = drivesEngine
    self.perform = perform
  }

  public var synopsis: String {
    ([actor == .app ? "APP" : nil, phrase.joined(separator: " ")].compactMap { $0 }
      + parameters.map(\.synopsis)).joined(separator: " ")
  }
}

/// An expectation statement: `expect [no] PHRASE ARGS`.
public struct ExpectationSpec: Sendable {
  public var phrase: [String]
  public var parameters: [Parameter]
  public var summary: String
  public var example: String
  /// Whether `expect no …` is meaningful.
  public var negatable: Bool
  /// The problems of the last action it examines (so the step does not fail on them).
  let examines: ProblemFilter
  /// Whether it reads the IdP events of its step: the step then notes where the event feed
  /// stood when it began (one request to the feed, only for such steps).
  let observesIdentityEvents: Bool
  /// nil when the expectation holds, else why it does not; throws `ScenarioNotApplicable`
  /// when what it checks does not apply to this build.
  let check: @Sendable (ExpectationContext) throws -> Failure?

  public init(
    _ phrase: String, _ parameters: [Parameter] = [], negatable: Bool = false,
    examines: ProblemFilter = .none, observesIdentityEvents: Bool = false, summary: String,
    example: String,
    check: @escaping @Sendable (ExpectationContext) throws -> Failure?
  ) {
    self.phrase = phrase.split(separator: " ").map(String.init)
    self.parameters = parameters
    self.negatable = negatable
    self.examines = examines
    self.observesIdentityEvents = observesIdentityEvents
    self.summary = summary
    self.example = example
    self.check = check
  }

  public var synopsis: String {
    (["expect", negatable ? "[no]" : nil, phrase.joined(separator: " ")].compactMap { $0 }
      + parameters.map(\.synopsis)).joined(separator: " ")
  }
}

/// A named mutation of the world that a control applies.
public struct MutationSpec: Sendable {
  public var name: String
  public var parameters: [Parameter]
  public var summary: String
  /// The fidelity rule or seed section it breaks.
  public var breaks: String
  let apply: @Sendable (inout WorldConfiguration, Arguments) -> Void

  public init(
    _ name: String, _ parameters: [Parameter] = [], summary: String, breaks: String,
    apply: @escaping @Sendable (inout WorldConfiguration, Arguments) -> Void
  ) {
    self.name = name
    self.parameters = parameters
    self.summary = summary
    self.breaks = breaks
    self.apply = apply
  }

  /// What it changes that only a mock lets qualify change: the part its name starts with
  /// (`idp.…`, `backend.…`, `apns.…`, `fcm.…`, `ci.…` the pipeline's writes to the bucket);
  /// the device, the app and TLS are the harness's own to change.
  public var powers: Set<MockPower> {
    switch name.split(separator: ".").first {
    case "idp", "realm": return [.changesIdentityProvider]
    case "backend": return [.changesBackend]
    // The certificates of the servers the app calls: a real backend's are its own.
    case "tls": return [.changesBackend]
    case "apns", "fcm": return [.changesPushGateways]
    // The pipeline's publishing: against a real channel qualify publishes nothing.
    case "ci": return [.writesBucket]
    default: return []
    }
  }

  public var synopsis: String {
    (["mutate", name] + parameters.map(\.synopsis)).joined(separator: " ")
  }
}

extension MutationSpec {
  /// A mutation that switches one behaviour of the mock stack.
  static func stack(
    _ name: String, _ summary: String, breaks: String,
    _ change: @escaping @Sendable (inout StackBehaviours) -> Void
  ) -> MutationSpec {
    MutationSpec(name, summary: summary, breaks: breaks) { configuration, _ in
      change(&configuration.stack)
    }
  }

  /// A mutation that switches one behaviour of the simulated shells.
  static func shell(
    _ name: String, _ summary: String, breaks: String,
    _ change: @escaping @Sendable (inout ShellBehaviours) -> Void
  ) -> MutationSpec {
    MutationSpec(name, summary: summary, breaks: breaks) { configuration, _ in
      change(&configuration.shell)
    }
  }
}

/// Everything a scenario file can say, beyond its structural keywords.
public enum Vocabulary {
  public static let actions: [ActionSpec] = packs.flatMap { $0.actions }
  public static let expectations: [ExpectationSpec] = packs.flatMap { $0.expectations }
  public static let mutations: [MutationSpec] = packs.flatMap { $0.mutations }
  /// By name, the first of a name winning, as the list's order decides: every control's
  /// `mutate` line looks one up.
  static let mutationsByName: [String: MutationSpec] = Dictionary(
    mutations.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

  /// Structural keywords with a one-line summary, in the order a file uses them.
  public static let keywords: [(String, String)] = [
    ("scenario", "scenario \"TITLE\" — starts the file"),
    ("about", "about \"TEXT\" — why this matters (repeatable)"),
    (
      "shell",
      "shell \(ShellKind.all.map(\.id).joined(separator: "|")) — the kind of shell it drives (default single-origin), before its checklist line"
    ),
    ("checklist", "checklist N[, N] — items of its shell kind's release checklist it proves"),
    ("supports", "supports N[, N] — items it adds evidence to without proving them"),
    ("requires", "requires ota|push — optional features it needs (not applicable when off)"),
    (
      "ota-ordering",
      "ota-ordering count|sequence — the way of ordering OTA releases it checks (not applicable to an app whose qualify.json ota.ordering is the other)"
    ),
    ("platforms", "platforms ios|android … — where it applies (default both)"),
    ("channels", "channels dev|staging|prod|release … — where it applies (default all)"),
    ("tags", "tags WORD … — for --tag"),
    ("timeout", "timeout DURATION — wall-clock limit of one execution (default 10s)"),
    ("idp", "idp keycloak-dev|proconnect — override the channel's identity provider"),
    ("device", "device NAME [browser KIND] [without play-services]"),
    ("app", "app NAME on DEVICE [as companion]"),
    ("user", "user first|second|third — a role bound to a test user of the app's IdP"),
    ("step", "step \"TITLE\" — starts a step; actions and expectations follow"),
    ("expect", "expect [no] PHRASE … — an expectation inside a step"),
    ("on", "on CONDITION[, CONDITION]: STATEMENT — a conditional line"),
    ("control", "control \"NAME\" — a negative control block"),
    ("mutate", "mutate MUTATION [ARGS] — inside a control"),
    ("fails", "fails at step N | fails at \"STEP TITLE\" — inside a control"),
    ("because", "because REASON [DETAIL] — the failure must have this reason (and detail)"),
  ]

  /// System-browser kinds a `device … browser KIND` may name.
  public static let browserKinds = [
    "default", "web-auth-session", "ephemeral-web-auth-session", "safari-view-controller",
    "custom-tabs", "webview",
  ]
}
