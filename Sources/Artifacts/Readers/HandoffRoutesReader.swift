import Foundation
import QualifyCore

/// The handoff's HTTP routes as the server's code registers them (OpenMapX's
/// `routes/mobile-auth.ts`): whether every answer is `no-store`, whether a route refuses a
/// caller whose `Origin` is not the web app's own — a missing Origin included —, and whether
/// failing callers are throttled (a 429 or a rate limit).
enum HandoffRoutesReader {
  /// The files of `search` that register a route and name the handoff.
  static func routeFiles(_ search: CodeSearch) -> CodeSearch {
    var out = search
    out.files = search.files.filter { file in
      let path = file.file.lowercased()
      let text = file.lines.map(\.1).joined(separator: "\n")
      return
        (path.contains("mobile-auth") || path.contains("mobileauth")
        || path.contains("handoff"))
        && text.range(
          of:
            #"\.(?:post|get|put|route)\s*(?:<[^>]*>)?\s*\(|export\s+(?:async\s+)?function\s+POST"#,
          options: .regularExpression) != nil
    }
    return out
  }

  static func read(_ routes: CodeSearch) -> HandoffRoutesCode? {
    guard let first = routes.files.first?.file else { return nil }
    let anywhere = FileLocation(file: first, line: 0, column: 1)
    var code = HandoffRoutesCode()
    code.files = routes.files.map(\.file)
    let noStore = routes.captures(#"(Cache-Control["']?\s*[,:]\s*["']no-store)"#).first
    code.noStore = Sourced(
      noStore != nil, at: noStore?.location ?? anywhere,
      derivation: noStore == nil ? ["no Cache-Control: no-store on the handoff's answers"] : [])
    code.checksOrigin = originCheck(routes, anywhere: anywhere)
    let throttle = routes.captures(#"(\b429\b|rateLimit)"#).first
    code.throttles = Sourced(
      throttle != nil, at: throttle?.location ?? anywhere,
      derivation: throttle == nil ? ["no 429 and no rate limit on the handoff's routes"] : [])
    return code
  }

  /// A function of the routes that reads the request's Origin and compares it with a list
  /// (`.includes(origin)`) or a constant, refusing a missing one, called in an early refusal
  /// (`if (!fromOwnPage(request)) return … 403`).
  static func originCheck(_ routes: CodeSearch, anywhere: FileLocation) -> Sourced<Bool> {
    for (file, lines) in routes.files {
      let text = lines.map(\.1).joined(separator: "\n")
      for function in ScriptStatements.functions(in: text)
      where function.body.range(
        of: #"headers\.origin|headers\.get\(\s*["']origin["']\s*\)"#, options: .regularExpression)
        != nil
      {
        guard
          text.range(
            of: #"if\s*\(\s*!\s*"# + function.name + #"\s*\("#, options: .regularExpression)
            != nil
        else { continue }
        let at = FileLocation(
          file: file, line: lines.count > function.line ? lines[function.line].0 + 1 : 0,
          column: 1)
        let refusesMissing = refusesMissingOrigin(function.body) ?? false
        return Sourced(
          refusesMissing, at: at,
          derivation: refusesMissing
            ? [] : ["\(function.name) lets a request without an Origin through"])
      }
    }
    return Sourced(
      false, at: anywhere,
      derivation: ["no route refuses a caller whose Origin is not the web app's own"])
  }
}

extension HandoffRoutesReader {
  /// Whether the Origin check answers false for a request without an Origin, evaluated as
  /// written: its early returns in order, then its last `return`, with the origin undefined
  /// (a list `.includes(undefined)` is false); nil when a test is not read.
  static func refusesMissingOrigin(_ body: String) -> Bool? {
    let local =
      InstanceDecisionReader.matches(
        #"(?:const|let)\s+(\w+)\s*=\s*[\w.]*headers\.origin"#, body
      ).first?.first ?? "origin"
    func value(_ text: String) -> Bool? {
      let (abstracted, calls) = RefusalCondition.abstractingCalls(text)
      guard case .success(let condition) = ScriptConditionParser.parse(abstracted) else {
        return nil
      }
      return condition.evaluate { path in
        if path == [local] || path.suffix(2) == ["headers", "origin"] { return .undefined }
        if path.count == 1, calls[path[0]] != nil { return .bool(false) }
        return nil
      }
    }
    for statement in ScriptStatements.guards(body) {
      guard let holds = value(statement.condition) else { return nil }
      if holds { return statement.returns == "false" }
    }
    guard
      let last = InstanceDecisionReader.matches(#"return\s+([^;{}]+);"#, body).last?.first
    else { return nil }
    return value(last).map { !$0 }
  }
}

/// The handoff's routes, as the server registers them (nil facts: not read).
public struct HandoffRoutesCode: Sendable {
  public var files: [String] = []
  /// Every answer carries `Cache-Control: no-store`.
  public var noStore: Sourced<Bool>?
  /// A caller whose Origin is not the web app's (or that sends none) is refused.
  public var checksOrigin: Sourced<Bool>?
  /// Failing callers are throttled (429, a rate limit).
  public var throttles: Sourced<Bool>?

  public init() {}
}
