import Foundation
import QualifyCore

extension ConfigScript {
  /// One lexical unit of the script, with the line it starts on.
  struct Token: Equatable {
    enum Kind: Equatable {
      case word(String)
      case number(Double)
      case string(String)
      /// A template literal: its literal parts and the source of each `${…}` between them.
      case template(parts: [String], expressions: [String])
      case punctuator(String)
    }
    var kind: Kind
    var line: Int
  }

  /// The punctuators the subset uses, longest first so that `===` is not read as `==` `=`.
  static let punctuators = [
    "...", "===", "!==", "??", "?.", "||", "&&", "==", "!=", "=>", "{", "}", "(", ")", "[", "]",
    ",", ":", ";", ".", "?", "!", "=", "+", "-", "*", "/", "<", ">", "&", "|", "@",
  ]

  /// The script's tokens: comments dropped, strings unescaped as JavaScript does for the
  /// escapes a config uses (`\n`, `\t`, `\\`, quotes, `\u{…}` and `\uXXXX`).
  static func tokens(_ text: String, file: String, firstLine: Int = 1) throws -> [Token] {
    let bytes = Array(text.utf8)
    var out: [Token] = []
    var index = 0
    var line = firstLine
    // The line is passed, not captured: `quoted` holds `line` inout while it may fail.
    func fail(_ message: String, at line: Int) -> Diagnostic {
      Diagnostic.error(at: FileLocation(file: file, line: line, column: 1), message)
    }
    while index < bytes.count {
      let c = bytes[index]
      if c == UInt8(ascii: "\n") {
        line += 1
        index += 1
      } else if c == 0x20 || c == 0x09 || c == 0x0D {
        index += 1
      } else if c == UInt8(ascii: "/"), index + 1 < bytes.count,
        bytes[index + 1] == UInt8(ascii: "/")
      {
        while index < bytes.count && bytes[index] != UInt8(ascii: "\n") { index += 1 }
      } else if c == UInt8(ascii: "/"), index + 1 < bytes.count,
        bytes[index + 1] == UInt8(ascii: "*")
      {
        index += 2
        while index + 1 < bytes.count
          && !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/"))
        {
          if bytes[index] == UInt8(ascii: "\n") { line += 1 }
          index += 1
        }
        guard index + 1 < bytes.count else { throw fail("a comment is not closed", at: line) }
        index += 2
      } else if c == UInt8(ascii: "'") || c == UInt8(ascii: "\"") || c == UInt8(ascii: "`") {
        let start = line
        let kind = try quoted(bytes, &index, &line, fail: fail)
        out.append(Token(kind: kind, line: start))
      } else if isWordByte(c) && !(c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) {
        let start = index
        while index < bytes.count && isWordByte(bytes[index]) { index += 1 }
        out.append(
          Token(kind: .word(String(decoding: bytes[start..<index], as: UTF8.self)), line: line))
      } else if c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") {
        let start = index
        while index < bytes.count && (isWordByte(bytes[index]) || bytes[index] == UInt8(ascii: "."))
        {
          index += 1
        }
        let word = String(decoding: bytes[start..<index], as: UTF8.self)
          .replacingOccurrences(of: "_", with: "")
        guard let value = Double(word) else { throw fail("`\(word)` is not a number", at: line) }
        out.append(Token(kind: .number(value), line: line))
      } else if let symbol = punctuators.first(where: { matches($0, bytes, at: index) }) {
        out.append(Token(kind: .punctuator(symbol), line: line))
        index += symbol.utf8.count
      } else {
        throw fail("unexpected character `\(String(decoding: [c], as: UTF8.self))`", at: line)
      }
    }
    return out
  }

  private static func isWordByte(_ c: UInt8) -> Bool {
    (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z"))
      || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
      || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_")
      || c == UInt8(ascii: "$") || c >= 0x80
  }

  private static func matches(_ symbol: String, _ bytes: [UInt8], at index: Int) -> Bool {
    let symbolBytes = Array(symbol.utf8)
    guard index + symbolBytes.count <= bytes.count else { return false }
    return Array(bytes[index..<index + symbolBytes.count]) == symbolBytes
  }

  /// A quoted string or a template, `index` on its opening quote.
  private static func quoted(
    _ bytes: [UInt8], _ index: inout Int, _ line: inout Int, fail: (String, Int) -> Diagnostic
  ) throws -> Token.Kind {
    let quote = bytes[index]
    index += 1
    var parts: [String] = []
    var expressions: [String] = []
    var current: [UInt8] = []
    while index < bytes.count, bytes[index] != quote {
      let c = bytes[index]
      if c == UInt8(ascii: "\n") {
        guard quote == UInt8(ascii: "`") else { throw fail("a string is not closed", line) }
        line += 1
      }
      if c == UInt8(ascii: "\\"), index + 1 < bytes.count {
        index += 1
        current.append(contentsOf: unescaped(bytes, &index))
        continue
      }
      if quote == UInt8(ascii: "`"), c == UInt8(ascii: "$"), index + 1 < bytes.count,
        bytes[index + 1] == UInt8(ascii: "{")
      {
        index += 2
        let start = index
        var depth = 1
        while index < bytes.count {
          if bytes[index] == UInt8(ascii: "{") { depth += 1 }
          if bytes[index] == UInt8(ascii: "}") {
            depth -= 1
            if depth == 0 { break }
          }
          index += 1
        }
        guard index < bytes.count else { throw fail("a template's `${` is not closed", line) }
        parts.append(String(decoding: current, as: UTF8.self))
        current = []
        expressions.append(String(decoding: bytes[start..<index], as: UTF8.self))
        index += 1
        continue
      }
      current.append(c)
      index += 1
    }
    guard index < bytes.count else { throw fail("a string is not closed", line) }
    index += 1
    let text = String(decoding: current, as: UTF8.self)
    guard quote == UInt8(ascii: "`") else { return .string(text) }
    return .template(parts: parts + [text], expressions: expressions)
  }

  /// The bytes one escape stands for, `index` just past the backslash.
  private static func unescaped(_ bytes: [UInt8], _ index: inout Int) -> [UInt8] {
    let c = bytes[index]
    index += 1
    switch c {
    case UInt8(ascii: "n"): return [0x0A]
    case UInt8(ascii: "t"): return [0x09]
    case UInt8(ascii: "r"): return [0x0D]
    case UInt8(ascii: "0"): return [0x00]
    case UInt8(ascii: "\n"): return []
    case UInt8(ascii: "u"):
      var hex = ""
      if index < bytes.count, bytes[index] == UInt8(ascii: "{") {
        index += 1
        while index < bytes.count, bytes[index] != UInt8(ascii: "}") {
          hex.append(Character(UnicodeScalar(bytes[index])))
          index += 1
        }
        index += 1
      } else {
        let end = min(bytes.count, index + 4)
        hex = String(decoding: bytes[index..<end], as: UTF8.self)
        index = end
      }
      guard let code = UInt32(hex, radix: 16), let scalar = UnicodeScalar(code) else { return [] }
      return Array(String(Character(scalar)).utf8)
    default: return [c]
    }
  }
}
