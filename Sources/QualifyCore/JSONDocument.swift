import Foundation

/// A JSON value that remembers where it was written, so findings can name `file:line`.
public indirect enum JSONValue: Sendable, Equatable {
  case object([(key: String, value: JSONValue, line: Int)])
  case array([JSONValue])
  case string(String)
  case number(Double)
  case bool(Bool)
  case null

  public static func == (a: JSONValue, b: JSONValue) -> Bool {
    switch (a, b) {
    case (.object(let x), .object(let y)):
      return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    case (.array(let x), .array(let y)): return x == y
    case (.string(let x), .string(let y)): return x == y
    case (.number(let x), .number(let y)): return x == y
    case (.bool(let x), .bool(let y)): return x == y
    case (.null, .null): return true
    default: return false
    }
  }

  /// The member `key` of an object.
  public subscript(key: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members.last { $0.key == key }?.value
  }

  /// The line member `key` was written on.
  public func line(of key: String) -> Int? {
    guard case .object(let members) = self else { return nil }
    return members.last { $0.key == key }?.line
  }

  /// Follows a dotted path (`plugins.CapacitorUpdater.publicKey`).
  public func at(_ path: String) -> JSONValue? {
    var current: JSONValue? = self
    for part in path.split(separator: ".") { current = current?[String(part)] }
    return current
  }

  /// The line of the last member of a dotted path.
  public func line(at path: String) -> Int? {
    let parts = path.split(separator: ".").map(String.init)
    guard let last = parts.last else { return nil }
    var current: JSONValue? = self
    for part in parts.dropLast() { current = current?[part] }
    return current?.line(of: last)
  }

  public var string: String? { if case .string(let s) = self { return s } else { return nil } }
  public var bool: Bool? { if case .bool(let b) = self { return b } else { return nil } }
  public var number: Double? { if case .number(let n) = self { return n } else { return nil } }
  public var array: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
  public var members: [(key: String, value: JSONValue, line: Int)]? {
    if case .object(let m) = self { return m } else { return nil }
  }

  /// The value as Foundation would give it (for serialising back).
  public var plain: Any {
    switch self {
    case .object(let members):
      var out: [String: Any] = [:]
      for member in members { out[member.key] = member.value.plain }
      return out
    case .array(let items): return items.map(\.plain)
    case .string(let s): return s
    case .number(let n): return n == n.rounded() && abs(n) < 1e15 ? Int(n) as Any : n
    case .bool(let b): return b
    case .null: return NSNull()
    }
  }
}

/// Parses RFC 8259 JSON, reporting the line and column of the first syntax error.
public struct JSONDocument {
  public let value: JSONValue

  /// - Throws: a `Diagnostic` located in `file`.
  public init(text: String, file: String) throws {
    var parser = Parser(
      bytes: Array(text.utf8), file: file,
      lines: text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    value = try parser.parseDocument()
  }

  private struct Parser {
    let bytes: [UInt8]
    let file: String
    let lines: [String]
    var index = 0
    var line = 1
    var lineStart = 0
    var depth = 0

    init(bytes: [UInt8], file: String, lines: [String]) {
      self.bytes = bytes
      self.file = file
      self.lines = lines
      if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    mutating func parseDocument() throws -> JSONValue {
      skipWhitespace()
      let value = try parseValue()
      skipWhitespace()
      if index < bytes.count { throw error("unexpected text after the JSON value") }
      return value
    }

    func error(_ message: String, hint: String? = nil) -> Diagnostic {
      let column = index - lineStart + 1
      return Diagnostic.error(
        at: FileLocation(file: file, line: line, column: max(1, column)), message, hint: hint,
        sourceLine: line - 1 < lines.count ? lines[line - 1] : nil)
    }

    mutating func skipWhitespace() {
      while index < bytes.count {
        switch bytes[index] {
        case 0x20, 0x09, 0x0D: index += 1
        case 0x0A:
          index += 1
          line += 1
          lineStart = index
        default: return
        }
      }
    }

    mutating func parseValue() throws -> JSONValue {
      guard index < bytes.count else { throw error("unexpected end of file, expected a value") }
      depth += 1
      defer { depth -= 1 }
      if depth > 512 { throw error("JSON nested too deeply") }
      switch bytes[index] {
      case UInt8(ascii: "{"): return try parseObject()
      case UInt8(ascii: "["): return try parseArray()
      case UInt8(ascii: "\""): return .string(try parseString())
      case UInt8(ascii: "t"): return try literal("true", .bool(true))
      case UInt8(ascii: "f"): return try literal("false", .bool(false))
      case UInt8(ascii: "n"): return try literal("null", .null)
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
      default:
        throw error(
          "unexpected character '\(Character(UnicodeScalar(bytes[index])))', expected a value")
      }
    }

    mutating func literal(_ word: String, _ value: JSONValue) throws -> JSONValue {
      let w = Array(word.utf8)
      guard index + w.count <= bytes.count, Array(bytes[index..<index + w.count]) == w else {
        throw error("invalid literal, expected '\(word)'")
      }
      index += w.count
      return value
    }

    mutating func parseObject() throws -> JSONValue {
      index += 1
      var members: [(key: String, value: JSONValue, line: Int)] = []
      skipWhitespace()
      if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
        index += 1
        return .object(members)
      }
      while true {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
          if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            throw error("trailing comma before '}'", hint: "JSON does not allow a trailing comma")
          }
          throw error("expected a quoted member name")
        }
        let keyLine = line
        let key = try parseString()
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
          throw error("expected ':' after member name \"\(key)\"")
        }
        index += 1
        skipWhitespace()
        let value = try parseValue()
        members.append((key: key, value: value, line: keyLine))
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of file, expected '}'") }
        if bytes[index] == UInt8(ascii: ",") {
          index += 1
          continue
        }
        if bytes[index] == UInt8(ascii: "}") {
          index += 1
          return .object(members)
        }
        throw error(
          "expected ',' or '}' after a member", hint: "is a comma missing on the previous line?")
      }
    }

    mutating func parseArray() throws -> JSONValue {
      index += 1
      var items: [JSONValue] = []
      skipWhitespace()
      if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
        index += 1
        return .array(items)
      }
      while true {
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
          throw error("trailing comma before ']'", hint: "JSON does not allow a trailing comma")
        }
        items.append(try parseValue())
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of file, expected ']'") }
        if bytes[index] == UInt8(ascii: ",") {
          index += 1
          continue
        }
        if bytes[index] == UInt8(ascii: "]") {
          index += 1
          return .array(items)
        }
        throw error("expected ',' or ']' in an array")
      }
    }

    mutating func parseString() throws -> String {
      index += 1
      var out: [UInt8] = []
      while index < bytes.count {
        let c = bytes[index]
        switch c {
        case UInt8(ascii: "\""):
          index += 1
          return String(decoding: out, as: UTF8.self)
        case UInt8(ascii: "\\"):
          index += 1
          guard index < bytes.count else { break }
          let e = bytes[index]
          index += 1
          switch e {
          case UInt8(ascii: "\""): out.append(0x22)
          case UInt8(ascii: "\\"): out.append(0x5C)
          case UInt8(ascii: "/"): out.append(0x2F)
          case UInt8(ascii: "b"): out.append(0x08)
          case UInt8(ascii: "f"): out.append(0x0C)
          case UInt8(ascii: "n"): out.append(0x0A)
          case UInt8(ascii: "r"): out.append(0x0D)
          case UInt8(ascii: "t"): out.append(0x09)
          case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar), index + 1 < bytes.count,
              bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            {
              index += 2
              let low = try hex4()
              scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            out.append(
              contentsOf: Array(
                String(UnicodeScalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8))
          default:
            index -= 1
            throw error("invalid escape '\\\(Character(UnicodeScalar(e)))' in a string")
          }
        case 0x0A:
          throw error("unterminated string", hint: "strings cannot span lines")
        default:
          out.append(c)
          index += 1
        }
      }
      throw error("unterminated string")
    }

    mutating func hex4() throws -> UInt32 {
      guard index + 4 <= bytes.count,
        let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
      else { throw error("invalid \\u escape") }
      index += 4
      return value
    }

    mutating func parseNumber() throws -> JSONValue {
      let start = index
      while index < bytes.count,
        "+-0123456789.eE".utf8.contains(bytes[index])
      {
        index += 1
      }
      let text = String(decoding: bytes[start..<index], as: UTF8.self)
      guard let value = Double(text) else {
        index = start
        throw error("invalid number '\(text)'")
      }
      return .number(value)
    }
  }
}
