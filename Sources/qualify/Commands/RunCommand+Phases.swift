import Artifacts
import Engines
import Foundation
import MockStack
import QualifyCore
import ResultModel
import Results
import Scenarios
import StackPorts

extension RunCommand {
  /// The run's options, checked before anything is read.
  struct Settings {
    var channel: Channel
    var platforms: [Platform]
    var seed: UInt64
    var jobs: Int
    var timeout: TimeInterval?
    var repeats: Int
    /// `--json`: the results go to standard output, the progress to standard error.
    var json: Bool

    var terminal: Terminal { json ? Terminal.standardError : Terminal.standardOutput }

    init(_ parsed: ParsedOptions) throws {
      channel = try channelOption(parsed)
      platforms = try platformOption(parsed)
      seed = try seedOption(parsed)
      jobs =
        try RunCommand.count(parsed, "jobs", upTo: 64)
        ?? max(1, ProcessInfo.processInfo.activeProcessorCount)
      timeout = try parsed.value("timeout").map { value -> TimeInterval in
        guard let seconds = Durations.parse(value), seconds > 0 else {
          throw InputError("--timeout needs a duration such as 30s, got '\(value)'")
        }
        return seconds
      }
      repeats = try RunCommand.count(parsed, "repeat", upTo: 100) ?? 1
      json = parsed.has("json")
    }
  }

  /// What the run reads before it starts: the app, the real systems, the scenarios, the
  /// waivers.
  struct Inputs {
    var repository: AppRepository
    var real: RealSystems?
    var builds: [Platform: AppBuild]
    var shell: ShellKind
    var allScenarios: [Scenario]
    var scenarios: [Scenario]
    /// The selected runs, and every run of the catalogue on this app and channel.
    var runs: [(Scenario, Platform)]
    var catalogue: [(Scenario, Platform)]
    var waivers: [Waiver]?
    var startedAt: Date
  }

  func readInputs(_ settings: Settings) throws -> Inputs {
    let channel = settings.channel
    let appDirectory = parsed.value("app") ?? Paths.sampleApp
    let repository = try AppRepository(directory: appDirectory)
    repository.askGitInBackground()
    // The real parts of the stack come first: an unreachable one stops the run now.
    let real = try parsed.value("stack").map {
      try StackFile.load(path: $0, shell: repository.profile.shell)
    }
    let builds = try repository.builds(
      for: channel,
      extraEnv: AppRepository.ExtraEnv(
        backend: parsed.all("backend-env"), frontend: parsed.all("frontend-env"))
    ).mapValues { real?.applied(to: $0) ?? $0 }
    let allScenarios = try ScenarioCatalogue.load(
      directory: parsed.value("scenarios") ?? Paths.scenariosDirectory)
    let shell = repository.profile.shell
    let scenarios = try RunPlan.scenarios(
      RunPlan.Selection(
        single: single, filters: parsed.all("filter"), tags: parsed.all("tag"),
        shard: parsed.value("shard")),
      from: allScenarios, shell: shell, appTitle: repository.profile.title)
    // Against a real IdP the test accounts are the stack file's, not the realm export's.
    if real?.identityProvider == nil { try Runner.checkTestUsers(scenarios, builds: builds) }
    let runs = RunPlan.runs(
      scenarios, platforms: settings.platforms, channel: channel, shell: shell)
    let catalogue = RunPlan.runs(
      allScenarios, platforms: Platform.allCases, channel: channel, shell: shell)
    let startedAt = Date()
    let waivers = try WaiverFile.load(
      directory: repository.root,
      display: AppRepository.display(
        repository.root.appendingPathComponent(WaiverFile.name)),
      day: Waiver.day(startedAt),
      controls: Dictionary(
        allScenarios.map { ($0.id, Set($0.controls.map(\.name))) }, uniquingKeysWith: { a, _ in a })
    )
    guard !runs.isEmpty else {
      throw InputError(
        "no scenario applies"
          + (parsed.all("filter").isEmpty
            ? "" : " to --filter \(parsed.all("filter").joined(separator: ", "))")
          + " on channel \(channel.rawValue)",
        hint: "see: qualify list")
    }
    return Inputs(
      repository: repository, real: real, builds: builds, shell: shell,
      allScenarios: allScenarios, scenarios: scenarios, runs: runs, catalogue: catalogue,
      waivers: waivers, startedAt: startedAt)
  }

  /// The run's record, begun in `store` with its scope and the app's files, and the material
  /// its worlds share.
  func begin(_ inputs: Inputs, _ settings: Settings, in store: ResultStore) throws -> (
    RunRecord, StackMaterial
  ) {
    let repository = inputs.repository
    // A build whose origins cannot be served (no scheme) fails its own scenarios, with the
    // https-origins guard naming the value; it does not stop the run.
    let hosts = RunPlan.secureHosts(shell: inputs.shell, builds: inputs.builds)
    let material = try StackMaterial(hosts: hosts, seed: settings.seed, real: inputs.real)
    let scope = self.scope(
      shell: inputs.shell, builds: inputs.builds, real: inputs.real, repository: repository,
      channel: settings.channel, seed: settings.seed, platforms: settings.platforms,
      repeats: settings.repeats, waivers: inputs.waivers, selected: inputs.runs.count,
      catalogue: inputs.catalogue)
    var run = RunRecord(
      id: RunRecord.newID(at: inputs.startedAt), startedAt: inputs.startedAt,
      channel: settings.channel, app: repository.root.path,
      appVersion: repository.describeVersion(), seed: settings.seed,
      filter: ([single].compactMap { $0 } + scope.limits).joined(separator: "; ").nilIfEmpty,
      platforms: settings.platforms, harnessVersion: qualifyVersion)
    run.scope = scope
    run.appName = repository.profile.title
    var files = repository.filesRead.map { AppFileDigest(path: $0.path, sha256: $0.sha256) }
    if inputs.waivers != nil,
      let data = FileManager.default.contents(
        atPath: repository.root.appendingPathComponent(WaiverFile.name).path)
    {
      files.append(AppFileDigest(path: WaiverFile.name, sha256: Attestation.hex(data)))
      files.sort { $0.path < $1.path }
    }
    run.appFiles = files
    try store.begin(run)
    return (run, material)
  }

  func makeRunner(_ inputs: Inputs, _ settings: Settings, material: StackMaterial) -> Runner {
    // --fail-fast stops at what blocks the release; a waived failure does not.
    let inForce = inputs.waivers ?? []
    let blocks: @Sendable (ScenarioResult) -> Bool = { result in
      let failing: Set<Verdict> = [.failed, .controlDidNotBite, .error]
      return failing.contains(result.verdict) && result.waivers(among: inForce) == nil
    }
    // One run per process: the engines are the process's, started on first use.
    EnginePool.shared.turnedOff = parsed.has("no-engines")
    let runner = Runner(
      builds: inputs.builds, material: material,
      options: Runner.Options(
        seed: settings.seed,
        jobs: RunPlan.parallelism(
          requested: settings.jobs, single: single != nil, real: inputs.real),
        runControls: !parsed.has("no-controls"),
        timeoutOverride: settings.timeout, repeats: settings.repeats,
        stopsAfter: parsed.has("fail-fast") ? blocks : nil))
    if parsed.has("trace") {
      let tracer = Tracer(terminal: settings.terminal)
      runner.trace = { label, evidence in tracer.print(label, evidence) }
    }
    return runner
  }

  /// The run's first lines: what it qualifies, the release, the env warning and the caveats.
  func printHeader(_ inputs: Inputs, _ settings: Settings, scope: RunScope) {
    let terminal = settings.terminal
    let repository = inputs.repository
    let count = inputs.runs.count
    terminal.line(
      "qualify \(qualifyVersion) · app \(repository.profile.title) (\(AppRepository.display(repository.root))) · channel \(settings.channel.rawValue) · seed \(settings.seed) · \(count) scenario run\(count == 1 ? "" : "s")\(scope.isFull ? "" : " (partial: \(scope.limits.joined(separator: ", ")))")"
    )
    if let release = scope.release { terminal.line("release: " + release.text) }
    if let warning = scope.envWarning {
      terminal.line(terminal.style("warning: " + warning, .yellow, .bold))
    }
    for caveat in scope.caveats { terminal.line(terminal.style("note: " + caveat, .yellow)) }
  }
}
