/// An error in something the user gave us (a flag, a scenario file, an app artifact, a stack
/// file): the command exits 2 with its message, and with every diagnostic it carries.
public struct InputError: Error, CustomStringConvertible, Sendable {
  public var message: String
  public var hint: String?
  public var diagnostics: [Diagnostic]

  public init(_ message: String, hint: String? = nil, diagnostics: [Diagnostic] = []) {
    self.message = message
    self.hint = hint
    self.diagnostics = diagnostics
  }

  public var description: String { message }
}

/// The machine qualify runs on is in the way — a database or report folder it cannot write or
/// read, a port in use, a server that does not answer — not the app and not qualify: the
/// command exits 4 naming the path or address.
public struct EnvironmentError: Error, CustomStringConvertible, Sendable {
  public var message: String
  public var hint: String?

  public init(_ message: String, hint: String? = nil) {
    self.message = message
    self.hint = hint
  }

  public var description: String { message }
}

/// Exit codes of the `qualify` command (DESIGN.md, *Product contract*).
public enum ExitCode: Int32, Sendable {
  /// Nothing failed (QUALIFIED for a full run, PASSED for a partial one).
  case qualified = 0
  /// A check failed, or a control did not bite.
  case notQualified = 1
  /// Bad input: a flag, a scenario file, an app artifact or a stack file.
  case badInput = 2
  /// The harness itself failed.
  case internalError = 3
  /// The environment is in the way: a path that cannot be written or read, a busy port, a
  /// server that does not answer.
  case environment = 4
}
