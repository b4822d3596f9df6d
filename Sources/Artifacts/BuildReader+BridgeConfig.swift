import Foundation
import QualifyCore

extension BuildReader {
  /// Runs the config module's exported function that reads the release variable on the
  /// channel's build env, as the app does at start. What it returns is what the build
  /// compiles in, so where it differs from what the env and the module's defaults read as,
  /// it wins (a condition flipped in the module is then what qualify simulates); a throw is
  /// the fatal-configuration screen.
  static func evaluateConfig(
    _ text: String, _ config: CodeSearch, env: EnvLayers, releaseVariable: String,
    into settings: inout BridgeShellSettings
  ) {
    let names = InstanceDecisionReader.matches(
      #"(?m)^export\s+function\s+([A-Za-z_$][\w$]*)\s*\("#, text
    ).map(\.[0])
    guard
      let (name, block) = names.lazy.compactMap({ name in
        config.blocks(after: "function \(name)(").first.map { (name, $0) }
      }).first(where: { $0.1.body.contains("." + releaseVariable) }),
      case .success(let function) = ScriptFunction.read(name, in: text)
    else { return }
    var values: [String: ScriptFunction.Value] = [:]
    for file in env.files {
      for entry in file.entries { values[entry.key] = .string(entry.value) }
    }
    let at = FileLocation(file: block.file, line: block.line, column: 1)
    switch function.outcome([.object(values)]) {
    case .unanswered: return
    case .threw(let message):
      settings.configThrows = Sourced(
        true, at: at,
        derivation: ["\(name)(env) throws" + (message.map { " \"\($0)\"" } ?? "")])
    case .returned(.object(let fields)):
      settings.configThrows = Sourced(
        false, at: at, derivation: ["\(name)(env) returns the build's config"])
      func evaluated(_ key: String, over current: Sourced<String>) -> Sourced<String> {
        guard case .string(let value)? = fields[key], value != current.value else {
          return current
        }
        return Sourced(
          value, at: at,
          derivation: current.derivation + ["\(name)(env) returns \(key) \(value)"])
      }
      settings.webOrigin = evaluated("webOrigin", over: settings.webOrigin)
      settings.apiOrigin = evaluated("apiOrigin", over: settings.apiOrigin)
      settings.appId = evaluated("appId", over: settings.appId)
      settings.scheme = evaluated("scheme", over: settings.scheme)
      if case .bool(let release)? = fields["release"], release != settings.release.value {
        settings.release = Sourced(
          release, at: at,
          derivation: settings.release.derivation + ["\(name)(env) returns release \(release)"])
      }
    case .returned: return
    }
  }
}
