import Artifacts
import Foundation
import QualifyCore
import ResultModel
import Results
import Scenarios
import StackPorts

extension RunCommand {
  /// What the run covers and how it was asked for: the selection, the real systems and the
  /// caveats, the release, what reproduces it. The summary, the report and the gate read it.
  func scope(
    shell: ShellKind, builds: [Platform: AppBuild], real: RealSystems?, repository: AppRepository,
    channel: Channel, seed: UInt64, platforms: [Platform], repeats: Int, waivers: [Waiver]?,
    selected: Int, catalogue: [(Scenario, Platform)]
  ) -> RunScope {
    var scope = RunScope()
    scope.scenario = single
    scope.shell = shell == .default ? nil : shell.id
    scope.filters = parsed.all("filter")
    scope.tags = parsed.all("tag")
    scope.shard = parsed.value("shard")
    scope.platforms = platforms
    scope.controls = !parsed.has("no-controls")
    scope.enginesOff = parsed.has("no-engines") ? true : nil
    scope.envWarning = builds.values.first?.environment.fallbackWarning(channel: channel)
    scope.waivers = waivers
    scope.realIdentityProvider = real?.identityProvider?.issuer
    scope.caveats = RunPlan.caveats(builds: builds, real: real)
    scope.release = ReleaseRecord(builds: builds, commit: repository.commit())
    scope.repeats = repeats > 1 ? repeats : nil
    scope.reproduceOptions = reproduceOptions(channel: channel, seed: seed, app: repository.root)
    scope.failFast = parsed.has("fail-fast") ? true : nil
    scope.releaseChannel = channel.isRelease ? true : nil
    scope.allowPartial = parsed.has("allow-partial") ? true : nil
    scope.command = RunCommand.invokedCommand
    let scenarioFolder = URL(fileURLWithPath: parsed.value("scenarios") ?? Paths.scenariosDirectory)
      .resolvingSymlinksInPath().standardizedFileURL
    if !RunCommand.isBundledCatalogue(scenarioFolder.path) {
      scope.scenarioFolder = AppRepository.display(scenarioFolder)
    }
    scope.catalogueDigest = RunCommand.digest(ofScenariosIn: scenarioFolder)
    let pipelineEnv =
      parsed.all("backend-env").map { ("backend", $0) }
      + parsed.all("frontend-env").map { ("frontend", $0) }
    if !pipelineEnv.isEmpty {
      scope.pipelineEnvFiles = pipelineEnv.map { role, path in
        AppFileDigest(
          path: "\(role):\(DisplayPath.of(path))",
          sha256: FileManager.default.contents(atPath: path).map(Attestation.hex) ?? "unreadable")
      }
    }
    scope.selectedRuns = selected
    scope.catalogueRuns = catalogue.count
    for (scenario, platform) in catalogue {
      for item in scenario.checklist {
        var platforms = scope.catalogueItems[String(item), default: []]
        if !platforms.contains(platform) { platforms.append(platform) }
        scope.catalogueItems[String(item)] = platforms
      }
    }
    return scope
  }

  /// `--jobs N`, `--repeat N`: a whole number from 1 to `limit`, nil when not given.
  static func count(_ parsed: ParsedOptions, _ option: String, upTo limit: Int) throws -> Int? {
    try parsed.value(option).map { value in
      guard let n = Int(value), n >= 1, n <= limit else {
        throw InputError("--\(option) must be a number from 1 to \(limit), got '\(value)'")
      }
      return n
    }
  }

  /// How the run was started, as the reproduce line writes it.
  static var invokedCommand: String {
    // `qualify` when found on the PATH, else the path it was started by.
    let invoked = CommandLine.arguments.first ?? "qualify"
    // A binary that shares no folder with the working directory is named as on the PATH:
    // its path would name the machine.
    return
      invoked.contains("/")
      ? DisplayPath.relativeIfNear(URL(fileURLWithPath: invoked).standardizedFileURL.path).map {
        // A binary in the working directory runs as ./qualify, not from the PATH.
        $0.contains("/") ? $0 : "./" + $0
      } ?? "qualify" : "qualify"
  }
}
