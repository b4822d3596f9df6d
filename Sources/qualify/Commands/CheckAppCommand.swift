import Artifacts
import Foundation
import QualifyCore

/// `qualify check-app`: the static findings alone, fast enough for a pre-commit hook.
struct CheckAppCommand {
  static let options: [OptionSpec] = [
    .value("app", "DIR", "The app repository (default: the bundled sample app)."),
    .value("channel", "dev|staging|prod", "The channel whose build is checked (default: prod)."),
    .value("platform", "ios|android", "Only this platform."),
    .flag("json", "Print the findings as JSON."),
    .flag("help", "Show this help."),
  ]

  let parsed: ParsedOptions

  init(arguments: [String]) throws {
    parsed = try ParsedOptions.parse(
      arguments, CheckAppCommand.options, command: "qualify check-app")
  }

  func execute() throws -> ExitCode {
    let out = Terminal.standardOutput
    if parsed.has("help") {
      out.write(
        helpText(
          usage: "qualify check-app [--app DIR] [--channel C] [--platform P] [--json]",
          summary: """
            Reads the app's files and prints the static build-guard findings (no dev server URL, \
            no cleartext, no ATS exception, HTTPS origins, the SSO invariants, banner strings, \
            the Android release guard) without starting the stack. The same findings are part \
            of a full run. Exit 0 when nothing blocks the channel, 1 otherwise, 2 on bad input.
            """, options: CheckAppCommand.options))
      return .qualified
    }
    let channel = try channelOption(parsed)
    let platforms = try platformOption(parsed)
    let repository = try AppRepository(directory: parsed.value("app") ?? Paths.sampleApp)
    let builds = try repository.builds(for: channel)
    let findings = platforms.compactMap { builds[$0] }.flatMap(BuildGuards.findings(for:))
    let blocking = findings.filter { $0.severity == .error }
    if parsed.has("json") {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
      out.line(String(decoding: try encoder.encode(findings), as: UTF8.self))
      return blocking.isEmpty ? .qualified : .notQualified
    }
    out.line(
      "check-app · \(repository.profile.name) · channel \(channel.rawValue) · \(BuildGuards.rules.count) rules"
    )
    for platform in platforms {
      let mine = findings.filter { $0.platform == platform }
      if mine.isEmpty {
        out.line(out.style("ok", .green, .bold) + "      \(platform.displayName): no finding")
      }
      for finding in mine {
        let label =
          finding.severity == .error
          ? out.style("error", .red, .bold) : out.style("allowed", .yellow, .bold)
        out.line("\(label)   \(platform.displayName) \(finding.rule): \(finding.description)")
        out.line("        fix: \(finding.fix)")
      }
    }
    out.line(
      blocking.isEmpty
        ? "nothing blocks \(channel.rawValue)"
        : "\(blocking.count) finding\(blocking.count == 1 ? "" : "s") block \(channel.rawValue)")
    return blocking.isEmpty ? .qualified : .notQualified
  }
}
