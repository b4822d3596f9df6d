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
  /// literally), may run over several lines until its closing quote (a PEM key), and may be
  /// followed by a comment; an unquoted value ends before ` #`. CRLF and CR line endings read
  /// like LF.
  ///
  /// Env files hold secrets: a diagnostic names the key and the position, and shows the line
  /// only when neither its key nor its value looks secret (`SecretShape`).
  /// - Throws: `InputError` with a diagnostic for each line that is not `KEY=value`.
  public init(text: String, path: String) throws {
    self.path = path
    let lines = TextLines.split(text)
    var diagnostics: [Diagnostic] = []
    var index = 0
    while index < lines.count {
      let raw = lines[index]
      let number = index + 1
      index += 1
      var line = raw.trimmingCharacters(in: .whitespaces)
      if line.isEmpty || line.hasPrefix("#") { continue }
      if line.hasPrefix("export ") { line = String(line.dropFirst(7)) }
      func fail(_ message: String, key: String?, value: String, hint: String? = nil) {
        let quotable = SecretShape.mayQuote(key: key, value: value)
        diagnostics.append(
          .error(
            at: FileLocation(file: path, line: number, column: 1),
            quotable
              ? message
              : message + " (the line is not shown: it may hold a secret)",
            hint: hint, sourceLine: quotable ? raw : nil, length: max(1, raw.count)))
      }
      guard let eq = line.firstIndex(of: "=") else {
        fail("expected KEY=value", key: nil, value: line, hint: "comment lines start with '#'")
        continue
      }
      let key = line[..<eq].trimmingCharacters(in: .whitespaces)
      guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
        let shown = SecretShape.looksSecret(key) ? "" : " '\(key)'"
        fail("invalid variable name\(shown)", key: nil, value: line)
        continue
      }
      var rest = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
      // A quote opened and not closed on this line continues on the next ones, as Compose
      // reads a multi-line value.
      var continued = index
      if let quote = rest.first, quote == "\"" || quote == "'", EnvFile.value(rest) == nil,
        !EnvFile.closes(rest.dropFirst(), quote: quote)
      {
        var joined = rest
        while continued < lines.count {
          joined += "\n" + lines[continued]
          continued += 1
          if EnvFile.closes(Substring(lines[continued - 1]), quote: quote) { break }
        }
        if EnvFile.value(joined) != nil {
          rest = joined
          index = continued
        }
      }
      guard let value = EnvFile.value(rest) else {
        fail(
          "the quoted value of \(key) is not closed, or text follows its closing quote",
          key: key, value: rest, hint: "write KEY=\"value\" # an optional comment")
        continue
      }
      entries.append(Entry(key: key, value: value, line: number))
    }
    if !diagnostics.isEmpty {
      throw InputError(
        "\(path) has \(diagnostics.count) malformed line\(diagnostics.count == 1 ? "" : "s")",
        diagnostics: diagnostics)
    }
  }

  /// Whether `text` holds an unescaped `quote`.
  static func closes(_ text: Substring, quote: Character) -> Bool {
    var escaped = false
    for c in text {
      if escaped {
        escaped = false
      } else if c == "\\" && quote == "\"" {
        escaped = true
      } else if c == quote {
        return true
      }
    }
    return false
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
