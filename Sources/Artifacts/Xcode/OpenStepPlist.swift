import QualifyCore

/// A value of an old-style ASCII ("OpenStep") property list, the format of
/// `project.pbxproj`, with the line each value starts on.
public indirect enum OpenStepValue: Sendable {
  case string(String, line: Int)
  case array([OpenStepValue], line: Int)
  case dictionary([(key: String, value: OpenStepValue, line: Int)], line: Int)

  public var line: Int {
    switch self {
    case .string(_, let line), .array(_, let line), .dictionary(_, let line): return line
    }
  }

  public subscript(key: String) -> OpenStepValue? {
    guard case .dictionary(let entries, _) = self else { return nil }
    return entries.last { $0.key == key }?.value
  }

  /// The line `key` is written on in this dictionary.
  public func line(of key: String) -> Int? {
    guard case .dictionary(let entries, _) = self else { return nil }
    return entries.last { $0.key == key }?.line
  }

  public var string: String? {
    if case .string(let s, _) = self { return s } else { return nil }
  }

  public var array: [OpenStepValue]? {
    if case .array(let items, _) = self { return items } else { return nil }
  }

  public var entries: [(key: String, value: OpenStepValue, line: Int)]? {
    if case .dictionary(let entries, _) = self { return entries } else { return nil }
  }

  /// A string, or the strings of an array (build settings take both forms).
  public var strings: [String] {
    switch self {
    case .string(let s, _): return [s]
    case .array(let items, _): return items.compactMap(\.string)
    case .dictionary: return []
    }
  }
}

/// Parses ASCII property lists: `{ key = value; }`, `( a, b, )`, quoted and bare strings,
/// `/* */` and `//` comments. Nesting is bounded so that a hostile file cannot exhaust the
/// stack.
public enum OpenStepPlistReader {
  /// Deeper nesting than any Xcode project has; a file beyond it is refused.
  public static let maximumDepth = 64

  public static func parse(text: String, file: String) throws -> OpenStepValue {
    var scanner = Scanner(bytes: Array(text.utf8), file: file, text: text)
    scanner.skipTrivia()
    let value = try scanner.value(depth: 0)
    scanner.skipTrivia()
    guard scanner.atEnd else {
      throw scanner.error("unexpected text after the top-level value")
    }
    return value
  }

  private struct Scanner {
    let bytes: [UInt8]
    let file: String
    let text: String
    var index = 0
    var line = 1
    var lineStart = 0

    init(bytes: [UInt8], file: String, text: String) {
      self.bytes = bytes
      self.file = file
      self.text = text
    }

    var atEnd: Bool { index >= bytes.count }

    func error(_ message: String) -> Diagnostic {
      let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
      return Diagnostic.error(
        at: FileLocation(file: file, line: line, column: index - lineStart + 1), message,
        sourceLine: line - 1 < lines.count ? String(lines[line - 1]) : nil)
    }

    mutating func advance() {
      if bytes[index] == UInt8(ascii: "\n") {
        line += 1
        lineStart = index + 1
      }
      index += 1
    }

    mutating func skipTrivia() {
      while index < bytes.count {
        let c = bytes[index]
        if c == 32 || c == 9 || c == 10 || c == 13 {
          advance()
        } else if c == UInt8(ascii: "/"), index + 1 < bytes.count,
          bytes[index + 1] == UInt8(ascii: "*")
        {
          advance()
          advance()
          while index < bytes.count
            && !(bytes[index] == UInt8(ascii: "*") && index + 1 < bytes.count
              && bytes[index + 1] == UInt8(ascii: "/"))
          {
            advance()
          }
          if index < bytes.count {
            advance()
            advance()
          }
        } else if c == UInt8(ascii: "/"), index + 1 < bytes.count,
          bytes[index + 1] == UInt8(ascii: "/")
        {
          while index < bytes.count && bytes[index] != 10 { advance() }
        } else {
          return
        }
      }
    }

    mutating func expect(_ byte: UInt8, _ what: String) throws {
      skipTrivia()
      guard index < bytes.count, bytes[index] == byte else {
        throw error("expected \(what)")
      }
      advance()
    }

    mutating func value(depth: Int) throws -> OpenStepValue {
      guard depth < OpenStepPlistReader.maximumDepth else {
        throw error(
          "nesting deeper than \(OpenStepPlistReader.maximumDepth) levels: not an Xcode project")
      }
      skipTrivia()
      guard index < bytes.count else { throw error("unexpected end of file") }
      let startLine = line
      switch bytes[index] {
      case UInt8(ascii: "{"):
        advance()
        var entries: [(key: String, value: OpenStepValue, line: Int)] = []
        while true {
          skipTrivia()
          guard index < bytes.count else { throw error("unterminated dictionary (missing '}')") }
          if bytes[index] == UInt8(ascii: "}") {
            advance()
            break
          }
          let keyLine = line
          guard case .string(let key, _) = try value(depth: depth + 1) else {
            throw error("a dictionary key must be a string")
          }
          try expect(UInt8(ascii: "="), "'=' after key \"\(key)\"")
          let item = try value(depth: depth + 1)
          try expect(UInt8(ascii: ";"), "';' after the value of \"\(key)\"")
          entries.append((key: key, value: item, line: keyLine))
        }
        return .dictionary(entries, line: startLine)
      case UInt8(ascii: "("):
        advance()
        var items: [OpenStepValue] = []
        while true {
          skipTrivia()
          guard index < bytes.count else { throw error("unterminated array (missing ')')") }
          if bytes[index] == UInt8(ascii: ")") {
            advance()
            break
          }
          items.append(try value(depth: depth + 1))
          skipTrivia()
          if index < bytes.count, bytes[index] == UInt8(ascii: ",") {
            advance()
          } else if index < bytes.count, bytes[index] != UInt8(ascii: ")") {
            throw error("expected ',' or ')' in an array")
          }
        }
        return .array(items, line: startLine)
      case UInt8(ascii: "\""), UInt8(ascii: "'"):
        return .string(try quoted(), line: startLine)
      case UInt8(ascii: "<"):
        // Data: <hex bytes>. Kept as its text; nothing qualify reads is data.
        var out: [UInt8] = []
        advance()
        while index < bytes.count && bytes[index] != UInt8(ascii: ">") {
          out.append(bytes[index])
          advance()
        }
        guard index < bytes.count else { throw error("unterminated data (missing '>')") }
        advance()
        return .string(String(decoding: out, as: UTF8.self), line: startLine)
      default:
        let start = index
        while index < bytes.count, Scanner.isBare(bytes[index]) { advance() }
        guard index > start else {
          throw error("unexpected character '\(Character(Unicode.Scalar(bytes[index])))'")
        }
        return .string(String(decoding: bytes[start..<index], as: UTF8.self), line: startLine)
      }
    }

    static func isBare(_ c: UInt8) -> Bool {
      (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z"))
        || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
        || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
        || [
          UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "+"), UInt8(ascii: "/"),
          UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "-"),
        ].contains(c)
    }

    mutating func quoted() throws -> String {
      let quote = bytes[index]
      advance()
      var out: [UInt8] = []
      while index < bytes.count, bytes[index] != quote {
        if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count {
          advance()
          switch bytes[index] {
          case UInt8(ascii: "n"): out.append(10)
          case UInt8(ascii: "t"): out.append(9)
          case UInt8(ascii: "r"): out.append(13)
          default: out.append(bytes[index])
          }
          advance()
        } else {
          out.append(bytes[index])
          advance()
        }
      }
      guard index < bytes.count else { throw error("unterminated string") }
      advance()
      return String(decoding: out, as: UTF8.self)
    }
  }
}
