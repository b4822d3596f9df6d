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
    code.admitsOwnPage = ownPageCheck(routes)
    code.originCheckUnread = unreadOriginCheck(routes)
    if let function = originFunction(routes) {
      code.originCheckFunction = Sourced(function.name, at: function.at)
      code.originCheckPath = routes.repositoryPaths[function.at.file]
    }
    let throttle = routes.captures(#"(\b429\b|rateLimit)"#).first
    code.throttles = Sourced(
      throttle != nil, at: throttle?.location ?? anywhere,
      derivation: throttle == nil ? ["no 429 and no rate limit on the handoff's routes"] : [])
    code.throttle = rateLimit(routes)
    return code
  }

  /// A route's `rateLimit: { max: N, timeWindow: "1 minute" }` (fastify's rate limit), its
  /// window in seconds; nil when either is not a literal.
  static func rateLimit(_ routes: CodeSearch) -> Sourced<HandoffThrottle>? {
    let found = routes.capturesAcrossLines(
      #"(rateLimit\s*:\s*\{\s*max\s*:\s*\d+\s*,\s*timeWindow\s*:\s*(?:\d+|["'][^"']+["']))"#)
    guard let limit = found.first,
      let max = InstanceDecisionReader.matches(#"max\s*:\s*(\d+)"#, limit.value).first?.first
        .flatMap({ Int($0) }),
      let window = InstanceDecisionReader.matches(
        #"timeWindow\s*:\s*["']?([^"'}]+?)["']?\s*$"#, limit.value
      ).first?.first, let seconds = windowSeconds(window)
    else { return nil }
    return Sourced(.redemptions(max: max, seconds: seconds), at: limit.location)
  }

  /// `"1 minute"`, `"30 seconds"`, `"2h"`, or a number of milliseconds, in seconds.
  static func windowSeconds(_ text: String) -> Int? {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    if let milliseconds = Int(trimmed) { return milliseconds / 1000 }
    guard
      let parts = InstanceDecisionReader.matches(#"^(\d+)\s*([a-z]+)$"#, trimmed.lowercased())
        .first, parts.count == 2, let count = Int(parts[0])
    else { return nil }
    switch parts[1] {
    case "ms", "millisecond", "milliseconds": return count / 1000
    case "s", "sec", "second", "seconds": return count
    case "m", "min", "minute", "minutes": return count * 60
    case "h", "hour", "hours": return count * 3600
    default: return nil
    }
  }

  /// A route that answers 429 only for a reason the service names (`result.reason ===
  /// "too-many-attempts" ? 429 : 400`) when no code of the service returns that reason: the
  /// throttle is written and never reached. Nil when the routes say nothing of the kind.
  static func unreachableThrottle(
    routes routeFiles: CodeSearch, service search: CodeSearch, read routes: HandoffRoutesCode?
  ) -> Sourced<Bool>? {
    guard routes?.throttles?.value == true, let files = routes?.files else { return nil }
    guard routeFiles.captures(#"(rateLimit)"#).isEmpty,
      let mapped = routeFiles.captures(#"["']([a-z]+(?:-[a-z]+)*)["']\s*\?\s*429"#).first
    else { return nil }
    var service = search
    service.files = search.files.filter { !files.contains($0.file) }
    let returned = service.capturesAcrossLines(
      #"return\s*\{[^}]*reason\s*:\s*["']("# + NSRegularExpression.escapedPattern(for: mapped.value)
        + #")["']"#)
    guard returned.isEmpty else { return nil }
    return Sourced(
      false, at: mapped.location,
      derivation: [
        "the route answers 429 for \"\(mapped.value)\", a reason no code of the handoff returns: the throttle is never reached"
      ])
  }

  /// The issue's refusal of a user who holds too many codes (`if (count >= MAX_…) return {
  /// …, reason: "too-many-attempts" }`), when the routes answer it with 429; nil otherwise.
  static func outstandingLimit(_ search: CodeSearch, routes: HandoffRoutesCode?)
    -> Sourced<HandoffThrottle>?
  {
    guard routes?.throttles?.value == true else { return nil }
    // `count >= MAX` refuses the MAX-th code; `count > MAX` lets one more through.
    let refusal = search.capturesAcrossLines(
      #"(>=?\s*[A-Z][A-Z0-9_]*)\s*\)\s*\{?\s*return\s*\{?[^;]*?too-many"#)
    guard let comparison = refusal.first else { return nil }
    let inclusive = comparison.value.hasPrefix(">=")
    let name = comparison.value.drop { $0 == ">" || $0 == "=" || $0 == " " }
    guard let written = search.constant(String(name)), let max = CodeSearch.integer(written.value)
    else { return nil }
    return Sourced(
      .outstandingCodes(max: inclusive ? max : max + 1), at: comparison.location,
      derivation: ["\(name) = \(written.value) (\(written.origin))"]
        + (inclusive ? [] : ["compared with >, so \(max + 1) codes are held before a refusal"]))
  }

  /// A function of the routes that reads the request's Origin and compares it with a list
  /// (`.includes(origin)`) or a constant, refusing a missing one and one its list does not
  /// hold, called in an early refusal (`if (!fromOwnPage(request)) return … 403`).
  static func originCheck(_ routes: CodeSearch, anywhere: FileLocation) -> Sourced<Bool> {
    guard let function = originFunction(routes) else {
      return Sourced(
        false, at: anywhere,
        derivation: ["no route refuses a caller whose Origin is not the web app's own"])
    }
    // A case the check's tests do not let qualify evaluate is not held against it: the
    // routes' note says it was not verified (`unreadOriginCheck`).
    let refusesMissing = refusesMissingOrigin(function.body) ?? true
    // A lookup whose negation was lost lets every site its list does not hold through.
    let refusesOther = refusesUnlistedOrigin(function.body) ?? true
    return Sourced(
      refusesMissing && refusesOther, at: function.at,
      derivation: (refusesMissing
        ? [] : ["\(function.name) lets a request without an Origin through"])
        + (refusesOther
          ? [] : ["\(function.name) lets a request from an Origin its list does not hold through"]))
  }

  /// Whether the routes' Origin check lets the web app's own page through (nil: no check, or
  /// one not evaluated).
  static func ownPageCheck(_ routes: CodeSearch) -> Sourced<Bool>? {
    guard let function = originFunction(routes), let admits = admitsOwnPage(function.body)
    else { return nil }
    return Sourced(
      admits, at: function.at,
      derivation: admits
        ? []
        : [
          "\(function.name) answers false for an Origin its list holds: the web app's own page is refused"
        ])
  }

  /// Which of the routes' Origin check's three cases (a missing Origin, the page's own,
  /// another site's) it was not evaluated for, and why, at the check; nil when each was, or
  /// when there is no check.
  static func unreadOriginCheck(_ routes: CodeSearch) -> Sourced<String>? {
    guard let function = originFunction(routes) else { return nil }
    let unread = [
      ("a request without an Origin", refusesMissingOrigin(function.body)),
      ("the web app's own page", admitsOwnPage(function.body)),
      ("another site's Origin", refusesUnlistedOrigin(function.body)),
    ].filter { $0.1 == nil }.map(\.0)
    guard !unread.isEmpty else { return nil }
    let why =
      lookups(function.body).count > 1
      ? "it looks the Origin up in more than one list, and which holds it is not known"
      : "one of its tests is not one qualify evaluates"
    let cases =
      unread.count == 1
      ? unread[0] : unread.dropLast().joined(separator: ", ") + " and " + unread[unread.count - 1]
    return Sourced(
      "\(function.name) was not evaluated for \(cases) (\(why))", at: function.at)
  }

  /// The function of the routes that reads the request's Origin and is called in an early
  /// refusal (`if (!fromOwnPage(request))`).
  private static func originFunction(_ routes: CodeSearch) -> (
    name: String, body: String, at: FileLocation
  )? {
    for (file, lines) in routes.files {
      let text = lines.map(\.1).joined(separator: "\n")
      for function in ScriptStatements.functions(in: text)
      where function.body.range(
        of: #"headers(?:\.origin|\[\s*["']origin["']\s*\]|\.get\(\s*["']origin["']\s*\))"#,
        options: .regularExpression)
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
        return (function.name, function.body, at)
      }
    }
    return nil
  }
}

extension HandoffRoutesReader {
  /// Whether the Origin check answers false for a request without an Origin, evaluated as
  /// written: its early returns in order, then its last `return`, with the origin undefined
  /// (a list `.includes(undefined)` is false); nil when a test is not read.
  static func refusesMissingOrigin(_ body: String) -> Bool? {
    answer(body, origin: .undefined, listed: false).map { !$0 }
  }

  /// Whether the Origin check lets the web app's own page through, evaluated as written with
  /// the Origin a string the allowlist holds (`WEB_ORIGINS.includes(origin)` true: the list
  /// comes from the environment, which qualify does not evaluate, and a release lists its own
  /// page). A check that refuses it (`typeof origin === "strin"`) refuses the page's every
  /// redemption. Nil when a test other than a list lookup of the Origin is not read.
  static func admitsOwnPage(_ body: String) -> Bool? {
    answer(body, origin: .string("https://web.example"), listed: true)
  }

  /// Whether the Origin check refuses an Origin its list does not hold (another site's).
  static func refusesUnlistedOrigin(_ body: String) -> Bool? {
    answer(body, origin: .string("https://other.example"), listed: false).map { !$0 }
  }

  /// What the check returns for a request whose Origin is `origin`: its early returns in
  /// order, then its last `return`. A call testing the Origin against a list (`.includes(`,
  /// `.has(`) answers `listed`; any other call is unread, and so is a check that looks the
  /// Origin up in two lists (an allowlist beside a denylist: which one holds it is unknown).
  /// The name the check holds the request's Origin in (`origin` unless a local is bound to
  /// `headers.origin`).
  static func originLocal(_ body: String) -> String {
    InstanceDecisionReader.matches(
      #"(?:const|let)\s+(\w+)\s*=\s*[\w.]*headers(?:\.origin|\[\s*["']origin["']\s*\])"#, body
    ).first?.first ?? "origin"
  }

  /// The check's list lookups of the Origin (`.includes(origin)`, `.has(origin)`).
  private static func lookups(_ body: String) -> [[String]] {
    InstanceDecisionReader.matches(
      #"\.(?:includes|has)\(\s*"# + NSRegularExpression.escapedPattern(for: originLocal(body))
        + #"\s*\)"#, body)
  }

  private static func answer(_ body: String, origin: ScriptValue, listed: Bool) -> Bool? {
    let local = originLocal(body)
    if lookups(body).count > 1, origin != .undefined { return nil }
    func value(_ text: String) -> Bool? {
      let (abstracted, calls) = RefusalCondition.abstractingCalls(text)
      guard case .success(let condition) = ScriptConditionParser.parse(abstracted) else {
        return nil
      }
      return condition.evaluate { path in
        if path == [local] || path.suffix(2) == ["headers", "origin"] { return origin }
        // A call, or a call on what a call returned (`allowedOrigins().includes(origin)`).
        guard path.allSatisfy({ calls[$0] != nil }), let call = path.last.flatMap({ calls[$0] })
        else { return nil }
        let lookup =
          call.range(
            of: #"^(?:[\w$.?]*\.)?(?:includes|has)\(\s*"#
              + NSRegularExpression.escapedPattern(for: local) + #"\s*\)$"#,
            options: .regularExpression) != nil
        // Missing, the Origin is in no list whatever the call; present, only a list lookup
        // is known to answer.
        if case .undefined = origin { return .bool(false) }
        return lookup ? .bool(listed) : nil
      }
    }
    for statement in ScriptStatements.guards(body) {
      guard let holds = value(statement.condition) else { return nil }
      if holds {
        switch statement.returns {
        case "true": return true
        case "false": return false
        default: return nil
        }
      }
    }
    guard
      let last = InstanceDecisionReader.matches(#"return\s+([^;{}]+);"#, body).last?.first
    else { return nil }
    return value(last)
  }
}

/// The handoff's routes, as the server registers them (nil facts: not read).
public struct HandoffRoutesCode: Sendable {
  public var files: [String] = []
  /// Every answer carries `Cache-Control: no-store`.
  public var noStore: Sourced<Bool>?
  /// A caller whose Origin is not the web app's (or that sends none) is refused.
  public var checksOrigin: Sourced<Bool>?
  /// The Origin check lets the web app's own page through (false: every redemption is
  /// refused; nil: no check, or one qualify does not evaluate).
  public var admitsOwnPage: Sourced<Bool>?
  /// The cases of the Origin check qualify could not evaluate (a missing Origin, the page's
  /// own, another site's), at the check, with why; nil when each was evaluated.
  public var originCheckUnread: Sourced<String>?
  /// The function the routes call to check the caller's Origin, at its declaration.
  public var originCheckFunction: Sourced<String>?
  /// The check's file by its path in the repository (what the evaluator loads).
  public var originCheckPath: String?
  /// The env variables the check read when it was run, in order (NODE_ENV left out).
  public var allowlistVariables: [String] = []
  /// The check qualify could not run on the server's env, with why.
  public var allowlistUnread: Sourced<String>?
  /// Whether the check, run as written on the server's env (`--backend-env`), lets the web
  /// app's page through; nil when it was not run.
  public var allowlistHoldsPage: Sourced<Bool>?
  /// The server's env was not given: the check ran on the code's fallbacks alone.
  public var allowlistFromFallbacks = false
  /// An Origin that is not the page's which the check, run the same way, lets through (a list
  /// never split is a string, and `includes` then tests a substring); nil when it refuses them.
  public var allowlistAdmitsOther: Sourced<String>?

  /// The check, run the same way on a request that sends no Origin, lets it through (nil:
  /// refused, or not run).
  public var allowlistAdmitsMissing: Sourced<Bool>?

  /// The check, as deployed, refuses the web app's own page: every redemption from it is
  /// refused. A refusal that comes from the code's fallbacks for variables the pipeline did
  /// not give is not known to be deployed so, and is not counted.
  public var allowlistRefusesPage: Sourced<Bool>? {
    guard let holds = allowlistHoldsPage, !holds.value else { return nil }
    guard !allowlistFromFallbacks || allowlistVariables.isEmpty else { return nil }
    return holds
  }
  /// The route of the exchange (the code and its verifier for a token), as registered.
  public var exchange: Sourced<HandoffRoute>?
  /// The route of the issue (the purpose, the challenge and the state for a callback code).
  public var issue: Sourced<HandoffRoute>?
  /// Failing callers are throttled (429, a rate limit).
  public var throttles: Sourced<Bool>?
  /// The throttle's bound as written (nil: none read in a form qualify evaluates).
  public var throttle: Sourced<HandoffThrottle>?

  public init() {}
}

/// How the handoff slows a caller down, as its code writes it.
public enum HandoffThrottle: Sendable, Equatable, CustomStringConvertible {
  /// At most `max` redemptions per `seconds` (a route's `rateLimit: { max, timeWindow }`).
  case redemptions(max: Int, seconds: Int)
  /// At most `max` codes issued to one user and not yet redeemed: the next issue is refused
  /// with 429 (OpenMapX's `MAX_OUTSTANDING_PER_USER`, `too-many-attempts` → 429).
  case outstandingCodes(max: Int)

  public var description: String {
    switch self {
    case .redemptions(let max, let seconds): return "\(max) redemptions per \(seconds) s"
    case .outstandingCodes(let max): return "\(max) codes outstanding per user"
    }
  }
}
