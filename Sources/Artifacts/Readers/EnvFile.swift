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

  /// Parses `text`; `#` starts a comment line, `export ` is allowed, values may be quoted.
  /// - Throws: a `Diagnostic` for a line that is not `KEY=value`.
  public init(text: String, path: String) throws {
    self.path = path
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var diagnostics: [Diagnostic] = []
    for (index, raw) in lines.enumerated() {
      var line = raw.trimmingCharacters(in: .whitespaces)
      if line.isEmpty || line.hasPrefix("#") { continue }
      if line.hasPrefix("export ") { line = String(line.dropFirst(7)) }
      guard let eq = line.firstIndex(of: "=") else {
        diagnostics.append(
          .error(
            at: FileLocation(file: path, line: index + 1, column: 1),
            "expected KEY=value", hint: "comment lines start with '#'", sourceLine: raw,
            length: raw.count))
        continue
      }
      let key = line[..<eq].trimmingCharacters(in: .whitespaces)
      guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
        diagnostics.append(
          .error(
            at: FileLocation(file: path, line: index + 1, column: 1),
            "invalid variable name '\(key)'", sourceLine: raw, length: max(1, key.count)))
        continue
      }
      var value = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
      if value.count >= 2, let first = value.first, first == "\"" || first == "'",
        value.last == first
      {
        value = String(value.dropFirst().dropLast())
      }
      entries.append(Entry(key: key, value: value, line: index + 1))
    }
    if let first = diagnostics.first {
      throw InputError(
        "\(path) has \(diagnostics.count) malformed line\(diagnostics.count == 1 ? "" : "s")",
        diagnostics: diagnostics.isEmpty ? [first] : diagnostics)
    }
  }

  /// The last value of `key` (later lines override earlier ones, as in Docker).
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

  /// Overrides `key` (mutations in negative controls do this).
  public mutating func set(_ key: String, _ value: String) {
    if files.isEmpty, let empty = try? EnvFile(text: "", path: "(mutation)") { files = [empty] }
    let override = (try? EnvFile(text: "\(key)=\(value)", path: "(mutation)"))
    if let override { files.append(override) }
  }
}
