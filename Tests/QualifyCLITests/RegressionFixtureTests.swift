import Foundation
import QualifyTestSupport
import Testing

/// Each regression fixture breaks one invariant of the sample app; `qualify` must catch it
/// on prod, naming the file and the offending value, and the dev channel must accept it
/// exactly where dev allows the setting.
@Suite struct RegressionFixtureTests {
  struct Fixture: Decodable, CustomTestStringConvertible {
    struct Also: Decodable {
      var scenario: String
      var platform: String
      var message: String
    }

    var name = ""
    /// The scenario that must fail, on which platform, naming which file and value.
    var breaks: String
    var platform: String
    var file: String
    var value: String
    /// Channels on which the run must fail, and those the change is allowed on.
    var failsOn: [String]
    var passesOn: [String]
    /// Other scenarios that must fail too, with a word of their message.
    var alsoBreaks: [Also]?
    /// qualify's environment for the run (a CI secret such as the OTA signing key).
    var environment: [String: String]?
    /// An env file of the fixture the pipeline gives with `--backend-env` (the deployed
    /// server's env, where the regression lives).
    var backendEnv: String?

    var testDescription: String { name }

    /// The command line's env files, by their path in the fixture.
    var envArguments: [String] {
      backendEnv.map { ["--backend-env", Fixtures.regressionsDirectory + "/\(name)/\($0)"] } ?? []
    }

    enum CodingKeys: String, CodingKey {
      case breaks, platform, file, value, failsOn, passesOn, alsoBreaks, environment, backendEnv
    }
  }

  static let fixtures: [Fixture] = {
    let directory = Fixtures.regressionsDirectory
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory))?.sorted() ?? []
    return names.compactMap { name in
      guard let data = FileManager.default.contents(atPath: "\(directory)/\(name)/regression.json"),
        var fixture = try? JSONDecoder().decode(Fixture.self, from: data)
      else { return nil }
      fixture.name = name
      return fixture
    }
  }()

  @Test func everyFixtureDirectoryDescribesItsRegression() throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.regressionsDirectory)
    #expect(names.count == RegressionFixtureTests.fixtures.count)
    #expect(names.count >= 10)
  }

  /// A whole run of the fixture's app on `channel`, in a scratch directory of its own.
  private func qualify(_ fixture: Fixture, on channel: String) throws -> ProcessResult {
    let scratch = try Fixtures.temporaryDirectory("qualify-regression")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let app = Fixtures.regressionsDirectory + "/" + fixture.name
    return try CLI.run(
      // No regression fixture is about item 3's rendering: the engines stay off.
      [
        "--app", app, "--channel", channel, "--scenarios", CLI.scenarios, "--seed", "5",
        "--no-engines",
      ] + fixture.envArguments,
      in: scratch, environment: fixture.environment ?? [:])
  }

  @Test(arguments: fixtures)
  func theRegressionIsCaughtNamingFileAndValue(fixture: Fixture) throws {
    for channel in fixture.failsOn {
      let result = try qualify(fixture, on: channel)
      #expect(result.status == 1, "\(fixture.name) on \(channel): \(result.stdout)\(result.stderr)")
      let lines = result.stdout.split(separator: "\n").map(String.init)
      func message(_ scenario: String, _ platform: String) throws -> String {
        let header = "FAIL \(scenario) [\(platform)]"
        let index = try #require(
          lines.firstIndex { $0.hasPrefix(header) },
          "\(fixture.name) on \(channel): no '\(header)' in\n\(result.stdout)")
        return lines[index + 1]
      }
      let main = try message(fixture.breaks, fixture.platform)
      #expect(
        main.contains(fixture.file),
        "\(fixture.name): the message does not name \(fixture.file): \(main)")
      #expect(
        main.contains(fixture.value),
        "\(fixture.name): the message does not show \(fixture.value): \(main)")
      for also in fixture.alsoBreaks ?? [] {
        let text = try message(also.scenario, also.platform)
        #expect(
          text.contains(also.message),
          "\(fixture.name): \(also.scenario) does not name \(also.message): \(text)")
      }
    }
  }

  @Test(arguments: fixtures)
  func channelsThatAllowTheChangePass(fixture: Fixture) throws {
    for channel in fixture.passesOn {
      let result = try qualify(fixture, on: channel)
      #expect(result.status == 0, "\(fixture.name) on \(channel): \(result.stdout)\(result.stderr)")
    }
  }

  @Test(arguments: fixtures)
  func checkAppReportsTheSameFinding(fixture: Fixture) throws {
    let scratch = try Fixtures.temporaryDirectory("qualify-regression")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let channel = fixture.failsOn.first ?? "prod"
    let result = try CLI.run(
      [
        "check-app", "--channel", channel, "--app",
        Fixtures.regressionsDirectory + "/" + fixture.name,
      ] + fixture.envArguments, in: scratch, environment: fixture.environment ?? [:])
    #expect(result.status == 1, "\(fixture.name): \(result.stdout)")
    #expect(
      result.stdout.contains(fixture.file) && result.stdout.contains(fixture.value),
      "\(result.stdout)")
  }

  @Test func theSampleAppHasNoBlockingFindingOnAnyChannel() throws {
    let scratch = try Fixtures.temporaryDirectory("qualify-regression")
    defer { try? FileManager.default.removeItem(at: scratch) }
    for channel in ["dev", "staging", "prod"] {
      let result = try CLI.run(
        ["check-app", "--channel", channel, "--app", Fixtures.sampleApp], in: scratch)
      #expect(result.status == 0, "\(channel): \(result.stdout)")
    }
  }
}
