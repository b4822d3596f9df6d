import Foundation
import QualifyCore

/// A `KEY=value` environment file as Docker's `env_file` and django-environ read it.
public struct EnvFile: Sendable {
  public struct Entry: Sendable {
    public var key: String
    public var value: String
    public var line: Int
  }

  public let path: String
  public private(set) var entries: [Entry] = []

  /// Parses `text` as Docker Compose's `env_file` reads it: `#` starts a comment line,
  /// `export ` is allowed, a value may be quoted (`"…"` with `\\` escapes, or `'…'` taken
  /// literally) and followed by a comment; an unquoted value ends before ` #`. CRLF and CR
  /// line endings read like LF.
  /// - Throws: `InputError` with a diagnostic for each line that is not `KEY=value`.
  public init(text: String, path: String) throws {
    self.path = path
    let lines = TextLines.split(text)
    var diagnostics: [Diagnostic] = []
    for (index, raw) in lines.enumerated() {
      var line = raw.trimmingCharacters(in: .whitespaces)
      if line.isEmpty || line.hasPrefix("#") { continue }
      if line.hasPrefix("export ") { line = String(line.dropFirst(7)) }
      func fail(_ message: String, hint: String? = nil) {
        diagnostics.append(
          .error(
            at: FileLocation(file: path, line: index + 1, column: 1), message, hint: hint,
            sourceLine: raw, length: max(1, raw.count)))
      }
      guard let eq = line.firstIndex(of: "=") else {
        fail("expected KEY=value", hint: "comment lines start with '#'")
        continue
      }
      let key = line[..<eq].trimmingCharacters(in: .whitespaces)
      guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
        fail("invalid variable name '\(key)'")
        continue
      }
      let rest = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
      guard let value = EnvFile.value(rest) else {
        fail(
          "a quoted value is not closed, or text follows its closing quote",
          hint: "write KEY=\"value\" # an optional comment")
        continue
      }
      entries.append(Entry(key: key, value: value, line: index + 1))
    }
    if !diagnostics.isEmpty {
      throw InputError(
        "\(path) has \(diagnostics.count) malformed line\(diagnostics.count == 1 ? "" : "s")",
        diagnostics: diagnostics)
    }
  }

  /// The value of the text after `=`; nil when a quote is not closed or text follows it.
  static func value(_ text: String) -> String? {
    guard let quote = text.first, quote == "\"" || quote == "'" else {
      // Unquoted: an inline comment starts at " #".
      if let comment = text.range(of: " #") {
        return text[..<comment.lowerBound].trimmingCharacters(in: .whitespaces)
      }
      return text
    }
    var out = ""
    var index = text.index(after: text.startIndex)
    while index < text.endIndex {
      let c = text[index]
      if c == quote {
        let after = text[text.index(after: index)...].trimmingCharacters(in: .whitespaces)
        return after.isEmpty || after.hasPrefix("#") ? out : nil
      }
      if quote == "\"", c == "\\", text.index(after: index) < text.endIndex {
        index = text.index(after: index)
        let escaped = text[index]
        out.append(escaped == "n" ? "\n" : escaped == "t" ? "\t" : escaped)
      } else {
        out.append(c)
      }
      index = text.index(after: index)
    }
    return nil
  }

  /// The last value of `key` (later lines override earlier ones, as in Docker).
  /// Drops every entry of `key`.
  public mutating func remove(_ key: String) { entries.removeAll { $0.key == key } }

  public subscript(key: String) -> String? { entries.last { $0.key == key }?.value }

  public func line(of key: String) -> Int? { entries.last { $0.key == key }?.line }
}

/// Several env files layered in order (`backend.defaults` then `backend.prod`), later wins.
public struct EnvLayers: Sendable {
  public private(set) var files: [EnvFile]

  public init(_ files: [EnvFile]) {
    self.files = files
  }

  public subscript(key: String) -> String? {
    for file in files.reversed() { if let value = file[key] { return value } }
    return nil
  }

  /// Where `key` got its value.
  public func location(of key: String) -> FileLocation? {
    for file in files.reversed() {
      if let line = file.line(of: key) {
        return FileLocation(file: file.path, line: line, column: 1)
      }
    }
    return nil
  }

  /// Removes `key` from every file (a setting the real system does not offer).
  public mutating func remove(_ key: String) {
    for index in files.indices { files[index].remove(key) }
  }

  /// Overrides `key` (mutations in negative controls do this; `--stack` does it with the
  /// stack file as `source`).
  public mutating func set(_ key: String, _ value: String, source: String = "(mutation)") {
    if files.isEmpty, let empty = try? EnvFile(text: "", path: "(mutation)") { files = [empty] }
    let override = (try? EnvFile(text: "\(key)=\(value)", path: source))
    if let override { files.append(override) }
  }

  /// The path that marks a value set from a stack file: the real system's, not the app's.
  public static func stackSource(_ file: String) -> String { "\(file) (--stack)" }

  /// `key` as the app's own files set it, ignoring what a stack file put over it.
  public func committed(_ key: String) -> (value: String, location: FileLocation?)? {
    for file in files.reversed() where !file.path.hasSuffix("(--stack)") {
      if let value = file[key], let line = file.line(of: key) {
        return (value, FileLocation(file: file.path, line: line, column: 1))
      }
    }
    return nil
  }
}
