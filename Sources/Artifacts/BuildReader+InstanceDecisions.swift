import Foundation
import QualifyCore

extension BuildReader {
  /// The onboarding's decisions in the web code (seed 004): what `parseInstanceResponse`
  /// rejects, and when the submit handler stops before adding.
  static func readOnboardingDecisions(_ web: CodeSearch, into code: inout InstanceShellCode) {
    if let function = web.blocks(after: "function parseInstanceResponse(").first {
      let lines = function.body.split(separator: "\n", omittingEmptySubsequences: false)
      let at = FileLocation(file: function.file, line: function.line, column: 1)
      // The header may wrap: up to the line that opens the body.
      let headerEnd = lines.firstIndex { $0.contains("{") } ?? 0
      let header = lines[...headerEnd].joined(separator: " ")
      let body = lines[(headerEnd + 1)...].joined(separator: "\n")
      code.responseCheck = Sourced(
        InstanceResponseCheck.read(
          header: header, body: body,
          at: FileLocation(file: at.file, line: at.line + headerEnd + 1, column: 1)),
        at: at)
    }
    if let render = web.blocks(after: "function renderOnboarding(").first {
      let text = render.body
      // The header up to the `)` that closes it: a default (`options = {}`) holds a brace.
      let root =
        ScriptStatements.parameters(String(text.prefix { $0 != ")" }) + ")").first ?? "root"
      let name = NSRegularExpression.escapedPattern(for: root)
      // Assigning innerHTML or textContent (an empty string or the page's template) replaces
      // every child; `+=` appends.
      let clears =
        #"\b"# + name
        + #"\s*\.\s*(?:(?:innerHTML|textContent|innerText)\s*=(?!=)|replaceChildren\()"#
        + #"|\bwhile\s*\(\s*"# + name + #"\.(?:firstChild|lastChild)\s*\)"#
      let cleared = text.range(of: clears, options: .regularExpression)
      let appended = text.range(
        of: #"\b"# + name + #"\s*\.\s*(?:append|appendChild)\("#, options: .regularExpression)
      // Neither on that name (a root looked up inside, a templating library): not read.
      if cleared != nil || appended != nil {
        code.managerClearsRoot = Sourced(
          cleared.map { clear in appended.map { clear.lowerBound < $0.lowerBound } ?? true }
            ?? false,
          at: FileLocation(file: render.file, line: render.line, column: 1))
      }
    }
    for opener in ["form.onsubmit", "addEventListener('submit'", "addEventListener(\"submit\""] {
      guard let handler = web.blocks(after: opener).first else { continue }
      let at = FileLocation(file: handler.file, line: handler.line, column: 1)
      code.addGate = Sourced(OnboardingAddGate.read(handler.body, at: at), at: at)
      break
    }
  }
}
