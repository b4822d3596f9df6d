import Foundation
import QualifyCore
import ResultModel

/// What a run was asked to cover: the whole catalogue for the channel, or less. Only a full
/// run may say QUALIFIED (DESIGN.md, *Decisions*: the verdict never claims more than was
/// checked).
public struct RunScope: Sendable, Codable, Equatable {
  public var filters: [String] = []
  public var tags: [String] = []
  /// `I/N` of `--shard`.
  public var shard: String?
  /// The scenario `qualify run` named.
  public var scenario: String?
  public var platforms: [Platform] = Platform.allCases
  public var controls = true
  /// `--no-engines`: the real browser engines were not started (checklist item 3 not covered).
  public var enginesOff: Bool?
  /// Set when the channel's env fell back to dev defaults.
  public var envWarning: String?
  /// Scenario runs selected, and how many the whole catalogue has for the channel.
  public var selectedRuns = 0
  public var catalogueRuns = 0
  /// For each checklist item (as text), the platforms on which the whole catalogue has a
  /// check proving it on this channel: a partial run's cell then reads "not run" rather
  /// than "not covered".
  public var catalogueItems: [String: [Platform]] = [:]
  /// What the run could not verify and says so (the OTA key pairing without the real key).
  public var caveats: [String] = []
  /// The waivers the app repository declared when the run started (expired ones included,
  /// marked), nil when it has no waiver file.
  public var waivers: [Waiver]?
  /// The options that rebuild this run's world: `--channel prod --seed 1 --app DIR` and any
  /// env files; a failure's reproduce command is `qualify run <id> --platform <p>` + these.
  public var reproduceOptions: [String]?
  /// How qualify was invoked (`.build/debug/qualify`): reproduce commands start with it, so
  /// they work typed as printed where `qualify` is not on the PATH.
  public var command: String?
  /// `--repeat N`: how many attempts each scenario had.
  public var repeats: Int?
  /// `--scenarios DIR` when it is not the bundled catalogue: a run of another catalogue
  /// proves what that catalogue checks, not the release checklist, so it is partial.
  public var scenarioFolder: String?
  /// The SHA-256 of every scenario file the catalogue was read from (path and digest, sorted):
  /// which checks a verdict rests on, for an attestation.
  public var catalogueDigest: String?
  /// The issuer of the real IdP the run used (`--stack`), nil when it was the mock.
  public var realIdentityProvider: String?
  /// `--fail-fast` was on (the run is partial when it stopped early).
  public var failFast: Bool?
  /// Set when the run stopped before every selected run was recorded (`--fail-fast`).
  public var stoppedEarly: String?
  /// Env files the pipeline gave (`--backend-env`, `--frontend-env`), with their digests:
  /// they decide the build as much as the app's files do.
  public var pipelineEnvFiles: [AppFileDigest]?
  /// The app's shell kind (`ShellKind.id`), nil for seed 000's single-origin shell: which
  /// release checklist the run is judged against.
  public var shell: String?

  /// The run is on a release channel (staging, prod): a reduction the app or the
  /// environment made keeps it from exiting 0 (`RunSummary.gateRefuses`).
  public var releaseChannel: Bool?
  /// `--allow-partial`: an exploratory run whose partial verdict exits 0 whatever made it
  /// partial.
  public var allowPartial: Bool?

  /// `qualify merge`: the shards this run was made of (`2/4 <run id>`), nil for a run of one
  /// process.
  public var mergedFrom: [String]?

  /// What was qualified: the store identity and version of each platform's build, the OTA
  /// bundle and the commit (`ReleaseRecord`).
  public var release: ReleaseRecord?

  /// The shell kind the run's checklist is that of.
  public var shellKind: ShellKind { shell.flatMap(ShellKind.named) ?? .default }

  public init() {}

  /// `catalogueItems` as the coverage reads it.
  public var catalogue: [Int: Set<Platform>] {
    var out: [Int: Set<Platform>] = [:]
    for (key, platforms) in catalogueItems {
      if let item = Int(key) { out[item] = Set(platforms) }
    }
    return out
  }

  /// What makes the run partial, one phrase each (`filter sso/*`, `ios only`).
  public var limits: [String] {
    var out: [String] = []
    if let scenario { out.append("scenario \(scenario)") }
    if !filters.isEmpty { out.append("filter \(filters.joined(separator: ", "))") }
    if !tags.isEmpty { out.append("tag \(tags.joined(separator: ", "))") }
    if let shard { out.append("shard \(shard)") }
    if Set(platforms) != Set(Platform.allCases) {
      out.append(platforms.map(\.rawValue).joined(separator: ", ") + " only")
    }
    if !controls { out.append("controls off") }
    if enginesOff == true { out.append("engines off") }
    if let stoppedEarly { out.append(stoppedEarly) }
    if let scenarioFolder {
      out.append("scenarios from \(scenarioFolder), not the bundled catalogue")
    }
    if envWarning != nil { out.append("channel env not supplied") }
    return out
  }

  public var isFull: Bool { limits.isEmpty }
}

/// The verdict of a whole run, from its scenario results and its scope.
public struct RunSummary: Sendable {
  public var counts: [Verdict: Int]
  public var total: Int
  /// Controls that bit, out of those that ran.
  public var controlsBitten: Int
  public var controlsRun: Int
  public var scope: RunScope
  /// Results that are not applicable for a reason that makes the run partial (a feature the
  /// profile does not declare unused, an env not supplied), with their reasons.
  public var partialReasons: [String]
  /// Failing results a waiver in force covers, by index, with their waiver: they show as
  /// waived and do not block.
  public var waived: [Int: [Waiver]]
  /// Waivers in force that covered nothing in this run, and those past their expiry.
  public var unusedWaivers: [Waiver]
  public var expiredWaivers: [Waiver]

  public init(_ results: [ScenarioResult], scope: RunScope = RunScope()) {
    var counts: [Verdict: Int] = [:]
    for result in results { counts[result.verdict, default: 0] += 1 }
    self.counts = counts
    timeouts =
      results.filter { result in
        result.verdict == .error
          && (result.check.timedOut || result.controls.contains { $0.execution?.timedOut == true })
      }.count
    outages =
      results.filter { result in
        result.verdict == .error
          && (result.check.stoppedByOutage
            || result.controls.contains { $0.execution?.stoppedByOutage == true })
      }.count
    let waivers = scope.waivers ?? []
    var waived: [Int: [Waiver]] = [:]
    var refused: [Waiver] = []
    let storeItems = Set(scope.shellKind.checklist.filter(\.guardsStoreBuild).map(\.number))
    for (index, result) in results.enumerated() {
      // On a release channel a store-build guard is waived only by a waiver that says so.
      let guardsStore =
        scope.releaseChannel == true && result.checklist.contains(where: storeItems.contains)
      let usable = waivers.filter { !guardsStore || $0.allowOnRelease == true }
      if let covering = result.waivers(among: usable) {
        waived[index] = covering
      } else if let covering = result.waivers(among: waivers) {
        refused += covering.filter { !refused.contains($0) }
      }
    }
    self.waived = waived
    refusedWaivers = refused
    flaky = results.filter(\.isFlaky).count
    expiredWaivers = waivers.filter(\.expired)
    // A waiver of a check this run did not run is neither used nor unused: a partial run
    // says nothing about it.
    let checksRun = Set(results.map(\.scenarioID))
    unusedWaivers = waivers.filter { waiver in
      !waiver.expired && checksRun.contains(waiver.check)
        && !results.contains { result in
          result.waivers(among: [waiver]) != nil
            || (result.verdict == .controlDidNotBite
              && result.controls.contains {
                ($0.outcome == .didNotBite || $0.outcome == .bitElsewhere)
                  && waiver.covers(control: $0.name, of: result)
              })
        }
    }
    total = results.count
    let ran = results.flatMap(\.controls).filter { $0.outcome != .notRun }
    controlsRun = ran.count
    controlsBitten = ran.filter { $0.outcome == .bit }.count
    self.scope = scope
    partialReasons = RunSummary.partialReasons(results, scope: scope)
  }

  /// What the app or the environment left out of the run, once each, in the order met.
  static func partialReasons(_ results: [ScenarioResult], scope: RunScope) -> [String] {
    var reasons: [String] = []
    for result in results where result.verdict == .notApplicable {
      // Left out by the app's own declaration or by the user's --no-engines: not a reduction
      // the environment made.
      guard
        ![.declared, .notInRelease, .noThreadView, .enginesOff].contains(
          result.notApplicableCause)
      else {
        continue
      }
      let reason: String
      if result.message.hasPrefix("OTA is not enabled") {
        reason = "OTA not enabled in this build (declare features.ota in qualify.json)"
      } else if result.message.hasPrefix("push is not enabled") {
        reason = "push not enabled in this build (declare features.push in qualify.json)"
      } else if result.notApplicableCause == .unverified
        || result.message.contains("unverified at ")
        || result.message.contains(" was not read")
      {
        // A decision qualify could not read, or code it found nowhere to read (a hybrid
        // container without sources): unverified, not an env left out.
        reason = RunSummary.unverifiedReason
      } else if result.notApplicableCause == .realSystem {
        reason = RunSummary.realSystemReason
      } else if result.notApplicableCause == .renderUnavailable {
        // "not covered: engine not installed — WebKit, …: … (apt-get install …)"
        reason = result.message.replacingOccurrences(of: "not covered: ", with: "")
      } else {
        reason = "channel env not supplied"
      }
      if !reasons.contains(reason)
        && !(reason == "channel env not supplied" && scope.envWarning != nil)
      {
        reasons.append(reason)
      }
    }
    return reasons
  }

  /// A decision of the app's code that qualify could not read (issue 23): the scenario that
  /// rests on it is not proven.
  public static let unverifiedReason =
    "a decision in the app's code qualify cannot read (unverified; check-app --explain shows where)"

  /// Waivers that would cover a store-build guard's failure on a release channel but do not
  /// say `allowOnRelease`: the failure blocks, and the run says why.
  public var refusedWaivers: [Waiver] = []

  /// Scenario runs whose attempts disagreed (`--repeat`).
  public var flaky: Int

  /// What the release owner must hear about the waivers: those past their expiry, and those
  /// that covered nothing.
  public var waiverNotes: [String] {
    expiredWaivers.map {
      "expired waiver \($0.label) (\($0.location ?? "qualify-waivers.json"), owner \($0.owner), expired after \($0.expires)): it no longer covers anything"
    }
      + unusedWaivers.map {
        "unused waiver \($0.label) (\($0.location ?? "qualify-waivers.json"), owner \($0.owner)): nothing it covers failed in this run; remove it"
      }
      + refusedWaivers.map {
        "waiver \($0.label) (\($0.location ?? "qualify-waivers.json"), owner \($0.owner)) does not cover it on a release channel: the check guards what a store build ships; add \"allowOnRelease\": true if its owner accepts shipping that"
      }
  }

  /// The distinct waivers that covered a failure of this run.
  public var appliedWaivers: [Waiver] {
    var out: [Waiver] = []
    for waiver in waived.keys.sorted().flatMap({ waived[$0] ?? [] }) where !out.contains(waiver) {
      out.append(waiver)
    }
    return out
  }

  /// Failures that block: failed checks and controls that did not bite, less the waived.
  public var failures: Int {
    counts[.failed, default: 0] + counts[.controlDidNotBite, default: 0] - waived.count
  }
  public var passed: Int { counts[.passed, default: 0] }
  public var notApplicable: Int { counts[.notApplicable, default: 0] }

  /// Nothing failed and something passed.
  public var clean: Bool {
    total > 0 && failures == 0 && counts[.error, default: 0] == 0 && passed > 0
  }

  /// A clean full run: every scenario for the channel, both platforms, controls on, nothing
  /// left out for a reason the profile does not state — and every run of the catalogue
  /// recorded (a run stopped early, by `--fail-fast` or anything else, proves only what ran).
  public var qualified: Bool {
    clean && scope.isFull && partialReasons.isEmpty
      && (scope.catalogueRuns == 0 || total >= scope.catalogueRuns)
      && total >= scope.selectedRuns
  }

  /// What makes a clean run partial.
  public var partiality: [String] {
    var out = scope.limits
    out += partialReasons
    if scope.catalogueRuns > 0 && total < scope.catalogueRuns {
      out.append("\(total) of \(scope.catalogueRuns) runs")
    } else if total < scope.selectedRuns {
      out.append("\(total) of \(scope.selectedRuns) runs")
    }
    return out
  }

  /// The phrase for scenarios left out because `--stack` makes a part real: a reduction the
  /// user chose on the command line.
  static let realSystemReason =
    "scenarios that need a mock where the stack is real left out (--stack)"

  /// What makes the run partial that nobody asked for on the command line: the app or the
  /// environment left it out (a channel env not supplied, a feature neither enabled nor
  /// declared unused, runs missing from a run that selected everything). `--filter`, `--tag`,
  /// `--platform`, `--shard`, `--no-controls`, `run`, `--scenarios` and `--stack` are the
  /// user's own.
  public var unrequestedReductions: [String] {
    var out: [String] = []
    if scope.envWarning != nil { out.append("channel env not supplied") }
    for reason in partialReasons where reason != RunSummary.realSystemReason {
      if !out.contains(reason) { out.append(reason) }
    }
    let selected = scope.limits.filter { $0 != "channel env not supplied" }
    if selected.isEmpty && scope.catalogueRuns > 0 && total < scope.catalogueRuns {
      out.append("\(total) of \(scope.catalogueRuns) runs")
    }
    return out
  }

  /// A clean but partial run on a release channel whose partiality the app or the
  /// environment caused: a CI gate must not let it through (exit 1), unless the user asked
  /// for an exploratory run (`--allow-partial`).
  public var gateRefuses: Bool {
    clean && !qualified && scope.releaseChannel == true && scope.allowPartial != true
      && !unrequestedReductions.isEmpty
  }

  /// What the run could not verify and says so, in the order the console prints it: the env
  /// that fell back, the run's caveats, and the kind's release caveat on a release channel.
  /// The report, the Markdown summary and JUnit carry the same list.
  public func caveats(channel: Channel) -> [String] {
    var out: [String] = []
    if let warning = scope.envWarning { out.append(warning) }
    out += scope.caveats
    if let caveat = ReleaseChecklist.caveat(of: scope, channel: channel) { out.append(caveat) }
    return out
  }

  /// Scenario runs that ended in an error because an execution ran out of time.
  public var timeouts: Int = 0
  /// Scenario runs that ended in an error because a real system (`--stack`) failed.
  public var outages: Int = 0

  /// `0` qualified, or passed (partial) by the user's own selection; `1` not qualified (a run
  /// that timed out proves nothing either, nor does a release-channel run the app or the
  /// environment made partial); `4` when only real systems' outages stand in the way, `3` when
  /// harness errors do.
  public var exitCode: ExitCode {
    if clean { return gateRefuses ? .notQualified : .qualified }
    let errors = counts[.error, default: 0]
    if failures == 0 && errors > 0 && errors == outages { return .environment }
    if failures == 0 && errors > 0 && errors > timeouts { return .internalError }
    return .notQualified
  }

  public var status: RunRecord.Status {
    if qualified { return .qualified }
    if clean { return .partial }
    switch exitCode {
    case .internalError, .environment: return .error
    default: return .notQualified
    }
  }

  /// `QUALIFIED`, `PASSED (partial: filter sso/*, ios only, 2 of 74 runs)`, `NOT QUALIFIED`,
  /// `ERROR`.
  public var headline: String {
    let applied = appliedWaivers.count
    let onRelease = appliedWaivers.filter {
      $0.allowOnRelease == true && scope.releaseChannel == true
    }
    let withWaivers =
      applied == 0
      ? ""
      : " with \(applied) waiver\(applied == 1 ? "" : "s")"
        + (onRelease.isEmpty
          ? "" : " (waiving store-build guards: \(onRelease.map(\.label).joined(separator: ", ")))")
    switch status {
    case .qualified: return "QUALIFIED" + withWaivers
    case .partial: return "PASSED (partial: \(partiality.joined(separator: ", ")))" + withWaivers
    case .error: return "ERROR"
    case .running: return "IN PROGRESS"
    case .aborted: return "ABORTED"
    case .notQualified: return "NOT QUALIFIED"
    }
  }
}
