import Foundation
import QualifyCore

extension AppProfile {
  /// Reads one `qualify.json`: one method a section, every mistake collected with its line
  /// and thrown together.
  struct Parser {
    let document: JSONValue
    let file: String
    let lines: [String]
    /// The Capacitor root the profile's paths are relative to.
    let root: String
    var profile: AppProfile
    var diagnostics: [Diagnostic] = []

    static let known = [
      "name", "displayName", "appId", "callbackScheme", "callbackSchemeVariable",
      "capacitorRoot", "paths", "channels", "push", "testUsers", "features", "ios", "base",
      "shell", "deepLinkScheme", "session", "hybrid", "ota", "parts", "render", "$comment",
    ]

    init(
      text: String, file: String, directoryName: String, inheriting: AppProfile?,
      capacitorRoot detected: String
    ) throws {
      document = try JSONDocument(text: text, file: file).value
      lines = TextLines.split(text)
      self.file = file
      guard document.members != nil else {
        throw Diagnostic.error(
          at: FileLocation(file: file, line: 1, column: 1), "qualify.json must be a JSON object")
      }
      let declaredRoot = document["capacitorRoot"]?.string
      root = declaredRoot ?? inheriting?.capacitorRoot ?? detected
      profile = inheriting ?? conventional(name: directoryName, capacitorRoot: root)
      if let declaredRoot, inheriting != nil {
        // Conventional paths follow a root the overlay moves.
        let old = profile.rootedConventionalPaths
        profile.capacitorRoot = declaredRoot
        let new = profile.rootedConventionalPaths
        for (key, path) in old where profile.paths[key] == path { profile.paths[key] = new[key] }
      }
    }

    mutating func parse() throws -> AppProfile {
      let members = document.members ?? []
      for member in members where !Self.known.contains(member.key) {
        report(
          member.line, "unknown key \"\(member.key)\"",
          hint: Suggestions.closest(to: member.key, among: Self.known).map {
            "did you mean \"\($0)\"?"
          })
      }
      // The root was taken in init; a value that is not a string is reported here, in order.
      _ = top("capacitorRoot")
      profile.file = file
      profile.keyLines = [:]
      for member in members { profile.keyLines[member.key] = member.line }
      if let name = top("name") { profile.name = name }
      shell()
      if let scheme = top("deepLinkScheme") { profile.deepLinkScheme = scheme }
      ota()
      session()
      hybrid()
      parts()
      if let displayName = top("displayName") { profile.displayName = displayName }
      if let appId = top("appId") { profile.appId = appId }
      if let scheme = top("callbackScheme") { profile.callbackScheme = scheme }
      if let variable = top("callbackSchemeVariable") { profile.callbackSchemeVariable = variable }
      profile.base = top("base") ?? profile.base
      paths()
      channels()
      push()
      if let users = strings(
        document["testUsers"], "testUsers", line: document.line(of: "testUsers"))
      {
        profile.testUsers = users
      }
      features()
      ios()
      render()
      if !diagnostics.isEmpty {
        throw InputError("\(file) is not a valid app profile", diagnostics: diagnostics)
      }
      return profile
    }

    mutating func report(_ line: Int?, _ message: String, hint: String? = nil) {
      let l = line ?? 1
      diagnostics.append(
        .error(
          at: FileLocation(file: file, line: l, column: 1), message, hint: hint,
          sourceLine: l - 1 < lines.count ? lines[l - 1] : nil))
    }

    mutating func string(_ value: JSONValue?, _ key: String, line: Int?) -> String? {
      guard let value else { return nil }
      guard let s = value.string else {
        report(line, "\"\(key)\" must be a string")
        return nil
      }
      return s
    }

    mutating func strings(_ value: JSONValue?, _ key: String, line: Int?) -> [String]? {
      guard let value else { return nil }
      guard let items = value.array, items.allSatisfy({ $0.string != nil }) else {
        report(line, "\"\(key)\" must be a list of strings")
        return nil
      }
      return items.compactMap(\.string)
    }

    mutating func top(_ key: String) -> String? {
      string(document[key], key, line: document.line(of: key))
    }

    /// `shell`: a kind `ShellKind.all` names.
    mutating func shell() {
      if let id = top("shell") {
        if let kind = ShellKind.named(id) {
          profile.shell = kind
        } else {
          report(
            document.line(of: "shell"), "unknown shell kind \"\(id)\"",
            hint: "shell kinds are \(ShellKind.all.map(\.id).joined(separator: ", "))")
        }
      }
    }
    /// `ota`: how the app orders its OTA releases.
    mutating func ota() {
      if let ota = document["ota"] {
        for member in ota.members ?? [] where member.key != "ordering" {
          report(member.line, "unknown key \"\(member.key)\" in ota", hint: "ota has ordering")
        }
        if let ordering = string(ota["ordering"], "ota.ordering", line: ota.line(of: "ordering")) {
          if AppProfile.otaOrderings.contains(ordering) {
            profile.otaOrdering = ordering
          } else {
            report(
              ota.line(of: "ordering"),
              "ota.ordering must be count or sequence, not \"\(ordering)\"",
              hint:
                "count: <count>-<sha> ids ordered by their count (seed 000); sequence: the manifest's sequence orders releases (bare commit ids)"
            )
          }
        }
      }
    }
    /// `parts`: where the app keeps a part its kind's reader looks for (a folder or a file
    /// of the repository); which names a kind knows is its reader's to say.
    mutating func parts() {
      guard let parts = document["parts"] else { return }
      guard let members = parts.members else {
        report(profile.keyLines["parts"], "\"parts\" must be an object of part: path")
        return
      }
      for member in members {
        let key = "parts.\(member.key)"
        if let path = string(member.value, key, line: member.line) {
          profile.parts[member.key] = Sourced(
            path, at: FileLocation(file: file, line: member.line, column: 1))
        }
      }
    }

    /// `session`: a session-contract app's backend and foreground reload.
    mutating func session() {
      if let session = document["session"] {
        for member in session.members ?? [] where !["api", "foregroundReload"].contains(member.key)
        {
          report(
            member.line, "unknown key \"\(member.key)\" in session",
            hint: "session has api and foregroundReload")
        }
        profile.sessionAPI = string(session["api"], "session.api", line: session.line(of: "api"))
        if let text = string(
          session["foregroundReload"], "session.foregroundReload",
          line: session.line(of: "foregroundReload"))
        {
          if let seconds = Durations.parse(text) {
            profile.sessionForegroundReload = seconds
          } else {
            report(
              session.line(of: "foregroundReload"),
              "\"session.foregroundReload\" must be a duration such as 10m")
          }
        }
      }
    }
    /// `hybrid`: what a hybrid WebView app does not say in its own files.
    mutating func hybrid() {
      if let hybrid = document["hybrid"] {
        let keys = [
          "webOrigin", "links", "settingsLink", "releaseCertificate", "debugCertificate", "backend",
        ]
        for member in hybrid.members ?? [] where !keys.contains(member.key) {
          report(
            member.line, "unknown key \"\(member.key)\" in hybrid",
            hint: Suggestions.closest(to: member.key, among: keys).map { "did you mean \"\($0)\"?" }
              ?? "hybrid has \(keys.joined(separator: ", "))")
        }
        var settings = HybridProfile()
        func value(_ key: String) -> String? {
          string(hybrid[key], "hybrid.\(key)", line: hybrid.line(of: key))
        }
        settings.webOrigin = value("webOrigin")
        settings.links =
          strings(hybrid["links"], "hybrid.links", line: hybrid.line(of: "links")) ?? []
        for link in settings.links where !link.hasPrefix("/") {
          report(
            hybrid.line(of: "links"), "\"hybrid.links\" holds paths of the site, not \(link)",
            hint: "write them as /booking/123")
        }
        settings.settingsLink = value("settingsLink")
        settings.releaseCertificate = value("releaseCertificate")
        settings.debugCertificate = value("debugCertificate")
        settings.backend = value("backend") ?? settings.backend
        for key in keys { settings.lines[key] = hybrid.line(of: key) }
        profile.hybrid = settings
      }
    }
    /// `paths`: where each artifact is, for the ones not at their conventional place.
    mutating func paths() {
      if let paths = document["paths"] {
        for member in paths.members ?? [] {
          guard
            AppProfile.conventionalPaths[member.key] != nil || member.key == "realm"
              || member.key.hasPrefix("ios.strings.") || member.key.hasPrefix("android.strings.")
          else {
            report(
              member.line, "unknown artifact \"\(member.key)\"",
              hint: Suggestions.closest(to: member.key, among: artifactNames).map {
                "did you mean \"\($0)\"?"
              }
                ?? "known artifacts: \(artifactNames.joined(separator: ", "))")
            continue
          }
          guard let path = member.value.string else {
            report(member.line, "the path of \"\(member.key)\" must be a string")
            continue
          }
          profile.paths[member.key] = path
          profile.keyLines["paths.\(member.key)"] = member.line
        }
      }
    }
    /// `channels`: each channel's env files and identity provider profile.
    mutating func channels() {
      if let channels = document["channels"] {
        for member in channels.members ?? [] {
          guard let channel = Channel(rawValue: member.key) else {
            report(
              member.line, "unknown channel \"\(member.key)\"",
              hint: "channels are dev, staging and prod")
            continue
          }
          var files =
            profile.channels[channel]
            ?? ChannelFiles(
              backendEnv: [], frontendEnv: [], identityProvider: "keycloak-dev", declared: true)
          files.declared = true
          for field in member.value.members ?? [] {
            switch field.key {
            case "backendEnv", "frontendEnv":
              let list = field.value.string.map { [$0] } ?? field.value.array?.compactMap(\.string)
              guard let list else {
                report(field.line, "\"\(field.key)\" must be a path or a list of paths")
                continue
              }
              if field.key == "backendEnv" {
                files.backendEnv = list
              } else {
                files.frontendEnv = list
              }
            case "idp":
              guard let idp = field.value.string, identityProviders.contains(idp) else {
                report(
                  field.line, "unknown identity provider profile",
                  hint: "use one of: \(identityProviders.joined(separator: ", "))")
                continue
              }
              files.identityProvider = idp
            default:
              report(
                field.line, "unknown channel setting \"\(field.key)\"",
                hint: "use backendEnv, frontendEnv or idp")
            }
          }
          profile.channels[channel] = files
        }
      }
    }
    /// `render`: the web bundle's folder and its thread page.
    mutating func render() {
      guard let render = document["render"] else { return }
      guard let members = render.members else {
        report(document.line(of: "render"), "\"render\" must be an object")
        return
      }
      var out = RenderProfile()
      for member in members {
        switch member.key {
        case "webDir": out.webDir = string(member.value, "render.webDir", line: member.line)
        case "threadPath":
          out.threadPath = string(member.value, "render.threadPath", line: member.line)
          if let path = out.threadPath, !path.hasPrefix("/") || !path.contains("{thread}") {
            report(
              member.line,
              "\"render.threadPath\" must be a path from the bundle's root with {thread}",
              hint: "for example \"/index.html#/thread/{thread}\"")
          }
        case "$comment": continue
        default:
          report(
            member.line, "unknown key \"render.\(member.key)\"",
            hint: "render has webDir and threadPath")
        }
      }
      profile.render = out
    }

    /// `push`: the banner keys (one list, or one per platform) and the locales.
    mutating func push() {
      if let push = document["push"] {
        for member in push.members ?? [] {
          switch member.key {
          case "bannerKeys":
            // One list for both platforms, or one per platform (iOS and Android apps usually
            // name their banner keys differently: NEW_MESSAGE vs new_message_title).
            if member.value.array != nil {
              if let list = strings(member.value, "push.bannerKeys", line: member.line) {
                for platform in Platform.allCases { profile.bannerKeys[platform] = list }
              }
            } else if let perPlatform = member.value.members {
              for entry in perPlatform {
                guard let platform = Platform(rawValue: entry.key) else {
                  report(
                    entry.line, "unknown platform \"\(entry.key)\"", hint: "use ios or android")
                  continue
                }
                if let list = strings(entry.value, "push.bannerKeys.\(entry.key)", line: entry.line)
                {
                  profile.bannerKeys[platform] = list
                }
              }
            } else {
              report(
                member.line,
                "\"push.bannerKeys\" must be a list of loc-keys, or one list per platform ({\"ios\": [...], \"android\": [...]})"
              )
            }
            profile.keyLines["push.bannerKeys"] = member.line
          case "locales":
            if let list = strings(member.value, "push.locales", line: member.line) {
              profile.locales = list
            }
          default:
            report(
              member.line, "unknown push setting \"\(member.key)\"",
              hint: "use bannerKeys or locales"
            )
          }
        }
      }
    }
    /// `features`: true (used), false (not used) or "auto" for each feature.
    mutating func features() {
      if let features = document["features"] {
        for member in features.members ?? [] {
          guard let feature = Feature(rawValue: member.key) else {
            report(
              member.line, "unknown feature \"\(member.key)\"",
              hint: "features are \(Feature.allCases.map(\.rawValue).joined(separator: ", "))")
            continue
          }
          if member.value.string == "auto" {
            profile.features[feature] = .auto
            continue
          }
          guard let used = member.value.bool else {
            report(
              member.line,
              "feature \"\(member.key)\" must be true (used), false (not used) or \"auto\" (as the build says)"
            )
            continue
          }
          profile.features[feature] = used ? .used : .unused
          profile.keyLines["features.\(member.key)"] = member.line
        }
      }
    }
    /// `ios`: the xcconfig a build step generates, and its settings.
    mutating func ios() {
      if let ios = document["ios"] {
        // An overlay that says "ios" without a generated xcconfig reads the one on disk.
        profile.generatedXcconfig = nil
        for member in ios.members ?? [] {
          guard member.key == "generatedXcconfig" else {
            report(
              member.line, "unknown ios setting \"\(member.key)\"", hint: "use generatedXcconfig")
            continue
          }
          guard let path = member.value["path"]?.string,
            let settings = member.value["settings"]?.members
          else {
            report(
              member.line,
              "\"generatedXcconfig\" needs \"path\" (relative to the Capacitor root) and \"settings\" (setting → expression)"
            )
            continue
          }
          var pairs: [(key: String, expression: String)] = []
          var synced: [(key: String, path: String)] = []
          for setting in settings {
            if let keyPath = setting.value["syncedConfig"]?.string,
              setting.value.members?.count == 1
            {
              synced.append((key: setting.key, path: keyPath))
              continue
            }
            guard let expression = setting.value.string else {
              report(
                setting.line,
                "the value of \"\(setting.key)\" must be an expression string or {\"syncedConfig\": \"key.path\"}"
              )
              continue
            }
            pairs.append((key: setting.key, expression: expression))
          }
          profile.generatedXcconfig = GeneratedXcconfig(
            path: XcodeProject.join(root, path), settings: pairs, syncedSettings: synced,
            location: FileLocation(file: file, line: member.line, column: 1))
        }
      }
    }
  }
}
