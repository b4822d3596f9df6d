import Foundation
import Testing

@testable import QualifyCore

/// The mocks' JSON writer gives `JSONSerialization`'s bytes (tokens signed over them must
/// not change with the writer), on edge values and on seeded random documents.
@Suite struct JSONTextTests {
  private func foundation(_ object: Any, escapingSlashes: Bool) -> [UInt8]? {
    var options: JSONSerialization.WritingOptions = [.sortedKeys]
    if !escapingSlashes { options.insert(.withoutEscapingSlashes) }
    return (try? JSONSerialization.data(withJSONObject: object, options: options)).map(Array.init)
  }

  @Test func everyASCIICharacterAndSomeUnicodeEscapeAsFoundationEscapes() {
    var strings = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
    strings += ["é", "…", "→", "😀", "\u{2028}", "\u{feff}", "a/b", "https://x.test/cb?a=1&b=2"]
    for text in strings {
      for escaping in [false, true] {
        #expect(
          JSONText.data(["k": text, "list": [text]], escapingSlashes: escaping)
            == foundation(["k": text, "list": [text]], escapingSlashes: escaping),
          "\(Array(text.unicodeScalars.map(\.value)))")
      }
    }
  }

  @Test func keysSortAndValuesWriteAsFoundationDoes() {
    let document: [String: Any] = [
      "b": 1, "B": -2, "a_b": true, "a-b": false, "a": NSNull(), "10": [1, 2, [3]],
      "9": ["z": [:] as [String: Any], "y": [] as [Any]], "é": "x", "Z": Int.max, "z": Int.min,
      "mixed": [1, "two", false, NSNull(), ["k": "v"]] as [Any],
    ]
    #expect(
      JSONText.data(document, escapingSlashes: false)
        == foundation(document, escapingSlashes: false))
    var generator = SeededGenerator(seed: 3, label: "json-text")
    let keys = ["a", "A", "aa", "a0", "_", "-", "z9", "Zz", "kid", "iss", "é", "b/c", "0"]
    func value(_ depth: Int) -> Any {
      switch generator.next() % (depth > 2 ? 4 : 6) {
      case 0: return Int(truncatingIfNeeded: generator.next()) >> Int(generator.next() % 64)
      case 1: return generator.next() % 2 == 0
      case 2: return keys[Int(generator.next() % UInt64(keys.count))] + "\n\"/\\"
      case 3: return NSNull()
      case 4:
        return (0..<Int(generator.next() % 4)).map { _ in value(depth + 1) }
      default:
        var object: [String: Any] = [:]
        for _ in 0..<Int(generator.next() % 5) {
          object[keys[Int(generator.next() % UInt64(keys.count))]] = value(depth + 1)
        }
        return object
      }
    }
    for _ in 0..<300 {
      let object: [String: Any] = ["root": value(0), "kid": value(1)]
      for escaping in [false, true] {
        #expect(
          JSONText.data(object, escapingSlashes: escaping)
            == foundation(object, escapingSlashes: escaping))
      }
    }
  }

  /// What the writer leaves alone, Foundation writes: a fraction, a parsed document's
  /// numbers.
  @Test func otherNumbersAreFoundationsToWrite() throws {
    let parsed = try JSONSerialization.jsonObject(with: Data(#"{"n":1.5,"m":2,"t":true}"#.utf8))
    for object in [["x": 0.1, "y": 2] as [String: Any], parsed] {
      #expect(
        JSONText.data(object, escapingSlashes: false) == foundation(object, escapingSlashes: false))
    }
  }
}
