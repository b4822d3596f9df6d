import Foundation
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
}
