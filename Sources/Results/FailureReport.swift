import Foundation
import QualifyCore
import ResultModel

/// What blocks a release, first: every failing check and every control that did not bite, one
/// line each with a command that reproduces it, grouped by root cause so that one bad line
/// that breaks six scenarios reads as one group naming that line.
public struct FailureReport: Sendable, Codable {
  public struct Failure: Sendable, Codable, Equatable {
    public var scenarioID: String
    public var platform: Platform
    public var title: String
    /// Index of the result in the run's result list (the report's anchor).
    public var result: Int
    /// The control that did not bite, when that is the failure.
    public var control: String?
    /// `failed`, `control-did-not-bite` or `error`.
    public var kind: String
    /// Why, on one line.
    public var reason: String
    /// The file and line the cause comes from (`…/Info.plist:32`), or the scenario file.
    public var location: String?
    /// The command that runs this scenario alone on this platform in the same world.
    public var reproduce: String
    /// What to change so that it holds, when the check knows (a guard's fix).
    public var fix: String?
    /// Attempts with different seeds disagreed (`--repeat`).
    public var flaky: Bool
    /// The waivers that cover it (for a control, the one covering that control).
    public var waivers: [Waiver]
  }

  public struct Group: Sendable, Codable, Equatable {
    /// The root cause in one line.
    public var cause: String
    /// Where it comes from, when a message names a file and line.
    public var location: String?
    /// What to change, from the first of its failures that says.
    public var fix: String?
    public var failures: [Failure]
  }

  /// Groups of failures that block, the largest first.
  public var groups: [Group]
  /// Failures a waiver in force covers.
  public var waived: [Failure]

  public var blocking: [Failure] { groups.flatMap(\.failures) }

  public init(run: RunRecord, results: [ScenarioResult], summary: RunSummary) {
    var failures: [(failure: Failure, key: String, cause: String, proof: Proof)] = []
    for (index, result) in results.enumerated() {
      let reproduce = FailureReport.reproduce(result, run: run)
      let waivers = summary.waived[index] ?? []
      func failure(_ kind: String, _ reason: String, control: String?, location: String?)
        -> Failure
      {
        let covering =
          control.map { name in
            result.waiver(forControl: name, among: waivers).map { [$0] } ?? []
          } ?? waivers
        return Failure(
          scenarioID: result.scenarioID, platform: result.platform, title: result.title,
          result: index, control: control, kind: kind, reason: FailureReport.headline(reason),
          location: location, reproduce: reproduce,
          fix: control == nil ? result.check.fix : nil, flaky: result.isFlaky, waivers: covering)
      }
      switch result.verdict {
      case .failed, .error:
        let cause = RootCause(result.message)
        failures.append(
          (
            failure(
              result.verdict.rawValue, result.message, control: nil,
              location: cause.location ?? result.file),
            cause.key, cause.text, result.proof
          ))
      case .controlDidNotBite:
        for control in result.controls
        where control.outcome == .didNotBite || control.outcome == .bitElsewhere {
          // A control that failed for another reason than stated usually hit the same root
          // cause as the checks around it: it joins that cause's group when one is located.
          let cause = RootCause(control.message)
          let located = control.outcome == .bitElsewhere && cause.location != nil
          failures.append(
            (
              failure(
                "control-did-not-bite", control.message, control: control.name,
                location: located ? cause.location : result.file),
              located ? cause.key : "control \(result.scenarioID) \(control.name)",
              located
                ? cause.text
                : "control \"\(control.name)\" of \(result.scenarioID) does not make it fail: the check proves nothing",
              .simulated
            ))
        }
      case .passed, .notApplicable:
        break
      }
    }
    failures = FailureReport.consequences(failures, results: results)
    waived = failures.map(\.failure).filter { !$0.waivers.isEmpty }
    var order: [String] = []
    var byKey: [String: [(failure: Failure, cause: String, proof: Proof)]] = [:]
    for entry in failures where entry.failure.waivers.isEmpty {
      if byKey[entry.key] == nil { order.append(entry.key) }
      byKey[entry.key, default: []].append((entry.failure, entry.cause, entry.proof))
    }
    groups = order.compactMap { key -> Group? in
      guard let members = byKey[key], let first = members.first else { return nil }
      // A static finding says the cause best: it names the line in the app's own terms.
      let cause = members.first { $0.proof == .static }?.cause ?? first.cause
      let location = key.hasPrefix("at ") ? String(key.dropFirst(3)) : nil
      return Group(
        cause: FailureReport.shortened(cause), location: location,
        fix: members.lazy.compactMap(\.failure.fix).first,
        // The failures that are the cause first, the controls it keeps from biting after.
        failures: members.filter { $0.failure.control == nil }.map(\.failure)
          + members.filter { $0.failure.control != nil }.map(\.failure))
    }
    .enumerated().sorted {
      $0.element.failures.count != $1.element.failures.count
        ? $0.element.failures.count > $1.element.failures.count : $0.offset < $1.offset
    }.map(\.element)
  }

  /// A control that did not bite where the app already fails a check of the same checklist
  /// item on the same platform usually cannot bite *because* of that failure: it switches off a
  /// rule the app already breaks. It joins that failure's group, which names the cause, instead
  /// of heading the report as "the check proves nothing". A static finding is preferred as the
  /// cause (it names the line).
  static func consequences(
    _ failures: [(failure: Failure, key: String, cause: String, proof: Proof)],
    results: [ScenarioResult]
  ) -> [(failure: Failure, key: String, cause: String, proof: Proof)] {
    // A failure of the app, not a harness error: a timeout explains no control.
    let causes = failures.filter {
      $0.failure.control == nil && $0.failure.kind == "failed" && $0.failure.waivers.isEmpty
    }
    return failures.map { entry in
      guard entry.failure.kind == "control-did-not-bite", entry.key.hasPrefix("control "),
        entry.failure.waivers.isEmpty
      else { return entry }
      let items = Set(results[entry.failure.result].checklist)
      let candidates = causes.filter {
        $0.failure.platform == entry.failure.platform
          && !items.isDisjoint(with: results[$0.failure.result].checklist)
      }
      guard let cause = candidates.first(where: { $0.proof == .static }) ?? candidates.first
      else { return entry }
      var failure = entry.failure
      failure.reason =
        "cannot bite while the app already fails \(cause.failure.scenarioID) (checklist item \(items.intersection(results[cause.failure.result].checklist).sorted().map(String.init).joined(separator: ", "))): \(failure.reason)"
      return (failure, cause.key, cause.cause, entry.proof)
    }
  }

  /// `qualify run sso/cross-app --platform ios --channel prod --seed 1 --app DIR`: the
  /// options that rebuild the run's world, as the user must type them.
  public static func reproduce(_ result: ScenarioResult, run: RunRecord) -> String {
    var options =
      run.scope?.reproduceOptions
      ?? ["--channel", run.channel.rawValue, "--seed", String(run.seed), "--app", run.appShown]
    // A flaky result reproduces with the seed of the attempt that failed.
    if let failing = result.attempts.first(where: { $0.verdict != .passed }),
      let index = options.firstIndex(of: "--seed"), index + 1 < options.count
    {
      options[index + 1] = String(failing.seed)
    }
    // A run of a scenario file is reproduced by that file: its id alone may not be in the
    // catalogue the options name.
    let target =
      run.scope?.scenario.flatMap { $0.hasSuffix(".scenario") ? $0 : nil } ?? result.scenarioID
    return
      ([run.scope?.command ?? "qualify", "run", target, "--platform", result.platform.rawValue]
      + options)
      .map(ShellWord.quote).joined(separator: " ")
  }

  /// The first `path/file.ext:line` (or `path/file.ext`) a message names: what groups
  /// failures by root cause.
  public static func location(in text: String) -> String? { RootCause.location(in: text) }

  /// A failure's reason on one line: what did not hold, without the chain of causes its group
  /// already names, at most 200 characters.
  static func headline(_ message: String) -> String {
    var text = oneLine(message)
    if let range = text.range(of: " — after ") { text = String(text[..<range.lowerBound]) }
    return text.count <= 200 ? text : String(text.prefix(199)) + "…"
  }

  /// A cause as a headline: the first 240 characters.
  static func shortened(_ text: String) -> String {
    text.count <= 240 ? text : String(text.prefix(239)) + "…"
  }

  static func oneLine(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline).joined(separator: " ")
  }
}

/// The innermost cause of a failure message: the harness chains causes as `what: why` and
/// `effect — after cause`, so the last link after the last `— after` is where it started;
/// a `file:line` in it is the group's key.
struct RootCause {
  let key: String
  let text: String
  let location: String?

  init(_ message: String) {
    var inner = FailureReport.oneLine(message)
    if let range = inner.range(of: " — after ", options: .backwards) {
      inner = String(inner[range.upperBound...])
    }
    let location = RootCause.location(in: inner) ?? RootCause.location(in: message)
    self.location = location
    if let location, let range = inner.range(of: location + ": ") {
      text = location + ": " + inner[range.upperBound...]
    } else {
      let segments = inner.components(separatedBy: ": ").filter {
        !$0.trimmingCharacters(in: .whitespaces).isEmpty
      }
      let last = segments.last ?? inner
      // A short last link reads better with the one it qualifies ("downloading … failed:
      // not recorded, the next check retries").
      text =
        last.count < 80 && segments.count > 1 ? segments.suffix(2).joined(separator: ": ") : last
    }
    key =
      location.map { "at " + $0 }
      ?? "cause "
      + RunDiff.mask(
        inner.components(separatedBy: ": ").last(where: {
          !$0.trimmingCharacters(in: .whitespaces).isEmpty
        }) ?? inner)
  }

  /// The first `path/file.ext:line` (or `path/file.ext`) in `text`; never a URL.
  static func location(in text: String) -> String? {
    let delimiters = CharacterSet.whitespacesAndNewlines.union(
      CharacterSet(charactersIn: "\"'(),;“”"))
    for raw in text.components(separatedBy: delimiters) {
      // Punctuation after a path ends a sentence; before it, `..` climbs a folder.
      var token = Substring(raw)
      while let last = token.last, ":.!?".contains(last) { token = token.dropLast() }
      while token.first == ":" { token = token.dropFirst() }
      let text = String(token)
      guard !text.contains("://"), text.contains("/"),
        text.range(
          of: #"^[^:]*/[^:/]+\.[A-Za-z][A-Za-z0-9]*(:[0-9]+)?$"#, options: .regularExpression)
          != nil
      else { continue }
      return text
    }
    return nil
  }
}

/// Quoting for a POSIX shell: a word that needs it goes in single quotes.
public enum ShellWord {
  public static func quote(_ word: String) -> String {
    let safe = word.unicodeScalars.allSatisfy {
      CharacterSet.alphanumerics.contains($0) || "-_./=:@%+,".unicodeScalars.contains($0)
    }
    if safe && !word.isEmpty { return word }
    return "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
  }
}

/// A `path/file.ext:line` location split into its file and line (nil when it names none).
public struct SourcePlace: Sendable, Equatable {
  public var file: String
  public var line: Int?

  public init?(_ location: String) {
    guard !location.isEmpty else { return nil }
    if let colon = location.lastIndex(of: ":"),
      let line = Int(location[location.index(after: colon)...])
    {
      file = String(location[..<colon])
      self.line = line
    } else {
      file = location
      line = nil
    }
  }
}
