import Foundation
import QualifyCore

/// The handoff routes' Origin check run as written on the server's env: the function the
/// routes call before a redemption (`fromOwnPage(request)`) is called with a request from the
/// web app's page, `process.env` holding what the pipeline deploys, through whatever builds
/// its list — a constant (`(process.env.X ?? "https://…").split(",").map((o) => o.trim())`),
/// a function, a helper imported from the workspace (OpenMapX's `envString` in
/// `@openmapx/core/server-env`). A release whose server env leaves the page's origin out of
/// the list (a trailing slash, only the development default) refuses every redemption.
enum OriginAllowlistReader {
  /// What the check answers for a POST from `origin` (nil: a request that sends none, as a
  /// script outside any browser page does), `process.env` being `env`, with the variables it
  /// read, in order; a failure says what qualify could not evaluate.
  /// `page` is the web app's origin the API is served behind (its `Host`); without it, the
  /// caller's.
  static func admits(
    _ check: ScriptFunction, origin: String?, env: [String: String], serving page: String? = nil
  ) -> (answer: Result<Bool, AllowlistUnread>, read: [String]) {
    let url = (page ?? origin).flatMap(ScriptURL.parse)
    func part(_ name: String) -> ScriptFunction.Value {
      if case .object(let fields)? = url, let value = fields[name] { return value }
      return .undefined
    }
    // A browser's cross-origin POST to the API: the Origin, and the API's own host.
    let request = ScriptFunction.Value.object([
      "headers": .object(
        origin.map { ["origin": .string($0), "host": part("host")] } ?? ["host": part("host")]),
      "method": .string("POST"),
      "protocol": .string("https"),
    ])
    let variables = ScriptFunction.Value.object(env.mapValues { .string($0) })
    let run = check.outcome(
      [request], globals: ["process": .object(["env": variables])], recording: variables)
    switch run.outcome {
    case .returned(.bool(let value)): return (.success(value), run.read)
    case .returned(let other):
      return (
        .failure(
          AllowlistUnread(
            name: "\(check.name)()", why: "it answers \(other), not a boolean")), run.read
      )
    case .threw(let message):
      return (
        .failure(
          AllowlistUnread(
            name: "\(check.name)()", why: "it throws" + (message.map { " (\($0))" } ?? ""))),
        run.read
      )
    case .unanswered(let why):
      return (
        .failure(
          AllowlistUnread(
            name: "\(check.name)()",
            why: "it needs " + (why ?? "something qualify does not evaluate"))), run.read
      )
    }
  }

  /// `origin` with its host cut short by one character, its port kept: a substring of the
  /// page's own origin that no exact list holds (`https://openmapx.co`).
  static func cutShort(_ origin: String) -> String {
    guard let scheme = origin.range(of: "://") else { return String(origin.dropLast()) }
    let rest = origin[scheme.upperBound...]
    let host = rest.prefix { $0 != ":" }
    let port = rest.dropFirst(host.count)
    return String(origin[..<scheme.upperBound]) + String(host.dropLast()) + String(port)
  }
}

/// An Origin check qualify could not run, and why.
public struct AllowlistUnread: Error, Sendable, Equatable {
  public var name: String
  public var why: String
}
