/// A token of a Gradle build script (Groovy or Kotlin DSL), with its line.
struct GradleToken: Sendable, Equatable {
  enum Kind: Sendable, Equatable {
    case identifier
    /// A string literal; `parts` holds its text and `${…}` / `$name` interpolations.
    case string([StringPart])
    case number
    case symbol
  }

  enum StringPart: Sendable, Equatable {
    case text(String)
    /// The source of an interpolated expression.
    case interpolation(String)
  }

  var kind: Kind
  var text: String
  var line: Int

  func isSymbol(_ s: String) -> Bool { kind == .symbol && text == s }
  func isIdentifier(_ s: String) -> Bool { kind == .identifier && text == s }

  /// The literal text of a string without interpolation.
  var literal: String? {
    guard case .string(let parts) = kind else { return nil }
    var out = ""
    for part in parts {
      guard case .text(let t) = part else { return nil }
      out += t
    }
    return out
  }
}

/// Splits a Gradle script into tokens, dropping comments. Not a full Groovy lexer: enough
/// for the declarations qualify reads (ids, placeholders, the release-build guard).
enum GradleLexer {
  static let symbols = [
    "?.", "?:", "+=", "==", "!=", "&&", "||", "->", "<=", ">=", "::", "{", "}", "(", ")", "[",
    "]", ",", ":", ";", "=", ".", "!", "?", "<", ">", "+", "-", "*", "/", "%", "@",
  ]

  static func tokens(_ text: String) -> [GradleToken] {
    let chars = Array(text.unicodeScalars)
    var out: [GradleToken] = []
    var i = 0
    var line = 1
    func peek(_ offset: Int) -> Unicode.Scalar? {
      i + offset < chars.count ? chars[i + offset] : nil
    }
    while i < chars.count {
      let c = chars[i]
      if c == "\n" {
        line += 1
        i += 1
        continue
      }
      if c == " " || c == "\t" || c == "\r" {
        i += 1
        continue
      }
      if c == "/" && peek(1) == "/" {
        while i < chars.count && chars[i] != "\n" { i += 1 }
        continue
      }
      if c == "/" && peek(1) == "*" {
        i += 2
        while i < chars.count && !(chars[i] == "*" && peek(1) == "/") {
          if chars[i] == "\n" { line += 1 }
          i += 1
        }
        i += 2
        continue
      }
      if c == "\"" || c == "'" {
        out.append(stringLiteral(chars, quote: c, from: &i, line: &line))
        continue
      }
      if c.properties.isAlphabetic || c == "_" || c == "$" {
        var word = ""
        while i < chars.count,
          chars[i].properties.isAlphabetic || chars[i] == "_" || chars[i] == "$"
            || ("0"..."9").contains(chars[i])
        {
          word.unicodeScalars.append(chars[i])
          i += 1
        }
        out.append(GradleToken(kind: .identifier, text: word, line: line))
        continue
      }
      if ("0"..."9").contains(c) {
        var number = ""
        while i < chars.count,
          ("0"..."9").contains(chars[i]) || chars[i] == "." || chars[i] == "_"
            || chars[i] == "L"
        {
          number.unicodeScalars.append(chars[i])
          i += 1
        }
        out.append(GradleToken(kind: .number, text: number, line: line))
        continue
      }
      var matched = false
      for symbol in symbols {
        let scalars = Array(symbol.unicodeScalars)
        if i + scalars.count <= chars.count && Array(chars[i..<(i + scalars.count)]) == scalars {
          out.append(GradleToken(kind: .symbol, text: symbol, line: line))
          i += scalars.count
          matched = true
          break
        }
      }
      if !matched {
        out.append(GradleToken(kind: .symbol, text: String(c), line: line))
        i += 1
      }
    }
    return out
  }

  /// A string literal from its opening quote at `i` (`"`, `'` or a triple of either) to after
  /// its closing one; a double-quoted one's `${…}` and `$name` interpolations as parts.
  static func stringLiteral(
    _ chars: [Unicode.Scalar], quote c: Unicode.Scalar, from i: inout Int, line: inout Int
  ) -> GradleToken {
    func peek(_ offset: Int) -> Unicode.Scalar? {
      i + offset < chars.count ? chars[i + offset] : nil
    }
    let startLine = line
    let triple = peek(1) == c && peek(2) == c
    i += triple ? 3 : 1
    var parts: [GradleToken.StringPart] = []
    var current = ""
    var raw = ""
    while i < chars.count {
      if triple {
        if chars[i] == c && peek(1) == c && peek(2) == c {
          i += 3
          break
        }
      } else if chars[i] == c {
        i += 1
        break
      }
      if chars[i] == "\n" { line += 1 }
      if chars[i] == "\\", i + 1 < chars.count {
        let next = chars[i + 1]
        current.unicodeScalars.append(next == "n" ? "\n" : next == "t" ? "\t" : next)
        raw.unicodeScalars.append(chars[i])
        raw.unicodeScalars.append(next)
        i += 2
        continue
      }
      // Double-quoted strings interpolate (Groovy GStrings, Kotlin templates).
      if c == "\"" && chars[i] == "$" {
        if peek(1) == "{" {
          let (expression, j) = braced(chars, from: i + 2)
          if !current.isEmpty { parts.append(.text(current)) }
          current = ""
          parts.append(.interpolation(expression))
          raw += "${" + expression + "}"
          i = j + 1
          continue
        }
        if let next = peek(1), next.properties.isAlphabetic || next == "_" {
          var j = i + 1
          var name = ""
          while j < chars.count,
            chars[j].properties.isAlphabetic || chars[j] == "_" || chars[j] == "."
              || ("0"..."9").contains(chars[j])
          {
            name.unicodeScalars.append(chars[j])
            j += 1
          }
          if name.hasSuffix(".") {
            name.removeLast()
            j -= 1
          }
          if !current.isEmpty { parts.append(.text(current)) }
          current = ""
          parts.append(.interpolation(name))
          raw += "$" + name
          i = j
          continue
        }
      }
      current.unicodeScalars.append(chars[i])
      raw.unicodeScalars.append(chars[i])
      i += 1
    }
    if !current.isEmpty || parts.isEmpty { parts.append(.text(current)) }
    return GradleToken(kind: .string(parts), text: raw, line: startLine)
  }

  /// The source of a `${…}` interpolation from `start` (after its `{`) to its closing `}`,
  /// nested braces included, and the index of that `}`.
  static func braced(_ chars: [Unicode.Scalar], from start: Int) -> (String, Int) {
    var depth = 0
    var j = start
    var expression = ""
    while j < chars.count {
      if chars[j] == "{" { depth += 1 }
      if chars[j] == "}" {
        if depth == 0 { break }
        depth -= 1
      }
      expression.unicodeScalars.append(chars[j])
      j += 1
    }
    return (expression, j)
  }

  /// The index of the token closing the bracket opened at `open` (`{`, `(` or `[`).
  static func matching(_ tokens: [GradleToken], from open: Int) -> Int? {
    guard open < tokens.count, tokens[open].kind == .symbol else { return nil }
    let pairs = ["{": "}", "(": ")", "[": "]"]
    guard let close = pairs[tokens[open].text] else { return nil }
    var depth = 0
    var index = open
    while index < tokens.count {
      if tokens[index].kind == .symbol {
        if tokens[index].text == tokens[open].text { depth += 1 }
        if tokens[index].text == close {
          depth -= 1
          if depth == 0 { return index }
        }
      }
      index += 1
    }
    return nil
  }
}
