import Foundation
import QualifyCore

extension BuildReader {
  /// The Capacitor config a build of this channel ships, as `capacitor.config.json`:
  ///
  /// - the synced file where the repository or the pipeline has one; `cap sync` with this
  ///   channel's env is applied over it (`MOBILE_DEV_SERVER_URL` becomes `server.url` and,
  ///   with `MOBILE_ALLOW_CLEARTEXT_FOR_DEV`, `server.cleartext`: seed 000, *Hot reload*) on
  ///   every channel whose env is known, so that a release env inheriting the dev defaults is
  ///   caught;
  /// - otherwise the project's `capacitor.config.ts` (or `.js`, `.json`) evaluated as the sync
  ///   runs it with the channel's env: the synced file is gitignored in the real Messages
  ///   repository, and what the build ships is what its script computes, not what qualify
  ///   supposes the script does.
  mutating func readCapacitor(
    _ platform: Platform, frontend: FrontendSettings, environment: EnvLayers, syncsEnv: Bool,
    appIdFromEnv: Sourced<String>? = nil
  ) -> CapacitorConfig {
    let key = "\(platform.rawValue).capacitorConfig"
    let path = profile.paths[key] ?? ""
    let found: (text: String, display: String)?
    do {
      found = try repository.text(path)
    } catch {
      collect(error)
      return CapacitorConfig(file: path)
    }
    guard let (text, file) = found else {
      if let config = evaluatedCapacitorConfig(environment: syncsEnv ? environment : EnvLayers([]))
      {
        return config
      }
      diagnostics.append(
        .error(
          at: nil, "\(platform.displayName) capacitor.config.json not found at \(path)",
          hint:
            "it is written by `cap sync` (and usually gitignored): run `make mobile-build` with the channel's env, name the file as \"\(key)\" under \"paths\" in qualify.json, or keep the project's capacitor.config.ts at the Capacitor root for qualify to evaluate"
        ))
      return CapacitorConfig(file: path)
    }
    var config: CapacitorConfig
    do {
      config = capacitorConfig(try JSONDocument(text: text, file: file).value, file: file)
    } catch {
      collect(error)
      config = CapacitorConfig(file: file)
    }
    guard syncsEnv else { return config }
    // Every dev make target re-syncs: a dev build carries the dev env's identity.
    if channel == .dev, let id = appIdFromEnv {
      config.appId = id
    }
    if let url = frontend.devServerURL {
      config.serverURL = Sourced(
        url.value, at: url.location,
        derivation: [
          "cap sync bakes MOBILE_DEV_SERVER_URL into server.url: the \(channel.rawValue) env sets it at \(url.origin)"
        ])
    }
    let cleartext = frontend.devServerURL != nil || frontend.allowCleartextForDev?.value == true
    if cleartext {
      let source = frontend.allowCleartextForDev?.location ?? frontend.devServerURL?.location
      let key =
        frontend.allowCleartextForDev != nil
        ? "MOBILE_ALLOW_CLEARTEXT_FOR_DEV" : "MOBILE_DEV_SERVER_URL"
      config.cleartext = Sourced(
        true, at: source,
        derivation: [
          "cap sync sets server.cleartext when \(key) is set: the \(channel.rawValue) env sets it at \(source.map { "\($0.file):\($0.line)" } ?? "?")"
        ])
    }
    return config
  }

  /// The project's own config evaluated with `environment` as `process.env`; nil when the
  /// Capacitor root has none. A config that cannot be evaluated, or that throws with this env
  /// (a guard refusing the build), is a diagnostic at its line.
  private mutating func evaluatedCapacitorConfig(environment: EnvLayers) -> CapacitorConfig? {
    for name in ["capacitor.config.ts", "capacitor.config.js", "capacitor.config.json"] {
      let path = XcodeProject.join(profile.capacitorRoot, name)
      let found: (text: String, display: String)?
      do {
        found = try repository.text(path)
      } catch {
        collect(error)
        return CapacitorConfig(file: path)
      }
      guard let (text, file) = found else { continue }
      do {
        if name.hasSuffix(".json") {
          return capacitorConfig(try JSONDocument(text: text, file: file).value, file: file)
        }
        let result = try ConfigScript.evaluate(text: text, file: file) { environment[$0] }
        if let failure = result.failure {
          diagnostics.append(
            .error(
              at: location(file, failure.line),
              "cap sync fails with the \(channel.rawValue) env: \(failure.message)",
              hint: "\(file) refuses to build with this env: the release build cannot be made"))
        }
        let derivations = result.reads.mapValues { keys in
          [
            "cap sync evaluates \(file) with the \(channel.rawValue) env: "
              + keys.map { Self.describe($0, in: environment) }.joined(separator: ", ")
          ]
        }
        var config = capacitorConfig(result.config, file: file, derivations: derivations)
        config.packageClassList = installedPlugins()
        return config
      } catch {
        collect(error)
        return CapacitorConfig(file: file)
      }
    }
    return nil
  }

  /// The plugins `cap sync` would list in `packageClassList`, from the Capacitor project's
  /// `package.json` as the sync finds them: each dependency that is a Capacitor plugin
  /// (`@capacitor/…` but the runtime and tooling, or a package named `capacitor-…`), named as
  /// it registers itself (`@capacitor/push-notifications` → `PushNotifications`,
  /// `@capgo/capacitor-updater` → `CapacitorUpdater`). Nil without a `package.json`.
  private func installedPlugins() -> [String]? {
    let path = XcodeProject.join(profile.capacitorRoot, "package.json")
    guard let (text, file) = try? repository.text(path),
      let json = try? JSONDocument(text: text, file: file).value
    else { return nil }
    let tooling: Set = ["core", "cli", "android", "ios", "assets", "docgen"]
    let names = (json["dependencies"]?.members ?? []).map(\.key)
    return names.compactMap { package in
      let parts = package.split(separator: "/")
      let name = String(parts.last ?? "")
      let isPlugin =
        (package.hasPrefix("@capacitor/") && !tooling.contains(name))
        || name.hasPrefix("capacitor-")
      guard isPlugin else { return nil }
      return name.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }
        .joined() + "Plugin"
    }
  }

  /// An env variable as a derivation names it; a secret's value is never shown.
  static func describe(_ key: String, in environment: EnvLayers) -> String {
    guard let value = environment[key] else { return "\(key) is unset" }
    let at = environment.location(of: key).map { " (\($0.file):\($0.line))" } ?? ""
    if value.isEmpty { return "\(key) is empty\(at)" }
    let secret = ["PRIVATE", "SECRET", "PASSWORD", "TOKEN"].contains {
      key.uppercased().contains($0)
    }
    let shown = secret ? "(set)" : value.count > 40 ? "\"\(value.prefix(37))…\"" : "\"\(value)\""
    return "\(key) = \(shown)\(at)"
  }

  /// The keys of a Capacitor config the build is judged on, each at its line.
  func capacitorConfig(_ json: JSONValue, file: String, derivations: [String: [String]] = [:])
    -> CapacitorConfig
  {
    var config = CapacitorConfig(file: file)
    config.synced = json
    func bool(_ path: String) -> Sourced<Bool>? {
      guard let value = json.at(path) else { return nil }
      return Sourced(
        value.bool ?? (value.string.flatMap(BackendSettings.flag) ?? false),
        at: location(file, json.line(at: path)), derivation: derivations[path] ?? [])
    }
    func string(_ path: String) -> Sourced<String>? {
      guard let value = json.at(path)?.string, !value.isEmpty else { return nil }
      return Sourced(
        value, at: location(file, json.line(at: path)), derivation: derivations[path] ?? [])
    }
    config.appId = json.at("appId")?.string.map {
      Sourced(
        $0, at: location(file, json.line(at: "appId")), derivation: derivations["appId"] ?? [])
    }
    config.serverURL = string("server.url")
    config.cleartext = bool("server.cleartext")
    config.nativeHTTP = bool("plugins.CapacitorHttp.enabled")
    config.updaterPublicKey = string("plugins.CapacitorUpdater.publicKey")
    config.updaterVersion = string("plugins.CapacitorUpdater.version")
    config.updaterAutoUpdate = bool("plugins.CapacitorUpdater.autoUpdate")
    config.pluginKeys = (json["plugins"]?.members ?? []).map {
      Sourced($0.key, at: location(file, $0.line))
    }
    config.packageClassList = json["packageClassList"]?.array?.compactMap(\.string)
    return config
  }
}
