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
  static func lines(of text: String, file: String, diagnostics: DiagnosticsEngine) -> [SourceLine] {
    var out: [SourceLine] = []
    for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = String(raw.hasSuffix("\r") ? raw.dropLast() : raw)
      let number = index + 1
      var tokens: [Token] = []
      // Unicode scalars, not Characters: grapheme breaking made lexing a tenth of a
      // one-scenario run, and no token boundary falls inside a grapheme here.
      let chars = Array(line.unicodeScalars)
      var i = 0
      var failed = false
      while i < chars.count {
        let c = chars[i]
        if c == " " || c == "\t" {
          i += 1
          continue
        }
        if c == "#" { break }
        if c == "\"" {
          let start = i
          i += 1
          var value = String.UnicodeScalarView()
          var closed = false
          while i < chars.count {
            let d = chars[i]
            if d == "\\" && i + 1 < chars.count {
              let e = chars[i + 1]
              value.append(e == "n" ? "\n" : e == "t" ? "\t" : e)
              i += 2
              continue
            }
            if d == "\"" {
              closed = true
              i += 1
              break
            }
            value.append(d)
            i += 1
          }
          if !closed {
            diagnostics.emit(
              .error(
                at: FileLocation(file: file, line: number, column: start + 1),
                "unterminated string", hint: "close it with '\"' on the same line",
                sourceLine: line, length: chars.count - start))
            failed = true
            break
          }
          tokens.append(
            Token(kind: .string, text: String(value), column: start + 1, length: i - start))
          continue
        }
        if c == "," {
          tokens.append(Token(kind: .comma, text: ",", column: i + 1, length: 1))
          i += 1
          continue
        }
        let start = i
        while i < chars.count, chars[i] != " ", chars[i] != "\t", chars[i] != "\"", chars[i] != ",",
          chars[i] != "#" || i == start
        {
          i += 1
        }
        let scalars = chars[start..<i]
        if scalars.count > 1 && scalars.last == ":" {
          let word = String(String.UnicodeScalarView(scalars.dropLast()))
          tokens.append(
            Token(kind: .word, text: word, column: start + 1, length: scalars.count - 1))
          tokens.append(Token(kind: .colon, text: ":", column: i, length: 1))
        } else if scalars.count == 1 && scalars.first == ":" {
          tokens.append(Token(kind: .colon, text: ":", column: start + 1, length: 1))
        } else {
          let word = String(String.UnicodeScalarView(scalars))
          tokens.append(Token(kind: .word, text: word, column: start + 1, length: scalars.count))
        }
      }
      if failed || tokens.isEmpty { continue }
      let indent = line.prefix { $0 == " " || $0 == "\t" }.count
      out.append(SourceLine(number: number, text: line, indent: indent, tokens: tokens))
    }
    return out
  }
}
