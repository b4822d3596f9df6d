import Foundation
import HTTP
import QualifyTestSupport
import Results
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Runs the built `qualify` binary, as a user or CI would.
enum CLI {
  static let binary: String = {
    let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("qualify").path
    return Programs.find([beside, Fixtures.root + "/.build/debug/qualify"]) ?? beside
  }()

  /// Runs `qualify` in a scratch directory with the database and reports inside it.
  static func run(_ arguments: [String], in directory: URL, environment: [String: String] = [:])
    throws -> ProcessResult
  {
    try Programs.run(
      binary, arguments, in: directory.path,
      environment: ["NO_COLOR": "1"].merging(environment) { $1 })
  }

  static var scenarios: String { Fixtures.root + "/Scenarios" }

  /// `qualify serve --json` on `app` (the sample app by default), running in `directory`
  /// (its CA lands in `ca.pem` there), with the one line it prints.
  static func serve(in directory: URL, app: String = Fixtures.sampleApp) throws -> (
    process: Process, document: [String: Any]
  ) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = [
      "serve", "--channel", "prod", "--app", app, "--json", "--ca-out", "ca.pem",
    ]
    process.currentDirectoryURL = directory
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
      let chunk = out.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      line.append(chunk)
    }
    guard let document = try? JSONSerialization.jsonObject(with: line) as? [String: Any] else {
      process.terminate()
      throw ServeError(output: String(decoding: line, as: UTF8.self))
    }
    return (process, document)
  }

  struct ServeError: Error, CustomStringConvertible {
    var output: String
    var description: String { "qualify serve printed no JSON line: \(output)" }
  }
}

@Suite struct CLITests {
  let scratch: URL

  init() throws {
    scratch = try Fixtures.temporaryDirectory("qualify-cli")
  }

  var common: [String] {
    ["--app", Fixtures.sampleApp, "--scenarios", CLI.scenarios, "--seed", "11"]
  }

  @Test func qualifyProdPassesAndWritesTheStoreAndReports() throws {
    let result = try CLI.run(["--channel", "prod"] + common, in: scratch)
    #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
    #expect(result.stdout.contains("QUALIFIED"))
    #expect(result.stdout.contains("PASS guards/runtime-cleartext [ios]"))
    #expect(!result.stdout.contains("\u{1B}["), "NO_COLOR output has no escape codes")
    #expect(
      FileManager.default.fileExists(
        atPath: scratch.appendingPathComponent("Reports/qualify.sqlite").path))
    #expect(
      FileManager.default.fileExists(
        atPath: scratch.appendingPathComponent("Reports/latest.html").path))
    let history = try CLI.run(["history"], in: scratch)
    #expect(history.status == 0)
    #expect(history.stdout.contains("qualified"))
  }

  @Test func junitParsesWithTestcasesForScenariosAndControls() throws {
    let result = try CLI.run(["--channel", "prod", "--junit", "out.xml"] + common, in: scratch)
    #expect(result.status == 0, "\(result.stderr)")
    let xml = try String(contentsOf: scratch.appendingPathComponent("out.xml"), encoding: .utf8)
    let parser = XMLParser(data: Data(xml.utf8))
    #expect(parser.parse())
    #expect(xml.components(separatedBy: "<testcase ").count - 1 >= 12)
    #expect(xml.contains("name=\"control: "))
  }

  @Test func listJSONListsTheScenarios() throws {
    let result = try CLI.run(["list", "--json", "--scenarios", CLI.scenarios], in: scratch)
    #expect(result.status == 0)
    let items = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
    #expect(items.contains { $0["id"] as? String == "guards/runtime-cleartext" })
    #expect(items.allSatisfy { !(($0["controls"] as? [String]) ?? []).isEmpty })
  }

  /// Issue 25's smaller edges: `list` shows the app's kind (`--all` every kind, with the
  /// column run's hint names); `run`, `show` and `report` describe their own options; `run`
  /// refuses the options that select among a full run's scenarios.
  @Test func listShowsTheAppsKindAndEachCommandItsOwnOptions() throws {
    let instances = try CLI.run(["list", "--app", Fixtures.instanceShellApp], in: scratch)
    #expect(instances.status == 0, "\(instances.stderr)")
    #expect(instances.stdout.contains("the multi-instance shell's scenarios"))
    let ids = instances.stdout.split(separator: "\n").dropFirst().dropLast().map {
      String($0.prefix { $0 != " " })
    }
    #expect(!ids.isEmpty && ids.allSatisfy { $0.hasPrefix("instances/") }, "\(ids)")
    let every = try CLI.run(["list", "--all"], in: scratch)
    #expect(every.stdout.contains(" multi-instance "))
    #expect(every.stdout.contains(" single-origin "))
    let run = try CLI.run(["run", "--help"], in: scratch)
    #expect(run.stdout.hasPrefix("USAGE: qualify run <scenario-id|path>"))
    #expect(!run.stdout.contains("--filter") && !run.stdout.contains("--shard"))
    for (command, absent) in [
      ("show", "--limit"), ("report", "--limit"), ("history", "--report-dir"),
    ] {
      let help = try CLI.run([command, "--help"], in: scratch)
      #expect(!help.stdout.contains(absent), "\(command) --help lists \(absent)")
    }
    let repeated = try CLI.run(
      ["run", "sso/cross-app", "--platform", "ios", "--repeat", "2", "--scenarios", CLI.scenarios],
      in: scratch)
    #expect(repeated.status == 0, "\(repeated.stdout)\(repeated.stderr)")
    #expect(
      repeated.stdout.contains("repeated 2 times with different seeds, and every attempt agreed"))
    let serve = try CLI.run(["serve", "--help"], in: scratch)
    #expect(serve.stdout.contains("single-origin apps") && serve.stdout.contains("hybrid-webview"))
    let refused = try CLI.run(["run", "sso/cross-app", "--filter", "ota/*"], in: scratch)
    #expect(refused.status == 2)
    #expect(refused.stderr.contains("qualify run takes no --filter"))
  }

  @Test func checkOnTheBrokenFileExits2WithCompilerStyleErrors() throws {
    let result = try CLI.run(["check", Fixtures.file("broken.scenario")], in: scratch)
    #expect(result.status == 2)
    let errors = result.stderr.split(separator: "\n").filter {
      $0.contains("broken.scenario:") && $0.contains(": error: ")
    }
    #expect(errors.count >= 10, "\(result.stderr)")
    #expect(result.stderr.contains("broken.scenario:11:10: error: unknown action 'fetchs config'"))
    #expect(result.stderr.contains("hint: did you mean 'fetches config'?"))
    #expect(result.stderr.contains("^"))
  }

  @Test func checkOnTheShippedScenariosSucceeds() throws {
    let result = try CLI.run(["check", CLI.scenarios], in: scratch)
    #expect(result.status == 0, "\(result.stderr)")
  }

  @Test func runTracePrintsEveryHTTPExchange() throws {
    let result = try CLI.run(
      ["run", "guards/runtime-cleartext", "--trace", "--platform", "android"] + common, in: scratch)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("GET https://messages.example/api/v1.0/config/ → 200"))
    #expect(result.stdout.contains("refused GET http://messages.example/__heartbeat__/"))
    #expect(result.stdout.contains("control:"))
  }

  @Test func jsonGoesToStdoutAlone() throws {
    let result = try CLI.run(["--json", "--filter", "guards/https-manifest"] + common, in: scratch)
    #expect(result.status == 0)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    // One scenario is a partial run: it passes, it never qualifies.
    #expect(object["verdict"] as? String == "passed-partial")
    #expect(result.stderr.contains("PASSED (partial: filter guards/https-manifest"))
    #expect(!result.stderr.contains("QUALIFIED"))
  }

  @Test(arguments: [
    (["--chanel", "prod"], "did you mean '--channel'?"),
    (["--channel", "production"], "unknown channel 'production'"),
    (["--app", "/nonexistent/app"], "app directory not found"),
    (["--filter", "nothing/*"], "no scenario applies"),
    (["lsit"], "did you mean 'qualify list'?"),
    (["--jobs", "0"], "--jobs must be"),
  ])
  func badInputExits2WithAClearMessage(arguments: [String], message: String) throws {
    let result = try CLI.run(arguments + ["--scenarios", CLI.scenarios], in: scratch)
    #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
    #expect(result.stderr.contains(message), "\(result.stderr)")
  }

  /// A bare folder after a command that reads `--app` was once ignored: `check-app ./repo`
  /// checked the bundled sample and said nothing blocks prod.
  @Test(arguments: [
    (["check-app", "/some/repo"], "qualify check-app --app /some/repo"),
    (["list", "/some/repo"], "qualify list --app /some/repo"),
    (["ota", "keygen", "keys"], "unexpected argument 'keys' for qualify ota keygen"),
    (["serve", "extra"], "unexpected argument 'extra' for qualify serve"),
    (["history", "latest"], "unexpected argument 'latest' for qualify history"),
    (["report", "latest", "extra"], "unexpected argument 'extra' for qualify report"),
  ])
  func aStrayArgumentIsBadInputNotIgnored(arguments: [String], message: String) throws {
    let result = try CLI.run(arguments, in: scratch)
    #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
    #expect(result.stderr.contains(message), "\(result.stderr)")
    #expect(!result.stdout.contains("nothing blocks"), "\(result.stdout)")
  }
  @Test func malformedAppFileExits2WithFileAndLine() throws {
    let app = try Fixtures.temporaryApp("qualify-malformed")
    defer { try? FileManager.default.removeItem(at: app) }
    try Data(#"{ "name": "broken", "base": "\#(Fixtures.sampleApp)" }"#.utf8).write(
      to: app.appendingPathComponent("qualify.json"))
    let manifest = app.appendingPathComponent("src/frontend/android/app/src/main")
    try FileManager.default.createDirectory(at: manifest, withIntermediateDirectories: true)
    try Data("<manifest>\n  <application>\n</manifest>\n".utf8).write(
      to: manifest.appendingPathComponent("AndroidManifest.xml"))
    let result = try CLI.run(["--app", app.path, "--scenarios", CLI.scenarios], in: scratch)
    #expect(result.status == 2)
    #expect(result.stderr.contains("AndroidManifest.xml:3:"), "\(result.stderr)")
  }

  /// A checkout made without Git LFS: the pbxproj is a pointer, and the error says so.
  @Test func aGitLFSPointerIsNamedAsOne() throws {
    let app = try Fixtures.temporaryApp("qualify-lfs")
    defer { try? FileManager.default.removeItem(at: app) }
    try Data(#"{ "name": "lfs", "base": "\#(Fixtures.sampleApp)" }"#.utf8).write(
      to: app.appendingPathComponent("qualify.json"))
    let project = app.appendingPathComponent("src/frontend/ios/App/App.xcodeproj")
    try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
    let pointer = """
      version https://git-lfs.github.com/spec/v1
      oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393
      size 24573

      """
    try Data(pointer.utf8).write(to: project.appendingPathComponent("project.pbxproj"))
    let result = try CLI.run(
      ["check-app", "--app", app.path, "--channel", "prod"], in: scratch)
    #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
    #expect(result.stderr.contains("project.pbxproj:1:"), "\(result.stderr)")
    #expect(result.stderr.contains("is a Git LFS pointer"), "\(result.stderr)")
    #expect(result.stderr.contains("git lfs pull"), "\(result.stderr)")
  }

  @Test func everyCommandHasHelp() throws {
    for command in [
      [], ["run"], ["list"], ["check"], ["history"], ["show"], ["report"], ["check-app"],
      ["links", "verify"], ["links"],
    ] {
      let result = try CLI.run(command + ["--help"], in: scratch)
      #expect(result.status == 0, "\(command)")
      #expect(result.stdout.hasPrefix("USAGE: qualify"), "\(command): \(result.stdout.prefix(80))")
    }
    // Help asked before the subcommand is help too.
    let before = try CLI.run(["links", "--help", "verify"], in: scratch)
    #expect(before.status == 0, "\(before.stderr)")
    #expect(before.stdout.hasPrefix("USAGE: qualify links verify"))
  }

  /// A crash mid-run leaves earlier results readable, and the next invocation marks the run
  /// aborted.
  @Test func sigkillMidRunLeavesTheStoreReadableAndTheRunAborted() throws {
    // Enough scenario copies that the run is still going when it is killed.
    let scenarios = scratch.appendingPathComponent("scenarios/guards")
    try FileManager.default.createDirectory(at: scenarios, withIntermediateDirectories: true)
    let source = try String(
      contentsOfFile: CLI.scenarios + "/guards/runtime-cleartext.scenario", encoding: .utf8)
    for index in 0..<300 {
      try Data(source.utf8).write(to: scenarios.appendingPathComponent("copy\(index).scenario"))
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CLI.binary)
    process.arguments = [
      "--app", Fixtures.sampleApp, "--scenarios", scratch.appendingPathComponent("scenarios").path,
      "--jobs", "1",
    ]
    process.currentDirectoryURL = scratch
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let database = scratch.appendingPathComponent("Reports/qualify.sqlite").path
    var recorded = 0
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline && process.isRunning {
      if FileManager.default.fileExists(atPath: database),
        let store = try? ResultStore(path: database),
        let run = try? store.run(nil)
      {
        recorded = run.counts.values.reduce(0, +)
        if recorded >= 3 { break }
      }
      usleep(2000)
    }
    #expect(process.isRunning, "the run finished before it could be killed")
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    #expect(process.terminationReason == .uncaughtSignal)

    let store = try ResultStore(path: database)
    let killed = try #require(try store.run(nil))
    #expect(killed.status == .running)
    #expect(try store.results(run: killed.id).count >= 3)

    let history = try CLI.run(["history"], in: scratch)
    #expect(history.status == 0)
    #expect(history.stdout.contains("aborted"), "\(history.stdout)")
    #expect(try store.run(killed.id)?.status == .aborted)
  }
}

@Suite struct ForeignAppCLITests {
  @Test func aForeignLayoutQualifiesThroughItsProfile() throws {
    let scratch = try Fixtures.temporaryDirectory("qualify-foreign")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let result = try CLI.run(
      ["--app", Fixtures.file("apps/agenda"), "--scenarios", CLI.scenarios, "--seed", "2"],
      in: scratch)
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout.contains("app agenda"))
  }

  @Test(arguments: [
    (
      "mobile/apple/Agenda/Info.plist", "<plist>\n<dict>\n  <key>A</key>\n</plist>\n",
      "Info.plist:4:"
    ),
    (
      "mobile/droid/src/main/assets/capacitor.config.json",
      "{\n  \"appId\": \"x\",\n  \"server\": {,}\n}\n", "capacitor.config.json:3:"
    ),
    ("qualify.json", "{\n  \"name\": \"agenda\"\n  \"appId\": \"x\"\n}\n", "qualify.json:3:"),
  ])
  func malformedFilesExit2WithFileAndLine(file: String, content: String, location: String) throws {
    let scratch = try Fixtures.temporaryDirectory("qualify-foreign")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let app = scratch.appendingPathComponent("agenda")
    try FileManager.default.copyItem(atPath: Fixtures.file("apps/agenda"), toPath: app.path)
    try Data(content.utf8).write(to: app.appendingPathComponent(file))
    let result = try CLI.run(["check-app", "--app", app.path], in: scratch)
    #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
    #expect(
      result.stderr.contains(location) && result.stderr.contains("error:"), "\(result.stderr)")
  }
}

@Suite struct ServeTests {
  /// `qualify serve` on loopback answers a client that knows only what it printed.
  @Test func serveAnswersOnLoopbackUntilInterrupted() throws {
    let scratch = try Fixtures.temporaryDirectory("qualify-serve")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let (process, document) = try CLI.serve(in: scratch)
    defer { if process.isRunning { process.terminate() } }
    let components = try #require(document["components"] as? [[String: Any]])
    let backend = try #require(components.first { $0["name"] as? String == "backend" })
    #expect((backend["loopback"] as? String)?.hasPrefix("127.0.0.1:") == true)
    let port = try #require(
      UInt16((backend["loopback"] as? String ?? "").split(separator: ":").last ?? ""))
    let ca = try String(contentsOf: scratch.appendingPathComponent("ca.pem"), encoding: .utf8)
    let client = try HTTPClient(
      configuration: .init(trustedCertificatesPEM: ca, origins: ["messages.example:443": port]))
    let response = try client.response(
      to: ClientRequest(url: "https://messages.example/api/v1.0/config/"))
    #expect(response.status == 200)
    #expect((response.jsonObject as? [String: Any])?["ENVIRONMENT"] as? String == "prod")
    #expect(
      try !RawSocket.isListening(host: RawSocket.nonLoopbackAddress() ?? "203.0.113.1", port: port))
    // The push gateways it lists answer at the URLs it prints: an unsigned push is refused as
    // Apple refuses it.
    let apns = try #require(components.first { $0["name"] as? String == "APNs (production)" })
    #expect(apns["send"] as? String == "https://api.push.apple.com/3/device/<token>")
    #expect(components.contains { $0["name"] as? String == "APNs (development)" })
    #expect(components.contains { $0["name"] as? String == "FCM HTTP v1" })
    let apnsPort = try #require(
      UInt16((apns["loopback"] as? String ?? "").split(separator: ":").last ?? ""))
    let pusher = try HTTPClient(
      configuration: .init(
        trustedCertificatesPEM: ca, origins: ["api.push.apple.com:443": apnsPort]))
    let refused = try pusher.response(
      to: ClientRequest(
        method: "POST", url: "https://api.push.apple.com/3/device/00", body: Array("{}".utf8)))
    #expect(refused.status == 403)
    #expect((refused.jsonObject as? [String: Any])?["reason"] as? String == "MissingProviderToken")
    process.interrupt()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
  }
}
