import QualifyCore

/// What the web code's `nativeLogout()` does, step by step, read from `auth.ts` (seed 000,
/// *Logout*): which steps it takes, in which order, and which of them still run when an
/// earlier one rejects. A step that rejects is what a phone without a network sees: the
/// system-browser round-trip and the safety-net POST both fail before reaching a server.
public struct NativeLogoutFlow: Sendable {
  /// One step of the logout.
  public enum Step: String, Sendable, CaseIterable {
    /// The RP-initiated logout in the system browser (`/api/v1.0/logout/`).
    case browserLogout = "the system-browser logout"
    /// The safety-net POST to `/api/v1.0/mobile/auth/logout/`.
    case safetyNet = "the safety-net POST"
    /// `CapacitorCookies.clearAllCookies()`: the native cookie jar, the session cookie in it.
    case clearCookies = "the native cookie flush"
    /// `setNativeCsrfToken(null)`: the cached CSRF token.
    case clearCSRFToken = "the cached CSRF token's removal"

    /// The steps that can reject (a network request); the others only run or not.
    public var canReject: Bool { self == .browserLogout || self == .safetyNet }
  }

  /// Whether a step runs, given what an earlier fallible step did.
  public struct Reach: Sendable, Equatable {
    /// Runs when the earlier step resolved.
    public var whenResolved: Bool
    /// Runs when the earlier step rejected.
    public var whenRejected: Bool

    public init(whenResolved: Bool, whenRejected: Bool) {
      self.whenResolved = whenResolved
      self.whenRejected = whenRejected
    }
  }

  /// A step as written: where, and how it depends on each fallible step before it.
  public struct Placement: Sendable {
    public var location: FileLocation
    /// Keyed by the earlier fallible step.
    public var after: [Step: Reach]
    /// Why it could not be placed (inside a condition or a callback): unverified.
    public var unreadable: String?

    public init(location: FileLocation, after: [Step: Reach], unreadable: String? = nil) {
      self.location = location
      self.after = after
      self.unreadable = unreadable
    }
  }

  /// The file read (`src/features/native/auth.ts`).
  public var file: String
  /// Where `nativeLogout` is declared.
  public var declaration: FileLocation
  /// The steps found, by step; a step absent here is one the function never takes.
  public var steps: [Step: Placement]
  /// Why the function could not be read at all (no `nativeLogout`, an expression body).
  public var problem: String?

  public init(file: String, declaration: FileLocation, steps: [Step: Placement]) {
    self.file = file
    self.declaration = declaration
    self.steps = steps
  }

  /// The logout seed 000 describes, for an app whose web code was not read: every step, in
  /// the seed's order, each run whatever the requests before it did.
  public static func seed(file: String) -> NativeLogoutFlow {
    var steps: [Step: Placement] = [:]
    var earlier: [Step] = []
    for (line, step) in Step.allCases.enumerated() {
      steps[step] = Placement(
        location: FileLocation(file: file, line: line + 1, column: 1),
        after: Dictionary(
          uniqueKeysWithValues: earlier.filter(\.canReject).map {
            ($0, Reach(whenResolved: true, whenRejected: true))
          }),
        unreadable: nil)
      earlier.append(step)
    }
    return NativeLogoutFlow(
      file: file, declaration: FileLocation(file: file, line: 0, column: 1), steps: steps)
  }

  /// Whether every step was found and placed: only then does the simulation follow the code.
  public var isRead: Bool {
    problem == nil && steps.count == Step.allCases.count
      && steps.values.allSatisfy { $0.unreadable == nil }
  }

  /// The logout the simulated shell takes: the one read, or seed 000's when a step could not
  /// be read (the guard reports that as unverified; the run does not guess).
  public var simulated: NativeLogoutFlow { isRead ? self : .seed(file: file) }

  /// The steps in the order the function takes them.
  public var order: [Step] {
    steps.sorted {
      ($0.value.location.line, $0.value.location.column)
        < ($1.value.location.line, $1.value.location.column)
    }
    .map(\.key)
  }

  /// Whether `step` runs after the fallible steps in `rejected` rejected and every other
  /// fallible step before it resolved. A step that could not be placed runs, as seed 000
  /// describes: the guard reports it as unverified.
  public func runs(_ step: Step, rejected: Set<Step>) -> Bool {
    guard let placement = steps[step], placement.unreadable == nil else {
      return steps[step] != nil
    }
    return placement.after.allSatisfy { earlier, reach in
      rejected.contains(earlier) ? reach.whenRejected : reach.whenResolved
    }
  }
}

extension NativeLogoutFlow {
  /// How `step` depends on the fallible steps before it, as `check-app --explain` shows it
  /// (`: runs even when the safety-net POST rejects`).
  public func reachText(_ step: Step) -> String {
    guard let placement = steps[step] else { return "" }
    if let unreadable = placement.unreadable { return ": unverified, \(unreadable)" }
    if !placement.after.isEmpty,
      placement.after.values.allSatisfy({ $0.whenResolved && $0.whenRejected })
    {
      return ": runs whatever the requests before it do"
    }
    let clauses = placement.after.sorted { $0.key.rawValue < $1.key.rawValue }.map {
      earlier, reach -> String in
      switch (reach.whenResolved, reach.whenRejected) {
      case (true, true): return "runs whether \(earlier.rawValue) resolves or rejects"
      case (true, false): return "skipped when \(earlier.rawValue) rejects"
      case (false, true): return "runs only when \(earlier.rawValue) rejects"
      case (false, false): return "never runs after \(earlier.rawValue)"
      }
    }
    return clauses.isEmpty ? "" : ": " + clauses.joined(separator: "; ")
  }
}
