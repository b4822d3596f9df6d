import Foundation
import QualifyCore

extension ConfigScript.Evaluator {
  /// `value.name`, as JavaScript reads it for the values a config holds. Reading a member of
  /// `undefined` throws in JavaScript: the sync fails, and so does this evaluation's result.
  mutating func member(of value: Traced, _ name: String, optional: Bool, line: Int) throws
    -> Traced
  {
    guard active else { return Traced(.undefined) }
    switch value.value {
    case .undefined, .null:
      if optional { return Traced(.undefined, reads: value.reads) }
      if failure == nil {
        failure = (
          "TypeError: Cannot read properties of \(value.value.text) (reading '\(name)')", line
        )
      }
      return Traced(.undefined, reads: value.reads)
    case .global("process") where name == "env":
      return Traced(.global("process.env"))
    case .global("process.env"):
      return Traced(env(name).map(Value.string) ?? .undefined, reads: [name])
    case .global("Buffer") where name == "from", .global("JSON") where name == "parse":
      return Traced(.global("\(globalName(value)).\(name)"))
    case .object(let members):
      return members.first { $0.key == name }.map { $0.value.adding(value.reads) }
        ?? Traced(.undefined, reads: value.reads)
    case .string(let s) where name == "length":
      return Traced(.number(Double(s.count)), reads: value.reads)
    case .array(let items) where name == "length":
      return Traced(.number(Double(items.count)), reads: value.reads)
    case .string, .bytes, .array:
      return Traced(.method(value, name), reads: value.reads)
    default:
      return try unsupported("`.\(name)` of \(describe(value.value))", line: line)
    }
  }

  private func globalName(_ value: Traced) -> String {
    if case .global(let name) = value.value { return name }
    return ""
  }

  private func describe(_ value: Value) -> String {
    switch value {
    case .global(let name): return "`\(name)`"
    case .method(_, let name): return "the method `\(name)`"
    default: return "a value of the config"
    }
  }

  /// `callee(arguments…)` for the globals and methods the subset knows.
  mutating func call(_ callee: Traced, _ arguments: [Traced], line: Int) throws -> Traced {
    guard active else { return Traced(.undefined) }
    let reads = callee.reads + arguments.flatMap(\.reads)
    let first = arguments.first?.value ?? .undefined
    func text(_ index: Int) -> String? {
      guard index < arguments.count, case .string(let s) = arguments[index].value else {
        return nil
      }
      return s
    }
    switch callee.value {
    case .global("Boolean"): return Traced(.bool(first.truthy), reads: reads)
    case .global("String"): return Traced(.string(first.text), reads: reads)
    case .global("Number"):
      let trimmed = first.text.trimmingCharacters(in: .whitespaces)
      return Traced(.number(trimmed.isEmpty ? 0 : Double(trimmed) ?? .nan), reads: reads)
    case .global("parseInt"):
      let digits = first.text.trimmingCharacters(in: .whitespaces).prefix {
        $0.isNumber || $0 == "-"
      }
      return Traced(.number(Double(Int(digits) ?? 0)), reads: reads)
    case .global("Error"), .global("TypeError"): return Traced(.error(first.text), reads: reads)
    case .global("Buffer.from"):
      return Traced(.bytes(Self.bytes(first.text, encoding: text(1) ?? "utf8")), reads: reads)
    case .global("JSON.parse"):
      do {
        let json = try JSONDocument(text: first.text, file: file).value
        return Traced(Value(json: json), reads: reads)
      } catch {
        if failure == nil { failure = ("SyntaxError: JSON.parse: \(first.text.prefix(40))", line) }
        return Traced(.undefined, reads: reads)
      }
    case .method(let receiver, let name):
      return try method(receiver.value, name, arguments.map(\.value), reads: reads, line: line)
    default:
      return try unsupported("a call of \(describe(callee.value))", line: line)
    }
  }

  private func method(
    _ receiver: Value, _ name: String, _ arguments: [Value], reads: [String], line: Int
  )
    throws -> Traced
  {
    let argument = arguments.first.map(\.text) ?? ""
    switch (receiver, name) {
    case (.bytes(let bytes), "toString"):
      let encoding = arguments.first.map(\.text) ?? "utf8"
      return Traced(
        .string(
          encoding == "base64"
            ? Data(bytes).base64EncodedString() : String(decoding: bytes, as: UTF8.self)),
        reads: reads)
    case (.string(let s), "trim"):
      return Traced(.string(s.trimmingCharacters(in: .whitespacesAndNewlines)), reads: reads)
    case (.string(let s), "toLowerCase"): return Traced(.string(s.lowercased()), reads: reads)
    case (.string(let s), "toUpperCase"): return Traced(.string(s.uppercased()), reads: reads)
    case (.string(let s), "startsWith"): return Traced(.bool(s.hasPrefix(argument)), reads: reads)
    case (.string(let s), "endsWith"): return Traced(.bool(s.hasSuffix(argument)), reads: reads)
    case (.string(let s), "includes"): return Traced(.bool(s.contains(argument)), reads: reads)
    case (.string(let s), "split"):
      return Traced(
        .array(s.components(separatedBy: argument).map { Traced(.string($0)) }), reads: reads)
    case (.array(let items), "includes"):
      let wanted = arguments.first ?? .undefined
      return Traced(.bool(items.contains { $0.value.strictlyEquals(wanted) }), reads: reads)
    case (.array(let items), "join"):
      return Traced(
        .string(items.map(\.value.text).joined(separator: arguments.isEmpty ? "," : argument)),
        reads: reads)
    default:
      return try unsupported("the method `\(name)`", line: line)
    }
  }

  /// `Buffer.from(text, encoding)`: base64 (standard or url-safe, whitespace and a missing pad
  /// tolerated, as Node decodes it), hex, or the text's UTF-8.
  static func bytes(_ text: String, encoding: String) -> [UInt8] {
    switch encoding.lowercased() {
    case "base64", "base64url":
      var cleaned = text.filter { !$0.isWhitespace }
        .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
      cleaned = String(cleaned.prefix { $0 != "=" })
      cleaned += String(repeating: "=", count: (4 - cleaned.count % 4) % 4)
      return Data(base64Encoded: cleaned).map { Array($0) } ?? []
    case "hex":
      var out: [UInt8] = []
      var chars = Array(text)
      if chars.count % 2 == 1 { chars.removeLast() }
      for index in stride(from: 0, to: chars.count, by: 2) {
        guard let byte = UInt8(String(chars[index...index + 1]), radix: 16) else { break }
        out.append(byte)
      }
      return out
    default: return Array(text.utf8)
    }
  }
}
