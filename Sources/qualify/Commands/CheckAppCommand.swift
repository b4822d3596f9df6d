import Artifacts
import Foundation
import QualifyCore
import Results

/// `qualify check-app`: the static findings alone, fast enough for a pre-commit hook.
struct CheckAppCommand {
  static let options: [OptionSpec] = [
    .value("app", "DIR", "The app repository (default: the bundled sample app)."),
    .value("channel", "dev|staging|prod", "The channel whose build is checked (default: prod)."),
    .value("platform", "ios|android", "Only this platform."),
    .value(
      "backend-env", "FILE", "A backend env file layered over the profile's (repeatable).",
      repeatable: true),
    .value(
      "frontend-env", "FILE", "A build env file layered over the profile's (repeatable).",
      repeatable: true),
    .flag("json", "Print the findings as JSON."),
    .value(
      "sarif", "FILE",
      "Also write the findings as SARIF 2.1.0 to FILE (rule, file, line, message and fix of each), for code-scanning annotations."
    ),
    .flag(
      "explain",
      "Also print what qualify resolved from the files (ids, schemes, build phases, features) and where each value came from."
    ),
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
          usage:
            "qualify check-app [--app DIR] [--channel C] [--platform P] [--json] [--sarif FILE]",
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
    let builds = try repository.builds(
      for: channel,
      extraEnv: AppRepository.ExtraEnv(
        backend: parsed.all("backend-env"), frontend: parsed.all("frontend-env")))
    let findings = platforms.compactMap { builds[$0] }.flatMap(BuildGuards.findings(for:))
    let blocking = findings.filter { $0.severity == .error }
    if let sarif = parsed.value("sarif") {
      try ReportFiles.writeText(
        SARIFWriter.render(
          findings: findings.map(CheckAppCommand.sarif), rules: RunOutputs.guardRules,
          version: qualifyVersion, properties: ["channel": channel.rawValue]), to: sarif)
    }
    if parsed.has("json") {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
      out.line(String(decoding: try encoder.encode(findings), as: UTF8.self))
      return blocking.isEmpty ? .qualified : .notQualified
    }
    out.line(
      "check-app · \(repository.profile.title) · channel \(channel.rawValue) · \(BuildGuards.rules(for: repository.profile.shell).count) rules"
    )
    if let warning = builds.values.first?.environment.fallbackWarning(channel: channel) {
      out.line(out.style("warning: ", .yellow, .bold) + warning)
    }
    for platform in platforms {
      if parsed.has("explain"), let build = builds[platform] {
        out.line(out.style("\(platform.displayName) build (\(channel.rawValue)):", .bold))
        for fact in build.facts {
          out.line(
            "  \(fact.name): \(fact.value)\(fact.origin.map { out.style("  (\($0))", .dim) } ?? "")"
          )
          for step in fact.derivation where !step.isEmpty {
            out.line(out.style("      ← \(step)", .dim))
          }
        }
      }
      let mine = findings.filter { $0.platform == platform }
      if mine.isEmpty {
        out.line(out.style("ok", .green, .bold) + "      \(platform.displayName): no finding")
      }
      for finding in mine {
        let label: String
        switch finding.severity {
        case .error: label = out.style("error", .red, .bold)
        case .allowed: label = out.style("allowed", .yellow, .bold)
        case .unverified: label = out.style("unverif", .yellow, .bold)
        }
        out.line("\(label)   \(platform.displayName) \(finding.rule): \(finding.description)")
        out.line("        fix: \(finding.fix)")
      }
    }
    let unsupplied = findings.filter(\.isInputNotSupplied).count
    let unread = findings.filter { $0.severity == .unverified && !$0.isInputNotSupplied }.count
    func rules(_ count: Int) -> String { "\(count) rule\(count == 1 ? "" : "s")" }
    var notChecked: [String] = []
    if unsupplied > 0 {
      notChecked.append("\(rules(unsupplied)) not checked: the channel env was not supplied")
    }
    if unread > 0 {
      notChecked.append(
        "\(rules(unread)) unverified: a decision qualify cannot read"
          + (channel.isRelease ? ", so a \(channel.rawValue) run does not qualify" : ""))
    }
    out.line(
      (blocking.isEmpty
        ? "nothing blocks \(channel.rawValue)"
        : "\(blocking.count) finding\(blocking.count == 1 ? "" : "s") block \(channel.rawValue)")
        + (notChecked.isEmpty ? "" : " (" + notChecked.joined(separator: "; ") + ")"))
    return blocking.isEmpty ? .qualified : .notQualified
  }
}

extension CheckAppCommand {
  /// A finding as SARIF reports it: an error blocks, a decision qualify could not read asks
  /// for a look, what the channel allows is a note.
  static func sarif(_ finding: Finding) -> SARIFWriter.Finding {
    let level: SARIFWriter.Finding.Level
    switch finding.severity {
    case .error: level = .error
    case .unverified: level = .warning
    case .allowed: level = .note
    }
    return SARIFWriter.Finding(
      rule: finding.rule, level: level, message: finding.message,
      file: finding.location.map(\.file), line: finding.location?.line, fix: finding.fix,
      platform: finding.platform)
  }
}
