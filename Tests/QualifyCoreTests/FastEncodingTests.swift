import Foundation
import Testing

@testable import QualifyCore

/// The byte-level encoders that replaced Foundation calls on hot paths give Foundation's
/// answers, on fixed edges and on seeded random inputs.
@Suite struct FastEncodingTests {
  @Test func base64URLMatchesFoundationsAlphabetSwap() {
    var generator = SeededGenerator(seed: 11, label: "base64url")
    for length in 0..<80 {
      let bytes = generator.bytes(length)
      let encoded = Base64URL.encode(bytes)
      let expected = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
      #expect(encoded == expected)
      #expect(Base64URL.decode(encoded) == Data(bytes))
    }
    #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
    #expect(Base64URL.decode("-_8") == Data([0xfb, 0xff]))
    // Padding already there, and the standard alphabet, are accepted as before.
    #expect(Base64URL.decode("-_8=") == Data([0xfb, 0xff]))
    #expect(Base64URL.decode("+/8") == Data([0xfb, 0xff]))
    #expect(Base64URL.decode("a") == nil)
    #expect(Base64URL.decode("a*bc") == nil)
  }

  @Test func iso8601MatchesFoundationsDefaultFormat() {
    let formatter = ISO8601DateFormatter()
    var generator = SeededGenerator(seed: 12, label: "iso8601")
    var dates: [Date] = [
      Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -1),
      Date(timeIntervalSince1970: 951_782_400),  // 2000-02-29
      Date(timeIntervalSince1970: 4_107_542_399.5),  // 2100-02-28 23:59:59.5
      Date(timeIntervalSince1970: -2_208_988_800),  // 1900-01-01
      Date(timeIntervalSince1970: 1_796_310_647.999),
    ]
    for _ in 0..<500 {
      let seconds = Double(generator.next() % 8_000_000_000) - 2_000_000_000
      dates.append(Date(timeIntervalSince1970: seconds + Double(generator.next() % 1000) / 1000))
    }
    for date in dates {
      #expect(
        ISO8601.string(from: date) == formatter.string(from: date), "\(date.timeIntervalSince1970)")
    }
  }

  @Test func theGuardSearchNeverMissesWhatFoundationFinds() {
    let cases: [(String, String)] = [
      ("", "a"), ("abc", ""), ("abc", "abc"), ("abcd", "bcd"), ("ab", "abc"),
      ("aaab", "aab"), ("-----BEGIN RSA PRIVATE KEY-----", "PRIVATE KEY-----"),
      ("pass word", "s w"), ("xyz", "q"), ("caf\u{e9} secret", "secret"),
      ("cafe\u{301}", "caf\u{e9}"), ("mot de passe \u{e9}t\u{e9}", "\u{e9}t\u{e9}"),
      ("GET /x → 200 tok3n", "tok3n"), ("GET /x → 200", "tok3n"), ("a\u{212A}ey", "aKey"),
      ("x\u{037E}y", "x;y"), ("\u{1FEF}q", "`q"), ("secret\u{301}", "secret"),
      ("\u{2126} ohm", "\u{3A9} ohm"),
    ]
    for (text, needle) in cases {
      if text.contains(needle) {
        #expect(TextSearch.contains(text, needle), "\(text) / \(needle)")
      }
      if text.utf8.allSatisfy({ $0 < 0x80 }) {
        #expect(TextSearch.contains(text, needle) == text.contains(needle), "\(text) / \(needle)")
      }
    }
    // Seeded texts mixing ASCII with accents, arrows and the three singletons.
    var generator = SeededGenerator(seed: 13, label: "search")
    let pieces = [
      "a", "K", ";", "`", "e", "\u{301}", "\u{e9}", "→", "\u{212A}", "\u{037E}", "\u{1FEF}", " ",
    ]
    for _ in 0..<2_000 {
      let text = (0..<Int(generator.next() % 12)).map { _ in
        pieces[Int(generator.next() % UInt64(pieces.count))]
      }.joined()
      let needle = ["aK", "K;", "`e", "e", "a", ";`"][Int(generator.next() % 6)]
      if text.contains(needle) { #expect(TextSearch.contains(text, needle), "\(text) / \(needle)") }
    }
  }

  /// The byte-level HTML escape writes what the scalar-by-scalar one it replaced wrote.
  @Test func htmlEscapeMatchesTheScalarReference() {
    func reference(_ text: String) -> String {
      var out = String.UnicodeScalarView()
      for scalar in text.unicodeScalars {
        switch scalar {
        case "&": out.append(contentsOf: "&amp;".unicodeScalars)
        case "<": out.append(contentsOf: "&lt;".unicodeScalars)
        case ">": out.append(contentsOf: "&gt;".unicodeScalars)
        case "\"": out.append(contentsOf: "&quot;".unicodeScalars)
        case "'": out.append(contentsOf: "&#39;".unicodeScalars)
        case "\n", "\t": out.append(scalar)
        default:
          if BidiControls.contains(scalar) {
            out.append(contentsOf: BidiControls.visible(scalar).unicodeScalars)
          } else if scalar.value < 0x20 || scalar.value == 0x7F {
            out.append(contentsOf: "&#\(scalar.value);".unicodeScalars)
          } else {
            out.append(scalar)
          }
        }
      }
      return String(out)
    }
    var texts = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
    texts += [
      "", "plain text", "GET /a → 200", "\u{202E}evil\u{202C}", "\u{600}<b>", "\u{2066}x\u{2069}",
      "\u{61C}\u{200E}\u{200F}", "😀 & <tag attr='v'>", "e\u{301}\r\n",
    ]
    for text in texts {
      #expect(HTMLText.escape(text) == reference(text), "\(Array(text.unicodeScalars))")
    }
  }
}
