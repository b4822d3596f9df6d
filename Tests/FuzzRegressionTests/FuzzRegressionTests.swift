import Foundation
import FuzzTargets
import QualifyTestSupport
import Testing

/// Every input `make fuzz` ever crashed on, kept under Tests/Fixtures/fuzz/<target>/ and run
/// through its target on each test run: a reader that crashes again takes the test process
/// down, and one that throws an error it does not document traps with the target's name.
@Suite struct FuzzRegressionTests {
  static let root = URL(fileURLWithPath: Fixtures.file("fuzz"))

  static var cases: [String] {
    let fileManager = FileManager.default
    let targets = (try? fileManager.contentsOfDirectory(atPath: root.path)) ?? []
    return targets.sorted().flatMap { target in
      ((try? fileManager.contentsOfDirectory(
        atPath: root.appendingPathComponent(target).path)) ?? []).sorted().map { "\(target)/\($0)" }
    }
  }

  @Test func everyTargetHasItsCrashesOnFile() {
    #expect(!Self.cases.isEmpty)
    for name in Set(Self.cases.map { String($0.split(separator: "/")[0]) }) {
      #expect(FuzzTargets.named(name) != nil, "Tests/Fixtures/fuzz/\(name) names no target")
    }
  }

  @Test(arguments: cases)
  func aSavedCrashNoLongerCrashes(path: String) throws {
    let target = try #require(FuzzTargets.named(String(path.split(separator: "/")[0])))
    let data = try Data(contentsOf: Self.root.appendingPathComponent(path))
    target.run(Array(data))
  }

  /// The seeds are what the fuzzer starts from: each target has some, and each runs clean.
  @Test(arguments: FuzzTargets.all.map(\.name))
  func seedsRunClean(name: String) throws {
    let target = try #require(FuzzTargets.named(name))
    let directory = try Fixtures.temporaryDirectory("qualify-seeds")
    defer { try? FileManager.default.removeItem(at: directory) }
    let count = try target.writeSeeds(
      from: URL(fileURLWithPath: Fixtures.root), to: directory)
    #expect(count > 0, "\(name) has no seeds")
    for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
      target.run(Array(try Data(contentsOf: directory.appendingPathComponent(file))))
    }
  }
}
