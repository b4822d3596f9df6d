import Scenarios
import Testing

@Suite struct BecauseTests {
  @Test(
    arguments: [
      ("status", nil, "status", "200", true),
      ("status", "200", "status", "200", true),
      ("status", "200", "status", nil, false),
      ("status", "200", "status", "302", false),
      ("status", nil, "transport-error", nil, false),
      ("state-mismatch", "WRONG", "state-mismatch", "wrong", true),
    ] as [(String, String?, String?, String?, Bool)])
  func aControlNamesTheFailureByReasonAndDetail(
    reason: String, detail: String?, failed: String?, failedDetail: String?, names: Bool
  ) {
    let because = Because(reason: reason, detail: detail)
    #expect(because.names(reason: failed, detail: failedDetail) == names)
  }

  @Test func aStepThatDidNotSayWhyIsNamedByNoReason() {
    #expect(!Because(reason: "status").names(reason: nil, detail: nil))
  }
}
