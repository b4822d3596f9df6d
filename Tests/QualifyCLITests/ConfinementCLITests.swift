import Foundation
import QualifyTestSupport
import Testing

/// A pull request changes the app's files and CI runs qualify on them: no trick in those files
/// makes qualify read, quote or print a file outside the app's repository
/// (docs/threat-model.md). Each case is a pull-request-shaped checkout: a repository (`.git`)
/// holding a copy of the sample app, and a canary file outside it.
@Suite struct ConfinementCLITests {
  let scratch: URL
  let repository: URL
  let app: URL
  let outside: URL
  let canary = "CANARY_\(UUID().uuidString.prefix(8))"

  init() throws {
    scratch = try Fixtures.temporaryDirectory("qualify-confinement")
    repository = scratch.appendingPathComponent("checkout")
    try FileManager.default.createDirectory(
      at: repository.appendingPathComponent(".git"), withIntermediateDirectories: true)
    app = repository.appendingPathComponent("app")
    try FileManager.default.copyItem(at: URL(fileURLWithPath: Fixtures.sampleApp), to: app)
    outside = scratch.appendingPathComponent("outside")
    try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
    // Shaped like what an attacker wants printed: env lines, a plist, a JSON object.
    let lines = "\(canary)_1=first line\n\(canary)_2=\"unclosed\nnot a line \(canary)_3\n"
    for name in ["shadow", "secret.env", "qualify.json"] {
      try Data(lines.utf8).write(to: outside.appendingPathComponent(name))
    }
    try Data("<plist>\(canary)</plist>".utf8).write(
      to: outside.appendingPathComponent("Info.plist"))
  }

  private func profile(_ text: String) throws {
    try Data(text.utf8).write(to: app.appendingPathComponent("qualify.json"))
  }

  private func link(_ path: String, to target: String) throws {
    let url = app.appendingPathComponent(path)
    try? FileManager.default.removeItem(at: url)
    try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: target)
  }

  /// Runs `check-app` and the main command on the app; both must refuse with exit 2 and
  /// print nothing of the outside files or of the process environment.
  private func expectRefused(
    _ message: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    for command in [
      ["check-app", "--app", app.path, "--channel", "prod"],
      [
        "--app", app.path, "--channel", "prod", "--scenarios", CLI.scenarios, "--filter",
        "guards/*",
      ],
    ] {
      let result = try CLI.run(
        command, in: scratch, environment: ["QUALIFY_TEST_CANARY": canary + "_ENV"])
      let output = result.stdout + result.stderr
      #expect(result.status == 2, "\(command[0]): \(output)", sourceLocation: sourceLocation)
      #expect(output.contains(message), "\(output)", sourceLocation: sourceLocation)
      #expect(!output.contains(canary), "\(output)", sourceLocation: sourceLocation)
      #expect(!output.contains("root:"), "\(output)", sourceLocation: sourceLocation)
    }
  }

  @Test func aBaseOutsideTheRepositoryIsRefusedAndItsFilesNeverQuoted() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    try profile(
      #"""
      {
        "base": "\#(outside.path)",
        "channels": { "prod": { "backendEnv": ["shadow"], "frontendEnv": ["secret.env"] } }
      }
      """#)
    try expectRefused("resolves outside the app's repository")
  }

  @Test func aBaseOfEtcIsRefused() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    try profile(
      #"{ "base": "/etc", "channels": { "prod": { "backendEnv": ["shadow"] } } }"#)
    try expectRefused("resolves outside the app's repository")
  }

  @Test func aBaseClimbingOutOfTheRepositoryIsRefused() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    try profile(#"{ "base": "../../outside" }"#)
    try expectRefused("resolves outside the app's repository")
  }

  @Test func aBaseThatIsALinkOutOfTheRepositoryIsRefused() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    try link("innocent-base", to: outside.path)
    try profile(#"{ "base": "innocent-base" }"#)
    try expectRefused("resolves outside the app's repository")
  }

  @Test func aBaseInsideTheRepositoryMustBeAQualifyApp() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let folder = repository.appendingPathComponent("not-an-app")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data("\(canary)=1\n".utf8).write(to: folder.appendingPathComponent("shadow"))
    try profile(
      #"{ "base": "../not-an-app", "channels": { "prod": { "backendEnv": ["shadow"] } } }"#)
    try expectRefused("is not a qualify app")
  }

  /// A file of the app that is a link out of it: `outside/` stands for the canary folder.
  @Test(arguments: [
    ("qualify.json", "outside/qualify.json"),
    ("qualify.json", "/proc/self/environ"),
    ("src/frontend/ios/App/App/Info.plist", "outside/Info.plist"),
    ("ci/env/prod/backend.env", "/etc/passwd"),
  ])
  func anAppFileThatIsALinkOutOfTheAppIsRefused(file: String, target: String) throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let resolved =
      target.hasPrefix("outside/")
      ? outside.appendingPathComponent(String(target.dropFirst("outside/".count))).path : target
    try link(file, to: resolved)
    try expectRefused("outside the app: qualify does not read it")
  }

  @Test func aProfileThatIsAFolderOrAFIFOIsAnErrorNotDefaults() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let profile = app.appendingPathComponent("qualify.json")
    try FileManager.default.removeItem(at: profile)
    try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: false)
    try expectRefused("is not a regular file")
    try FileManager.default.removeItem(at: profile)
    #expect(mkfifo(profile.path, 0o644) == 0)
    try expectRefused("is not a regular file")
  }

  @Test func anOversizedProfileIsRefused() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    try Data(repeating: 0x20, count: (1 << 20) + 1).write(
      to: app.appendingPathComponent("qualify.json"))
    try expectRefused("over qualify's limit")
  }

  @Test func anEntitlementsPathClimbingOutOfTheAppIsRefused() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    // The hybrid shell signs with the entitlements CODE_SIGN_ENTITLEMENTS names.
    try FileManager.default.removeItem(at: app)
    try FileManager.default.copyItem(at: URL(fileURLWithPath: Fixtures.hybridApp), to: app)
    let project = app.appendingPathComponent("ios/App/App.xcodeproj/project.pbxproj")
    let text = try String(contentsOf: project, encoding: .utf8)
    let edited = text.replacingOccurrences(
      of: "CODE_SIGN_ENTITLEMENTS = App/App.entitlements;",
      with: "CODE_SIGN_ENTITLEMENTS = ../../../../outside/Info.plist;")
    #expect(edited != text)
    try Data(edited.utf8).write(to: project)
    try expectRefused("outside the app: qualify does not read it")
  }

  @Test func aBaseInsideTheRepositoryStillWorks() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let overlay = repository.appendingPathComponent("overlay")
    try FileManager.default.createDirectory(at: overlay, withIntermediateDirectories: true)
    try Data(#"{ "base": "../app", "name": "overlay" }"#.utf8).write(
      to: overlay.appendingPathComponent("qualify.json"))
    let result = try CLI.run(
      ["check-app", "--app", overlay.path, "--channel", "prod"], in: scratch)
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
  }

  @Test func oversizedStackAndScenarioFilesAreRefused() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let big = Data(repeating: 0x20, count: (1 << 20) + 1)
    let stack = scratch.appendingPathComponent("stack.json")
    try big.write(to: stack)
    let run = try CLI.run(["--channel", "prod", "--stack", stack.path], in: scratch)
    #expect(run.status == 2, "\(run.stderr)")
    #expect(run.stderr.contains("over qualify's limit"), "\(run.stderr)")
    let scenario = scratch.appendingPathComponent("huge.scenario")
    try big.write(to: scenario)
    let check = try CLI.run(["check", scenario.path], in: scratch)
    #expect(check.status == 2, "\(check.stderr)")
    #expect(check.stderr.contains("over qualify's limit"), "\(check.stderr)")
  }

  /// A checkout whose own git config runs commands (a clean filter, an fsmonitor hook): the
  /// run names its commit and runs none of them. `--dirty` would have run both.
  @Test func aCheckoutsGitConfigRunsNothing() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let repo = scratch.appendingPathComponent("git-checkout")
    try FileManager.default.copyItem(at: URL(fileURLWithPath: Fixtures.sampleApp), to: repo)
    let marker = scratch.appendingPathComponent("RAN").path
    func git(_ arguments: [String]) throws {
      let result = try Programs.run("/usr/bin/env", ["git", "-C", repo.path] + arguments)
      try #require(result.status == 0, "git \(arguments): \(result.stderr)")
    }
    try Data("* filter=evil\n".utf8).write(to: repo.appendingPathComponent(".gitattributes"))
    try git(["init", "-q"])
    try git(["add", "-A"])
    try git(["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "one"])
    try git(["config", "filter.evil.clean", "touch \(marker)-filter; cat"])
    try git(["config", "core.fsmonitor", "touch \(marker)-fsmonitor; true"])
    // A change, so that anything refreshing the index would run the filter.
    try Data("# edited\n".utf8).write(to: repo.appendingPathComponent("README.local"))
    let result = try CLI.run(
      [
        "--app", repo.path, "--channel", "prod", "--scenarios", CLI.scenarios, "--filter",
        "guards/no-dev-server",
      ], in: scratch)
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    for hook in ["filter", "fsmonitor"] {
      #expect(!FileManager.default.fileExists(atPath: "\(marker)-\(hook)"), "the \(hook) ran")
    }
    let show = try CLI.run(["show", "latest"], in: scratch)
    #expect(
      show.stdout.range(of: #"git-checkout @ [0-9a-f]{7}"#, options: .regularExpression) != nil,
      "\(show.stdout.prefix(300))")
  }
}
