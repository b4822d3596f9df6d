import Foundation
import QualifyCore
import ResultModel

/// What changed between two runs (`qualify diff`, the report's "new since the last qualified
/// run"): failures that are new, failures that were fixed, controls whose outcome changed, and
/// checks whose evidence changed shape.
public struct RunDiff: Sendable {
  /// A scenario on a platform: what two runs are compared by.
  public struct Key: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var scenarioID: String
    public var platform: Platform

    public init(_ scenarioID: String, _ platform: Platform) {
      self.scenarioID = scenarioID
      self.platform = platform
    }

    public var description: String { "\(scenarioID) [\(platform.rawValue)]" }

    public static func < (a: Key, b: Key) -> Bool {
      (a.scenarioID, a.platform.rawValue) < (b.scenarioID, b.platform.rawValue)
    }
  }

  public struct Change: Sendable {
    public var key: Key
    /// Nil when the scenario did not run on that side.
    public var before: Verdict?
    public var after: Verdict?
    /// The message of the side that failed.
    public var message: String
  }

  public struct ControlChange: Sendable {
    public var key: Key
    public var control: String
    public var before: ControlRecord.Outcome?
    public var after: ControlRecord.Outcome?
  }

  public struct EvidenceChange: Sendable {
    public var key: Key
    /// Steps of the check whose evidence differs (ignoring values that vary with the seed:
    /// tokens, identifiers, timings).
    public var steps: [Int]
  }

  public var newFailures: [Change] = []
  public var fixed: [Change] = []
  public var stillFailing: [Change] = []
  /// Scenario runs only one side has.
  public var added: [Key] = []
  public var removed: [Key] = []
  public var controls: [ControlChange] = []
  public var evidence: [EvidenceChange] = []

  public var isEmpty: Bool {
    newFailures.isEmpty && fixed.isEmpty && added.isEmpty && removed.isEmpty
      && controls.isEmpty && evidence.isEmpty
  }

  public init(before: [ScenarioResult], after: [ScenarioResult]) {
    var old: [Key: ScenarioResult] = [:]
    for result in before { old[Key(result.scenarioID, result.platform)] = result }
    var new: [Key: ScenarioResult] = [:]
    for result in after { new[Key(result.scenarioID, result.platform)] = result }
    func failing(_ result: ScenarioResult?) -> Bool {
      guard let result else { return false }
      return [.failed, .controlDidNotBite, .error].contains(result.verdict)
    }
    for key in Set(old.keys).union(new.keys).sorted() {
      let a = old[key]
      let b = new[key]
      if a == nil { added.append(key) }
      if b == nil { removed.append(key) }
      switch (failing(a), failing(b)) {
      case (false, true):
        newFailures.append(
          Change(key: key, before: a?.verdict, after: b?.verdict, message: b?.message ?? ""))
      case (true, false) where b != nil:
        fixed.append(
          Change(key: key, before: a?.verdict, after: b?.verdict, message: a?.message ?? ""))
      case (true, true):
        stillFailing.append(
          Change(key: key, before: a?.verdict, after: b?.verdict, message: b?.message ?? ""))
      default:
        break
      }
      guard let a, let b else { continue }
      var names: [String] = []
      for control in a.controls + b.controls where !names.contains(control.name) {
        names.append(control.name)
      }
      for name in names {
        let x = a.controls.first { $0.name == name }?.outcome
        let y = b.controls.first { $0.name == name }?.outcome
        if x != y { controls.append(ControlChange(key: key, control: name, before: x, after: y)) }
      }
      let steps = Set(a.check.steps.map(\.index)).union(b.check.steps.map(\.index)).sorted()
        .filter { index in
          RunDiff.shape(a.check.steps.first { $0.index == index })
            != RunDiff.shape(b.check.steps.first { $0.index == index })
        }
      if !steps.isEmpty { evidence.append(EvidenceChange(key: key, steps: steps)) }
    }
  }

  /// A step's evidence with what changes from seed to seed masked: long tokens with digits or
  /// random-looking mixed case (identifiers, tokens, digests) and durations.
  static func shape(_ step: StepRecord?) -> [String] {
    guard let step else { return [] }
    return step.evidence.map { entry in
      "\(entry.kind.rawValue) \(entry.source) " + mask(entry.summary)
    }
  }

  /// What changes with every seed or every run, and what it is shown as. Compiled once: a
  /// run's diff masks every evidence line of two runs.
  ///
  /// Each rule carries what any match must contain, tested on the bytes first: most evidence
  /// lines match no rule, and a regular expression pass over every line of two runs was a
  /// tenth of a run with a baseline.
  static let maskRules: [(NSRegularExpression, String, MaskTrigger)] = [
    (#"\(\d+(\.\d+)?\s*(ms|µs|s)\)"#, "(…)", .substring("s)")),
    // A redacted secret's fingerprint and a session's short hex id change with every seed.
    (#"\[REDACTED:[0-9a-f]{4}\]"#, "[REDACTED]", .substring("[REDACTED:")),
    (#"(?<![0-9A-Za-z])[0-9a-f]{8}(?![0-9A-Za-z])"#, "…", .run(of: .lowercaseHex, atLeast: 8)),
    // An OTA id's commit (`999-153d3b8`): the count is the scenario's, the sha the seed's.
    (#"(?<![0-9A-Za-z])([0-9]+)-[0-9a-f]{7}(?![0-9A-Za-z])"#, "$1-…", .digitThenDash),
    // A token shown by its first characters (`token 1Va53mVp…`).
    (#"[A-Za-z0-9_\-]{6,}…"#, "…", .substring("…")),
  ].compactMap { pattern, template, trigger in
    (try? NSRegularExpression(pattern: pattern)).map { ($0, template, trigger) }
  }
  static let longRun = try? NSRegularExpression(pattern: #"[A-Za-z0-9_\-]{12,}"#)

  /// - Parameter guarded: false runs every rule whatever its trigger says: the reference the
  ///   tests hold the guarded masks to.
  static func mask(_ text: String, guarded: Bool = true) -> String {
    var out = text
    // Each trigger is tested on the text as the earlier rules left it, since a replacement
    // can make a later rule match (`abc_12345678…` becomes `abc_……`).
    for (expression, template, trigger) in maskRules where !guarded || trigger.holds(in: out) {
      out = expression.stringByReplacingMatches(
        in: out, range: NSRange(out.startIndex..., in: out), withTemplate: template)
    }
    guard let expression = longRun,
      !guarded || MaskTrigger.run(of: .token, atLeast: 12).holds(in: out)
    else { return out }
    let matches = expression.matches(in: out, range: NSRange(out.startIndex..., in: out))
    for match in matches.reversed() {
      guard let range = Range(match.range, in: out) else { continue }
      let run = out[range]
      // Random ids need not hold a digit (one in eight 12-character ones has none): a
      // mixed-case run as varied as random text is one too.
      let random =
        run.contains(where: \.isNumber)
        || (run.contains(where: \.isUppercase) && run.contains(where: \.isLowercase)
          && SecretShape.entropy(String(run)) >= 3.0)
      guard random else { continue }
      out.replaceSubrange(range, with: "…")
    }
    return out
  }
}

/// What every match of a mask rule contains, cheap to test on the UTF-8 bytes.
enum MaskTrigger {
  enum Characters {
    /// `[0-9a-f]`
    case lowercaseHex
    /// `[A-Za-z0-9_-]`
    case token

    func contains(_ byte: UInt8) -> Bool {
      switch self {
      case .lowercaseHex: return (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
      case .token:
        return (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
          || (0x61...0x7A).contains(byte) || byte == 0x5F || byte == 0x2D
      }
    }
  }

  case substring(String)
  case run(of: Characters, atLeast: Int)
  /// An ASCII digit right before a `-`.
  case digitThenDash

  func holds(in text: String) -> Bool {
    switch self {
    case .substring(let needle):
      return TextSearch.containsBytes(text, needle)
    case .run(let characters, let length):
      var current = 0
      for byte in text.utf8 {
        current = characters.contains(byte) ? current + 1 : 0
        if current >= length { return true }
      }
      return false
    case .digitThenDash:
      var previousIsDigit = false
      for byte in text.utf8 {
        if byte == 0x2D && previousIsDigit { return true }
        previousIsDigit = (0x30...0x39).contains(byte)
      }
      return false
    }
  }
}
