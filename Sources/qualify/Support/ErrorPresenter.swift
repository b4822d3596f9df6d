import Foundation
import HTTP
import QualifyCore
import Results

/// Maps any error to what the user reads and the exit code: bad input is 2 with its
/// diagnostics, the environment in the way is 4, everything else is an internal error (3).
enum ErrorPresenter {
  static func present(_ error: Error, terminal: Terminal = .standardError) -> ExitCode {
    let printer = DiagnosticPrinter(colors: terminal.colors)
    switch redacted(error) {
    case let input as InputError:
      for diagnostic in input.diagnostics { terminal.write(printer.render(diagnostic)) }
      terminal.line(terminal.style("error:", .red, .bold) + " " + input.message)
      if let hint = input.hint { terminal.line("hint: " + hint) }
      return .badInput
    case let diagnostic as Diagnostic:
      terminal.write(printer.render(diagnostic))
      return .badInput
    case let environment as EnvironmentError:
      terminal.line(terminal.style("error:", .red, .bold) + " " + environment.message)
      if let hint = environment.hint { terminal.line("hint: " + hint) }
      return .environment
    case let store as SQLiteError where store.isEnvironment:
      terminal.line(
        terminal.style("error:", .red, .bold)
          + " the results database \(store.path ?? Paths.defaultDatabase) cannot be written or read: \(store.message)"
      )
      terminal.line("hint: " + store.hint)
      return .environment
    case let http as HTTPClientError:
      // A URL the user typed that cannot be fetched is theirs (2); a server that does not
      // answer, or answers too much, is the environment (4).
      terminal.line(terminal.style("error:", .red, .bold) + " " + http.message)
      return http.kind == .transport || http.kind == .tooLarge ? .environment : .badInput
    default:
      terminal.line(terminal.style("internal error:", .red, .bold) + " \(error)")
      terminal.line(
        "This is a bug in qualify, not in your app; please report it with the command you ran.")
      return .internalError
    }
  }

  /// `error` with every message, hint and quoted line passed through the redactor: an error
  /// path echoes files and real systems' answers, and those may hold secrets.
  static func redacted(_ error: Error) -> Error {
    let redactor = Redactor.process
    func clean(_ diagnostic: Diagnostic) -> Diagnostic {
      var out = diagnostic
      out.message = redactor.redact(out.message)
      out.hint = out.hint.map(redactor.redact)
      out.sourceLine = out.sourceLine.map(redactor.redact)
      return out
    }
    switch error {
    case var input as InputError:
      input.message = redactor.redact(input.message)
      input.hint = input.hint.map(redactor.redact)
      input.diagnostics = input.diagnostics.map(clean)
      return input
    case let diagnostic as Diagnostic:
      return clean(diagnostic)
    case var environment as EnvironmentError:
      environment.message = redactor.redact(environment.message)
      environment.hint = environment.hint.map(redactor.redact)
      return environment
    default:
      return error
    }
  }
}
