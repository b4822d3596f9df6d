import Foundation
import QualifyCore
import Scenarios

/// `qualify check FILE...`: validates scenario files without running them.
struct CheckCommand {
  static let options: [OptionSpec] = [.flag("help", "Show this help.")]

  let parsed: ParsedOptions

  init(arguments: [String]) throws {
    parsed = try ParsedOptions.parse(
      arguments, CheckCommand.options, command: "qualify check", positionals: .max)
  }

  func execute() throws -> ExitCode {
    let out = Terminal.standardOutput
    if parsed.has("help") {
      out.write(
        helpText(
          usage: "qualify check FILE...",
          summary:
            "Parses scenario files (or every .scenario file under a directory) and reports every error, compiler style. Exit 0 when all are valid, 2 otherwise.",
          options: CheckCommand.options))
      return .qualified
    }
    guard !parsed.positionals.isEmpty else {
      throw InputError(
        "qualify check needs at least one scenario file",
        hint: "for example: qualify check Scenarios/guards/*.scenario")
    }
    var files: [URL] = []
    for path in parsed.positionals {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw InputError("no such file: \(path)")
      }
      if isDirectory.boolValue {
        let walker = FileManager.default.enumerator(
          at: URL(fileURLWithPath: path), includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL {
          if url.pathExtension == "scenario" { files.append(url) }
        }
      } else {
        files.append(URL(fileURLWithPath: path))
      }
    }
    let diagnostics = DiagnosticsEngine()
    var valid = 0
    for file in files.sorted(by: { $0.path < $1.path }) {
      if try ScenarioCatalogue.parse(file: file, diagnostics: diagnostics) != nil { valid += 1 }
    }
    let err = Terminal.standardError
    let printer = DiagnosticPrinter(colors: err.colors)
    for diagnostic in diagnostics.diagnostics { err.write(printer.render(diagnostic)) }
    if diagnostics.hasErrors {
      err.line(
        "\(diagnostics.errorCount) error\(diagnostics.errorCount == 1 ? "" : "s") in \(files.count - valid) of \(files.count) file\(files.count == 1 ? "" : "s")"
      )
      return .badInput
    }
    out.line("\(files.count) scenario file\(files.count == 1 ? "" : "s") valid")
    return .qualified
  }
}
