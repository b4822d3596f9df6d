import Foundation
import QualifyCore
import Testing

@testable import Results

/// `qualify diff` compares evidence with what the seed derives masked (issue 25, item 6).
@Suite struct RunDiffMaskTests {
  /// Values a seed derives look random, digit or not: they are masked; what a check decides
  /// (a status, a host, a decision's words) is not.
  @Test func theDiffMasksWhatTheSeedDerivesAndKeepsWhatChecksDecide() {
    let a = RunDiff.mask(
      "GET https://idp.example/interaction/OcvazXSSrXmn → 200; registered (token 1Va53mVp…)")
    let b = RunDiff.mask(
      "GET https://idp.example/interaction/PqLmTrWxZbKs → 200; registered (token 8b7uNDb8…)")
    #expect(a == b, "\(a) / \(b)")
    #expect(
      RunDiff.mask("GET /api/v1.0/config/ → 200") != RunDiff.mask("GET /api/v1.0/config/ → 302"))
    #expect(RunDiff.mask("opens in web-auth-session") == "opens in web-auth-session")
  }

  /// A short OTA id keeps its count (what the scenario chose) and loses its commit (the
  /// seed's): a count that changes is a change.
  @Test func anOTAIdKeepsItsCountAndMasksItsCommit() {
    #expect(
      RunDiff.mask("ci published 999-153d3b8 on prod")
        == RunDiff.mask("ci published 999-2701fa2 on prod"))
    #expect(
      RunDiff.mask("ci published 999-153d3b8 on prod")
        != RunDiff.mask("ci published 998-153d3b8 on prod"))
  }

  /// A rule is skipped only when its trigger shows that it cannot match: on edge lines and
  /// on seeded random lines drawn from the rules' own characters, the guarded masks give
  /// what every rule run on every line gives.
  @Test func theTriggersSkipOnlyRulesThatCannotMatch() {
    var lines = [
      "", "took (12 ms)", "took (1.5 µs) then (3s)", "[REDACTED:beef] sent", "id 0123abcd here",
      "x0123abcd", "abc_12345678…", "abc-def_12345678 then …", "999-153d3b8", "a999-153d3b8",
      "token 1Va53mVp…", "AbCdEfGhIjKlMn", "abcdefghijklmnop", "a1b2c3d4e5f6g7",
      "café 0123abcd (4 ms)", "x-_-_-_-_-_-_-_", "[REDACTED:0a1b]…", "12-abcdef0…",
    ]
    var generator = SeededGenerator(seed: 5, label: "mask-lines")
    let pieces = [
      "(", ")", "s", "ms", "µs", " ", "1", "9", ".", "a", "f", "0", "-", "_", "…", "Z", "q",
      "[REDACTED:", "]", "é", "deadbeef", "153d3b8", "Ab", "x", "→",
    ]
    for _ in 0..<3_000 {
      let count = Int(generator.next() % 24)
      lines.append(
        (0..<count).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined())
    }
    for line in lines {
      #expect(RunDiff.mask(line) == RunDiff.mask(line, guarded: false), "\(line)")
    }
  }
}
