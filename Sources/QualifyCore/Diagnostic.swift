import Foundation

/// A position in a user file: 1-based line and column.
public struct FileLocation: Hashable, Sendable, Codable, CustomStringConvertible {
  public var file: String
  public var line: Int
  public var column: Int

  public init(file: String, line: Int, column: Int) {
    self.file = file
    self.line = line
    self.column = column
  }

  public var description: String { "\(file):\(line):\(column)" }
}

/// One finding about a user file (a scenario, an app artifact, a stack file).
///
/// Printed like a compiler's: `path:line:col: error: message`, the offending line with a
/// caret under the column, then the hint.
public struct Diagnostic: Error, Hashable, Sendable, Codable {
  public enum Severity: String, Sendable, Codable {
    case error, warning, note
  }

  public var severity: Severity
  public var location: FileLocation?
  public var message: String
  public var hint: String?
  /// The text of the offending line, when the file has lines.
  public var sourceLine: String?
  /// How many characters the caret underlines (at least one).
  public var length: Int

  public init(
    _ severity: Severity, at location: FileLocation?, _ message: String, hint: String? = nil,
    sourceLine: String? = nil, length: Int = 1
  ) {
    self.severity = severity
    self.location = location
    self.message = message
    self.hint = hint
    self.sourceLine = sourceLine
    self.length = max(1, length)
  }

  public static func error(
    at location: FileLocation?, _ message: String, hint: String? = nil,
    sourceLine: String? = nil, length: Int = 1
  ) -> Diagnostic {
    Diagnostic(.error, at: location, message, hint: hint, sourceLine: sourceLine, length: length)
  }
}

/// Collects the diagnostics of one or more files, so that every error is reported, not only
/// the first.
public final class DiagnosticsEngine: Sendable {
  private let collected = Locked<[Diagnostic]>([])

  public init() {}

  public func emit(_ diagnostic: Diagnostic) {
    collected.withLock { $0.append(diagnostic) }
  }

  public var diagnostics: [Diagnostic] { collected.withLock { $0 } }

  public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

  public var errorCount: Int { diagnostics.filter { $0.severity == .error }.count }
}

/// Renders diagnostics as text; colour only when asked (a TTY without `NO_COLOR`).
public struct DiagnosticPrinter: Sendable {
  public var colors: Bool

  public init(colors: Bool) {
    self.colors = colors
  }

  public func render(_ d: Diagnostic) -> String {
    let (severityColor, bold, reset, cyan) =
      colors
      ? (
        d.severity == .error ? "\u{1B}[31m" : d.severity == .warning ? "\u{1B}[33m" : "\u{1B}[36m",
        "\u{1B}[1m", "\u{1B}[0m", "\u{1B}[36m"
      ) : ("", "", "", "")
    var out = ""
    if let location = d.location {
      out += "\(bold)\(location):\(reset) "
    }
    out += "\(bold)\(severityColor)\(d.severity.rawValue):\(reset) \(bold)\(d.message)\(reset)\n"
    if let line = d.sourceLine, let location = d.location {
      let number = String(location.line)
      let pad = String(repeating: " ", count: number.count)
      var expanded = Array(line.replacingOccurrences(of: "\t", with: " "))
      var column = max(1, location.column)
      // A long line (a minified file) is shown as a window around the column.
      let window = 100
      if expanded.count > window {
        let start = max(0, min(column - 1 - window / 2, expanded.count - window))
        expanded = ["…"] + Array(expanded[start..<min(expanded.count, start + window)]) + ["…"]
        column = column - start + 1
      }
      out += "\(cyan)\(number) |\(reset) \(String(expanded))\n"
      let underline = "^" + String(repeating: "~", count: max(0, d.length - 1))
      out += "\(cyan)\(pad) |\(reset) \(String(repeating: " ", count: column - 1))"
      out += "\(severityColor)\(underline)\(reset)\n"
      if let hint = d.hint {
        out += "\(cyan)\(pad) =\(reset) hint: \(hint)\n"
      }
    } else if let hint = d.hint {
      out += "  hint: \(hint)\n"
    }
    return out
  }
}
