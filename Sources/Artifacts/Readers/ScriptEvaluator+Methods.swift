import Foundation

/// The methods of strings, arrays, regular expressions and URL search parameters a
/// validator calls.
extension ScriptEvaluator {
  static func method(_ base: Value, _ name: String, _ arguments: [Value]) -> Value? {
    let first = arguments.first ?? .undefined
    if case .object(let fields) = base, case .string(let query)? = fields[ScriptURL.searchKey] {
      switch name {
      case "get": return ScriptURL.parameter(string(first), in: query)
      case "has": return .bool(ScriptURL.parameter(string(first), in: query) != .null)
      default: return nil
      }
    }
    switch base {
    case .string(let text):
      let range = NSRange(text.startIndex..., in: text)
      switch name {
      case "toLowerCase": return .string(text.lowercased())
      case "toUpperCase": return .string(text.uppercased())
      case "trim": return .string(text.trimmingCharacters(in: .whitespacesAndNewlines))
      case "startsWith": return .bool(text.utf16.starts(with: string(first).utf16))
      case "endsWith":
        return .bool(text.utf16.reversed().starts(with: string(first).utf16.reversed()))
      case "includes": return .bool(string(first).isEmpty || text.contains(string(first)))
      case "indexOf":
        guard let found = text.range(of: string(first)) else { return .number(-1) }
        return .number(Double(text.utf16.distance(from: text.startIndex, to: found.lowerBound)))
      case "slice", "substring":
        let units = Array(text.utf16)
        var start = arguments.isEmpty ? 0 : Int(number(first))
        var end = arguments.count > 1 ? Int(number(arguments[1])) : units.count
        if name == "slice" {
          if start < 0 { start += units.count }
          if end < 0 { end += units.count }
        }
        start = max(0, min(start, units.count))
        end = max(0, min(end, units.count))
        return .string(start < end ? String(decoding: units[start..<end], as: UTF16.self) : "")
      case "split":
        guard case .string(let separator) = first else { return nil }
        if separator.isEmpty { return .array(text.map { .string(String($0)) }) }
        return .array(text.components(separatedBy: separator).map { .string($0) })
      case "replace", "replaceAll":
        guard arguments.count == 2, case .string(let replacement) = arguments[1],
          !replacement.contains("$")
        else { return nil }
        switch first {
        case .string(let needle):
          guard !needle.isEmpty else { return nil }
          if name == "replaceAll" {
            return .string(text.replacingOccurrences(of: needle, with: replacement))
          }
          guard let found = text.range(of: needle) else { return base }
          return .string(text.replacingCharacters(in: found, with: replacement))
        case .regex(let pattern, let flags):
          guard let regex = regex(pattern, flags) else { return nil }
          let template = NSRegularExpression.escapedTemplate(for: replacement)
          if flags.contains("g") {
            return .string(
              regex.stringByReplacingMatches(in: text, range: range, withTemplate: template))
          }
          guard let match = regex.firstMatch(in: text, range: range),
            let found = Range(match.range, in: text)
          else { return base }
          return .string(text.replacingCharacters(in: found, with: replacement))
        default: return nil
        }
      case "match":
        guard case .regex(let pattern, let flags) = first, let regex = regex(pattern, flags) else {
          return nil
        }
        if flags.contains("g") {
          let all = regex.matches(in: text, range: range).compactMap {
            Range($0.range, in: text).map { Value.string(String(text[$0])) }
          }
          return all.isEmpty ? .null : .array(all)
        }
        guard let match = regex.firstMatch(in: text, range: range) else { return .null }
        return .array(
          (0..<match.numberOfRanges).map { group in
            Range(match.range(at: group), in: text).map { .string(String(text[$0])) } ?? .undefined
          })
      default: return nil
      }
    case .regex(let pattern, let flags):
      guard name == "test", let regex = regex(pattern, flags) else { return nil }
      let text = string(first)
      return .bool(regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil)
    case .array(let values):
      switch name {
      case "includes", "has":
        return .bool(values.contains { strictEqual($0, first) || $0 == first })
      case "indexOf":
        return .number(Double(values.firstIndex { strictEqual($0, first) } ?? -1))
      case "join":
        let separator = arguments.isEmpty ? "," : string(first)
        return .string(
          values.map { $0 == .undefined || $0 == .null ? "" : string($0) }.joined(
            separator: separator))
      default: return nil
      }
    default: return nil
    }
  }
}

extension ScriptExpression {
  var isArrow: Bool {
    if case .arrow = self { return true }
    return false
  }
}

/// The array methods that take a function: run with an arrow function written in place
/// (`.map((entry) => entry.trim())`), or `Boolean` (`.filter(Boolean)`).
extension ScriptEvaluator {
  static let iterating: Set<String> = ["map", "filter", "some", "every", "find"]

  mutating func iterate(_ base: Value, _ method: String, _ function: ScriptExpression) -> Value? {
    guard case .array(let items) = base else { return nil }
    var results: [Value] = []
    for (index, item) in items.enumerated() {
      let result: Value
      switch function {
      case .arrow(let parameters, let body):
        var frame: [String: Value] = [:]
        for (position, name) in parameters.enumerated() {
          frame[name] = position == 0 ? item : position == 1 ? .number(Double(index)) : .undefined
        }
        scopes.append(frame)
        let value = evaluate(body)
        scopes.removeLast()
        guard let value else { return nil }
        result = value
      default: result = .bool(item.truthy)
      }
      switch method {
      case "map": results.append(result)
      case "filter": if result.truthy { results.append(item) }
      case "some": if result.truthy { return .bool(true) }
      case "every": if !result.truthy { return .bool(false) }
      default: if result.truthy { return item }
      }
    }
    switch method {
    case "some": return .bool(false)
    case "every": return .bool(true)
    case "find": return .undefined
    default: return .array(results)
    }
  }
}
