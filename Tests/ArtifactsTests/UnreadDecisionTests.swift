import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

@testable import Artifacts

/// A decision qualify reads but cannot evaluate is an unverified finding at its line: never a
/// pass, never a failure of the app.
@Suite struct UnreadDecisionTests {
  private func findings(
    base: String, path: String, replacing old: String, with new: String, rule: String
  ) throws -> [Finding] {
    let text = try String(contentsOfFile: base + "/" + path, encoding: .utf8)
    #expect(text.contains(old), "\(path) holds \(old)")
    let directory = try Fixtures.overlayApp(
      "qualify-unread", base: base,
      files: [path: text.replacingOccurrences(of: old, with: new)])
    defer { try? FileManager.default.removeItem(at: directory) }
    let build = try #require(try AppRepository(directory: directory.path).builds(for: .prod)[.ios])
    return BuildGuards.findings(for: build).filter { $0.rule == rule }
  }

  @Test func aWalkWhoseDepthIsComputedIsUnverified() throws {
    let path = "packages/core/src/navigation/mobileProtocol.ts"
    let found = try findings(
      base: Fixtures.bridgeApp, path: path, replacing: "hasForbiddenKey(item, depth + 1)",
      with: "hasForbiddenKey(item, nextDepth(depth))", rule: "message-bounds")
    #expect(found.map(\.severity) == [.unverified])
    #expect(found.first?.message.contains("nextDepth(depth)") == true)
    #expect(found.first?.location?.file.hasSuffix(path) == true)
    // The same walk stuck is a finding of the app.
    let stuck = try findings(
      base: Fixtures.bridgeApp, path: path, replacing: "hasForbiddenKey(item, depth + 1)",
      with: "hasForbiddenKey(item, depth)", rule: "message-bounds")
    #expect(stuck.map(\.severity) == [.error])
  }

  @Test func aComparisonGuardQualifyDoesNotEvaluateIsUnverified() throws {
    let base = Fixtures.root + "/Scenarios/apps/messages-simple"
    let path = "src/features/native/ota.ts"
    let found = try findings(
      base: base, path: path, replacing: "  if (left === null || right === null) {",
      with:
        "  if (isLegacyId(a, b)) {\n    return null;\n  }\n  if (left === null || right === null) {",
      rule: "ota-client-code")
    #expect(found.map(\.severity) == [.unverified])
    #expect(found.first?.message.contains("isLegacyId(a, b)") == true)
    #expect(found.first?.location?.line == 27)
  }
}
