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
  /// The env variables `text` reads (`process.env.X`, `process.env["X"]`, `envString("X", …)`),
  /// in order, each once: what the message names, not what decides.
  static func variables(in text: String) -> [String] {
    var out: [String] = []
    for found in InstanceDecisionReader.matches(
      #"process\.env(?:\.([A-Z][A-Z0-9_]*)\b|\[\s*["']([A-Z][A-Z0-9_]*)["']\s*\])|\b\w*[eE]nv\w*\(\s*["']([A-Z][A-Z0-9_]*)["']"#,
      text)
    {
      for name in found where !name.isEmpty && !out.contains(name) { out.append(name) }
    }
    return out
  }

  /// What the check answers for a request from `origin`, `process.env` being `env`; a failure
  /// says what qualify could not evaluate.
  static func admits(_ check: ScriptFunction, origin: String, env: [String: String])
    -> Result<Bool, AllowlistUnread>
  {
    let request = ScriptFunction.Value.object([
      "headers": .object(["origin": .string(origin)])
    ])
    let process = ScriptFunction.Value.object([
      "env": .object(env.mapValues { .string($0) })
    ])
    switch check.outcome([request], globals: ["process": process]) {
    case .returned(let value): return .success(value.truthy)
    case .threw(let message):
      return .failure(
        AllowlistUnread(
          name: "\(check.name)()", why: "it throws" + (message.map { " (\($0))" } ?? "")))
    case .unanswered(let why):
      return .failure(
        AllowlistUnread(
          name: "\(check.name)()",
          why: "it needs " + (why ?? "something qualify does not evaluate")))
    }
  }
}

/// An Origin check qualify could not run, and why.
public struct AllowlistUnread: Error, Sendable, Equatable {
  public var name: String
  public var why: String
}
