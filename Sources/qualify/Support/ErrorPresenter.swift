import Foundation
import QualifyCore

/// Maps any error to what the user reads and the exit code: bad input is 2 with its
/// diagnostics, everything else is an internal error (3).
enum ErrorPresenter {
  static func present(_ error: Error, terminal: Terminal = .standardError) -> ExitCode {
    let printer = DiagnosticPrinter(colors: terminal.colors)
    switch error {
    case let input as InputError:
      for diagnostic in input.diagnostics { terminal.write(printer.render(diagnostic)) }
      terminal.line(terminal.style("error:", .red, .bold) + " " + input.message)
      if let hint = input.hint { terminal.line("hint: " + hint) }
      return .badInput
    case let diagnostic as Diagnostic:
      terminal.write(printer.render(diagnostic))
      return .badInput
    default:
      terminal.line(terminal.style("internal error:", .red, .bold) + " \(error)")
      terminal.line(
        "This is a bug in qualify, not in your app; please report it with the command you ran.")
      return .internalError
    }
  }
}
