import Artifacts
import Foundation
import HTTP
import MockStack
import QualifyCore
import ResultModel
import Results
import Scenarios
import StackPorts

/// `qualify [options]` and `qualify run <scenario> [--trace]`: the qualification itself.
struct RunCommand {
  static let options: [OptionSpec] =
    [
      .value("channel", "dev|staging|prod", "The release channel to qualify (default: prod)."),
      .value("app", "DIR", "The app repository (default: the bundled sample app)."),
      .value(
        "backend-env", "FILE",
        "An env file of the backend serving the channel, layered over the profile's (repeatable): the release env a pipeline supplies.",
        repeatable: true),
      .value(
        "frontend-env", "FILE",
        "An env file of the channel's build (cap sync, Vite, the native builds), layered over the profile's (repeatable).",
        repeatable: true),
      .value(
        "stack", "FILE",
        "Run against the real systems FILE names (identity provider, backend, OTA channel, instances; docs/stack-file.md); what it does not name stays mocked."
      ),
      .value(
        "filter", "GLOB", "Only scenarios whose id (or pack) matches, e.g. 'sso/*' (repeatable).",
        repeatable: true),
      .value("platform", "ios|android", "Only this platform."),
      .value("tag", "T", "Only scenarios with this tag (repeatable).", repeatable: true),
    ] + RunOutputs.options + [
      .value("seed", "N", "Seed of every random value; the same seed reproduces the run."),
      .value("jobs", "N", "Scenarios run in parallel (default: the number of cores)."),
      .value("shard", "I/N", "Run the I-th of N shards of the scenario list."),
      .flag("no-controls", "Skip the negative controls (the verdict then proves less)."),
      .flag(
        "no-engines",
        "Start no real browser engine: checklist item 3 (thread rendering) is not covered."),
      .value(
        "repeat", "N",
        "Run each scenario N times, with the seed, the seed + 1, …; attempts that disagree mark it flaky (and fail it)."
      ),
      .flag("fail-fast", "Start no new scenario once one did not pass (the run is then partial)."),
      .flag(
        "allow-partial",
        "Exit 0 for a passed run on a release channel even when the app or the environment left checks out (an exploratory run, not a release gate)."
      ),
      .value("scenarios", "DIR", "Where the .scenario files are (default: Scenarios)."),
      .value("timeout", "DURATION", "Override every scenario's timeout (e.g. 30s)."),
      .flag("trace", "Print every HTTP exchange, event and decision as it happens."),
      .flag("help", "Show this help."),
    ]

  static let help = helpText(
    usage:
      "qualify [--channel dev|staging|prod] [--app DIR] [options]\n       qualify run <scenario-id|path> [--trace] [options]",
    summary: """
      Qualifies a Capacitor-style app for release: starts the embedded mock stack (identity \
      provider, backend, OTA bucket, push gateways), drives simulated iOS and Android shells \
      through every scenario and its negative controls, records the evidence and writes the \
      reports.

      Exit codes:
        0  QUALIFIED, or PASSED (partial) by the command line's own selection (--filter, \
      --tag, --platform, --shard, --no-controls, --no-engines, run, --scenarios, --stack), on \
      dev, or with \
      --allow-partial
        1  not qualified: a check failed, a control did not bite, a scenario timed out; or a \
      release-channel run the app or the environment made partial (env not supplied, a \
      feature neither enabled nor declared unused)
        2  bad input (a flag, a scenario file, an app artifact, a stack file)
        3  internal error (a bug in qualify)
        4  the environment in the way (a store or report folder qualify cannot use, a full \
      disk, a closed or full standard output, a busy port, a server that does not answer, a \
      real system of --stack failing under a check)
      """,
    options: options,
    footer: """
      OTHER COMMANDS:
        qualify list [--json]              the scenarios
        qualify check FILE...              validate scenario files
        qualify check-app [--app DIR]      the app's static findings only
        qualify history                    earlier runs
        qualify show RUN [SCENARIO]        one run, or one scenario of it
        qualify report [RUN]               (re)write a run's HTML report
        qualify diff [[RUN_A] RUN_B]       what changed since a run (default: the last qualified)
        qualify merge SHARD.sqlite...      the shards of one qualification (--shard I/N) as one run
        qualify attest RUN --key KEY       a signed in-toto attestation of a qualified run
        qualify verify-attestation FILE    check one against its key and the app's files
        qualify serve                      the mock stack for a real device or curl
        qualify ota keygen|publish|verify  OTA bundle tooling (Capgo v2)
        qualify links verify --domain URL  a site's Universal Links / App Links files vs the app
      Every command takes --help.
      """)

  /// Options that choose among a full run's scenarios: `qualify run` names its one scenario
  /// itself, so it refuses them rather than list them as limits it did not apply.
  static let selectionOptions = ["filter", "tag", "shard", "fail-fast", "allow-partial"]

  /// `qualify run --help`: one scenario, with its controls, in the world a full run builds.
  static let singleHelp = helpText(
    usage: "qualify run <scenario-id|path> [--platform ios|android] [--trace] [options]",
    summary: """
      Runs one scenario (by id, or a .scenario file) on each platform it applies to, then its \
      negative controls, in the world a full run of the same channel, app and seed builds; \
      --trace prints every HTTP exchange, cookie jar and decision. The verdict is PASSED \
      (partial) at best. Exit codes as for qualify (see qualify --help).
      """,
    options: options.filter { !selectionOptions.contains($0.name) })

  let parsed: ParsedOptions
  /// The scenario `qualify run` names, when it names one.
  let single: String?

  init(arguments: [String], single: Bool) throws {
    parsed = try ParsedOptions.parse(
      arguments, RunCommand.options, command: single ? "qualify run" : "qualify", positionals: .max)
    if single && parsed.has("help") {
      self.single = parsed.positionals.first ?? ""
    } else if single {
      let given = parsed
      if let option = RunCommand.selectionOptions.first(where: {
        given.has($0) || given.value($0) != nil
      }) {
        throw InputError(
          "qualify run takes no --\(option): it runs the one scenario it names",
          hint: "to select among the catalogue, drop 'run': qualify --\(option) …")
      }
      guard let target = parsed.positionals.first, parsed.positionals.count == 1 else {
        throw InputError(
          parsed.positionals.isEmpty
            ? "qualify run needs a scenario id or a .scenario file"
            : "qualify run takes one scenario",
          hint: "see: qualify list")
      }
      self.single = target
    } else {
      if let extra = parsed.positionals.first {
        throw InputError(
          "unexpected argument '\(extra)'",
          hint: Suggestions.closest(to: extra, among: Qualify.commands).map {
            "did you mean 'qualify \($0)'?"
          } ?? "see: qualify --help")
      }
      self.single = nil
    }
  }

  func execute() throws -> ExitCode {
    if parsed.has("help") {
      Terminal.standardOutput.write(single == nil ? RunCommand.help : RunCommand.singleHelp)
      return .qualified
    }
    let settings = try Settings(parsed)
    // Bad input first: the app and the scenarios are read before anything starts.
    let inputs = try readInputs(settings)
    // The environment is checked before anything runs: a report folder or a database that
    // cannot be written stops the run now, naming the path, not after every scenario ran.
    let outputs = RunOutputs(parsed)
    try outputs.checkWritable()
    let store = try ResultStore(path: parsed.value("db") ?? Paths.defaultDatabase)
    try store.requireWritable()
    for id in try store.markAbandonedRuns() {
      settings.terminal.line(
        settings.terminal.style("note:", .yellow)
          + " run \(id) was left running by a process that is gone; marked aborted")
    }
    var (run, material) = try begin(inputs, settings, in: store)
    let interrupt = InterruptHandler(store: store, run: run.id)
    let runner = makeRunner(inputs, settings, material: material)
    let progress = Progress(
      terminal: settings.terminal, total: inputs.runs.count, verbose: parsed.has("trace"),
      waivers: inputs.waivers ?? [])
    printHeader(inputs, settings, scope: run.scope ?? RunScope())
    let storeErrors = StoreErrors()
    let runID = run.id
    let results = runner.run(
      inputs.scenarios, platforms: settings.platforms, channel: settings.channel,
      onStart: { scenario, platform in progress.started(scenario, platform) },
      onResult: { result in
        do {
          try store.record(result, run: runID)
        } catch {
          storeErrors.add(error)
        }
        progress.finished(result)
      })
    interrupt.disarm()
    if let error = storeErrors.first { throw error }

    if results.count < inputs.runs.count, var scope = run.scope {
      scope.stoppedEarly =
        "stopped by --fail-fast after \(results.count) of \(inputs.runs.count) runs"
      try store.update(scope: scope, run: run.id)
      run.scope = scope
    }
    return try outputs.conclude(run, results: results, store: store, progress: progress)
  }

  /// `folder` is the catalogue qualify ships (what a run without `--scenarios` reads).
  static func isBundledCatalogue(_ folder: String) -> Bool {
    URL(fileURLWithPath: folder).resolvingSymlinksInPath().standardizedFileURL.path
      == URL(fileURLWithPath: Paths.scenariosDirectory).resolvingSymlinksInPath()
      .standardizedFileURL.path
  }

  /// SHA-256 over the path and SHA-256 of every `.scenario` file under `folder`, sorted: one
  /// value naming the catalogue a verdict rests on.
  static func digest(ofScenariosIn folder: URL) -> String {
    var lines: [String] = []
    // The catalogue's own files: the sample apps beside it are not scenarios, and walking
    // them was most of the files a one-scenario run opened.
    for url in ScenarioCatalogue.scenarioFiles(in: folder) {
      guard let data = FileManager.default.contents(atPath: url.path) else { continue }
      lines.append(
        "\(AppRepository.relativePath(of: url, from: folder)) \(Attestation.hex(data))")
    }
    return Attestation.hex(Data(lines.sorted().joined(separator: "\n").utf8))
  }

  /// The options that rebuild this run's world, for reproduce commands: the channel, the
  /// seed, the app, the env files and scenario folder it was given.
  func reproduceOptions(channel: Channel, seed: UInt64, app: URL) -> [String] {
    var options = [
      "--channel", channel.rawValue, "--seed", String(seed), "--app",
      AppRepository.display(app),
    ]
    let shown = { (path: String) in
      DisplayPath.of(URL(fileURLWithPath: path).standardizedFileURL.path)
    }
    for file in parsed.all("backend-env") { options += ["--backend-env", shown(file)] }
    for file in parsed.all("frontend-env") { options += ["--frontend-env", shown(file)] }
    // The bundled catalogue is the default wherever qualify runs: naming it would name the
    // machine's install path.
    if let scenarios = parsed.value("scenarios"), !RunCommand.isBundledCatalogue(scenarios) {
      options += ["--scenarios", shown(scenarios)]
    }
    if let timeout = parsed.value("timeout") { options += ["--timeout", timeout] }
    if let stack = parsed.value("stack") { options += ["--stack", shown(stack)] }
    if parsed.has("no-controls") { options.append("--no-controls") }
    if parsed.has("no-engines") { options.append("--no-engines") }
    return options
  }
}

/// Marks the run aborted when the user interrupts it, then exits 130.
final class InterruptHandler {
  private var sources: [DispatchSourceSignal] = []

  init(store: ResultStore, run: String) {
    for signalNumber in [SIGINT, SIGTERM] {
      signal(signalNumber, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
      source.setEventHandler {
        try? store.finish(run: run, status: .aborted)
        Terminal.standardError.line("\ninterrupted: run \(run) marked aborted")
        exit(128 + signalNumber)
      }
      source.resume()
      sources.append(source)
    }
  }

  func disarm() {
    for source in sources { source.cancel() }
    signal(SIGINT, SIG_DFL)
    signal(SIGTERM, SIG_DFL)
  }
}

private final class StoreErrors: Sendable {
  private let errors = Locked<[Error]>([])
  func add(_ error: Error) { errors.withLock { $0.append(error) } }
  var first: Error? { errors.withLock { $0.first } }
}
