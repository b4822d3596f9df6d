import Foundation
import QualifyCore

/// Reads one channel's builds out of an `AppRepository`, collecting diagnostics.
struct BuildReader {
  let repository: AppRepository
  let channel: Channel
  var diagnostics: [Diagnostic] = []

  init(repository: AppRepository, channel: Channel) {
    self.repository = repository
    self.channel = channel
  }

  private var profile: AppProfile { repository.profile }

  mutating func read() throws -> [Platform: AppBuild] {
    guard let files = profile.channels[channel] else {
      throw InputError(
        "the app \(profile.name) has no \(channel.rawValue) channel",
        hint: "declare it under \"channels\" in qualify.json")
    }
    let backendEnv = EnvLayers(readEnv(files.backendEnv, role: "backend"))
    let frontendEnv = EnvLayers(readEnv(files.frontendEnv, role: "frontend"))
    let realm: RealmSettings?
    do {
      realm = try repository.realm()
    } catch {
      collect(error)
      realm = nil
    }

    guard let apiOrigin = frontendEnv["NEXT_PUBLIC_API_ORIGIN"], !apiOrigin.isEmpty else {
      let searched = files.frontendEnv.joined(separator: ", ")
      diagnostics.append(
        .error(
          at: nil,
          "NEXT_PUBLIC_API_ORIGIN is not set for the \(channel.rawValue) channel (\(searched))",
          hint: "mobile builds must set the API origin explicitly (seed 000, Configuration)"))
      return [:]
    }
    var frontend = FrontendSettings(
      apiOrigin: Sourced(apiOrigin, at: frontendEnv.location(of: "NEXT_PUBLIC_API_ORIGIN")),
      isDevBuild: channel == .dev)
    func sourced(_ key: String) -> Sourced<String>? {
      guard let value = frontendEnv[key], !value.isEmpty else { return nil }
      return Sourced(value, at: frontendEnv.location(of: key))
    }
    frontend.envFiles = frontendEnv.files.map(\.path)
    frontend.devServerURL = sourced("MOBILE_DEV_SERVER_URL")
    frontend.allowCleartextForDev = sourced("MOBILE_ALLOW_CLEARTEXT_FOR_DEV").map {
      Sourced(BackendSettings.flag($0.value) ?? false, at: $0.location)
    }
    frontend.otaPublicKey = sourced("MOBILE_OTA_SIGNING_PUBLIC_KEY_B64")
    frontend.otaChannel = sourced("MOBILE_OTA_CHANNEL")
    frontend.otaPrivateKey = sourced("MOBILE_OTA_SIGNING_PRIVATE_KEY_B64")

    let backend = BackendSettings(env: backendEnv)
    let appIdValue = profile.appId ?? frontendEnv["MOBILE_APP_ID"] ?? backend.appId
    let appId = Sourced(
      appIdValue ?? "", at: profile.appId != nil ? nil : frontendEnv.location(of: "MOBILE_APP_ID"))
    let scheme = Sourced(profile.callbackScheme ?? profile.name, at: nil)

    var builds: [Platform: AppBuild] = [:]
    for platform in Platform.allCases {
      let capacitor = readCapacitor(platform, frontend: frontend)
      var build = AppBuild(
        platform: platform, channel: channel, name: profile.name, appId: appId,
        callbackScheme: scheme, registeredSchemes: [], capacitor: capacitor,
        transport: TransportSettings(), authSession: AuthSessionSettings(),
        push: PushShellSettings(), guards: BuildGuardSettings(), frontend: frontend,
        backend: backend, realm: realm, identityProvider: files.identityProvider,
        files: resolvedFiles(for: platform))
      build.push.requiredBannerKeys = profile.bannerKeys
      switch platform {
      case .ios: readIOS(into: &build)
      case .android: readAndroid(into: &build)
      }
      builds[platform] = build
    }
    return builds
  }

  /// The platform's artifacts by name, as display paths where the file exists.
  private func resolvedFiles(for platform: Platform) -> [String: String] {
    var out: [String: String] = [:]
    for (name, path) in profile.paths
    where name.hasPrefix(platform.rawValue + ".") || name == "realm" {
      out[name] = repository.locate(path).map(AppRepository.display) ?? path
    }
    return out
  }

  private mutating func collect(_ error: Error) {
    if let diagnostic = error as? Diagnostic {
      diagnostics.append(diagnostic)
    } else if let input = error as? InputError {
      diagnostics.append(
        contentsOf: input.diagnostics.isEmpty ? [.error(at: nil, input.message)] : input.diagnostics
      )
    } else {
      diagnostics.append(.error(at: nil, "\(error)"))
    }
  }

  private mutating func readEnv(_ paths: [String], role: String) -> [EnvFile] {
    var out: [EnvFile] = []
    var found = false
    for path in paths {
      guard let (text, display) = repository.text(path) else { continue }
      found = true
      do {
        out.append(try EnvFile(text: text, path: display))
      } catch {
        collect(error)
      }
    }
    if !found && !paths.isEmpty {
      diagnostics.append(
        .error(
          at: nil,
          "no \(role) env file found for the \(channel.rawValue) channel (looked for \(paths.joined(separator: ", ")))",
          hint: "name the files under channels.\(channel.rawValue).\(role)Env in qualify.json"))
    }
    return out
  }

  private func location(_ file: String, _ line: Int?) -> FileLocation {
    FileLocation(file: file, line: line ?? 0, column: 1)
  }

  // MARK: Capacitor

  private mutating func readCapacitor(_ platform: Platform, frontend: FrontendSettings)
    -> CapacitorConfig
  {
    let key = "\(platform.rawValue).capacitorConfig"
    let path = profile.paths[key] ?? ""
    guard let (text, file) = repository.text(path) else {
      diagnostics.append(
        .error(
          at: nil, "\(platform.displayName) capacitor.config.json not found at \(path)",
          hint: "run `cap sync`, or name the file as \"\(key)\" under \"paths\" in qualify.json"))
      return CapacitorConfig(file: path)
    }
    var config = CapacitorConfig(file: file)
    do {
      let json = try JSONDocument(text: text, file: file).value
      func bool(_ path: String) -> Sourced<Bool>? {
        guard let value = json.at(path) else { return nil }
        return Sourced(
          value.bool ?? (value.string.flatMap(BackendSettings.flag) ?? false),
          at: location(file, json.line(at: path)))
      }
      func string(_ path: String) -> Sourced<String>? {
        guard let value = json.at(path)?.string else { return nil }
        return Sourced(value, at: location(file, json.line(at: path)))
      }
      config.serverURL = string("server.url").flatMap { $0.value.isEmpty ? nil : $0 }
      config.cleartext = bool("server.cleartext")
      config.nativeHTTP = bool("plugins.CapacitorHttp.enabled")
      config.updaterPublicKey = string("plugins.CapacitorUpdater.publicKey").flatMap {
        $0.value.isEmpty ? nil : $0
      }
      config.updaterVersion = string("plugins.CapacitorUpdater.version").flatMap {
        $0.value.isEmpty ? nil : $0
      }
      config.updaterAutoUpdate = bool("plugins.CapacitorUpdater.autoUpdate")
    } catch {
      collect(error)
    }
    // A dev build is synced with the dev env: `cap sync` bakes these in.
    if channel == .dev {
      if let url = frontend.devServerURL { config.serverURL = url }
      if let cleartext = frontend.allowCleartextForDev, cleartext.value {
        config.cleartext = cleartext
      }
    }
    return config
  }

  // MARK: iOS

  private mutating func readIOS(into build: inout AppBuild) {
    let paths = profile.paths
    // Info.plist: URL schemes and ATS.
    if let path = paths["ios.infoPlist"], let (data, file) = repository.data(path) {
      do {
        let plist = try PropertyListReader.parse(data: data, file: file)
        for type in plist["CFBundleURLTypes"]?.array ?? [] {
          let line = type.line(of: "CFBundleURLSchemes")
          for scheme in type["CFBundleURLSchemes"]?.array ?? [] {
            if let s = scheme.string {
              build.registeredSchemes.append(Sourced(s, at: location(file, line)))
            }
          }
        }
        if let ats = plist["NSAppTransportSecurity"] {
          var settings = ATSSettings(
            location: location(file, plist.line(of: "NSAppTransportSecurity")))
          if let v = ats["NSAllowsArbitraryLoads"]?.bool {
            settings.allowsArbitraryLoads = Sourced(
              v, at: location(file, ats.line(of: "NSAllowsArbitraryLoads")))
          }
          if let v = ats["NSAllowsLocalNetworking"]?.bool {
            settings.allowsLocalNetworking = Sourced(
              v, at: location(file, ats.line(of: "NSAllowsLocalNetworking")))
          }
          for domain in ats["NSExceptionDomains"]?.entries ?? []
          where domain.value["NSExceptionAllowsInsecureHTTPLoads"]?.bool == true {
            settings.insecureExceptionDomains.append(
              Sourced(domain.key, at: location(file, domain.line)))
          }
          build.transport.atsInSource = settings
          build.transport.atsShipped = settings
        }
      } catch {
        collect(error)
      }
    } else {
      diagnostics.append(
        .error(
          at: nil, "iOS Info.plist not found at \(paths["ios.infoPlist"] ?? "?")",
          hint: "name it as \"ios.infoPlist\" under \"paths\" in qualify.json"))
    }

    // Entitlements: aps-environment (the export rewrites it for distribution).
    if let path = paths["ios.entitlements"], let (data, file) = repository.data(path) {
      do {
        let plist = try PropertyListReader.parse(data: data, file: file)
        if let env = plist["aps-environment"]?.string {
          let loc = location(file, plist.line(of: "aps-environment"))
          build.push.apsEnvironment = Sourced(channel.isRelease ? "production" : env, at: loc)
        }
      } catch {
        collect(error)
      }
    }

    // The auth-session plugin: its ephemeral flag, its class name and its registration.
    var pluginClass = "WebAuthSessionPlugin"
    if let path = paths["ios.authPlugin"], let (text, file) = repository.text(path) {
      build.authSession.usesWebAuthenticationSession = true
      for (index, line) in SourceText.codeLines(text) {
        if let range = line.range(
          of: #"prefersEphemeralWebBrowserSession\s*=\s*(true|false)"#, options: .regularExpression)
        {
          let value = line[range].hasSuffix("true")
          build.authSession.prefersEphemeral = Sourced(value, at: location(file, index + 1))
        }
        if let name = SourceText.capture(#"class\s+(\w+)\s*:\s*CAPPlugin"#, in: line) {
          pluginClass = name
        }
      }
    } else {
      // Without the plugin the app falls back to the default Browser plugin.
      build.authSession.usesWebAuthenticationSession = false
    }
    if let path = paths["ios.viewController"], let (text, file) = repository.text(path) {
      var registered: Sourced<Bool> = Sourced(false, at: location(file, nil))
      let pattern = #"registerPluginInstance\(\s*"# + pluginClass + #"\(\s*\)\s*\)"#
      for (index, line) in SourceText.codeLines(text)
      where line.range(of: pattern, options: .regularExpression) != nil {
        registered = Sourced(true, at: location(file, index + 1))
      }
      build.authSession.pluginRegistered = registered
      if !registered.value { build.authSession.usesWebAuthenticationSession = false }
    } else if build.authSession.usesWebAuthenticationSession {
      build.authSession.pluginRegistered = Sourced(false, at: nil)
      build.authSession.usesWebAuthenticationSession = false
    }

    // The Xcode project: the strip phase removes the ATS exception from release products.
    if let path = paths["ios.project"], let (text, file) = repository.text(path) {
      let phase = XcodeProject.stripATSPhase(in: text)
      build.guards.iosStripATSPhase = Sourced(phase != nil, at: location(file, phase))
    }
    if channel.isRelease && build.guards.iosStripATSPhase?.value == true {
      build.transport.atsShipped = nil
    }

    readStrings(.ios, into: &build)
  }

  // MARK: Android

  private mutating func readAndroid(into build: inout AppBuild) {
    let paths = profile.paths
    if let path = paths["android.manifest"], let (text, file) = repository.text(path) {
      do {
        let root = try XMLReader.parse(text: text, file: file)
        guard root.name == "manifest" else {
          throw Diagnostic.error(
            at: location(file, root.line),
            "expected <manifest> as the root element, found <\(root.name)>")
        }
        if let app = root.children("application").first,
          let raw = app.attributes["android:usesCleartextTraffic"]
        {
          build.transport.usesCleartextTraffic = Sourced(
            raw == "true", at: location(file, app.line))
        }
        for filter in root.descendants("intent-filter") {
          for data in filter.children("data") {
            if let scheme = data.attributes["android:scheme"], !["http", "https"].contains(scheme) {
              build.registeredSchemes.append(Sourced(scheme, at: location(file, data.line)))
            }
          }
        }
        let permission = root.children("uses-permission").first {
          $0.attributes["android:name"] == "android.permission.POST_NOTIFICATIONS"
        }
        build.push.postNotificationsPermission = Sourced(
          permission != nil, at: location(file, permission?.line))
      } catch {
        collect(error)
      }
    } else {
      diagnostics.append(
        .error(
          at: nil, "AndroidManifest.xml not found at \(paths["android.manifest"] ?? "?")",
          hint: "name it as \"android.manifest\" under \"paths\" in qualify.json"))
    }
    // Capacitor's server.cleartext turns cleartext on for the WebView and native stack.
    if build.transport.usesCleartextTraffic == nil
      || build.transport.usesCleartextTraffic?.value == false,
      let cleartext = build.capacitor.cleartext, cleartext.value
    {
      build.transport.usesCleartextTraffic = cleartext
    }
    if let path = paths["android.googleServices"], let (text, file) = repository.text(path) {
      do {
        let json = try JSONDocument(text: text, file: file).value
        if let project = json.at("project_info.project_id")?.string {
          build.push.firebaseProjectId = Sourced(
            project, at: location(file, json["project_info"]?.line(of: "project_id")))
        }
        for client in json["client"]?.array ?? [] {
          if let info = client.at("client_info.android_client_info"),
            let name = info["package_name"]?.string
          {
            build.push.firebasePackages.append(
              Sourced(name, at: location(file, info.line(of: "package_name"))))
          }
        }
      } catch {
        collect(error)
      }
    }
    if let path = paths["android.buildGradle"], let (text, file) = repository.text(path) {
      let line = GradleScript.releaseGuardLine(in: text)
      build.guards.androidReleaseGuard = Sourced(line != nil, at: location(file, line))
    }
    readStrings(.android, into: &build)
  }

  private mutating func readStrings(_ platform: Platform, into build: inout AppBuild) {
    for locale in profile.locales {
      let key = "\(platform.rawValue).strings.\(locale)"
      let path = profile.paths[key] ?? defaultStringsPath(platform, locale)
      guard let (text, file) = repository.text(path) else { continue }
      do {
        let strings =
          platform == .ios
          ? try LocalizedStrings.parseStrings(text: text, file: file)
          : try LocalizedStrings.parseAndroid(text: text, file: file)
        build.push.bannerStrings[locale] = strings
        build.push.bannerFiles[locale] = file
      } catch {
        collect(error)
      }
    }
  }

  private func defaultStringsPath(_ platform: Platform, _ locale: String) -> String {
    switch platform {
    case .ios: return "ios/App/App/\(locale).lproj/Localizable.strings"
    case .android:
      return "android/app/src/main/res/values\(locale == "en" ? "" : "-\(locale)")/strings.xml"
    }
  }
}

/// Source-text helpers for Swift, Kotlin and Gradle files: the guards look for declarations,
/// so comments must not count.
enum SourceText {
  /// `(index, line)` pairs with `//` comments and `/* … */` blocks blanked.
  static func codeLines(_ text: String) -> [(Int, String)] {
    var out: [(Int, String)] = []
    var inBlock = false
    for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      var line = String(raw)
      var kept = ""
      var rest = Substring(line)
      while !rest.isEmpty {
        if inBlock {
          guard let end = rest.range(of: "*/") else {
            rest = ""
            break
          }
          rest = rest[end.upperBound...]
          inBlock = false
        } else if let start = rest.range(of: "/*"),
          rest.range(of: "//").map({ start.lowerBound < $0.lowerBound }) ?? true
        {
          kept += rest[..<start.lowerBound]
          rest = rest[start.upperBound...]
          inBlock = true
        } else if let comment = rest.range(of: "//") {
          kept += rest[..<comment.lowerBound]
          rest = ""
        } else {
          kept += rest
          rest = ""
        }
      }
      line = kept
      out.append((index, line))
    }
    return out
  }
}

extension SourceText {
  /// The first capture group of `pattern` in `line`.
  static func capture(_ pattern: String, in line: String) -> String? {
    guard let regex = try? NSRegularExpression(pattern: pattern),
      let match = regex.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
      match.numberOfRanges > 1, let range = Range(match.range(at: 1), in: line)
    else { return nil }
    return String(line[range])
  }
}

/// What the guards need of an Xcode project file.
enum XcodeProject {
  /// The line of a shell-script build phase that deletes `NSAppTransportSecurity` from the
  /// built product's Info.plist, provided a target lists it among its build phases.
  static func stripATSPhase(in text: String) -> Int? {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var index = 0
    while index < lines.count {
      let line = lines[index]
      if line.contains("isa = PBXShellScriptBuildPhase"),
        let id = phaseIdentifier(lines, from: index)
      {
        var end = index
        var script = ""
        while end < lines.count && !lines[end].trimmingCharacters(in: .whitespaces).hasPrefix("};")
        {
          script += lines[end]
          end += 1
        }
        if script.contains("Delete :NSAppTransportSecurity") {
          let referenced = lines.enumerated().contains { offset, l in
            (offset < index - 1 || offset > end) && l.contains(id) && !l.contains("isa =")
          }
          if referenced { return index + 1 }
        }
        index = end
      }
      index += 1
    }
    return nil
  }

  private static func phaseIdentifier(_ lines: [String], from index: Int) -> String? {
    // The object id opens the block, on this line or the line above.
    for candidate in [lines[index], index > 0 ? lines[index - 1] : ""] {
      let trimmed = candidate.trimmingCharacters(in: .whitespaces)
      if let space = trimmed.firstIndex(of: " "), trimmed.contains("= {") {
        return String(trimmed[..<space])
      }
    }
    return nil
  }
}

/// What the guards need of an Android `build.gradle`.
enum GradleScript {
  /// The line of a release guard: a `preReleaseBuild` hook that fails on a synced
  /// `server.url` or `server.cleartext`.
  static func releaseGuardLine(in text: String) -> Int? {
    let lines = SourceText.codeLines(text)
    guard let hook = lines.first(where: { $0.1.contains("preReleaseBuild") }) else { return nil }
    let after = lines.drop { $0.0 < hook.0 }.prefix(40).map(\.1).joined(separator: "\n")
    let checksServer =
      after.contains("server") && (after.contains("url") || after.contains("cleartext"))
    let fails = after.contains("GradleException") || after.contains("throw ")
    return checksServer && fails ? hook.0 + 1 : nil
  }
}
