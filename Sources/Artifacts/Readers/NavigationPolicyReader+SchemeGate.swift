import Foundation
import QualifyCore

/// The scheme test a navigation passes before a policy's own decision, read from the policy's
/// function: iOS's `guard url.scheme == "http" || url.scheme == "https" else { <Capacitor's
/// handler> }`, Android's `if (!request.isForMainFrame() || !("http".equals(scheme) || …))
/// return super.shouldOverrideUrlLoading(…)`. What it hands to Capacitor's own handler never
/// reaches the same-origin decision, and Capacitor's handler opens a remote origin outside:
/// an instance over a scheme the test leaves out (http: a LAN or local dev server) is never
/// shown in the WebView (seed 004, ADR 0007).
public struct SchemeGate: Sendable, Equatable {
  /// When a main-frame navigation reaches the policy's own decision.
  public var reachesPolicy: OriginCondition
  /// The test as the code writes it.
  public var written: String

  public init(reachesPolicy: OriginCondition, written: String) {
    self.reachesPolicy = reachesPolicy
    self.written = written
  }

  /// Whether a main-frame navigation to `url` reaches the policy's decision.
  public func admits(_ url: String) -> Bool {
    reachesPolicy.evaluate(url: URLParts(url), active: URLParts(""))
  }
}

extension NavigationPolicyReader {
  /// What hands a navigation to Capacitor's own navigation handler.
  static let capacitorHandler = [
    "super.shouldOverrideUrlLoading", "capacitorHandler", "forwardDecidePolicy",
    "WebViewDelegationHandler",
  ]

  /// The first `if` or `guard` of the function holding `marker` that tests the navigated URL's
  /// scheme (and not the active instance) and hands what it turns away to Capacitor's handler;
  /// nil when the function has none, unverified when its test cannot be evaluated.
  func schemeGate(marker: String, preferring: String = "") -> Sourced<ReadDecision<SchemeGate>>? {
    guard let start = functionStart(marker: marker, preferring: preferring) else { return nil }
    let body = functionBody(from: start)
    let bodyText = body.map(\.1).joined(separator: "\n")
    let aliases = Self.aliases(in: bodyText)
    let named = ScriptStatements.booleanLocals(in: bodyText)
    for found in Self.ifStatements(in: body) {
      var statement = Self.resolving(found, named)
      // A named test inside a larger one (`!request.isForMainFrame() || !isHttpOrHttps`).
      statement.condition = Self.substituting(named, in: statement.condition)
      let lowered = statement.condition.lowercased()
      // Only a test before the decision gates it: from the first test of the active
      // instance on, a scheme test decides something else.
      if lowered.contains("active") { break }
      guard lowered.contains("scheme"),
        Self.capacitorHandler.contains(where: statement.branch.contains)
      else { continue }
      let location = FileLocation(file: file, line: statement.line + 1, column: 1)
      let text = Self.clauses(statement.condition).joined(separator: " && ")
      var parser = ConditionParser(text: text, aliases: aliases, mainFrame: true)
      guard let condition = parser.parse() else {
        return Sourced(
          .unverified(
            "the scheme test `\(text)` has a term qualify cannot evaluate (\(parser.problem ?? "unknown construct"))"
          ), at: location)
      }
      guard condition.operands.allSatisfy({ $0.side != .active }),
        condition.operands.contains(where: { $0.side == .url && $0.component == "scheme" })
      else { continue }
      // A guard lets through what holds; an `if` hands over what holds.
      return Sourced(
        .read(
          SchemeGate(
            reachesPolicy: statement.isGuard ? condition : .not(condition),
            written: statement.isGuard
              ? "guard \(text) else Capacitor's handler" : "if \(text) → Capacitor's handler")),
        at: location)
    }
    return nil
  }

  /// `condition` with each boolean local it names replaced by its parenthesised expression.
  static func substituting(_ named: [String: String], in condition: String) -> String {
    named.keys.sorted().reduce(condition) { text, name in
      // A binding of a condition list (`let scheme = url.scheme, scheme == …`) is no test.
      guard let expression = named[name],
        !expression.contains(","), !expression.contains("{"), !expression.contains(" else"),
        let word = try? NSRegularExpression(
          pattern: "(?<![\\w.])" + NSRegularExpression.escapedPattern(for: name) + "(?![\\w(])")
      else { return text }
      let replacement = NSRegularExpression.escapedTemplate(
        for: "(" + expression.trimmingCharacters(in: CharacterSet(charactersIn: "; ")) + ")")
      return word.stringByReplacingMatches(
        in: text, range: NSRange(text.startIndex..., in: text), withTemplate: replacement)
    }
  }
}
