import Foundation
import QualifyTestSupport
import Testing

/// Each regression fixture breaks one invariant of the sample app; `qualify` must catch it
/// on prod, naming the file and the offending value, and the dev channel must accept it
/// exactly where dev allows the setting.
@Suite struct RegressionFixtureTests {
  struct Fixture: Decodable, CustomTestStringConvertible {
    var name = ""
    var breaks: String
    var platform: String
    var file: String
    var value: String
    var devPasses: Bool

    var testDescription: String { name }

    enum CodingKeys: String, CodingKey {
      case breaks, platform, file, value, devPasses
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

  @Test(arguments: fixtures)
  func prodCatchesTheRegressionNamingFileAndValue(fixture: Fixture) throws {
    let scratch = try Fixtures.temporaryDirectory("qualify-regression")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let app = Fixtures.regressionsDirectory + "/" + fixture.name
    let result = try CLI.run(
      ["--app", app, "--channel", "prod", "--scenarios", CLI.scenarios, "--seed", "5"], in: scratch)
    #expect(result.status == 1, "\(fixture.name): \(result.stdout)\(result.stderr)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    let header = "FAIL \(fixture.breaks) [\(fixture.platform)]"
    let index = try #require(
      lines.firstIndex { $0.hasPrefix(header) },
      "\(fixture.name): no '\(header)' in\n\(result.stdout)")
    let message = lines[index + 1]
    #expect(
      message.contains(fixture.file),
      "\(fixture.name): the message does not name \(fixture.file): \(message)")
    #expect(
      message.contains(fixture.value),
      "\(fixture.name): the message does not show \(fixture.value): \(message)")
  }

  @Test(arguments: fixtures)
  func devAcceptsOnlyWhatDevAllows(fixture: Fixture) throws {
    let scratch = try Fixtures.temporaryDirectory("qualify-regression")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let app = Fixtures.regressionsDirectory + "/" + fixture.name
    let result = try CLI.run(
      ["--app", app, "--channel", "dev", "--scenarios", CLI.scenarios, "--seed", "5"], in: scratch)
    #expect(
      result.status == (fixture.devPasses ? 0 : 1),
      "\(fixture.name): \(result.stdout)\(result.stderr)")
  }

  @Test(arguments: fixtures)
  func checkAppReportsTheSameFinding(fixture: Fixture) throws {
    let scratch = try Fixtures.temporaryDirectory("qualify-regression")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let result = try CLI.run(
      ["check-app", "--app", Fixtures.regressionsDirectory + "/" + fixture.name], in: scratch)
    #expect(result.status == 1)
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
