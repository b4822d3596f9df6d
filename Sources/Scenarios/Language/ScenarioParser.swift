import Artifacts
import Foundation
import QualifyCore

/// Parses `.scenario` files into `Scenario`s, reporting every error of a file with its line,
/// column, a caret and a hint (docs/scenario-language.md).
public struct ScenarioParser {
  public init() {}

  /// Parses `text` read from `file`; `id` defaults to the file's `<pack>/<name>`.
  /// - Returns: the scenario, or nil when `diagnostics` received errors for this file.
  public func parse(text: String, file: String, id: String? = nil, diagnostics: DiagnosticsEngine)
    -> Scenario?
  {
    var state = ParserState(file: file, diagnostics: diagnostics)
    let lines = Lexer.lines(of: text, file: file, diagnostics: diagnostics)
    let errorsBefore = diagnostics.errorCount
    var scenario = Scenario(id: id ?? ScenarioParser.identifier(for: file), title: "", file: file)
    state.parse(lines, into: &scenario)
    state.validate(&scenario, lastLine: lines.last)
    return diagnostics.errorCount > errorsBefore ? nil : scenario
  }

  /// `<pack>/<name>` of a file: its directory's name and its base name.
  public static func identifier(for file: String) -> String {
    let url = URL(fileURLWithPath: file)
    let name = url.deletingPathExtension().lastPathComponent
    let pack = url.deletingLastPathComponent().lastPathComponent
    return "\(pack)/\(name)"
  }
}

enum ParserSection {
  case start, header, steps, controls
}

/// The parser's state while it reads one file; its sections live in ScenarioParser+*.swift.
struct ParserState {
  let file: String
  let diagnostics: DiagnosticsEngine
  var section = ParserSection.start
  var sawScenario = false
  var sawShell = false
  var failsAtTitles: [(controlIndex: Int, title: String, token: Token, line: SourceLine)] = []
  /// Every line's text by number, so diagnostics found after parsing can still show it.
  var sourceText: [Int: String] = [:]

  init(file: String, diagnostics: DiagnosticsEngine) {
    self.file = file
    self.diagnostics = diagnostics
  }

  func location(_ line: SourceLine, _ token: Token?) -> FileLocation {
    FileLocation(file: file, line: line.number, column: token?.column ?? (line.indent + 1))
  }

  func error(_ line: SourceLine, _ token: Token?, _ message: String, hint: String? = nil) {
    diagnostics.emit(
      .error(
        at: location(line, token), message, hint: hint, sourceLine: line.text,
        length: token?.length ?? max(1, line.text.count - line.indent)))
  }

  /// The error at the end of a line, where something is missing.
  func missing(_ line: SourceLine, _ message: String, hint: String? = nil) {
    let last = line.tokens.last
    let column = (last.map { $0.column + $0.length }) ?? (line.indent + 1)
    diagnostics.emit(
      .error(
        at: FileLocation(file: file, line: line.number, column: column), message, hint: hint,
        sourceLine: line.text))
  }

  static let headerKeywords = [
    "shell", "about", "checklist", "supports", "requires", "platforms", "channels", "tags",
    "timeout", "idp", "given", "ota-ordering",
  ]
  static let setupKeywords = ["device", "app", "user"]
  static let controlKeywords = ["mutate", "fails", "because", "platforms", "channels"]

  mutating func parse(_ lines: [SourceLine], into scenario: inout Scenario) {
    for line in lines { sourceText[line.number] = line.text }
    for line in lines {
      guard let head = line.tokens.first else { continue }
      let keyword = head.kind == .word ? head.text : ""
      if !sawScenario {
        guard keyword == "scenario" else {
          error(
            line, head, "a scenario file starts with 'scenario \"TITLE\"'",
            hint: head.kind == .word
              ? Suggestions.closest(to: keyword, among: ["scenario"]).map {
                "did you mean '\($0)'?"
              } : nil)
          sawScenario = true
          continue
        }
        sawScenario = true
        section = .header
        guard let title = stringArgument(line, at: 1, what: "the scenario's title") else {
          continue
        }
        scenario.title = title
        expectEnd(line, after: 2)
        continue
      }
      switch keyword {
      case "scenario":
        error(
          line, head, "a file holds one scenario",
          hint: "put the second scenario in its own .scenario file")
      case "step":
        if section == .controls {
          error(
            line, head, "steps come before the controls",
            hint: "move this step above the first 'control'")
          continue
        }
        section = .steps
        let title = stringArgument(line, at: 1, what: "the step's title") ?? ""
        expectEnd(line, after: 2)
        scenario.steps.append(
          Step(index: scenario.steps.count + 1, title: title, location: location(line, head)))
      case "control":
        if scenario.steps.isEmpty {
          error(line, head, "a control comes after the steps it makes fail")
        }
        section = .controls
        let name = stringArgument(line, at: 1, what: "the control's name") ?? ""
        expectEnd(line, after: 2)
        scenario.controls.append(Control(name: name, location: location(line, head)))
      default:
        switch section {
        case .start, .header:
          parseHeader(line, keyword: keyword, into: &scenario)
        case .steps:
          if ParserState.headerKeywords.contains(keyword)
            || ParserState.setupKeywords.contains(keyword)
          {
            error(
              line, head, "'\(keyword)' belongs before the first step",
              hint: "move it up, next to the scenario's other declarations")
            continue
          }
          if let parsed = parseStepLine(
            line, tokens: line.tokens[...], scenario: scenario, condition: nil)
          {
            scenario.steps[scenario.steps.count - 1].lines.append(parsed)
          }
        case .controls:
          parseControlLine(line, keyword: keyword, scenario: &scenario)
        }
      }
    }
  }
}
