import Foundation
import QualifyCore
import QualifyCrypto
import ResultModel

/// `--sarif FILE`: findings as SARIF 2.1.0, the format code-scanning UIs and review tools read
/// to annotate a diff (GitHub code scanning, GitLab, Gerrit, SonarQube). Each result names its
/// rule, its file and line relative to the working directory, the message and the fix.
public enum SARIFWriter {
  /// A rule a result refers to.
  public struct Rule: Sendable, Equatable {
    public var id: String
    /// One line: what the rule requires.
    public var title: String
    /// Where the requirement comes from (a seed's checklist item, a store rule).
    public var source: String?
    /// How to satisfy it.
    public var fix: String?

    public init(id: String, title: String, source: String? = nil, fix: String? = nil) {
      self.id = id
      self.title = title
      self.source = source
      self.fix = fix
    }
  }

  /// One finding.
  public struct Finding: Sendable, Equatable {
    public enum Level: String, Sendable {
      /// Blocks the release.
      case error
      /// Qualify could not read the decision: someone must look.
      case warning
      /// Allowed where it was found (a dev setting on dev).
      case note
    }

    public var rule: String
    public var level: Level
    public var message: String
    /// Relative to the working directory (`ci/env/prod/frontend.env`).
    public var file: String?
    public var line: Int?
    public var fix: String?
    public var platform: Platform?
    /// The waiver that covers it (`owner until date: reason`): reported as suppressed.
    public var waiver: String?
    /// The command that reproduces it, for a scenario's failure.
    public var reproduce: String?

    public init(
      rule: String, level: Level, message: String, file: String?, line: Int?, fix: String?,
      platform: Platform? = nil, waiver: String? = nil, reproduce: String? = nil
    ) {
      self.rule = rule
      self.level = level
      self.message = message
      self.file = file
      self.line = line
      self.fix = fix
      self.platform = platform
      self.waiver = waiver
      self.reproduce = reproduce
    }
  }

  static let schema = "https://json.schemastore.org/sarif-2.1.0.json"

  /// The SARIF log of one tool run: every rule `findings` name (in `rules` order, then any
  /// other), and one result per finding.
  public static func render(
    findings: [Finding], rules: [Rule], version: String, properties: [String: String] = [:]
  ) throws -> String {
    var used: [Rule] = []
    for finding in findings where !used.contains(where: { $0.id == finding.rule }) {
      used.append(
        rules.first { $0.id == finding.rule } ?? Rule(id: finding.rule, title: finding.rule))
    }
    used.sort { a, b in
      let ia = rules.firstIndex { $0.id == a.id } ?? Int.max
      let ib = rules.firstIndex { $0.id == b.id } ?? Int.max
      return ia != ib ? ia < ib : a.id < b.id
    }
    let ruleObjects: [[String: Any]] = used.map { rule in
      var object: [String: Any] = [
        "id": rule.id, "name": name(rule.id),
        "shortDescription": ["text": rule.title],
        "defaultConfiguration": ["level": "error"],
      ]
      var help = rule.fix.map { "Fix: \($0)" } ?? ""
      if let source = rule.source { help += (help.isEmpty ? "" : "\n") + "From: \(source)" }
      if !help.isEmpty {
        object["help"] = ["text": help]
        object["fullDescription"] = ["text": rule.title + (rule.source.map { " (\($0))" } ?? "")]
      }
      return object
    }
    let results: [[String: Any]] = findings.map { finding in
      var object: [String: Any] = [
        "ruleId": finding.rule,
        "ruleIndex": used.firstIndex { $0.id == finding.rule } ?? 0,
        "level": finding.level.rawValue,
        "message": [
          "text": finding.message + (finding.fix.map { " Fix: \($0)" } ?? "")
        ],
      ]
      if let file = finding.file {
        var physical: [String: Any] = ["artifactLocation": ["uri": uri(file)]]
        if let line = finding.line, line > 0 { physical["region"] = ["startLine": line] }
        object["locations"] = [["physicalLocation": physical]]
      }
      // What identifies the finding across runs whatever the line: the rule, the file and
      // the message with numbers masked.
      object["partialFingerprints"] = [
        "qualifyFinding/v1": Digest.sha256Hex(
          Data(
            [
              finding.rule, finding.platform?.rawValue ?? "", finding.file ?? "",
              RunDiff.mask(finding.message),
            ].joined(separator: "\u{1F}").utf8))
      ]
      var bag: [String: Any] = [:]
      if let fix = finding.fix { bag["fix"] = fix }
      if let platform = finding.platform { bag["platform"] = platform.rawValue }
      if let reproduce = finding.reproduce { bag["reproduce"] = reproduce }
      if !bag.isEmpty { object["properties"] = bag }
      if let waiver = finding.waiver {
        object["suppressions"] = [["kind": "external", "justification": waiver]]
      }
      return object
    }
    var run: [String: Any] = [
      "tool": [
        "driver": [
          "name": "qualify", "version": version,
          "rules": ruleObjects,
        ]
      ],
      "results": results,
      "columnKind": "unicodeCodePoints",
    ]
    if !properties.isEmpty { run["properties"] = properties }
    let log: [String: Any] = ["$schema": schema, "version": "2.1.0", "runs": [run]]
    let data = try JSONSerialization.data(
      withJSONObject: log, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    return String(decoding: data, as: UTF8.self) + "\n"
  }

  /// A relative path as a URI reference: each segment percent-encoded, `/` kept.
  static func uri(_ path: String) -> String {
    var allowed = CharacterSet.urlPathAllowed
    allowed.remove(charactersIn: ":?#[]@")
    return path.split(separator: "/", omittingEmptySubsequences: false).map {
      String($0).addingPercentEncoding(withAllowedCharacters: allowed) ?? String($0)
    }.joined(separator: "/")
  }

  /// `dev-server-url` → `DevServerUrl`: SARIF's `name`, an identifier.
  static func name(_ id: String) -> String {
    id.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map {
      $0.prefix(1).uppercased() + $0.dropFirst()
    }.joined()
  }
}

extension SARIFWriter {
  /// The findings of a run for review tools: every failure whose cause the report locates in
  /// one of the app's files (a static finding, or a scenario failing on a value it names),
  /// with its rule (the guard's, else the scenario's id), its fix and its reproduce command;
  /// waived ones are suppressed. Failures located only in a scenario file are in JUnit.
  public static func findings(run: RunRecord, results: [ScenarioResult]) -> [Finding] {
    let scope = run.scope ?? RunScope()
    let summary = RunSummary(results, scope: scope)
    let report = FailureReport(run: run, results: results, summary: summary)
    var out: [Finding] = []
    for failure in report.blocking + report.waived where failure.control == nil {
      let result = results[failure.result]
      guard let location = failure.location, let place = SourcePlace(location),
        place.file != result.file, !place.file.hasSuffix(".scenario")
      else { continue }
      let rule =
        result.check.failureReason == "finding"
        ? result.check.failureDetail ?? result.scenarioID : result.scenarioID
      // The cause in the app's terms, without the place the location already gives; then
      // which check found it.
      var cause = RootCause(result.message).text
      if cause.hasPrefix(location + ": ") { cause = String(cause.dropFirst(location.count + 2)) }
      let message =
        "\(cause) (\(result.platform.displayName), \(result.scenarioID): \(result.title))"
      out.append(
        Finding(
          rule: rule, level: .error, message: message, file: place.file, line: place.line,
          fix: failure.fix, platform: failure.platform,
          waiver: failure.waivers.first.map { "\($0.owner) until \($0.expires): \($0.reason)" },
          reproduce: failure.reproduce))
    }
    return out
  }

  /// The rules of a run's findings: a scenario's rule is its title, from its file.
  public static func rules(for results: [ScenarioResult]) -> [Rule] {
    var out: [Rule] = []
    for result in results where !out.contains(where: { $0.id == result.scenarioID }) {
      out.append(Rule(id: result.scenarioID, title: result.title, source: result.file))
    }
    return out
  }
}
