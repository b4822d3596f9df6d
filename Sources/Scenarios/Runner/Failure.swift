/// Why a step failed, as a value: what a control's `because` names, instead of words of the
/// message (docs/scenario-language.md, *Failure reasons*).
///
/// A reason may carry a detail — the status received, the rule of a finding, the update's
/// decision — that `because REASON DETAIL` pins too.
public struct FailureReason: Sendable, Hashable, CustomStringConvertible {
  public let name: String
  /// What the step saw, in a sentence, for the vocabulary reference.
  public let summary: String
  /// What the detail word is, nil when the reason takes none.
  public let detail: String?

  public init(_ name: String, detail: String? = nil, _ summary: String) {
    self.name = name
    self.summary = summary
    self.detail = detail
  }

  public var description: String { name }

  public static func == (a: FailureReason, b: FailureReason) -> Bool { a.name == b.name }
  public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// A step's failure: its reason, the detail, and the message a person reads.
public struct Failure: Sendable {
  public var reason: FailureReason
  public var detail: String?
  public var message: String
  /// What to change so that the step holds, when the expectation knows (a guard's fix).
  public var fix: String?
  /// The scenario file's line that did not hold (set by the runner).
  public var line: Int?

  public init(
    _ reason: FailureReason, _ detail: String? = nil, _ message: String, fix: String? = nil
  ) {
    self.reason = reason
    self.detail = detail
    self.message = message
    self.fix = fix
  }

  /// `status 200`: what `because` is compared with.
  public var label: String { detail.map { "\(reason.name) \($0)" } ?? reason.name }

}

/// A control's `because REASON [DETAIL]`.
public struct Because: Sendable, Equatable, CustomStringConvertible {
  public var reason: String
  public var detail: String?

  public init(reason: String, detail: String? = nil) {
    self.reason = reason
    self.detail = detail
  }

  public var description: String { detail.map { "\(reason) \($0)" } ?? reason }

  /// Whether it names a step's failure: the same reason, and the same detail (in any case)
  /// when it gives one. The failure arrives as the execution record keeps it.
  public func names(reason failed: String?, detail failedDetail: String?) -> Bool {
    guard failed == reason else { return false }
    guard let detail else { return true }
    return failedDetail?.lowercased() == detail.lowercased()
  }
}

extension FailureReason {
  /// Every reason a step can fail with: what each pack declares (docs/scenario-language.md).
  public static let all: [FailureReason] = Vocabulary.packs.flatMap { $0.failureReasons }
  /// By name, the first of a name winning (as the list's order decides elsewhere): every
  /// `because` line of the catalogue looks one up.
  static let byName: [String: FailureReason] = Dictionary(
    all.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

  public static func named(_ name: String) -> FailureReason? { byName[name] }
}
