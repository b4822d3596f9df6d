import Foundation
import QualifyCore

/// Reads one channel's builds out of an `AppRepository`, collecting diagnostics.
///
/// The channel's build environment is its frontend env files layered in order (what
/// `make mobile-build` and the native builds read); build variables in the native projects
/// resolve against it as Xcode and Gradle resolve them.
struct BuildReader {
  let repository: AppRepository
  let channel: Channel
  let extraEnv: AppRepository.ExtraEnv
  var diagnostics: [Diagnostic] = []

  init(repository: AppRepository, channel: Channel, extraEnv: AppRepository.ExtraEnv) {
    self.repository = repository
    self.channel = channel
    self.extraEnv = extraEnv
  }

  var profile: AppProfile { repository.profile }

  /// The channel's builds, read by the reader of the app's shell kind.
  mutating func read() throws -> [Platform: AppBuild] {
    let reader = ShellBuildReaders.type(of: profile.shell)
    try checkProfile(against: reader)
    return try reader.read(&self)
  }

  /// Seed 000's shell: a Capacitor app of one web app at a fixed origin, its env files, its
  /// native projects and its realm.
  mutating func readSingleOrigin() throws -> [Platform: AppBuild] {
    guard let files = profile.channels[channel] else {
      throw InputError(
        "the app \(profile.name) has no \(channel.rawValue) channel",
        hint: "declare it under \"channels\" in qualify.json")
    }
    let dev = profile.channels[.dev]
    let (backendFiles, backendSupply) = readEnv(
      files.backendEnv, extra: extraEnv.backend, shared: dev?.backendEnv ?? [], role: "backend",
      declared: files.declared)
    let (frontendFiles, frontendSupply) = readEnv(
      files.frontendEnv, extra: extraEnv.frontend, shared: dev?.frontendEnv ?? [],
      role: "frontend", declared: files.declared)
    let backendEnv = EnvLayers(backendFiles)
    let frontendEnv = EnvLayers(frontendFiles)
    validate(backendEnv: backendEnv, frontendEnv: frontendEnv)
    let backend = BackendSettings(env: backendEnv)
    let realm: RealmSettings?
    do {
      realm = try repository.realm(clientID: backend.oidcClientId)
    } catch {
      collect(error)
      realm = nil
    }

    guard let frontend = readFrontend(frontendEnv, files: frontendFiles) else { return [:] }
    let scheme = callbackScheme(frontendEnv)
    var environment = ChannelEnvironment()
    environment.backend = backendSupply
    environment.frontend = frontendSupply
    environment.backendFiles = backendFiles.map(\.path)
    environment.frontendFiles = frontendFiles.map(\.path)

    let (logout, callbackParameter) = readWebAuth()
    let otaClient = readOTAClient()
    var builds: [Platform: AppBuild] = [:]
    for platform in Platform.allCases {
      let capacitor = readCapacitor(
        platform, frontend: frontend, environment: frontendEnv,
        syncsEnv: frontendSupply == .supplied || channel == .dev,
        appIdFromEnv: Self.sourced(frontendEnv, "MOBILE_APP_ID"))
      let fallbackId = profile.appId ?? frontendEnv["MOBILE_APP_ID"] ?? backend.appId ?? ""
      var build = AppBuild(
        platform: platform, channel: channel,
        parts: .singleOrigin(
          SingleOriginSettings(
            backend: backend, realm: realm, identityProvider: files.identityProvider)),
        name: profile.name, displayName: profile.title,
        appId: Sourced(
          fallbackId,
          at: profile.appId != nil ? nil : frontendEnv.location(of: "MOBILE_APP_ID")),
        syncedAppId: capacitor.appId, callbackScheme: scheme, registeredSchemes: [],
        capacitor: capacitor, transport: TransportSettings(), authSession: AuthSessionSettings(),
        push: PushShellSettings(), guards: BuildGuardSettings(), frontend: frontend,
        files: resolvedFiles(for: platform))
      build.environment = environment
      build.testUsers = profile.testUsers
      build.webBundle = webBundle()
      build.otaOrdering = profile.otaOrdering
      build.features = features(backend: backend, frontendEnv: frontendEnv)
      build.push.requiredBannerKeys = profile.bannerKeys[platform] ?? []
      build.authSession.nativeLogout = logout
      build.authSession.callbackParameter = callbackParameter
      build.otaClient = otaClient
      build.transport.capacitorCleartext = capacitor.cleartext.flatMap { $0.value ? $0 : nil }
      switch platform {
      case .ios: readIOS(into: &build, environment: frontendEnv)
      case .android: readAndroid(into: &build, environment: frontendEnv)
      }
      builds[platform] = build
    }
    return builds
  }

  /// The build's frontend env as the mobile build reads it: the API origin it must set, the
  /// dev server, cleartext for dev, and the OTA keys (the private one possibly from qualify's
  /// environment), each key checked to parse. Nil, with the diagnostic, without an API origin.
  private mutating func readFrontend(_ frontendEnv: EnvLayers, files frontendFiles: [EnvFile])
    -> FrontendSettings?
  {
    guard let apiOrigin = frontendEnv["NEXT_PUBLIC_API_ORIGIN"], !apiOrigin.isEmpty else {
      let searched = frontendFiles.map(\.path).joined(separator: ", ")
      diagnostics.append(
        .error(
          at: frontendFiles.last.map { FileLocation(file: $0.path, line: 1, column: 1) },
          "NEXT_PUBLIC_API_ORIGIN is not set for the \(channel.rawValue) channel (\(searched.isEmpty ? "no frontend env file" : searched))",
          hint: "mobile builds must set the API origin explicitly (seed 000, Configuration)"))
      return nil
    }
    var frontend = FrontendSettings(
      apiOrigin: Sourced(apiOrigin, at: frontendEnv.location(of: "NEXT_PUBLIC_API_ORIGIN")),
      isDevBuild: channel == .dev)
    func sourced(_ key: String) -> Sourced<String>? { Self.sourced(frontendEnv, key) }
    frontend.envFiles = frontendFiles.map(\.path)
    frontend.devServerURL = sourced("MOBILE_DEV_SERVER_URL")
    frontend.allowCleartextForDev = sourced("MOBILE_ALLOW_CLEARTEXT_FOR_DEV").map {
      Sourced(BackendSettings.flag($0.value) ?? true, at: $0.location)
    }
    frontend.otaPublicKey = sourced("MOBILE_OTA_SIGNING_PUBLIC_KEY_B64")
    frontend.otaChannel = sourced("MOBILE_OTA_CHANNEL")
    frontend.otaPrivateKey = sourced("MOBILE_OTA_SIGNING_PRIVATE_KEY_B64")
    if frontend.otaPrivateKey == nil,
      let key = extraEnv.process["MOBILE_OTA_SIGNING_PRIVATE_KEY_B64"], !key.isEmpty
    {
      frontend.otaPrivateKey = Sourced(
        key,
        at: FileLocation(
          file: "$MOBILE_OTA_SIGNING_PRIVATE_KEY_B64 (qualify's environment)", line: 0, column: 1))
    }

    for (label, key) in [
      ("MOBILE_OTA_SIGNING_PRIVATE_KEY_B64", frontend.otaPrivateKey),
      ("MOBILE_OTA_SIGNING_PUBLIC_KEY_B64", frontend.otaPublicKey),
    ] {
      guard let key else { continue }
      let parses =
        label.contains("PRIVATE")
        ? OTAKeyPair.publicHalf(ofPrivate: key.value) != nil : OTAKeyPair.parses(key.value)
      if !parses {
        diagnostics.append(
          .error(
            at: key.location, "\(label) is not a base64 PEM RSA key",
            hint: "qualify ota keygen prints a pair in the right form"))
      }
    }
    return frontend
  }

  /// A non-empty value of `env`, with where it was set.
  static func sourced(_ env: EnvLayers, _ key: String) -> Sourced<String>? {
    guard let value = env[key], !value.isEmpty else { return nil }
    return Sourced(value, at: env.location(of: key))
  }

  /// What the web code's `auth.ts` does, when the app ships one: `nativeLogout()`, and the
  /// parameter its login reads the callback's token from (its first `searchParams.get("…")`,
  /// comments left out).
  private mutating func readWebAuth() -> (NativeLogoutFlow?, Sourced<String>?) {
    guard let path = profile.paths["web.auth"] else { return (nil, nil) }
    let text: String
    let file: String
    do {
      guard let found = try repository.text(path) else { return (nil, nil) }
      (text, file) = found
    } catch {
      collect(error)
      return (nil, nil)
    }
    var parameter: Sourced<String>?
    for (index, line) in SourceText.codeLines(text, quotes: ["\"", "'", "`"]) {
      if let name = InstanceDecisionReader.matches(
        #"searchParams\.get\(\s*["'`]([^"'`]+)["'`]\s*\)"#, line
      ).first?[0] {
        parameter = Sourced(name, at: FileLocation(file: file, line: index + 1, column: 1))
        break
      }
    }
    return (NativeLogoutReader.read(text, file: file), parameter)
  }

  /// What the app's `ota.ts` refuses, when the app ships one.
  private mutating func readOTAClient() -> OTAClientCode? {
    guard let path = profile.paths["web.ota"] else { return nil }
    do {
      guard let (text, file) = try repository.text(path) else { return nil }
      var code = OTAClientReader.read(text, file: file)
      // The id may be parsed in a module ota.ts imports (`./ota-version.mjs`): read it there.
      let folder = (path as NSString).deletingLastPathComponent
      // So may the comparison the count rule calls.
      for module in OTAClientReader.localImports(text) {
        for suffix in ["", ".ts", ".mjs", ".js"] {
          // An import that leaves the app, or is not there, is no module of its own to read.
          guard
            let (moduleText, moduleFile) =
              (try? repository.text(
                XcodeProject.join(folder, module + suffix))) ?? nil
          else { continue }
          if code.idPattern == nil {
            OTAClientReader.readIdPattern(moduleText, file: moduleFile, into: &code)
          }
          OTAClientReader.readComparison(moduleText, file: moduleFile, into: &code)
          break
        }
      }
      return code
    } catch {
      collect(error)
      return nil
    }
  }

  /// The scheme the app's JS builds its callback URL with: the build variable the profile
  /// names (`MOBILE_AUTH_SCHEME`), else the profile's default, as seed 000's `auth.ts` does.
  private func callbackScheme(_ env: EnvLayers) -> Sourced<String> {
    let variable = profile.callbackSchemeVariable
    if let value = env[variable], !value.isEmpty {
      return Sourced(
        value, at: env.location(of: variable),
        derivation: [
          "\(variable) = \(value)\(env.location(of: variable).map { " (\($0.file):\($0.line))" } ?? "")"
        ])
    }
    let fallback = profile.callbackScheme ?? profile.name
    let location = profile.file.map {
      FileLocation(file: $0, line: profile.keyLines["callbackScheme"] ?? 1, column: 1)
    }
    return Sourced(
      fallback, at: location,
      derivation: env[variable] == nil
        ? [] : ["\(variable) is empty: the default \"\(fallback)\" applies"])
  }

  private func features(backend: BackendSettings, frontendEnv: EnvLayers) -> FeatureStates {
    var states = FeatureStates()
    let env = backend.env
    func place(_ key: String, _ layers: EnvLayers) -> String {
      layers.location(of: key).map { " (\($0.file):\($0.line))" } ?? ""
    }
    let backendFiles = env.files.map(\.path).joined(separator: ", ")
    if let url = backend.otaManifestURL {
      states.ota = FeatureState(
        enabled: true, use: profile.use(of: .ota),
        decidedBy: "MOBILE_OTA_MANIFEST_URL = \(url)\(place("MOBILE_OTA_MANIFEST_URL", env))")
    } else if let url = frontendEnv["NEXT_PUBLIC_MOBILE_OTA_MANIFEST_URL"], !url.isEmpty {
      states.ota = FeatureState(
        enabled: true, use: profile.use(of: .ota),
        decidedBy:
          "NEXT_PUBLIC_MOBILE_OTA_MANIFEST_URL = \(url)\(place("NEXT_PUBLIC_MOBILE_OTA_MANIFEST_URL", frontendEnv))"
      )
    } else {
      states.ota = FeatureState(
        enabled: false, use: profile.use(of: .ota),
        decidedBy:
          "MOBILE_OTA_MANIFEST_URL is \(env["MOBILE_OTA_MANIFEST_URL"] == nil ? "unset" : "empty") in the backend env (\(backendFiles))"
      )
    }
    let push = BackendSettings.flag(env["PUSH_ENABLED"]) ?? false
    states.push = FeatureState(
      enabled: push, use: profile.use(of: .push),
      decidedBy: env["PUSH_ENABLED"].map { "PUSH_ENABLED = \($0)\(place("PUSH_ENABLED", env))" }
        ?? "PUSH_ENABLED is unset in the backend env (\(backendFiles)): push is off by default")
    // Seed 000's use of each feature is the profile's to declare.
    states.ota.declaredByProfile = true
    states.push.declaredByProfile = true
    return states
  }

  /// The platform's artifacts by name, as display paths where the file exists.
  func resolvedFiles(for platform: Platform) -> [String: String] {
    var out: [String: String] = [:]
    for (name, path) in profile.paths
    where name.hasPrefix(platform.rawValue + ".") || name.hasPrefix("web.") || name == "realm" {
      out[name] = repository.locate(path).map(AppRepository.display) ?? path
    }
    return out
  }

  mutating func collect(_ error: Error) {
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

  func location(_ file: String, _ line: Int?) -> FileLocation {
    FileLocation(file: file, line: line ?? 0, column: 1)
  }

  // MARK: Strings

  mutating func readStrings(_ platform: Platform, into build: inout AppBuild) {
    for locale in profile.locales {
      let key = "\(platform.rawValue).strings.\(locale)"
      let path = profile.paths[key] ?? defaultStringsPath(platform, locale)
      do {
        guard let (text, file) = try repository.text(path) else { continue }
        let strings =
          platform == .ios
          ? try LocalizedStrings.parseStrings(text: text, file: file)
          : try LocalizedStrings.parseAndroid(text: text, file: file)
        build.push.bannerStrings[locale] = strings.mapValues(\.value)
        build.push.bannerLines[locale] = strings.mapValues(\.line)
        build.push.bannerFiles[locale] = file
      } catch {
        collect(error)
      }
    }
  }

  private func defaultStringsPath(_ platform: Platform, _ locale: String) -> String {
    switch platform {
    case .ios:
      return XcodeProject.join(
        profile.capacitorRoot, "ios/App/App/\(locale).lproj/Localizable.strings")
    case .android:
      return XcodeProject.join(
        profile.capacitorRoot,
        "android/app/src/main/res/values\(locale == "en" ? "" : "-\(locale)")/strings.xml")
    }
  }
}

/// Why a configured URL cannot be read at all (the real backend would fail to start on it).
/// A URL that reads but is not `https://` (`ftp://…`, or no scheme) is for the
/// `https-origins` guard to judge, per channel.
enum URLCheck {
  static func problem(_ value: String) -> String? {
    guard let components = URLComponents(string: value) else {
      return "it does not parse as a URL"
    }
    if let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
      (components.host ?? "").isEmpty
    {
      return "it has no host"
    }
    return nil
  }
}
