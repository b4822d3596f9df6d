import Foundation
import QualifyCore

/// The `qualify` command: dispatch only; every command lives in `Commands/`.
@main
enum Qualify {
  static let commands = [
    "run", "list", "check", "check-app", "history", "show", "report", "diff", "attest",
    "verify-attestation", "serve", "ota", "links", "merge",
  ]

  static func main() {
    Terminal.prepare()
    let arguments = Array(CommandLine.arguments.dropFirst())
    var code: ExitCode
    do {
      code = try dispatch(arguments)
    } catch {
      code = ErrorPresenter.present(error)
    }
    // Output that did not reach the reader is the environment's failure (a closed pipe, a
    // full disk): the store is complete, but nobody saw the verdict.
    if let message = Terminal.standardOutput.failureMessage
      ?? Terminal.standardError.failureMessage
    {
      Terminal.standardError.line("error: " + message)
      code = .environment
    }
    exit(code.rawValue)
  }

  static func dispatch(_ arguments: [String]) throws -> ExitCode {
    if arguments.first == "--version" {
      Terminal.standardOutput.line("qualify \(qualifyVersion)")
      return .qualified
    }
    guard let first = arguments.first, !first.hasPrefix("-") else {
      return try RunCommand(arguments: arguments, single: false).execute()
    }
    let rest = Array(arguments.dropFirst())
    switch first {
    case "run": return try RunCommand(arguments: rest, single: true).execute()
    case "list": return try ListCommand(arguments: rest).execute()
    case "check": return try CheckCommand(arguments: rest).execute()
    case "check-app": return try CheckAppCommand(arguments: rest).execute()
    case "serve": return try ServeCommand(arguments: rest).execute()
    case "ota": return try OTACommand(arguments: rest).execute()
    case "links": return try LinksCommand(arguments: rest).execute()
    case "history": return try HistoryCommand(.history, arguments: rest).execute()
    case "show": return try HistoryCommand(.show, arguments: rest).execute()
    case "report": return try HistoryCommand(.report, arguments: rest).execute()
    case "diff": return try DiffCommand(arguments: rest).execute()
    case "merge": return try MergeCommand(arguments: rest).execute()
    case "attest": return try AttestCommand(.attest, arguments: rest).execute()
    case "verify-attestation": return try AttestCommand(.verify, arguments: rest).execute()
    case "help": return try RunCommand(arguments: ["--help"], single: false).execute()
    default:
      throw InputError(
        "unknown command '\(first)'",
        hint: Suggestions.closest(to: first, among: commands).map {
          "did you mean 'qualify \($0)'?"
        } ?? "see: qualify --help")
    }
  }
}
