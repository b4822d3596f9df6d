import Foundation
import Testing

@testable import HTTP

/// The byte trim that header parsing uses gives Foundation's answer on ASCII header text,
/// and keeps what is not HTTP whitespace.
struct HeaderTrimTests {
  @Test func theByteTrimMatchesFoundationOnASCII() {
    let cases = [
      "", " ", "\t\r\n", "a", " a ", "\tvalue with  inner space \r\n", "x-token: abc\r\n",
      "  ; Path=/", "\r\n", "a\t", "\u{7f}a\u{7f}",
    ]
    for text in cases {
      #expect(text.trimmingOWS() == text.trimmingCharacters(in: .whitespacesAndNewlines))
      let sliced = ("<" + text + ">").dropFirst().dropLast()
      #expect(sliced.trimmingOWS() == text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    // A no-break space is not HTTP whitespace: it stays part of the value.
    #expect("\u{a0}v\u{a0}".trimmingOWS() == "\u{a0}v\u{a0}")
    #expect(SetCookie(header: " sid = abc ; Path = /app ; HttpOnly")?.value == "abc")
    #expect(SetCookie(header: " sid = abc ; Path = /app ; HttpOnly")?.path == "/app")
  }
}
