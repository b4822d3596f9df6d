import Foundation
import QualifyCore

extension BuildReader {
  /// Runs the config module's exported function that reads the release variable on the
  /// channel's build env, as the app does at start. What it returns is what the build
  /// compiles in, so where it differs from what the env and the module's defaults read as,
  /// it wins (a condition flipped in the module is then what qualify simulates); a throw is
  /// the fatal-configuration screen.
  static func evaluateConfig(
    _ text: String, at path: String, in repository: AppRepository, _ config: CodeSearch,
    env: EnvLayers, releaseVariable: String, into settings: inout BridgeShellSettings
  ) {
    let names = InstanceDecisionReader.matches(
      #"(?m)^export\s+function\s+([A-Za-z_$][\w$]*)\s*\("#, text
    ).map(\.[0])
    let module = FileLocation(
      file: config.files.first?.file ?? "the config module", line: 1, column: 1)
    guard
      let (name, block) = names.lazy.compactMap({ name in
        config.blocks(after: "function \(name)(").first.map { (name, $0) }
      }).first(where: { $0.1.body.contains("." + releaseVariable) })
    else {
      settings.configUnread = Sourced(
        "no exported function reads env.\(releaseVariable) (looked for export function NAME(env) in \(module.file))",
        at: module)
      return
    }
    let at = FileLocation(file: block.file, line: block.line, column: 1)
    let function: ScriptFunction
    // Its helpers may live beside it (`import { isNonPublicHost } from "./hosts"`).
    let read = ScriptFunction.read(name: name, at: path) { try? repository.text($0)?.text }
    switch read {
    case .success(let read): function = read
    case .failure(let error):
      settings.configUnread = Sourced("\(name)() is not read: \(error.reason)", at: at)
      return
    }
    var values: [String: ScriptFunction.Value] = [:]
    for file in env.files {
      for entry in file.entries { values[entry.key] = .string(entry.value) }
    }
    switch function.outcome([.object(values)]) {
    case .unanswered(let why):
      settings.configUnread = Sourced(
        "\(name)(env) needs " + (why ?? "what qualify does not evaluate"), at: at)
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
    case .returned:
      settings.configUnread = Sourced("\(name)(env) returns no object", at: at)
    }
  }

  /// `OFFICIAL_APP_ID` / `OFFICIAL_ORIGIN` and the module's refusal to build one without the
  /// other.
  static func readOfficialIdentity(
    _ config: CodeSearch, file: String, into settings: inout BridgeShellSettings
  ) {
    let constants = config.captures(#"const (OFFICIAL_[A-Z_]+)\s*=\s*["']([^"']+)["']"#, groups: 2)
    for found in constants {
      let value = Sourced(found.value[1], at: found.location)
      if found.value[0].contains("ID") { settings.officialAppId = value }
      if found.value[0].contains("ORIGIN") { settings.officialOrigin = value }
    }
    if let id = settings.officialAppId {
      settings.officialBinding = officialBinding(config, idName: id, file: file)
    }
  }

  /// Seed 001: the official identity is bound to the official origin at build time — the
  /// module throws when the official id is built against another origin. An `if` naming the
  /// official id's constant and comparing with the official origin's (`!==`), whose block
  /// throws.
  static func officialBinding(_ config: CodeSearch, idName id: Sourced<String>, file: String)
    -> Sourced<Bool>
  {
    let refusals = config.capturesAcrossLines(
      #"if\s*\(((?:[^{;]|\n)*?OFFICIAL_[A-Z_]*ID(?:[^{;]|\n)*?)\)\s*\{?\s*throw\b"#)
    // The id compared equal to the official one, and an origin compared unequal to the
    // official origin: the refusal of exactly that build, not any test naming them.
    let idEqual = #"===\s*OFFICIAL_\w*ID\b|\bOFFICIAL_\w*ID\s*==="#
    let originUnequal = #"!==\s*OFFICIAL_\w*ORIGIN\b|\bOFFICIAL_\w*ORIGIN\s*!=="#
    if let refusal = refusals.first(where: {
      $0.value.range(of: idEqual, options: .regularExpression) != nil
        && $0.value.range(of: originUnequal, options: .regularExpression) != nil
    }) {
      let condition = refusal.value.split(whereSeparator: \.isNewline).map {
        $0.trimmingCharacters(in: .whitespaces)
      }.joined(separator: " ")
      return Sourced(true, at: refusal.location, derivation: ["throws when \(condition)"])
    }
    return Sourced(
      false, at: FileLocation(file: file, line: id.location?.line ?? 0, column: 1),
      derivation: ["no `if (… === OFFICIAL_…ID … !== OFFICIAL_…ORIGIN …) throw` in \(file)"])
  }

  /// Each `env.NAME ?? default` of the config module: the variable and the value it falls
  /// back to, a string literal or a constant of the module (`?? OFFICIAL_ORIGIN` with
  /// `export const OFFICIAL_ORIGIN = "https://…"`), with where the value is written.
  static func configDefaults(_ config: CodeSearch) -> [String: Sourced<String>] {
    var constants: [String: Sourced<String>] = [:]
    let declaration =
      #"\bconst\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?::\s*string\s*)?=\s*["'`]([^"'`$]*)["'`]"#
    for found in config.captures(declaration, groups: 2) where constants[found.value[0]] == nil {
      constants[found.value[0]] = Sourced(found.value[1], at: found.location)
    }
    var defaults: [String: Sourced<String>] = [:]
    let fallback =
      #"env\.([A-Z0-9_]+)\s*\?\?\s*(?:["'`]([^"'`$]*)["'`]|([A-Za-z_][A-Za-z0-9_]*)\b(?!\s*[.(\[]))"#
    for found in config.captures(fallback, groups: 3) {
      let (variable, literal, name) = (found.value[0], found.value[1], found.value[2])
      if name.isEmpty {
        defaults[variable] = Sourced(literal, at: found.location)
      } else if let constant = constants[name] {
        defaults[variable] = Sourced(
          constant.value, at: found.location,
          derivation: ["\(name) = \(constant.value) (\(constant.origin))"])
      }
    }
    return defaults
  }
}
