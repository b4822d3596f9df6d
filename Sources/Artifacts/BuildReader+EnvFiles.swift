import Foundation
import QualifyCore

/// The env files of a channel, the command line's, and what a profile may say of a kind.
extension BuildReader {
  /// What the profile says that the kind's reader cannot take: an env file of a role the kind
  /// does not read (thrown: exit 2 rather than ignored), a feature or a part the kind has not.
  mutating func checkProfile(against reader: any ShellBuildReader.Type) throws {
    if let refusal = reader.envFiles.refusal(of: extraEnv, kind: profile.shell) { throw refusal }
    for feature in AppProfile.Feature.allCases
    where profile.features[feature] != nil && !reader.features.contains(feature) {
      diagnostics.append(
        .error(
          at: profile.file.map {
            FileLocation(
              file: $0, line: profile.keyLines["features.\(feature.rawValue)"] ?? 1, column: 1)
          },
          "a \(profile.shell.id) app has no \(feature.title) qualify checks: features.\(feature.rawValue) says nothing here",
          hint: "remove features.\(feature.rawValue)"))
    }
    for (name, path) in profile.parts.sorted(by: { $0.key < $1.key })
    where reader.parts[name] == nil {
      diagnostics.append(
        .error(
          at: path.location, "a \(profile.shell.id) app has no part \"\(name)\" qualify looks for",
          hint: reader.parts.isEmpty
            ? "the \(profile.shell.id) kind places no part: remove \"parts\""
            : "its parts: \(reader.parts.keys.sorted().joined(separator: ", "))"))
    }
  }

  /// Reads a channel's env files. A file the profile declares must exist; the conventional
  /// ones may be missing. The channel's env is a *fallback* when every file found is one the
  /// dev channel reads too (the repository's `*.defaults`): nothing then says what this
  /// channel runs with.
  mutating func readEnv(
    _ paths: [String], extra: [String], shared: [String], role: String, declared: Bool
  ) -> ([EnvFile], ChannelEnvironment.Supply) {
    var out: [EnvFile] = []
    var own = false
    for path in paths {
      do {
        guard let (text, display) = try repository.text(path) else {
          if declared {
            diagnostics.append(
              .error(
                at: profile.file.map {
                  FileLocation(file: $0, line: profile.keyLines["channels"] ?? 1, column: 1)
                },
                "the \(role) env file \(path) listed for the \(channel.rawValue) channel does not exist",
                hint: "fix the path under channels.\(channel.rawValue).\(role)Env in qualify.json"))
          }
          continue
        }
        out.append(try EnvFile(text: text, path: display))
        if !shared.contains(path) && !path.hasSuffix(".defaults") { own = true }
      } catch {
        collect(error)
      }
    }
    let given = commandLineEnv(extra, role: role)
    out += given
    if !given.isEmpty { own = true }
    if out.isEmpty && !paths.isEmpty {
      diagnostics.append(
        .error(
          at: nil,
          "no \(role) env file found for the \(channel.rawValue) channel (looked for \(paths.joined(separator: ", ")))",
          hint:
            "name the files under channels.\(channel.rawValue).\(role)Env in qualify.json, or pass --\(role)-env FILE"
        ))
    }
    let supply: ChannelEnvironment.Supply =
      channel == .dev || own ? .supplied : .fallback
    return (out, supply)
  }

  /// The env files a pipeline gives on the command line (`--backend-env`, `--frontend-env`),
  /// in order; a missing one is an error naming it.
  mutating func commandLineEnv(_ paths: [String], role: String) -> [EnvFile] {
    var out: [EnvFile] = []
    for path in paths {
      let url = URL(fileURLWithPath: path)
      guard let data = FileManager.default.contents(atPath: url.path) else {
        diagnostics.append(
          .error(at: nil, "the \(role) env file \(path) given on the command line does not exist"))
        continue
      }
      do {
        out.append(
          try EnvFile(text: TextDecoding.decode(data).text, path: AppRepository.display(url)))
      } catch {
        collect(error)
      }
    }
    return out
  }

  /// Values the backend parses at start-up: a malformed one would stop the real backend, so
  /// it is bad input here too rather than a silently empty setting.
  mutating func validate(backendEnv: EnvLayers, frontendEnv: EnvLayers) {
    func error(_ env: EnvLayers, _ key: String, _ message: String, hint: String) {
      diagnostics.append(.error(at: env.location(of: key), message, hint: hint))
    }
    if let raw = backendEnv["OIDC_AUTH_REQUEST_EXTRA_PARAMS"], !raw.isEmpty {
      let parsed = try? JSONSerialization.jsonObject(with: Data(raw.utf8)) as? [String: Any]
      if parsed == nil {
        error(
          backendEnv, "OIDC_AUTH_REQUEST_EXTRA_PARAMS",
          "OIDC_AUTH_REQUEST_EXTRA_PARAMS is not a JSON object: \(raw)",
          hint: "write it as JSON, e.g. {\"acr_values\": \"eidas1\"}")
      }
    }
    if let raw = backendEnv["MOBILE_AUTH_CALLBACK_SCHEMES"]?.trimmingCharacters(in: .whitespaces),
      raw.hasPrefix("["),
      (try? JSONSerialization.jsonObject(with: Data(raw.utf8)) as? [Any]) == nil
    {
      error(
        backendEnv, "MOBILE_AUTH_CALLBACK_SCHEMES",
        "MOBILE_AUTH_CALLBACK_SCHEMES is not a JSON list: \(raw)",
        hint: "write it as a JSON list, e.g. [\"stmessages\"]")
    }
    for key in [
      "OIDC_OP_AUTHORIZATION_ENDPOINT", "OIDC_OP_TOKEN_ENDPOINT", "OIDC_OP_JWKS_ENDPOINT",
      "OIDC_OP_USER_ENDPOINT", "OIDC_OP_LOGOUT_ENDPOINT", "MOBILE_OTA_MANIFEST_URL",
    ] {
      guard let value = backendEnv[key], !value.isEmpty else { continue }
      if let problem = URLCheck.problem(value) {
        error(
          backendEnv, key, "\(key) = \(value) is not a usable URL: \(problem)",
          hint: "write an absolute https:// URL")
      }
    }
    if let value = frontendEnv["NEXT_PUBLIC_API_ORIGIN"], !value.isEmpty,
      let problem = URLCheck.problem(value)
    {
      error(
        frontendEnv, "NEXT_PUBLIC_API_ORIGIN",
        "NEXT_PUBLIC_API_ORIGIN = \(value) is not a usable origin: \(problem)",
        hint: "write the backend's origin, e.g. https://messages.example")
    }
  }
}
