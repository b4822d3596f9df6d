import Foundation
import QualifyCore

/// The configuration object of a `capacitor.config.ts` (or `.js`), read as the object literal
/// it is: keys bare or quoted, strings in any quotes, comments, trailing commas. A value that
/// is an expression (a variable, a call, a template with `${}`) is kept as `.null` with its
/// key, so a config that computes `server.url` is still seen to set one. The TypeScript is
/// never run.
public enum ConfigLiteral {
  /// The object assigned to the exported config (`const config: CapacitorConfig = {…}`,
  /// `export default {…}`), with the line of each key.
  /// - Throws: a `Diagnostic` at the line where the literal stops making sense.
  public static func parse(text: String, file: String) throws -> JSONValue {
    let bytes = Array(text.utf8)
    guard let start = objectStart(in: bytes) else {
      throw Diagnostic.error(
        at: FileLocation(file: file, line: 1, column: 1),
        "no configuration object found (expected `const config: CapacitorConfig = {…}` or `export default {…}`)"
      )
    }
    var reader = Reader(bytes: bytes, file: file, index: start)
    guard let value = try reader.value(depth: 0) else {
      throw Diagnostic.error(
        at: FileLocation(file: file, line: 1, column: 1), "the configuration is undefined")
    }
    return value
  }

  /// `bytes` with the text of comments blanked (newlines kept), so that a marker written in
  /// a comment is not taken for the config.
  static func blankingComments(_ bytes: [UInt8]) -> [UInt8] {
    var out = bytes
    var index = 0
    var quote: UInt8?
    let slash = UInt8(ascii: "/")
    let star = UInt8(ascii: "*")
    while index < bytes.count {
      let c = bytes[index]
      if let open = quote {
        if c == UInt8(ascii: "\\") {
          index += 2
          continue
        }
        if c == open { quote = nil }
        index += 1
      } else if c == UInt8(ascii: "'") || c == UInt8(ascii: "\"") || c == UInt8(ascii: "`") {
        quote = c
        index += 1
      } else if c == slash, index + 1 < bytes.count, bytes[index + 1] == slash {
        while index < bytes.count && bytes[index] != UInt8(ascii: "\n") {
          out[index] = UInt8(ascii: " ")
          index += 1
        }
      } else if c == slash, index + 1 < bytes.count, bytes[index + 1] == star {
        while index < bytes.count
          && !(bytes[index] == star && index + 1 < bytes.count && bytes[index + 1] == slash)
        {
          if bytes[index] != UInt8(ascii: "\n") { out[index] = UInt8(ascii: " ") }
          index += 1
        }
        for end in [index, index + 1] where end < bytes.count { out[end] = UInt8(ascii: " ") }
        index += 2
      } else {
        index += 1
      }
    }
    return out
  }

  /// Where the config object's `{` is: after `CapacitorConfig =`, `export default`, or the
  /// first `= {` of the file.
  static func objectStart(in original: [UInt8]) -> Int? {
    let bytes = blankingComments(original)
    let text = String(decoding: bytes, as: UTF8.self)
    for marker in ["CapacitorConfig =", "export default", "module.exports =", "= {"] {
      guard let range = text.range(of: marker) else { continue }
      let after = text.utf8.distance(from: text.startIndex, to: range.upperBound)
      // The literal itself, not a brace further down the file.
      let rest = bytes[after...].drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") }
      if rest.first == UInt8(ascii: "{") { return rest.startIndex }
      if marker == "= {", let brace = bytes[max(0, after - 1)...].firstIndex(of: UInt8(ascii: "{"))
      {
        return brace
      }
    }
    return nil
  }

  struct Reader {
    let bytes: [UInt8]
    let file: String
    var index: Int
    var line = 1

    init(bytes: [UInt8], file: String, index: Int) {
      self.bytes = bytes
      self.file = file
      self.index = index
      line = 1 + bytes[..<index].filter { $0 == UInt8(ascii: "\n") }.count
    }

    func error(_ message: String) -> Diagnostic {
      Diagnostic.error(at: FileLocation(file: file, line: line, column: 1), message)
    }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func advance() {
      if current == UInt8(ascii: "\n") { line += 1 }
      index += 1
    }

    mutating func skipTrivia() {
      while let c = current {
        if c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") || c == UInt8(ascii: "\n")
          || c == UInt8(ascii: "\r")
        {
          advance()
        } else if c == UInt8(ascii: "/"), index + 1 < bytes.count,
          bytes[index + 1] == UInt8(ascii: "/")
        {
          while current != nil && current != UInt8(ascii: "\n") { advance() }
        } else if c == UInt8(ascii: "/"), index + 1 < bytes.count,
          bytes[index + 1] == UInt8(ascii: "*")
        {
          advance()
          advance()
          while current != nil
            && !(current == UInt8(ascii: "*") && index + 1 < bytes.count
              && bytes[index + 1] == UInt8(ascii: "/"))
          {
            advance()
          }
          advance()
          advance()
        } else {
          return
        }
      }
    }

    /// A value; nil for `undefined` and `null`, which leave their key unset.
    mutating func value(depth: Int) throws -> JSONValue? {
      // Nesting beyond any real config is hostile input, not a config.
      guard depth < 64 else { throw error("the configuration nests more than 64 levels deep") }
      skipTrivia()
      guard let c = current else { throw error("the configuration object is not closed") }
      switch c {
      case UInt8(ascii: "{"):
        advance()
        var members: [(key: String, value: JSONValue, line: Int)] = []
        while true {
          skipTrivia()
          if current == UInt8(ascii: "}") {
            advance()
            return .object(members)
          }
          let keyLine = line
          if current == UInt8(ascii: "."), index + 2 < bytes.count,
            bytes[index + 1] == UInt8(ascii: "."), bytes[index + 2] == UInt8(ascii: ".")
          {
            // `...base`: its values are another object's, not read here.
            advance()
            advance()
            advance()
            _ = try expression(depth: depth + 1)
          } else {
            let key = try self.key()
            skipTrivia()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after \(key)") }
            advance()
            if let value = try self.value(depth: depth + 1) {
              members.append((key, value, keyLine))
            }
          }
          skipTrivia()
          if current == UInt8(ascii: ",") {
            advance()
          } else if current != UInt8(ascii: "}") {
            throw error("expected ',' or '}' after a value")
          }
        }
      case UInt8(ascii: "["):
        advance()
        var items: [JSONValue] = []
        while true {
          skipTrivia()
          if current == UInt8(ascii: "]") {
            advance()
            return .array(items)
          }
          if let item = try value(depth: depth + 1) { items.append(item) }
          skipTrivia()
          if current == UInt8(ascii: ",") {
            advance()
          } else if current != UInt8(ascii: "]") {
            throw error("expected ',' or ']' in a list")
          }
        }
      case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"):
        let (text, computed) = try quoted()
        return computed ? .null : .string(text)
      default:
        return try expression(depth: depth)
      }
    }

    /// A bare word: a literal (`true`, `12`) or an expression kept as `.null`.
    mutating func expression(depth: Int) throws -> JSONValue? {
      let start = index
      var nesting = 0
      while let c = current {
        if nesting == 0
          && (c == UInt8(ascii: ",") || c == UInt8(ascii: "}") || c == UInt8(ascii: "]"))
        {
          break
        }
        if c == UInt8(ascii: "(") || c == UInt8(ascii: "[") || c == UInt8(ascii: "{") {
          nesting += 1
        } else if c == UInt8(ascii: ")") || c == UInt8(ascii: "]") || c == UInt8(ascii: "}") {
          nesting -= 1
        } else if c == UInt8(ascii: "'") || c == UInt8(ascii: "\"") || c == UInt8(ascii: "`") {
          _ = try quoted()
          continue
        }
        advance()
      }
      let word = String(decoding: bytes[start..<index], as: UTF8.self)
        .trimmingCharacters(in: .whitespacesAndNewlines)
      switch word {
      case "true": return .bool(true)
      case "false": return .bool(false)
      case "undefined", "null": return nil
      case "": throw error("expected a value")
      default: return Double(word).map(JSONValue.number) ?? .null
      }
    }

    mutating func key() throws -> String {
      if current == UInt8(ascii: "'") || current == UInt8(ascii: "\"") {
        return try quoted().text
      }
      let start = index
      while let c = current,
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z"))
          || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
          || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_")
          || c == UInt8(ascii: "$")
      {
        advance()
      }
      guard index > start else { throw error("expected a key") }
      return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// A quoted string; `computed` when it is a template with `${…}`.
    mutating func quoted() throws -> (text: String, computed: Bool) {
      guard let quote = current else { throw error("expected a string") }
      let opened = line
      advance()
      var out: [UInt8] = []
      var computed = false
      while let c = current, c != quote {
        if c == UInt8(ascii: "\\") {
          advance()
          if let escaped = current { out.append(escaped) }
          advance()
          continue
        }
        if quote == UInt8(ascii: "`"), c == UInt8(ascii: "$"), index + 1 < bytes.count,
          bytes[index + 1] == UInt8(ascii: "{")
        {
          computed = true
        }
        out.append(c)
        advance()
      }
      guard current == quote else {
        // Where the string starts, not the end of the file.
        throw Diagnostic.error(
          at: FileLocation(file: file, line: opened, column: 1), "a string is not closed")
      }
      advance()
      return (String(decoding: out, as: UTF8.self), computed)
    }
  }
}
