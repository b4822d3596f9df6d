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

/// Exit codes of the `qualify` command (DESIGN.md, *Product contract*).
public enum ExitCode: Int32, Sendable {
  /// Every check passed and every control bit.
  case qualified = 0
  /// A check failed, or a control did not bite.
  case notQualified = 1
  /// Bad input: a flag, a scenario file, an app artifact or a stack file.
  case badInput = 2
  /// The harness itself failed.
  case internalError = 3
}
