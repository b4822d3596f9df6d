import QualifyCore

/// A token of a scenario line.
public struct Token: Sendable, Hashable {
  public enum Kind: Sendable, Hashable {
    /// A bare word: a keyword, a name, a number, a duration, a path or a URL.
    case word
    /// A double-quoted string (`text` is the unescaped content).
    case string
    /// `:` ending an `on …:` condition.
    case colon
    /// `,` separating list items.
    case comma
  }

  public var kind: Kind
  public var text: String
  /// 1-based column of the token's first character, counted in Unicode scalars (the same as
  /// characters but for a grapheme of several scalars, which a scenario line rarely holds).
  public var column: Int
  /// Characters the token spans in the source (quotes included).
  public var length: Int
}

/// One non-blank, non-comment line of a scenario file, split into tokens.
public struct SourceLine: Sendable {
  public var number: Int
  public var text: String
  public var indent: Int
  public var tokens: [Token]
}

/// Splits a scenario file into lines of tokens. Strings are double-quoted with `\"`, `\\`
/// and `\n` escapes; `#` starts a comment outside a string.
enum Lexer {
  /// Works on the file's UTF-8 bytes: every delimiter is ASCII, which no byte of a multi-byte
  /// sequence can be, and a token's text is decoded once from its span. (Scalar by scalar,
  /// lexing was a fifth of a one-scenario run.) Columns still count Unicode scalars.
  static func lines(of text: String, file: String, diagnostics: DiagnosticsEngine) -> [SourceLine] {
    var out: [SourceLine] = []
    let bytes = Array(text.utf8)
    var lineStart = 0
    var number = 0
    while lineStart <= bytes.count {
      number += 1
      var lineEnd = lineStart
      while lineEnd < bytes.count, bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
      let next = lineEnd + 1
      if lineEnd > lineStart, bytes[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
      if let line = lexLine(bytes, lineStart..<lineEnd, number, file, diagnostics) {
        out.append(line)
      }
      lineStart = next
    }
    return out
  }

  static func decode(_ bytes: ArraySlice<UInt8>) -> String {
    String(decoding: bytes, as: UTF8.self)
  }

  /// One line's tokens; nil for a blank or comment line, or one with an unterminated string.
  static func lexLine(
    _ bytes: [UInt8], _ range: Range<Int>, _ number: Int, _ file: String,
    _ diagnostics: DiagnosticsEngine
  ) -> SourceLine? {
    let space = UInt8(ascii: " ")
    let tab = UInt8(ascii: "\t")
    let quote = UInt8(ascii: "\"")
    let comma = UInt8(ascii: ",")
    let hash = UInt8(ascii: "#")
    let colon = UInt8(ascii: ":")
    let backslash = UInt8(ascii: "\\")
    var tokens: [Token] = []
    var i = range.lowerBound
    // The column of byte `i`, in scalars: bytes that do not continue a sequence.
    var column = 1
    var columnAt = range.lowerBound
    func columnOf(_ index: Int) -> Int {
      while columnAt < index {
        if bytes[columnAt] & 0xC0 != 0x80 { column += 1 }
        columnAt += 1
      }
      return column
    }
    while i < range.upperBound {
      let c = bytes[i]
      if c == space || c == tab {
        i += 1
        continue
      }
      if c == hash { break }
      if c == quote {
        let start = i
        i += 1
        var value: [UInt8] = []
        var closed = false
        while i < range.upperBound {
          let d = bytes[i]
          if d == backslash && i + 1 < range.upperBound {
            let e = bytes[i + 1]
            value.append(e == UInt8(ascii: "n") ? 0x0A : e == UInt8(ascii: "t") ? 0x09 : e)
            i += 2
            continue
          }
          if d == quote {
            closed = true
            i += 1
            break
          }
          value.append(d)
          i += 1
        }
        let startColumn = columnOf(start)
        if !closed {
          diagnostics.emit(
            .error(
              at: FileLocation(file: file, line: number, column: startColumn),
              "unterminated string", hint: "close it with '\"' on the same line",
              sourceLine: decode(bytes[range]), length: columnOf(range.upperBound) - startColumn))
          return nil
        }
        tokens.append(
          Token(
            kind: .string, text: String(decoding: value, as: UTF8.self), column: startColumn,
            length: columnOf(i) - startColumn))
        continue
      }
      if c == comma {
        tokens.append(Token(kind: .comma, text: ",", column: columnOf(i), length: 1))
        i += 1
        continue
      }
      let start = i
      while i < range.upperBound, bytes[i] != space, bytes[i] != tab, bytes[i] != quote,
        bytes[i] != comma, bytes[i] != hash || i == start
      {
        i += 1
      }
      let startColumn = columnOf(start)
      let length = columnOf(i) - startColumn
      if i - start > 1 && bytes[i - 1] == colon {
        tokens.append(
          Token(
            kind: .word, text: decode(bytes[start..<(i - 1)]), column: startColumn,
            length: length - 1))
        tokens.append(Token(kind: .colon, text: ":", column: startColumn + length - 1, length: 1))
      } else if i - start == 1 && c == colon {
        tokens.append(Token(kind: .colon, text: ":", column: startColumn, length: 1))
      } else {
        tokens.append(
          Token(kind: .word, text: decode(bytes[start..<i]), column: startColumn, length: length))
      }
    }
    guard !tokens.isEmpty else { return nil }
    var indent = 0
    while range.lowerBound + indent < range.upperBound,
      bytes[range.lowerBound + indent] == space || bytes[range.lowerBound + indent] == tab
    {
      indent += 1
    }
    return SourceLine(number: number, text: decode(bytes[range]), indent: indent, tokens: tokens)
  }
}
