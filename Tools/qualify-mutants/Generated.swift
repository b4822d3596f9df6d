import Foundation
import MutationEngine

/// A survivor reviewed and recorded as equivalent: no observable behaviour changes.
struct Equivalent: Codable {
  var id: String
  var file: String
  var reason: String
  /// `equivalent`: nothing observable changes; `loud`: the build, the install or the upload
  /// fails loudly, which is not the silent regression qualify exists to catch.
  var kind: String?
}

/// The generated half of `make mutants` (issue 23, C): a seeded sample of operator mutants of
/// the world's sources and of the bundled apps' files, each judged by full prod runs.
struct GeneratedRun {
  let root: URL
  let scratch: URL
  let count: Int
  let seed: UInt64
  let record: Bool
  /// Baseline exit statuses by app and channel, and of each regression fixture's scenario.
  var baselines: [String: Int32] = [:]
  var fixtureBaselines: [String: FixtureVerdict] = [:]
  /// Print the sample and stop: what would be judged.
  var listOnly = false
  /// `MUTANTS_AREA=world` or `apps`: judge that half of the sample alone.
  var area = ""
  /// `--only=ID,…`: those generated mutants alone (and the catalogue's of those names).
  var only: Set<String>?
  /// The catalogue's harmless refactors: the same app written in another idiom a reader must
  /// accept. A reader or guard mutant that turns one of them away is noticed.
  var harmless: [Catalogue.Mutant] = []
  var harmlessBaselines: [String: Int32] = [:]

  /// The simulated world and the readers: a bug there changes what every app is told.
  static let worldRoots = ["Sources/MockStack", "Sources/Devices", "Sources/Artifacts"]
  /// The bundled apps (the regression fixtures are mutants already).
  static let apps = [
    "messages", "messages-simple", "appplatform", "openmapx", "sovereign", "heymoov",
  ]

  enum Verdict: String, Codable {
    /// The verdict of some run changed.
    case killed
    /// Nothing noticed.
    case survived
    /// Nothing noticed, and qualify's reading of the app never names the file.
    case suspected = "equivalent-suspected"
    /// Recorded as equivalent in Mutants/equivalent.json, with a reason.
    case equivalent
    /// Recorded as loud: the build or the upload fails, nothing ships.
    case loud
    /// The mutated harness does not compile: not a mutant of any behaviour.
    case stillborn
  }

  struct Outcome: Codable {
    var id: String
    var area: String
    var kind: String
    var file: String
    var line: Int
    var `operator`: String
    var before: String
    var after: String
    var verdict: Verdict
    /// The run that noticed it (app or fixture and its headline), or the reason recorded.
    var note: String?
  }

  // MARK: The sample

  /// Every candidate of an area, files in a fixed order.
  func candidates(under roots: [String], skipping: (String) -> Bool = { _ in false })
    -> [Mutation]
  {
    var mutations: [Mutation] = []
    for base in roots {
      let directory = root.appendingPathComponent(base)
      guard
        let enumerator = fileManager.enumerator(
          at: directory, includingPropertiesForKeys: [.isRegularFileKey])
      else { continue }
      var files: [String] = []
      for case let url as URL in enumerator {
        guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true
        else { continue }
        let relative = base + url.path.dropFirst(directory.path.count)
        if !skipping(relative) { files.append(relative) }
      }
      for file in files.sorted() {
        guard
          let text = try? String(
            contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        else { continue }
        mutations += MutationGenerator.mutations(file: file, text: text)
      }
    }
    return mutations
  }

  static func appName(of file: String) -> String? {
    let parts = file.split(separator: "/")
    guard parts.count > 2, parts[0] == "Scenarios", parts[1] == "apps" else { return nil }
    return String(parts[2])
  }

  /// What a world file belongs to, and the shell kind it serves.
  static func area(of file: String) -> (area: String, kind: String) {
    let parts = file.split(separator: "/").map(String.init)
    if let app = appName(of: file) { return ("apps/" + app, "") }
    let area = parts.count > 3 ? parts[1] + "/" + parts[2] : parts[1]
    let kinds = [
      "Bridge": "react-native-bridge", "Instance": "multi-instance", "Hybrid": "hybrid-webview",
      "Session": "session-contract",
    ]
    let kind = kinds.first { key, _ in file.contains("/" + key) || file.contains("+" + key) }?
      .value
    return (area, kind ?? "capacitor")
  }

  func shellKind(ofApp app: String) -> String {
    let profile = root.appendingPathComponent("Scenarios/apps/\(app)/qualify.json")
    guard let data = try? Data(contentsOf: profile),
      let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { return "capacitor" }
    return object["shell"] as? String ?? "capacitor"
  }

  // MARK: Running

  func qualify(app: URL, arguments: [String] = [], environment: [String: String] = [:]) throws
    -> (status: Int32, headline: String)
  {
    let (status, headline, _) = try qualifyWithOutput(
      app: app, arguments: arguments, environment: environment)
    return (status, headline)
  }

  func qualifyWithOutput(
    app: URL, arguments: [String] = [], environment: [String: String] = [:]
  ) throws -> (status: Int32, headline: String, output: String) {
    let base = [
      "--seed", "1", "--jobs", "2",
      "--db", scratch.appendingPathComponent("generated.sqlite").path,
      "--report-dir", scratch.appendingPathComponent("generated-reports").path,
      "--app", app.path,
    ]
    let result = try run(
      scratch.appendingPathComponent(".build/debug/qualify").path, base + arguments,
      in: scratch, environment: environment, timeout: 120)
    let headline =
      result.output.split(separator: "\n").last {
        $0.contains("QUALIFIED") || $0.hasPrefix("PASSED") || $0.hasPrefix("ERROR")
      }.map(String.init) ?? result.output.split(separator: "\n").last.map(String.init) ?? ""
    return (result.status, headline, result.output)
  }

  /// A regression fixture, run on the scenario it breaks: it must keep failing.
  struct Fixture: Decodable {
    var name = ""
    var breaks: String
    var platform: String
    var file: String
    var value: String
    var failsOn: [String]
    var environment: [String: String]?

    enum CodingKeys: String, CodingKey {
      case breaks, platform, file, value, failsOn, environment
    }
  }

  /// How a fixture was caught: its exit status, and whether the message under its scenario's
  /// FAIL line still names the file and the value (the contract RegressionFixtureTests hold
  /// every fixture to) — a mutant that only garbles what a release manager is told is noticed.
  struct FixtureVerdict: Equatable {
    var status: Int32
    var named: Bool
    /// `check-app --json`'s findings as CI consumes them: rule, severity, place and value of
    /// each (the prose may change; what an annotation points at and shows may not).
    var findings: [String]
  }

  /// One line per finding of `check-app --json` output: rule, severity, file:line:column, value.
  static func findingKeys(_ json: String) -> [String] {
    guard let data = json.data(using: .utf8),
      let list = (try? JSONSerialization.jsonObject(with: data)) as? [[String: Any]]
    else { return ["unreadable: \(json.prefix(200))"] }
    return list.map { finding in
      let location = finding["location"] as? [String: Any]
      let place = location.map {
        "\($0["file"] ?? ""):\($0["line"] ?? ""):\($0["column"] ?? "")"
      }
      return [
        finding["rule"], finding["platform"], finding["severity"], place, finding["value"],
      ].map { $0.map { "\($0)" } ?? "-" }.joined(separator: " ")
    }.sorted()
  }

  func fixtures() throws -> [Fixture] {
    let directory = scratch.appendingPathComponent("Scenarios/apps/regressions")
    let names = (try? fileManager.contentsOfDirectory(atPath: directory.path))?.sorted() ?? []
    return try names.compactMap { name in
      guard
        let data = try? Data(
          contentsOf: directory.appendingPathComponent("\(name)/regression.json"))
      else { return nil }
      // A fixture the judge cannot read would silently stop guarding anything.
      do {
        var fixture = try JSONDecoder().decode(Fixture.self, from: data)
        fixture.name = name
        return fixture
      } catch {
        throw Failure(description: "\(name)/regression.json: \(error)")
      }
    }
  }

  func runFixture(_ fixture: Fixture) throws -> (verdict: FixtureVerdict, headline: String) {
    let (status, headline, output) = try qualifyWithOutput(
      app: scratch.appendingPathComponent("Scenarios/apps/regressions/\(fixture.name)"),
      arguments: [
        "--channel", fixture.failsOn.first ?? "prod", "--filter", fixture.breaks, "--platform",
        fixture.platform,
      ], environment: fixture.environment ?? [:])
    let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
    let header = "FAIL \(fixture.breaks) [\(fixture.platform)]"
    let named =
      lines.firstIndex { $0.hasPrefix(header) }.map { index in
        index + 1 < lines.count && lines[index + 1].contains(fixture.file)
          && lines[index + 1].contains(fixture.value)
      } ?? false
    let checked = try run(
      scratch.appendingPathComponent(".build/debug/qualify").path,
      [
        "check-app", "--json", "--app",
        scratch.appendingPathComponent("Scenarios/apps/regressions/\(fixture.name)").path,
        "--channel", fixture.failsOn.first ?? "prod", "--platform", fixture.platform,
      ], in: scratch, environment: fixture.environment ?? [:], timeout: 60)
    let findings = Self.findingKeys(checked.output)
    return (FixtureVerdict(status: status, named: named, findings: findings), headline)
  }

  func build() throws -> Bool {
    try run("/usr/bin/env", ["swift", "build", "--product", "qualify"], in: scratch).status == 0
  }

  /// The files qualify names when it reads an app (`check-app --explain`, the run's findings):
  /// a survivor in a file it never names is suspected equivalent, not reviewed.
  func namedFiles(app: String) throws -> String {
    let directory = scratch.appendingPathComponent("Scenarios/apps/\(app)")
    let explain = try run(
      scratch.appendingPathComponent(".build/debug/qualify").path,
      ["check-app", "--explain", "--app", directory.path], in: scratch)
    return explain.output
  }

  mutating func execute() throws -> Bool {
    let world = candidates(under: Self.worldRoots)
    let apps = candidates(under: Self.apps.map { "Scenarios/apps/\($0)" }) {
      $0.hasSuffix("/qualify.json") || $0.contains("-under-mutation/")
    }
    let worldShare = count / 2
    let drawn =
      (area == "apps" ? [] : sample(world, count: worldShare, seed: seed))
      + (area == "world" ? [] : sample(apps, count: count - worldShare, seed: seed))
    let chosen = drawn.filter { only?.contains($0.id) ?? true }
    say(
      "\ngenerated mutants: \(chosen.count) of \(world.count) world and \(apps.count) app candidates (MUTANTS_N=\(count), MUTANTS_SEED=\(seed))"
    )
    if listOnly {
      for mutation in chosen {
        say("\(mutation.id) \(mutation.file):\(mutation.line) [\(mutation.operator.rawValue)]")
        say("  - \(mutation.before.trimmingCharacters(in: .whitespaces))")
        say("  + \(mutation.after.trimmingCharacters(in: .whitespaces))")
      }
      return true
    }
    let equivalents: [String: Equivalent] = {
      let url = root.appendingPathComponent("Mutants/equivalent.json")
      guard let data = try? Data(contentsOf: url),
        let list = try? JSONDecoder().decode([Equivalent].self, from: data)
      else { return [:] }
      return Dictionary(list.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }()

    guard try build() else { throw Failure(description: "the unmutated harness does not build") }
    for app in Self.apps {
      let (status, headline) = try qualify(
        app: scratch.appendingPathComponent("Scenarios/apps/\(app)"),
        arguments: ["--channel", "prod"])
      guard status == 0 else {
        throw Failure(description: "baseline: \(app) does not qualify on prod: \(headline)")
      }
      baselines["\(app)@prod"] = status
      for channel in channels(ofApp: app) where channel != "prod" {
        _ = try baseline(app: app, channel: channel)
      }
    }
    let fixtureList = try fixtures()
    var named: [String: String] = [:]
    var outcomes: [Outcome] = []
    var stale = false
    // World mutants first, ordered by file, so that consecutive rebuilds touch one module.
    for mutation in chosen.sorted(by: { ($0.file, $0.offset) < ($1.file, $1.offset) }) {
      let (area, worldKind) = Self.area(of: mutation.file)
      let appName = Self.appName(of: mutation.file)
      let kind = appName.map(shellKind(ofApp:)) ?? worldKind
      var outcome = Outcome(
        id: mutation.id, area: area, kind: kind, file: mutation.file, line: mutation.line,
        operator: mutation.operator.rawValue, before: mutation.before, after: mutation.after,
        verdict: .survived)
      let started = Date()
      if let appName {
        if stale {
          _ = try build()
          stale = false
        }
        outcome = try judgeApp(mutation, app: appName, outcome: outcome)
        if outcome.verdict == .survived {
          if named[appName] == nil { named[appName] = try namedFiles(app: appName) }
          let relative = String(mutation.file.dropFirst("Scenarios/apps/\(appName)/".count))
          if !(named[appName] ?? "").contains(relative) {
            outcome.verdict = .suspected
            outcome.note = "qualify's reading of \(appName) never names \(relative)"
          }
        }
      } else {
        outcome = try judgeWorld(mutation, fixtures: fixtureList, outcome: outcome)
        stale = true
      }
      if outcome.verdict == .survived || outcome.verdict == .suspected,
        let equivalent = equivalents[mutation.id]
      {
        outcome.verdict = equivalent.kind == "loud" ? .loud : .equivalent
        outcome.note = equivalent.reason
      }
      let seconds = String(format: "%5.1fs", Date().timeIntervalSince(started))
      say(
        "\(outcome.verdict.rawValue.padding(toLength: 20, withPad: " ", startingAt: 0)) \(seconds) \(mutation.file):\(mutation.line) \(mutation.operator.rawValue)\(outcome.note.map { "  — \($0)" } ?? "")"
      )
      outcomes.append(outcome)
    }
    if stale { _ = try build() }
    report(outcomes)
    if record {
      // The whole sample, whatever MUTANTS_AREA judged: the other half keeps its verdicts.
      let whole =
        sample(world, count: worldShare, seed: seed)
        + sample(apps, count: count - worldShare, seed: seed)
      try write(outcomes, sample: Set(whole.map(\.id)), equivalents: equivalents)
    }
    return !outcomes.contains { $0.verdict == .survived || $0.verdict == .suspected }
  }

  mutating func judgeApp(_ mutation: Mutation, app: String, outcome: Outcome) throws -> Outcome {
    var outcome = outcome
    let original = scratch.appendingPathComponent("Scenarios/apps/\(app)")
    // Beside the original, so that a relative `base` still resolves.
    let copy = original.deletingLastPathComponent().appendingPathComponent(
      "\(app)-under-mutation")
    try? fileManager.removeItem(at: copy)
    try fileManager.copyItem(at: original, to: copy)
    defer { try? fileManager.removeItem(at: copy) }
    let relative = String(mutation.file.dropFirst("Scenarios/apps/\(app)/".count))
    let target = copy.appendingPathComponent(relative)
    let text = try String(contentsOf: target, encoding: .utf8)
    guard let mutated = mutation.apply(to: text) else {
      throw Failure(description: "mutant \(mutation.id) no longer applies to \(mutation.file)")
    }
    try mutated.write(to: target, atomically: true, encoding: .utf8)
    // Every channel the app declares, prod first: a mistake in the dev channel's env or in the
    // dev identity provider's realm is seen on dev.
    for channel in channels(ofApp: app) {
      let expected = try baseline(app: app, channel: channel)
      let (status, headline) = try qualify(app: copy, arguments: ["--channel", channel])
      if status != expected {
        outcome.verdict = .killed
        outcome.note = "\(app) on \(channel): \(headline)"
        return outcome
      }
    }
    return outcome
  }

  func channels(ofApp app: String) -> [String] {
    let profile = root.appendingPathComponent("Scenarios/apps/\(app)/qualify.json")
    guard let data = try? Data(contentsOf: profile),
      let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let declared = (object["channels"] as? [String: Any])?.keys
    else { return ["prod"] }
    return ["prod"] + declared.filter { $0 != "prod" }.sorted()
  }

  /// The unmutated app's exit status on a channel (0 qualified, 1 not), computed once.
  mutating func baseline(app: String, channel: String) throws -> Int32 {
    let key = "\(app)@\(channel)"
    if let known = baselines[key] { return known }
    let (status, headline) = try qualify(
      app: scratch.appendingPathComponent("Scenarios/apps/\(app)"),
      arguments: ["--channel", channel])
    guard status == 0 || status == 1 else {
      throw Failure(description: "the baseline of \(key) did not run to a verdict: \(headline)")
    }
    baselines[key] = status
    return status
  }

  mutating func judgeWorld(_ mutation: Mutation, fixtures: [Fixture], outcome: Outcome) throws
    -> Outcome
  {
    var outcome = outcome
    let target = scratch.appendingPathComponent(mutation.file)
    let text = try String(contentsOf: target, encoding: .utf8)
    guard let mutated = mutation.apply(to: text) else {
      throw Failure(description: "mutant \(mutation.id) no longer applies to \(mutation.file)")
    }
    try mutated.write(to: target, atomically: true, encoding: .utf8)
    defer { try? text.write(to: target, atomically: true, encoding: .utf8) }
    guard try build() else {
      outcome.verdict = .stillborn
      return outcome
    }
    // The apps of the mutated kind first: most mutants are noticed by the first run.
    let ordered = Self.apps.sorted { first, second in
      (shellKind(ofApp: first) == outcome.kind ? 0 : 1, first)
        < (shellKind(ofApp: second) == outcome.kind ? 0 : 1, second)
    }
    for app in ordered {
      let (status, headline) = try qualify(
        app: scratch.appendingPathComponent("Scenarios/apps/\(app)"),
        arguments: ["--channel", "prod"])
      if status != 0 {
        outcome.verdict = .killed
        outcome.note = "\(app): \(headline)"
        return outcome
      }
    }
    // The other channels of the apps that declare them: the dev identity provider, a
    // staging env.
    for app in Self.apps {
      for channel in channels(ofApp: app) where channel != "prod" {
        let expected = baselines["\(app)@\(channel)"] ?? 0
        let (status, headline) = try qualify(
          app: scratch.appendingPathComponent("Scenarios/apps/\(app)"),
          arguments: ["--channel", channel])
        if status != expected {
          outcome.verdict = .killed
          outcome.note = "\(app) on \(channel): \(headline)"
          return outcome
        }
      }
    }
    // A reader, guard or simulated shell that turned lenient lets a known-bad app through: a
    // fixture's bug is read from its files and then lived by the shells and the servers.
    if fixtureBaselines.isEmpty {
      // Each fixture's own verdict with the unmutated harness, built once more for it.
      let mutatedText = try String(contentsOf: target, encoding: .utf8)
      try text.write(to: target, atomically: true, encoding: .utf8)
      guard try build() else { throw Failure(description: "the unmutated harness does not build") }
      for fixture in fixtures { fixtureBaselines[fixture.name] = try runFixture(fixture).verdict }
      for refactor in harmless {
        let (status, headline) = try runHarmless(refactor)
        // A refactor the unmutated harness already refuses proves nothing about a mutant.
        guard status == 0 else {
          throw Failure(
            description: "harmless refactor \(refactor.id) does not qualify unmutated: \(headline)")
        }
        harmlessBaselines[refactor.id] = status
      }
      try mutatedText.write(to: target, atomically: true, encoding: .utf8)
      _ = try build()
    }
    for fixture in fixtures {
      let (verdict, headline) = try runFixture(fixture)
      if verdict
        != fixtureBaselines[
          fixture.name, default: FixtureVerdict(status: 1, named: true, findings: [])]
      {
        outcome.verdict = .killed
        outcome.note =
          "regression \(fixture.name) no longer caught, or no longer named: \(headline)"
        return outcome
      }
    }
    // A reader, guard or shell that turned strict refuses an app written in another correct
    // idiom.
    for refactor in harmless {
      let (status, headline) = try runHarmless(refactor)
      if status != harmlessBaselines[refactor.id] {
        outcome.verdict = .killed
        outcome.note = "harmless refactor \(refactor.id) turned away: \(headline)"
        return outcome
      }
    }
    return outcome
  }

  /// A harmless refactor applied to a copy of its app (beside it, so that `base` resolves),
  /// run on its channel.
  func runHarmless(_ refactor: Catalogue.Mutant) throws -> (status: Int32, headline: String) {
    let app = scratch.appendingPathComponent(refactor.app ?? "Scenarios/apps/messages")
    let copy = app.deletingLastPathComponent().appendingPathComponent(
      app.lastPathComponent + "-under-mutation")
    try? fileManager.removeItem(at: copy)
    try fileManager.copyItem(at: app, to: copy)
    defer { try? fileManager.removeItem(at: copy) }
    try refactor.createFiles(in: copy)
    let target = copy.appendingPathComponent(refactor.file)
    let text = try String(contentsOf: target, encoding: .utf8)
    guard text.components(separatedBy: refactor.find).count == 2 else {
      throw Failure(description: "harmless refactor \(refactor.id) no longer applies")
    }
    try text.replacingOccurrences(of: refactor.find, with: refactor.replace).write(
      to: target, atomically: true, encoding: .utf8)
    let channel = refactor.channel ?? "prod"
    let run = try qualify(
      app: copy, arguments: ["--channel", channel], environment: refactor.environment ?? [:])
    guard run.status == 0 else { return run }
    // `check-app` gates CI on its own: a finding no scenario of the run looks at (a guard
    // of a feature the release declares unused) still turns a correct release away there.
    let checked = try CheckApp.verdict(
      scratch: scratch, app: copy, channel: channel, environment: refactor.environment ?? [:])
    return checked.status == 0 ? run : (checked.status, "check-app: \(checked.headline)")
  }

  func report(_ outcomes: [Outcome]) {
    func line(_ name: String, _ group: [Outcome]) -> String {
      let killed = group.filter { $0.verdict == .killed }.count
      let survived = group.filter { $0.verdict == .survived }.count
      let suspected = group.filter { $0.verdict == .suspected }.count
      let equivalent = group.filter { $0.verdict == .equivalent }.count
      let loud = group.filter { $0.verdict == .loud }.count
      let stillborn = group.filter { $0.verdict == .stillborn }.count
      let judged = killed + survived + suspected
      let score = judged == 0 ? "—" : "\(100 * killed / judged)%"
      return
        "  \(name.padding(toLength: 28, withPad: " ", startingAt: 0)) \(String(format: "%4d", killed)) killed \(String(format: "%3d", survived)) survived \(String(format: "%3d", suspected)) suspected \(String(format: "%3d", equivalent)) equivalent \(String(format: "%3d", loud)) loud \(String(format: "%3d", stillborn)) stillborn  \(score)"
    }
    say("\ngenerated mutation score (killed of killed + survived + suspected):")
    let world = outcomes.filter { !$0.area.hasPrefix("apps/") }
    let apps = outcomes.filter { $0.area.hasPrefix("apps/") }
    say(line("world", world))
    for area in Set(world.map(\.area)).sorted() {
      say(line("  " + area, world.filter { $0.area == area }))
    }
    say(line("apps' files", apps))
    for area in Set(apps.map(\.area)).sorted() {
      say(line("  " + area, apps.filter { $0.area == area }))
    }
    say("per shell kind:")
    for kind in Set(outcomes.map(\.kind)).sorted() {
      say(line("  " + kind, outcomes.filter { $0.kind == kind }))
    }
    for outcome in outcomes where outcome.verdict == .survived || outcome.verdict == .suspected {
      say(
        "\n\(outcome.verdict.rawValue) \(outcome.id) \(outcome.file):\(outcome.line) [\(outcome.operator)]"
      )
      say("  - \(outcome.before.trimmingCharacters(in: .whitespaces))")
      say("  + \(outcome.after.trimmingCharacters(in: .whitespaces))")
    }
  }

  func write(_ outcomes: [Outcome], sample: Set<String>, equivalents: [String: Equivalent])
    throws
  {
    struct Record: Codable {
      var seed: UInt64
      var count: Int
      var outcomes: [Outcome]
    }
    let url = root.appendingPathComponent("Mutants/generated.json")
    var merged = outcomes
    // `--only` or `MUTANTS_AREA` with `--record` re-judges part of the committed sample: the
    // others keep their recorded verdicts. Without a record of the same sample to merge into,
    // the part alone would replace it.
    if only != nil || !area.isEmpty {
      guard let data = try? Data(contentsOf: url),
        let recorded = try? JSONDecoder().decode(Record.self, from: data),
        recorded.seed == seed, recorded.count == count
      else {
        throw Failure(
          description:
            "--record of part of the sample needs Mutants/generated.json of the same seed and count to merge into: record the whole sample first"
        )
      }
      let judged = Set(outcomes.map(\.id))
      // A survivor reviewed since it was judged takes its recorded classification, as a
      // full run would give it.
      merged += recorded.outcomes.filter { !judged.contains($0.id) && sample.contains($0.id) }
        .map { outcome in
          var outcome = outcome
          if outcome.verdict == .survived || outcome.verdict == .suspected,
            let equivalent = equivalents[outcome.id]
          {
            outcome.verdict = equivalent.kind == "loud" ? .loud : .equivalent
            outcome.note = equivalent.reason
          } else if let equivalent = equivalents[outcome.id] {
            // A review that changed its kind.
            if outcome.verdict == .equivalent || outcome.verdict == .loud {
              outcome.verdict = equivalent.kind == "loud" ? .loud : .equivalent
              outcome.note = equivalent.reason
            }
          } else if outcome.verdict == .equivalent || outcome.verdict == .loud {
            // A review withdrawn: the mutant survived, as a full run would say.
            outcome.verdict = .survived
            outcome.note = "no longer recorded as equivalent: judge it again with --only"
          }
          return outcome
        }
      let missing = sample.subtracting(merged.map(\.id))
      if !missing.isEmpty {
        say(
          "record: \(missing.count) of the sample never judged (\(missing.sorted().joined(separator: ","))): judge them with --only"
        )
      }
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let data = try encoder.encode(
      Record(seed: seed, count: count, outcomes: merged.sorted { $0.id < $1.id }))
    try data.write(to: url)
  }
}

/// `check-app` on an app copy, as CI would run it.
enum CheckApp {
  static func verdict(
    scratch: URL, app: URL, channel: String, environment: [String: String]
  ) throws -> (status: Int32, headline: String) {
    let result = try run(
      scratch.appendingPathComponent(".build/debug/qualify").path,
      ["check-app", "--app", app.path, "--channel", channel], in: scratch,
      environment: environment, timeout: 60)
    let lines = result.output.split(separator: "\n").map(String.init)
    return (result.status, lines.first { $0.hasPrefix("error") } ?? lines.last ?? "")
  }
}
