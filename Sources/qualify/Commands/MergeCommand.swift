import Foundation
import QualifyCore
import ResultModel
import Results

/// `qualify merge DB...`: the shards of one qualification (`qualify --shard I/N`, each with its
/// own `--db`) made one run with one verdict, one report, one JUnit and an attestable record.
struct MergeCommand {
  static let options: [OptionSpec] =
    [
      .value(
        "app", "DIR",
        "The app checkout as this machine has it (default: the first shard's): what `attest` reads the attested files from."
      )
    ] + RunOutputs.options + [.flag("help", "Show this help.")]

  static let help = helpText(
    usage:
      "qualify merge SHARD.sqlite... [--db FILE] [--report-dir DIR] [--junit FILE] [--summary FILE] [--sarif FILE] [--json]",
    summary: """
      Merges the shards of one qualification into one run. Each SHARD.sqlite is the --db of one \
      `qualify --shard I/N` process; its latest run is the shard. The shards must be of the \
      same app (the same files, byte for byte), channel, seed, catalogue, qualify version, \
      env files and options, and every shard 1..N must be there exactly once. The merged run \
      is recorded in --db (default Reports/qualify.sqlite) with its verdict, report and \
      outputs as a single run of the whole catalogue would have, and can be attested. Exit \
      codes as for qualify; a missing, repeated, unfinished or foreign shard is bad input (2), \
      naming it.
      """, options: options)

  let parsed: ParsedOptions

  init(arguments: [String]) throws {
    parsed = try ParsedOptions.parse(
      arguments, MergeCommand.options, command: "qualify merge", positionals: .max)
  }

  /// One shard as read from its database.
  struct Shard {
    let database: String
    let run: RunRecord
    let index: Int
    let count: Int
    let results: [ScenarioResult]

    var name: String { "shard \(index)/\(count) (\(DisplayPath.of(database)), run \(run.id))" }
  }

  func execute() throws -> ExitCode {
    if parsed.has("help") {
      Terminal.standardOutput.write(MergeCommand.help)
      return .qualified
    }
    guard !parsed.positionals.isEmpty else {
      throw InputError(
        "qualify merge needs the database of each shard",
        hint: "qualify merge shard-1.sqlite shard-2.sqlite …")
    }
    let shards = try parsed.positionals.map(MergeCommand.read).sorted { $0.index < $1.index }
    try MergeCommand.checkConsistent(shards)
    let outputs = RunOutputs(parsed)
    try outputs.checkWritable()
    let store = try ResultStore(path: parsed.value("db") ?? Paths.defaultDatabase)
    try store.requireWritable()
    // The gate is the shards' own: `--allow-partial` on every shard, or on none.
    let run = try MergeCommand.mergedRecord(shards, app: parsed.value("app"))
    let results = MergeCommand.ordered(shards.flatMap(\.results))
    let terminal = outputs.json ? Terminal.standardError : Terminal.standardOutput
    terminal.line(
      "qualify \(qualifyVersion) · merge of \(shards.count) shard\(shards.count == 1 ? "" : "s") · app \(run.appName ?? run.appShown) · channel \(run.channel.rawValue) · seed \(run.seed) · \(results.count) scenario runs"
    )
    for shard in shards { terminal.line("  \(shard.name): \(shard.results.count) runs") }
    let scope = run.scope ?? RunScope()
    try store.begin(run)
    for result in results { try store.record(result, run: run.id) }
    let progress = Progress(
      terminal: terminal, total: results.count, verbose: false, waivers: scope.waivers ?? [])
    return try outputs.conclude(run, results: results, store: store, progress: progress)
  }

  /// The latest run of the database at `path`, which must be a finished shard.
  static func read(_ path: String) throws -> Shard {
    guard FileManager.default.fileExists(atPath: path) else {
      throw InputError("no shard database at \(path)")
    }
    let store: ResultStore
    do {
      store = try ResultStore(path: path, readOnly: true)
    } catch let error as EnvironmentError {
      // A shard is the merge's input: one it cannot read is bad input, named.
      throw InputError(
        "\(path) cannot be read as a shard: \(error.message)",
        hint: "pass the --db of a `qualify --shard I/N` run made by this qualify")
    }
    guard let run = try store.run(nil) else {
      throw InputError(
        "\(path) holds no run", hint: "each shard is `qualify --shard I/N --db FILE`")
    }
    guard let shard = run.scope?.shard else {
      throw InputError(
        "\(path): run \(run.id) is not a shard (it ran without --shard)",
        hint: "merge the databases of `qualify --shard I/N` runs")
    }
    let parts = shard.split(separator: "/").compactMap { Int($0) }
    guard parts.count == 2, parts[1] >= 1, (1...parts[1]).contains(parts[0]) else {
      throw InputError("\(path): run \(run.id) records an invalid shard '\(shard)'")
    }
    switch run.status {
    case .running, .aborted:
      throw InputError(
        "\(path): shard \(shard) (run \(run.id)) is \(run.status.rawValue), not finished",
        hint: "run that shard again")
    case .qualified, .partial, .notQualified, .error:
      // A shard that ended in a harness error is part of the verdict: the merge says ERROR.
      break
    }
    return Shard(
      database: path, run: run, index: parts[0], count: parts[1],
      results: try store.results(run: run.id))
  }

  /// Every shard of one qualification, each once: the same app files, channel, seed,
  /// catalogue, qualify, env files and options.
  static func checkConsistent(_ shards: [Shard]) throws {
    guard let first = shards.first else { return }
    let count = first.count
    for shard in shards where shard.count != count {
      throw InputError(
        "\(shard.name) is of a split into \(shard.count), \(first.name) of a split into \(count)")
    }
    var seen: [Int: Shard] = [:]
    for shard in shards {
      if let earlier = seen[shard.index] {
        throw InputError("\(shard.name) repeats \(earlier.name)")
      }
      seen[shard.index] = shard
    }
    let missing = (1...count).filter { seen[$0] == nil }
    guard missing.isEmpty else {
      throw InputError(
        "shard\(missing.count == 1 ? "" : "s") \(missing.map { "\($0)/\(count)" }.joined(separator: ", ")) missing: \(shards.count) of \(count) given",
        hint: "pass the database of every `qualify --shard I/\(count)` run")
    }
    for shard in shards.dropFirst() {
      if let difference = difference(first, shard) {
        throw InputError(
          "\(shard.name) is not of the same qualification as \(first.name): \(difference)")
      }
    }
    var owners: [String: Shard] = [:]
    for shard in shards {
      for result in shard.results {
        let key = "\(result.scenarioID) [\(result.platform.rawValue)]"
        if let owner = owners[key] {
          throw InputError("\(key) is in both \(owner.name) and \(shard.name)")
        }
        owners[key] = shard
      }
    }
  }

  /// What makes `b` another qualification than `a`, nil when nothing does.
  static func difference(_ a: Shard, _ b: Shard) -> String? {
    let x = a.run
    let y = b.run
    let sx = x.scope ?? RunScope()
    let sy = y.scope ?? RunScope()
    let checks: [(String, Bool)] = [
      ("channel \(x.channel.rawValue) vs \(y.channel.rawValue)", x.channel == y.channel),
      ("seed \(x.seed) vs \(y.seed)", x.seed == y.seed),
      ("qualify \(x.harnessVersion) vs \(y.harnessVersion)", x.harnessVersion == y.harnessVersion),
      ("the app \(x.appName ?? "?") vs \(y.appName ?? "?")", x.appName == y.appName),
      (
        "the app's files differ (\(filesDiffering(x.appFiles ?? [], y.appFiles ?? [])))",
        x.appFiles == y.appFiles
      ),
      ("the scenario catalogue differs", sx.catalogueDigest == sy.catalogueDigest),
      // The same bytes in each role, wherever each runner kept the file.
      (
        "the pipeline's env files differ",
        envDigests(sx.pipelineEnvFiles) == envDigests(sy.pipelineEnvFiles)
      ),
      ("the options that rebuild the world differ", options(sx) == options(sy)),
      ("--fail-fast differs", sx.failFast == sy.failFast),
      // What the run could not verify, the real systems of --stack included.
      ("the caveats differ (another --stack or env)", sx.caveats == sy.caveats),
      ("the release named differs", sx.release == sy.release),
      ("the shell kind differs", sx.shell == sy.shell),
      ("--filter differs", sx.filters == sy.filters),
      ("--tag differs", sx.tags == sy.tags),
      ("--platform differs", Set(sx.platforms) == Set(sy.platforms)),
      ("--no-controls differs", sx.controls == sy.controls),
      ("--repeat differs", sx.repeats == sy.repeats),
      ("--scenarios differs", sx.scenarioFolder == sy.scenarioFolder),
      ("--stack differs", sx.realIdentityProvider == sy.realIdentityProvider),
      ("the channel env differs", sx.envWarning == sy.envWarning),
      ("--allow-partial differs", sx.allowPartial == sy.allowPartial),
      ("the catalogue's size differs", sx.catalogueRuns == sy.catalogueRuns),
    ]
    return checks.first { !$0.1 }?.0
  }

  /// Role and digest of each pipeline env file, in order.
  static func envDigests(_ files: [AppFileDigest]?) -> [String] {
    (files ?? []).map {
      ($0.path.split(separator: ":").first.map(String.init) ?? "") + " " + $0.sha256
    }
  }

  /// The reproduce options but the paths each runner names its own way (the app, the env
  /// files: their content is compared apart).
  static func options(_ scope: RunScope) -> [String] {
    var out: [String] = []
    var iterator = (scope.reproduceOptions ?? []).makeIterator()
    while let option = iterator.next() {
      if ["--app", "--backend-env", "--frontend-env"].contains(option) {
        _ = iterator.next()
        continue
      }
      out.append(option)
    }
    return out
  }

  static func filesDiffering(_ a: [AppFileDigest], _ b: [AppFileDigest]) -> String {
    let left = Dictionary(a.map { ($0.path, $0.sha256) }, uniquingKeysWith: { x, _ in x })
    let right = Dictionary(b.map { ($0.path, $0.sha256) }, uniquingKeysWith: { x, _ in x })
    let paths = Set(left.keys).union(right.keys).filter { left[$0] != right[$0] }.sorted()
    return paths.prefix(3).joined(separator: ", ") + (paths.count > 3 ? ", …" : "")
  }

  /// The merged run: the first shard's record with the whole selection, no shard, and the
  /// shards it was made of among its caveats.
  static func mergedRecord(_ shards: [Shard], app: String?) throws -> RunRecord {
    let first = shards[0].run
    let startedAt = shards.map(\.run.startedAt).min() ?? Date()
    var run = RunRecord(
      id: RunRecord.newID(), startedAt: startedAt, channel: first.channel,
      app: app.map { URL(fileURLWithPath: $0).standardizedFileURL.path } ?? first.app,
      appVersion: first.appVersion, seed: first.seed, filter: nil, platforms: first.platforms,
      harnessVersion: first.harnessVersion)
    run.appName = first.appName
    run.appFiles = first.appFiles
    var scope = first.scope ?? RunScope()
    scope.shard = nil
    scope.selectedRuns = shards.reduce(0) { $0 + ($1.run.scope?.selectedRuns ?? 0) }
    var caveats: [String] = []
    for shard in shards {
      for caveat in shard.run.scope?.caveats ?? [] where !caveats.contains(caveat) {
        caveats.append(caveat)
      }
    }
    scope.caveats = caveats
    let stops = shards.compactMap { shard in
      shard.run.scope?.stoppedEarly.map { "shard \(shard.index)/\(shard.count) \($0)" }
    }
    scope.stoppedEarly = stops.isEmpty ? nil : stops.joined(separator: "; ")
    scope.mergedFrom = shards.map { "\($0.index)/\($0.count) \($0.run.id)" }
    // Reproduce commands name the app where this machine has it.
    if let app, var options = scope.reproduceOptions, let at = options.firstIndex(of: "--app"),
      at + 1 < options.count
    {
      options[at + 1] = DisplayPath.of(URL(fileURLWithPath: app).standardizedFileURL.path)
      scope.reproduceOptions = options
    }
    run.filter = scope.limits.joined(separator: "; ").nilIfEmpty
    run.scope = scope
    return run
  }

  /// Results in the order one run records them: by scenario, iOS before Android.
  static func ordered(_ results: [ScenarioResult]) -> [ScenarioResult] {
    results.sorted {
      $0.scenarioID != $1.scenarioID
        ? $0.scenarioID < $1.scenarioID
        : (Platform.allCases.firstIndex(of: $0.platform) ?? 0)
          < (Platform.allCases.firstIndex(of: $1.platform) ?? 0)
    }
  }
}
