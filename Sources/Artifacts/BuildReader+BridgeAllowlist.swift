import Foundation
import QualifyCore

/// The handoff's Origin allowlist as deployed (seed 001: "the page on the fixed origin is the
/// only caller"): the routes' check run on the server's env the pipeline gives.
extension BuildReader {
  /// The handoff routes' Origin check run as written on the server's env (`process.env`
  /// empty when none was given, so the code's fallbacks decide): whether it lets the web app's
  /// page through, and whether it refuses another site and the page's origin cut short.
  /// `NODE_ENV` is the channel's (`production` on a release) unless the env sets it.
  func evaluateAllowlist(_ settings: inout BridgeShellSettings, serverEnv: EnvLayers?) {
    guard let check = settings.handoffServer.routes?.originCheckFunction,
      let at = check.location
    else { return }
    func unread(_ why: String) {
      settings.handoffServer.routes?.allowlistUnread = Sourced(
        "\(check.value)()", at: at, derivation: [why])
    }
    guard let path = settings.handoffServer.routes?.originCheckPath else {
      return unread("its file is not one of the repository's")
    }
    let function: ScriptFunction
    switch ScriptFunction.read(
      name: check.value, at: path,
      load: { [repository] in
        try? repository.text($0)?.text
      })
    {
    case .success(let read): function = read
    case .failure(let error): return unread(error.reason)
    }
    let page = Self.normalizedOrigin(settings.webOrigin).value
    var env: [String: String] = [:]
    for file in serverEnv?.files ?? [] {
      for entry in file.entries { env[entry.key] = entry.value }
    }
    if env["NODE_ENV"] == nil { env["NODE_ENV"] = channel.isRelease ? "production" : "development" }
    let (answer, read) = OriginAllowlistReader.admits(
      function, origin: page, env: env, serving: page)
    let admits: Bool
    switch answer {
    case .success(let value): admits = value
    case .failure(let failure): return unread(failure.why)
    }
    // What the answer depended on in the env (NODE_ENV is the channel's, not the file's).
    let variables = read.filter { $0 != "NODE_ENV" }
    let given = variables.first { !(env[$0] ?? "").isEmpty }
    let how =
      variables.isEmpty
      ? "it reads no variable of the env"
      : serverEnv == nil
        ? "\(variables.joined(separator: ", ")) not given: the code's fallbacks decide"
        : variables.map { name in
          let value = env[name].map { $0.isEmpty ? "\"\"" : $0 } ?? "(unset)"
          return "\(name) = \(SecretShape.isSecretName(name) ? "(secret)" : value)"
        }.joined(separator: ", ")
    settings.handoffServer.routes?.allowlistVariables = variables
    settings.handoffServer.routes?.allowlistFromFallbacks = serverEnv == nil
    settings.handoffServer.routes?.allowlistHoldsPage = Sourced(
      admits, at: given.flatMap { serverEnv?.location(of: $0) } ?? at,
      derivation: ["\(check.value)() run on a request from \(page) answers \(admits) (\(how))"])
    // A request without an Origin (a script, not a browser's page): refused whatever the list
    // holds — the answer the keyword reading assumes, here run as written. Unlike another
    // site's, it is held against the code on its fallbacks too: a check that stands the page's
    // origin (or the API's host) in for a missing header lets it through on any list.
    let bare = OriginAllowlistReader.admits(function, origin: nil, env: env, serving: page)
    if case .success(true) = bare.answer {
      settings.handoffServer.routes?.allowlistAdmitsMissing = Sourced(
        true, at: at,
        derivation: ["\(check.value)() run on a request without an Origin answers true (\(how))"])
    }
    // Another site, and the page's origin cut short: neither may get through, as deployed.
    for other in ["https://other.example", OriginAllowlistReader.cutShort(page)] {
      let (probe, probed) = OriginAllowlistReader.admits(
        function, origin: other, env: env, serving: page)
      switch probe {
      case .failure(let failure):
        return unread("from \(other): \(failure.why)")
      case .success(true)
      where serverEnv != nil || probed.allSatisfy({ $0 == "NODE_ENV" }):
        settings.handoffServer.routes?.allowlistAdmitsOther = Sourced(
          other, at: at,
          derivation: ["\(check.value)() run on a request from \(other) answers true (\(how))"])
        return
      case .success: continue
      }
    }
  }
}
