import Foundation
import QualifyCore

/// The handoff's Origin allowlist as deployed (seed 001: "the page on the fixed origin is the
/// only caller"): the routes' check run on the server's env the pipeline gives.
extension BuildReader {
  /// The handoff routes' Origin check run as written on the server's env (`process.env` empty
  /// when none was given, so the code's fallbacks decide): whether it lets the web app's page
  /// through, from the origin the page posts from.
  func evaluateAllowlist(_ settings: inout BridgeShellSettings, serverEnv: EnvLayers?) {
    guard let routes = settings.handoffServer.routes, let check = routes.originCheckFunction,
      let at = check.location
    else { return }
    // The check's file by its path in the repository (the search holds what is displayed).
    let roots = profile.parts["handoffServer"].map { [$0.value] } ?? BridgeReader.servers
    guard
      let path = roots.flatMap({ repository.files(under: $0, suffix: ".ts") }).first(where: {
        (try? repository.text($0))??.display == at.file
      })
    else { return }
    let page = Self.normalizedOrigin(settings.webOrigin).value
    var env: [String: String] = [:]
    for file in serverEnv?.files ?? [] {
      for entry in file.entries { env[entry.key] = entry.value }
    }
    let read = ScriptFunction.read(name: check.value, at: path) { [repository] in
      try? repository.text($0)?.text
    }.mapError { AllowlistUnread(name: "\(check.value)()", why: $0.reason) }
    let function = try? read.get()
    switch read.flatMap({ OriginAllowlistReader.admits($0, origin: page, env: env) }) {
    case .failure(let unread):
      settings.handoffServer.routes?.allowlistUnread = Sourced(
        unread.name, at: at, derivation: [unread.why])
    case .success(let admits):
      let read = routes.allowlistVariables
      // Where the deployed env set what the list reads: the first of its variables given a
      // value, else the check.
      let given = read.first { !(env[$0] ?? "").isEmpty }
      let how =
        serverEnv == nil
        ? read.isEmpty
          ? "its list is written in the code"
          : "\(read.joined(separator: ", ")) not given: the code's fallbacks decide"
        : read.map { "\($0) = \(env[$0].map { $0.isEmpty ? "\"\"" : $0 } ?? "(unset)")" }
          .joined(separator: ", ")
      settings.handoffServer.routes?.allowlistHoldsPage = Sourced(
        admits, at: given.flatMap { serverEnv?.location(of: $0) } ?? at,
        derivation: [
          "\(check.value)() run on a request from \(page) answers \(admits) (\(how))"
        ])
      settings.handoffServer.routes?.allowlistFromFallbacks = serverEnv == nil
      // Another site, and the page's origin cut short: neither may get through.
      for other in ["https://other.example", String(page.dropLast())]
      where function.flatMap({
        try? OriginAllowlistReader.admits($0, origin: other, env: env).get()
      }) == true {
        settings.handoffServer.routes?.allowlistAdmitsOther = Sourced(
          other, at: at,
          derivation: ["\(check.value)() run on a request from \(other) answers true (\(how))"])
        break
      }
    }
  }
}
