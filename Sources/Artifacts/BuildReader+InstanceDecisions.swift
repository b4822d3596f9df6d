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
    code.normalizerAcceptsHTTP = normalizerHTTP(web)
    for opener in ["form.onsubmit", "addEventListener('submit'", "addEventListener(\"submit\""] {
      guard let handler = web.blocks(after: opener).first else { continue }
      let at = FileLocation(file: handler.file, line: handler.line, column: 1)
      code.addGate = Sourced(OnboardingAddGate.read(handler.body, at: at), at: at)
      break
    }
  }

  /// Which builds `normalizeInstanceUrl` lets an explicit `http://` through in: its refusal
  /// on the URL's protocol (`if (url.protocol !== 'https:' && …) return null;`) evaluated on
  /// `http:`, with a parameter it takes (`allowHttp = import.meta.env.DEV`) true in a dev
  /// build and false in a release one. The real normaliser respects http in every build
  /// (self-hosters on a LAN, a local dev server); nil when the refusal is not read.
  static func normalizerHTTP(_ web: CodeSearch) -> Sourced<HTTPInstanceAcceptance>? {
    guard let function = web.blocks(after: "function normalizeInstanceUrl(").first else {
      return nil
    }
    let header = String(function.body.prefix { $0 != "{" })
    let parameters = ScriptStatements.parameters(header)
    for statement in ScriptStatements.guards(function.body)
    where statement.condition.contains("protocol") && statement.returns == "null" {
      guard case .success(let condition) = ScriptConditionParser.parse(statement.condition)
      else { return nil }
      var accepts: [Bool: Bool] = [:]
      for dev in [true, false] {
        let refused = condition.evaluate { path in
          if path.last == "protocol" { return .string("http:") }
          if path.count == 1, parameters.dropFirst().contains(path[0]) {
            return .bool(dev)
          }
          return nil
        }
        guard let refused else { return nil }
        accepts[dev] = !refused
      }
      return Sourced(
        HTTPInstanceAcceptance(dev: accepts[true] ?? false, release: accepts[false] ?? false),
        at: FileLocation(file: function.file, line: function.line + statement.line, column: 1))
    }
    return nil
  }
}
