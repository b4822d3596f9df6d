import QualifyCore

/// An `.xcconfig` build-settings file: `KEY = value`, `KEY[sdk=iphoneos*] = value`,
/// `#include "other.xcconfig"` (and `#include?` for an optional one), `//` comments.
public struct XcconfigFile: Sendable {
  public struct Entry: Sendable {
    public var key: String
    /// Conditions such as `sdk` → `iphoneos*`, `config` → `Release`.
    public var conditions: [String: String]
    public var value: String
    public var line: Int
  }

  public struct Include: Sendable {
    public var path: String
    public var optional: Bool
    public var line: Int
  }

  public var file: String
  /// Entries and includes in file order (an include's settings sit where it is written).
  public var items: [Either]

  public enum Either: Sendable {
    case entry(Entry)
    case include(Include)
  }

  /// Parses `text`.
  /// - Throws: `InputError` with a diagnostic for each line that is not a setting, an include
  ///   or a comment.
  public init(text: String, file: String) throws {
    self.file = file
    var items: [Either] = []
    var diagnostics: [Diagnostic] = []
    for (index, raw) in TextLines.split(text).enumerated() {
      var line = raw
      // `//` starts a comment unless it is inside a quoted value such as a URL: xcconfig has
      // no quoting, so like Xcode we cut at the first `//`.
      if let comment = line.range(of: "//") { line = String(line[..<comment.lowerBound]) }
      line = line.trimmingCharacters(in: .whitespaces)
      if line.isEmpty { continue }
      if line.hasPrefix("#include") {
        let optional = line.hasPrefix("#include?")
        guard let open = line.firstIndex(of: "\""), let close = line.lastIndex(of: "\""),
          open < close
        else {
          diagnostics.append(
            .error(
              at: FileLocation(file: file, line: index + 1, column: 1),
              "expected #include \"path\"", sourceLine: raw))
          continue
        }
        items.append(
          .include(
            Include(
              path: String(line[line.index(after: open)..<close]), optional: optional,
              line: index + 1)))
        continue
      }
      // The `=` of the assignment, not one inside a `[sdk=…]` condition.
      var depth = 0
      var equals: String.Index?
      for index in line.indices {
        switch line[index] {
        case "[": depth += 1
        case "]": depth -= 1
        case "=" where depth == 0:
          equals = index
        default: break
        }
        if equals != nil { break }
      }
      guard let eq = equals else {
        diagnostics.append(
          .error(
            at: FileLocation(file: file, line: index + 1, column: 1),
            "expected SETTING = value", hint: "comments start with //", sourceLine: raw))
        continue
      }
      var key = line[..<eq].trimmingCharacters(in: .whitespaces)
      var conditions: [String: String] = [:]
      while let open = key.firstIndex(of: "["), let close = key.firstIndex(of: "]"), open < close {
        let condition = key[key.index(after: open)..<close]
        if let equals = condition.firstIndex(of: "=") {
          conditions[String(condition[..<equals])] = String(
            condition[condition.index(after: equals)...])
        }
        key.removeSubrange(open...close)
      }
      guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
        diagnostics.append(
          .error(
            at: FileLocation(file: file, line: index + 1, column: 1),
            "invalid build setting name '\(key)'", sourceLine: raw))
        continue
      }
      let value = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
      items.append(
        .entry(Entry(key: key, conditions: conditions, value: value, line: index + 1)))
    }
    if !diagnostics.isEmpty {
      throw InputError("\(file) is not a valid .xcconfig file", diagnostics: diagnostics)
    }
    self.items = items
  }
}
