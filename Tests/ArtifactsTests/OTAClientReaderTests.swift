import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

@testable import Artifacts

/// The refusals of an app's own `ota.ts`, read from its code (issue 26): what the simulated
/// updater keeps, and what the `ota-client-code` guard names.
@Suite struct OTAClientReaderTests {
  let text: String

  init() throws {
    text = try String(
      contentsOfFile: Fixtures.file("apps/ota-sequence/src/frontend/src/features/native/ota.ts"),
      encoding: .utf8)
  }

  private func read(_ edit: (String) -> String = { $0 }) -> OTAClientCode {
    OTAClientReader.read(edit(text), file: "src/features/native/ota.ts")
  }

  private func line(_ marker: String) -> Int {
    (text.components(separatedBy: "\n").firstIndex { $0.contains(marker) } ?? -1) + 1
  }

  @Test func eachRefusalIsReadAtItsLine() {
    let code = read()
    #expect(code.sequenceFloor.value == .refusesEqual)
    #expect(code.sequenceFloor.location?.line == line("sequence <= floor"))
    #expect(code.countOrder.value == .refusesEqual)
    #expect(code.countOrder.location?.line == line("order <= 0"))
    #expect(code.nativeFloor.value)
    #expect(code.failedBootGuard.value)
    // The commented-out comparison above the real one is not the one read.
    #expect(code.failedBootGuard.location?.line == line("=== manifest.version) {"))
  }

  /// The id pattern is tried on the ids the release process writes: one that misses a
  /// 7-character short SHA (or a 40-character one) leaves that release without a count, so
  /// the count refusal, which wants one, holds for none of them.
  @Test func theIdPatternIsTriedOnReleaseIds() throws {
    // The bundled sample's client, which parses ids itself (the fixture above imports it).
    let sample = try String(
      contentsOfFile: Fixtures.root
        + "/Scenarios/apps/messages/src/frontend/src/features/native/ota.ts",
      encoding: .utf8)
    func read(_ edit: (String) -> String = { $0 }) -> OTAClientCode {
      OTAClientReader.read(edit(sample), file: "src/features/native/ota.ts")
    }
    func line(_ marker: String) -> Int {
      (sample.components(separatedBy: "\n").firstIndex { $0.contains(marker) } ?? -1) + 1
    }
    let code = read()
    #expect(code.idPattern?.value == #"^(\d+)-[0-9a-f]{7,40}$"#)
    #expect(code.unreadId == nil)
    for (bound, unread) in [("{8,40}", "1234-a1b2c3d"), ("{7,39}", OTAClientReader.releaseIds[2])] {
      let narrowed = read { $0.replacingOccurrences(of: "{7,40}", with: bound) }
      #expect(narrowed.unreadId == unread, "\(bound)")
      #expect(narrowed.countOrder.value == .none, "\(bound)")
      #expect(narrowed.countOrder.location?.line == line("{7,40}"), "\(bound)")
    }
    // Wider than the release ids is no regression.
    #expect(read { $0.replacingOccurrences(of: "{7,40}", with: "{4,64}") }.unreadId == nil)
    // The comparison the refusal calls gives up on two counted ids (its null test flipped):
    // nothing is ordered, the refusal is skipped, and an older bundle applies.
    let unordered = read {
      $0.replacingOccurrences(
        of: "if (left === null || right === null)", with: "if (left !== null || right === null)")
    }
    #expect(unordered.countOrder.value == .none)
    #expect(unordered.countOrder.location?.line == line("if (left === null || right === null)"))
    #expect(unordered.countOrder.derivation.first?.contains("compareVersionCounts") == true)
    // A defensive test of the ids' types is no null test of their counts.
    let typed = read {
      $0.replacingOccurrences(
        of: "  const left = versionCount(a);",
        with:
          "  if (typeof a !== \"string\" || typeof b !== \"string\") {\n    return null;\n  }\n  const left = versionCount(a);"
      )
    }
    #expect(typed.countOrder.value == .refusesEqual)
    #expect(typed.unreadComparison == nil)
    #expect(code.countOrder.value == .refusesEqual)
    #expect(code.unreadComparison == nil)
    // A test of a helper qualify does not know is neither a regression nor a pass: it is
    // named, at its line, as not evaluated.
    let helper = read {
      $0.replacingOccurrences(
        of: "  const left = versionCount(a);",
        with: "  if (isLegacyId(a)) {\n    return null;\n  }\n  const left = versionCount(a);")
    }
    #expect(helper.countOrder.value == .refusesEqual)
    #expect(helper.unreadComparison?.value == "isLegacyId(a)")
    // The guard takes the line the first local held before it was inserted.
    #expect(helper.unreadComparison?.location?.line == line("const left = versionCount(a);"))
  }

  /// The operator decides: `<` lets an equal sequence or count apply again; the operands
  /// the other way round (`floor >= sequence`) read the same as `sequence <= floor`.
  @Test func theOperatorDecidesWhetherAnEqualReleaseApplies() {
    let weak = read {
      $0.replacingOccurrences(of: "sequence <= floor", with: "sequence < floor")
        .replacingOccurrences(of: "order <= 0", with: "order < 0")
    }
    #expect(weak.sequenceFloor.value == .acceptsEqual)
    #expect(weak.countOrder.value == .acceptsEqual)
    let flipped = read {
      $0.replacingOccurrences(of: "sequence <= floor", with: "floor >= sequence")
    }
    #expect(flipped.sequenceFloor.value == .refusesEqual)
    let minusOne = read { $0.replacingOccurrences(of: "order <= 0", with: "order === -1") }
    #expect(minusOne.countOrder.value == .acceptsEqual)
  }

  /// A refusal whose block does not return, or that is gone, is no refusal.
  @Test func aRefusalThatDoesNotReturnOrIsGoneIsAbsent() {
    let logged = read {
      $0.replacingOccurrences(
        of: "console.warn(`sequence ${sequence} is not above ${floor}`);\n      return;",
        with: "console.warn(`sequence ${sequence} is not above ${floor}`);")
    }
    #expect(logged.sequenceFloor.value == .none)
    let noRecord = read {
      $0.replacingOccurrences(
        of: "if (localStorage.getItem(OTA_BOOT_FAILED_KEY) === manifest.version) {",
        with: "if (false) {")
    }
    #expect(noRecord.failedBootGuard.value == false)
    let noNative = read { $0.replacingOccurrences(of: "belowBinary < 0", with: "belowBinary < -5") }
    #expect(noNative.nativeFloor.value == false)
  }

  /// The guard names a weakened refusal at its line, under the ordering the app declares.
  @Test func theGuardNamesAWeakenedRefusalAtItsLine() throws {
    var build = try #require(
      try AppRepository(directory: Fixtures.sampleApp).builds(for: .prod)[.android])
    build.otaClient = read()
    #expect(!BuildGuards.findings(for: build).contains { $0.rule == "ota-client-code" })
    build.otaClient = read { $0.replacingOccurrences(of: "order <= 0", with: "order < 0") }
    let count = try #require(
      BuildGuards.findings(for: build).first { $0.rule == "ota-client-code" })
    #expect(count.location?.line == line("order <= 0"))
    #expect(count.message.contains("count is lower"))
    build.otaOrdering = "sequence"
    build.otaClient = read {
      $0.replacingOccurrences(of: "sequence <= floor", with: "sequence < floor")
    }
    let sequence = try #require(
      BuildGuards.findings(for: build).first { $0.rule == "ota-client-code" })
    #expect(sequence.location?.line == line("sequence <= floor"))
    #expect(sequence.message.contains("sequence is lower"))
  }
}
