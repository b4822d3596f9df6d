import Foundation
import HTTP
import Testing

/// Query strings and forms decode as Foundation's `removingPercentEncoding` does after `+`
/// became a space, which is what browsers and servers agree on.
struct QueryTests {
  @Test(arguments: [
    "plain", "a+b", "two%20words", "%2B", "caf%C3%A9", "%e2%82%ac", "100%", "%4", "%zz",
    "%C3", "%FF%FE", "a%2", "+%20+", "", "%00", "state%3Dx%26y", "%%41", "é+%41",
  ])
  func decodingAgreesWithFoundation(text: String) {
    let spaced = text.replacingOccurrences(of: "+", with: " ")
    #expect(Query.decode(text) == (spaced.removingPercentEncoding ?? spaced))
  }

  /// The form-urlencoded parser works on bytes: every 0x2B is a space, even before a
  /// combining mark, where Foundation's Character-wise `replacingOccurrences` keeps the `+`.
  @Test func aPlusIsASpaceWhateverFollowsIt() {
    #expect(Query.decode("a+\u{301}") == "a \u{301}")
  }

  @Test func pairsKeepTheirOrderAndDecodeBothSides() {
    let pairs = Query.parse("b=2&a=one+two&c%3D=%3D&flag&&d=")
    #expect(pairs.map(\.name) == ["b", "a", "c=", "flag", "d"])
    #expect(pairs.map(\.value) == ["2", "one two", "=", "", ""])
  }
}
