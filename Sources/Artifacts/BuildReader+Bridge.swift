import Foundation
import QualifyCore

/// A React Native bridge shell (seed 001), read where the OpenMapX monorepo keeps each thing:
/// `apps/mobile/config/mobileConfig.ts` (how the build env becomes the compiled origin, id and
/// scheme) with the channel's `.env` files, `apps/mobile/release/version.json`, the protocol
/// module `packages/core/src/navigation/mobileProtocol.ts`, the app's composition
/// (`src/App.tsx`, `src/bridge/createShellBridge.ts`), the handoff (`src/auth/`), the
/// diagnostic export and the web app's handoff server code (`apps/web/src`).
/// The paths of a bridge shell's repository (relative to the app root).
enum BridgeReader {
  static let mobile = "apps/mobile"
  static let protocolModule = "packages/core/src/navigation/mobileProtocol.ts"
  /// Where the monorepo keeps its servers: the API (OpenMapX's handoff lives there) and the
  /// web app.
  static let servers = ["apps/api/src", "apps/web/src"]
  /// Where the web page that redeems the handoff lives in the monorepo.
  static let webClients = ["apps/web/src"]
}

extension BuildReader {
  mutating func readBridge() -> [Platform: AppBuild] {
    let mobile = BridgeReader.mobile
    var (env, environment) = readExpoEnv()
    // The handoff server's env, as the pipeline deploys it: only what it gives is known.
    let serverEnv = commandLineEnv(extraEnv.backend, role: "backend")
    environment.backendFiles = serverEnv.map(\.path)
    let configPath = XcodeProject.join(mobile, "config/mobileConfig.ts")
    let config = CodeSearch(
      repository, under: XcodeProject.join(mobile, "config"), suffixes: ["mobileConfig.ts"],
      quotes: ["\"", "'", "`"])
    guard let configFile = config.files.first else {
      diagnostics.append(
        .error(
          at: nil, "no build-time config at \(configPath)",
          hint:
            "a react-native-bridge app keeps its compiled origin in apps/mobile/config/mobileConfig.ts"
        ))
      return [:]
    }
    let defaults = Self.configDefaults(config)
    func setting(_ suffix: String, fallback: Sourced<String>?) -> Sourced<String>? {
      let variable = defaults.keys.first { $0.hasSuffix(suffix) } ?? "OPENMAPX_MOBILE" + suffix
      if let value = env[variable], !value.isEmpty {
        return Sourced(
          value, at: env.location(of: variable), derivation: ["\(variable) = \(value)"])
      }
      if let value = defaults[variable] {
        return Sourced(
          value.value, at: value.location,
          derivation: value.derivation + [
            "\(variable) is unset: the config module's default \(value.value) applies"
          ])
      }
      return fallback
    }
    let releaseVariable =
      config.captures(#"release\s*=\s*env\.([A-Z0-9_]+)\s*===\s*"1""#).first?.value
      ?? "OPENMAPX_MOBILE_RELEASE"
    let release = Sourced(
      env[releaseVariable] == "1", at: env.location(of: releaseVariable),
      derivation: ["\(releaseVariable) = \(env[releaseVariable] ?? "(unset)")"])
    guard let writtenWeb = setting("_WEB_ORIGIN", fallback: nil) else {
      diagnostics.append(
        .error(
          at: FileLocation(file: configFile.file, line: 1, column: 1),
          "\(configFile.file) names no web origin (env.…_WEB_ORIGIN ?? \"https://…\")"))
      return [:]
    }
    let api = Self.normalizedOrigin(setting("_API_ORIGIN", fallback: writtenWeb) ?? writtenWeb)
    let web = Self.normalizedOrigin(writtenWeb)
    let baseId = setting("_APP_ID", fallback: Sourced("", at: nil)) ?? Sourced("", at: nil)
    let baseScheme = setting("_SCHEME", fallback: Sourced("", at: nil)) ?? Sourced("", at: nil)
    // A development build's suffixes: `${scheme}-dev`, `${appId}.dev`.
    let suffixes = config.captures(#"`\$\{[A-Za-z]+\}([-.][a-z]+)`"#).map(\.value)
    let schemeSuffix = suffixes.first { $0.hasPrefix("-") } ?? ""
    let idSuffix = suffixes.first { $0.hasPrefix(".") } ?? ""
    func released(_ base: Sourced<String>, _ suffix: String) -> Sourced<String> {
      guard !release.value, !suffix.isEmpty else { return base }
      return Sourced(
        base.value + suffix, at: base.location,
        derivation: base.derivation + ["a development build appends \(suffix)"])
    }
    var settings = BridgeShellSettings(
      release: release, webOrigin: web, apiOrigin: api, appId: released(baseId, idSuffix),
      scheme: released(baseScheme, schemeSuffix), baseScheme: baseScheme.value)
    settings.devSchemeSuffix = schemeSuffix
    settings.defaultScheme =
      defaults.first { $0.key.hasSuffix("_SCHEME") }?.value.value ?? baseScheme.value
    Self.readOfficialIdentity(config, file: configFile.file, into: &settings)
    if let text = try? repository.text(configPath)?.text {
      Self.evaluateConfig(
        text, at: configPath, in: repository, config, env: env, releaseVariable: releaseVariable,
        into: &settings)
    }
    readProtocol(into: &settings)
    readReceiver(into: &settings)
    readComposition(into: &settings)
    readHandoff(into: &settings)
    evaluateAllowlist(
      &settings, serverEnv: serverEnv.isEmpty ? nil : EnvLayers(serverEnv))
    readBridgeDecisions(into: &settings)
    return bridgeBuilds(settings, environment: environment)
  }

  /// The build env as Expo loads it for the channel's mode (`production` for a release
  /// channel, `development` for dev): `.env`, `.env.<mode>`, `.env.local`, `.env.<mode>.local`,
  /// each over the last; then what the pipeline gives (`--frontend-env`), as a release job
  /// exports `OPENMAPX_MOBILE_RELEASE=1` and the origins before `expo prebuild`. Whether the
  /// channel had an env of its own is recorded: without one, what a release sets is unknown.
  private mutating func readExpoEnv() -> (EnvLayers, ChannelEnvironment) {
    let mode = channel.isRelease ? "production" : "development"
    var envFiles: [EnvFile] = []
    var environment = ChannelEnvironment()
    environment.profileListsFiles = false
    var own = false
    for name in [".env", ".env.\(mode)", ".env.local", ".env.\(mode).local"] {
      do {
        if let (text, display) = try repository.text(XcodeProject.join(BridgeReader.mobile, name)) {
          envFiles.append(try EnvFile(text: text, path: display))
          // Only the mode's files are the channel's own; `.env.local` is a developer's.
          if name.hasPrefix(".env.\(mode)") { own = true }
        }
      } catch {
        collect(error)
      }
    }
    let given = commandLineEnv(extraEnv.frontend, role: "frontend")
    envFiles += given
    environment.frontendFiles = envFiles.map(\.path)
    environment.frontend = own || !given.isEmpty || !channel.isRelease ? .supplied : .fallback
    return (EnvLayers(envFiles), environment)
  }

  /// One build a platform: the compiled id, scheme and origin; no OTA and no remote push in
  /// seed 001's release design; cleartext to the dev server in a development build.
  private func bridgeBuilds(_ settings: BridgeShellSettings, environment: ChannelEnvironment)
    -> [Platform: AppBuild]
  {
    let release = settings.release
    let web = settings.webOrigin
    var builds: [Platform: AppBuild] = [:]
    for platform in Platform.allCases {
      var build = AppBuild(
        platform: platform, channel: channel, parts: .reactNativeBridge(settings),
        name: profile.name, displayName: profile.title,
        appId: settings.appId, syncedAppId: nil, callbackScheme: settings.scheme,
        registeredSchemes: [settings.scheme], capacitor: nil,
        transport: TransportSettings(), authSession: AuthSessionSettings(),
        push: PushShellSettings(), guards: BuildGuardSettings(),
        frontend: FrontendSettings(apiOrigin: web, isDevBuild: !release.value),
        files: [:])
      build.environment = environment
      build.features.ota = FeatureState(
        enabled: false, use: .unused,
        decidedBy: "seed 001: no native OTA update channel in the release design")
      build.features.push = FeatureState(
        enabled: false, use: .unused, decidedBy: "seed 001: no remote push in the release design")
      if !release.value {
        // An Expo development build lets the WebView reach the local dev server over HTTP.
        build.transport.usesCleartextTraffic = Sourced(
          true, at: release.location,
          derivation: ["a development build (debug manifest) allows cleartext"])
      }
      builds[platform] = build
    }
    return builds
  }

  /// An origin as `new URL(…).origin` gives it (lower-case host, no default port, no trailing
  /// slash); a value with a path, query or credentials is kept as written, for the guard.
  static func normalizedOrigin(_ value: Sourced<String>) -> Sourced<String> {
    guard var components = URLComponents(string: value.value),
      let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased(),
      ["", "/"].contains(components.path), components.query == nil, components.fragment == nil,
      components.user == nil
    else { return value }
    components.scheme = scheme
    if (scheme == "https" && components.port == 443) || (scheme == "http" && components.port == 80)
    {
      components.port = nil
    }
    let origin = "\(scheme)://\(host)\(components.port.map { ":\($0)" } ?? "")"
    guard origin != value.value else { return value }
    return Sourced(
      origin, at: value.location, derivation: value.derivation + ["as an origin: \(origin)"])
  }

  /// `version.json`'s range, the protocol module's constants and bounds.
  private mutating func readProtocol(into settings: inout BridgeShellSettings) {
    let versionPath = XcodeProject.join(BridgeReader.mobile, "release/version.json")
    do {
      if let (text, file) = try repository.text(versionPath) {
        let json = try JSONDocument(text: text, file: file).value
        if let min = json.at("protocol.min")?.number, let max = json.at("protocol.max")?.number {
          settings.releaseProtocol = Sourced(
            ProtocolRange(min: Int(min), max: Int(max)),
            at: location(file, json["protocol"]?.line(of: "min")))
          settings.releaseProtocolMax = location(file, json["protocol"]?.line(of: "max"))
        }
      } else {
        diagnostics.append(
          .error(
            at: nil, "no release descriptor at \(versionPath)",
            hint: "seed 001: apps/mobile/release/version.json holds the protocol range"))
      }
    } catch {
      collect(error)
    }
    let module = CodeSearch(
      repository, under: (BridgeReader.protocolModule as NSString).deletingLastPathComponent,
      suffixes: [(BridgeReader.protocolModule as NSString).lastPathComponent],
      quotes: ["\"", "'", "`"])
    guard !module.isEmpty else {
      diagnostics.append(
        .error(
          at: nil, "no protocol module at \(BridgeReader.protocolModule)",
          hint:
            "seed 001: packages/core/src/navigation/mobileProtocol.ts holds the protocol range and the bounds"
        ))
      return
    }
    func number(_ name: String) -> Sourced<Int>? {
      guard let written = module.constant(name) else { return nil }
      guard let value = CodeSearch.integer(written.value) else {
        settings.computedConstants.append(
          Sourced("\(name) = \(written.value)", at: written.location))
        return nil
      }
      return Sourced(value, at: written.location)
    }
    if let min = number("MOBILE_PROTOCOL_MIN"), let max = number("MOBILE_PROTOCOL_MAX") {
      settings.protocolConstants = Sourced(
        ProtocolRange(min: min.value, max: max.value), at: min.location)
      settings.protocolConstantsMax = max.location
    }
    for name in BridgeShellSettings.seedLimits.keys.sorted() {
      settings.limits[name] = number(name)
    }
  }

  /// What `App.tsx` and `createShellBridge.ts` compose.
  private mutating func readComposition(into settings: inout BridgeShellSettings) {
    let source = CodeSearch(
      repository, under: XcodeProject.join(BridgeReader.mobile, "src"),
      suffixes: [".ts", ".tsx"], quotes: ["\"", "'", "`"])
    let app = CodeSearch(
      repository, under: XcodeProject.join(BridgeReader.mobile, "src"), suffixes: ["App.tsx"],
      quotes: ["\"", "'", "`"])
    // describeShell()'s capabilities: a literal block (`capabilities: {`), or the default a
    // provider overrides (`const capabilities = options.capabilities?.() ?? {`).
    for (file, lines) in source.files where file.hasSuffix("createShellBridge.ts") {
      var inside = false
      for (index, line) in lines {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.contains("capabilities") && trimmed.hasSuffix("{")
          && (trimmed.contains("capabilities: {") || trimmed.contains("?? {"))
        {
          inside = true
          continue
        }
        guard inside else { continue }
        if line.contains("}") { break }
        let parts = line.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
        if parts.count == 2, let value = Bool(parts[1].trimmingCharacters(in: [","])) {
          settings.capabilities.append(
            (parts[0], Sourced(value, at: FileLocation(file: file, line: index + 1, column: 1))))
        }
      }
    }
    // A provider App.tsx passes computes the report at run time (`capabilities: () => …`).
    if let provided = app.blocks(after: "createShellBridge(").first,
      let offset = provided.body.split(separator: "\n", omittingEmptySubsequences: false)
        .firstIndex(where: {
          $0.range(of: #"^\s*capabilities\s*[:,]"#, options: .regularExpression) != nil
        })
    {
      settings.capabilityProvider = Sourced(
        "capabilities",
        at: FileLocation(file: provided.file, line: provided.line + offset, column: 1))
    }
    // `dispatch: f`, or the shorthand `dispatch,` inside the call's object.
    settings.dispatcherComposed = app.blockDoes(
      after: "createShellBridge(", ["dispatch:", "dispatch,", "dispatch }", "dispatch\n"],
      home: "createShellBridge(")
    // Main frame only is react-native-webview's default; only an explicit false undoes it.
    if let early = app.fact([["injectedJavaScriptBeforeContentLoaded="]], home: "<WebView") {
      let everyFrame = app.captures(
        #"(injectedJavaScriptBeforeContentLoadedForMainFrameOnly=\{false\})"#
      ).first
      settings.descriptorBeforeContent =
        everyFrame.map {
          Sourced(false, at: $0.location, derivation: ["injected into every frame"])
        } ?? early
    }
    if let explicit = app.captures(#"geolocationEnabled(=\{(?:true|false)\})?"#).first {
      settings.geolocationDisabled = Sourced(
        explicit.value == "={false}", at: explicit.location)
    } else if let file = app.files.first?.file {
      settings.geolocationDisabled = Sourced(
        true, at: FileLocation(file: file, line: 0, column: 1),
        derivation: ["react-native-webview leaves geolocation off unless geolocationEnabled"])
    }
    if let grant = app.captures(
      #"mediaCapturePermissionGrantType=\{?["']([a-z]+)["']\}?"#
    ).first {
      settings.mediaCaptureDenied = Sourced(
        grant.value == "deny", at: grant.location,
        derivation: ["mediaCapturePermissionGrantType=\"\(grant.value)\""])
    } else if let file = app.files.first?.file {
      settings.mediaCaptureDenied = Sourced(
        false, at: FileLocation(file: file, line: 0, column: 1),
        derivation: ["mediaCapturePermissionGrantType is unset: WebKit prompts the user"])
    }
    settings.webViewSource = app.captures(#"source=\{\{\s*uri:\s*([^}]+?)\s*\}\}"#).first
    let selector = source.captures(
      #"(serverUrl|customServer|setWebOrigin|selectServer|webOriginOverride|getItem\(["']server)"#)
    settings.runtimeServerSelector = selector.first
  }

  /// The handoff's two sides and the diagnostic export.
  private mutating func readHandoff(into settings: inout BridgeShellSettings) {
    readHandoffClient(into: &settings)
    readDiagnosticsExport(into: &settings)
    readHandoffServer(into: &settings)
  }

  /// `src/auth/`: the verifier, the URL it opens, the challenge method, the callback and the
  /// checks of the state and host the callback brings back.
  private func readHandoffClient(into settings: inout BridgeShellSettings) {
    let auth = CodeSearch(
      repository, under: XcodeProject.join(BridgeReader.mobile, "src/auth"), suffixes: [".ts"],
      quotes: ["\"", "'", "`"])
    settings.handoff.found = !auth.isEmpty
    if let bytes = auth.constant("VERIFIER_BYTES") {
      settings.handoff.verifierBytes = Sourced(
        CodeSearch.integer(bytes.value) ?? 0, at: bytes.location,
        derivation: CodeSearch.integer(bytes.value) == nil ? ["computed: \(bytes.value)"] : [])
    }
    if let bytes = auth.constant("STATE_BYTES"), let count = CodeSearch.integer(bytes.value) {
      settings.handoff.stateBytes = Sourced(count, at: bytes.location)
    }
    // The purposes `open(purpose: T)` takes: T's union of string literals.
    // Only a union of string literals, over as many lines as it is written on; a member
    // that is another type's name leaves the purposes unknown.
    if let type = auth.captures(#"open\(\s*purpose\s*:\s*([A-Za-z_$][\w$]*)"#).first,
      let union = auth.capturesAcrossLines(#"type\s+"# + type.value + #"\s*=\s*([^;]+);"#).first
    {
      let members = union.value.split(separator: "|").map {
        $0.trimmingCharacters(in: .whitespacesAndNewlines)
      }.filter { !$0.isEmpty }
      let literals = members.compactMap { member -> String? in
        guard let quote = member.first, "\"'".contains(quote), member.last == quote,
          member.count >= 2
        else { return nil }
        return String(member.dropFirst().dropLast())
      }
      if !literals.isEmpty, literals.count == members.count {
        settings.handoff.purposes = Sourced(literals, at: union.location)
      }
    }
    settings.handoff.path =
      auth.captures(#"new URL\(["']([^"']+)["'],\s*this\.deps\.(?:config\.)?webOrigin\)"#).first
    if let literal = auth.captures(#"["']code_challenge_method["'],\s*["']([A-Za-z0-9]+)["']"#)
      .first
    {
      settings.handoff.challengeMethod = literal
    } else if let named = auth.captures(
      #"["']code_challenge_method["'],\s*([A-Za-z_][A-Za-z0-9_]*)"#
    ).first {
      // A constant: its value, as written.
      let value = auth.constant(named.value)
      settings.handoff.challengeMethod = Sourced(
        value?.value.trimmingCharacters(in: CharacterSet(charactersIn: "\"'")) ?? named.value,
        at: value?.location ?? named.location)
    }
    settings.handoff.callback =
      auth.captures(#"\$\{this\.deps\.(?:config\.)?scheme\}://([a-z/]+)"#)
      .first
    // Seed 001: the URL carries the attempt's state and the callback must bring it back, on
    // the compiled scheme's auth host; a check that is not written lets another app's or an
    // attacker's callback through.
    settings.handoff.sendsState = auth.captures(#"searchParams\.set\(\s*["'](state)["']"#).first
    // Compared with the attempt's value, in either order, inline
    // (`searchParams.get("state") !== state`) or through a local (`const returned =
    // params.get("state")`, then `expected !== returned`); `=== null` only tests presence.
    let op = #"(?:!==|===|!=|==)"#
    let other = #"(?<![\w.])(?!null\b|undefined\b)[A-Za-z_$][\w.$]*"#
    func compared(_ operand: String, with value: String) -> Sourced<String>? {
      auth.captures(
        #"((?:"# + operand + #"\s*"# + op + #"\s*"# + value + #")|(?:"# + value + #"\s*"# + op
          + #"\s*"# + operand + #"))"#
      ).first
    }
    let stateRead = #"[\w.]*\.get\(\s*["']state["']\s*\)"#
    settings.handoff.checksCallbackState =
      compared(stateRead, with: other)
      ?? auth.captures(#"(?:const|let|var)\s+(\w+)\s*=\s*"# + stateRead).lazy.compactMap {
        compared(#"\b"# + NSRegularExpression.escapedPattern(for: $0.value) + #"\b"#, with: other)
      }.first
    // `parsed.host !== "auth"` (either order, lowercased or not), or a prefix test against the
    // compiled redirect URL (`callback.startsWith(this.redirectUrl)`).
    settings.handoff.checksCallbackHost =
      compared(#"[\w.]*\.host(?:name)?(?:\.toLowerCase\(\))?"#, with: #"["']auth["']"#)
      ?? auth.captures(#"(\.startsWith\(\s*(?:this\.)?redirectUrl\b)"#).first
    settings.handoff.readsCallbackState = auth.captures("(" + stateRead + ")").first
    settings.handoff.readsCallbackHost =
      auth.captures(#"(\.host(?:name)?\b(?!\s*=[^=]))"#).first
    if let callback = settings.handoff.callback?.value {
      settings.handoff.callbackCheck = HandoffCallbackReader.read(
        auth, scheme: settings.scheme.value, callback: callback)
    }
  }

  /// `src/diagnostics/`: the fields the diagnostics keep (an allowlist, as OpenMapX writes
  /// it: `DIAGNOSTIC_FIELDS` per type, applied with `.includes(key)`) and the keys an export
  /// leaves out (a denylist, `EXCLUDED_KEYS`).
  private func readDiagnosticsExport(into settings: inout BridgeShellSettings) {
    let diagnosticsCode = CodeSearch(
      repository, under: XcodeProject.join(BridgeReader.mobile, "src/diagnostics"),
      suffixes: [".ts"], quotes: ["\"", "'", "`"])
    settings.diagnosticsAllows = DiagnosticsAllowlist.read(diagnosticsCode)
    // A denylist by any of the names it goes by (`EXCLUDED_KEYS`, `REDACTED_KEYS`, …).
    let denylist =
      #"(?:const|let)\s+\w*(?:EXCLUDED|REDACTED|DENIED|DENYLIST|BLOCKLIST|SENSITIVE)\w*\s*(?::[^=]+)?=\s*\[([^\]]*)\]"#
    if let keys = diagnosticsCode.captures(denylist).first {
      let names = keys.value.split(separator: ",").map {
        $0.trimmingCharacters(in: CharacterSet(charactersIn: " \"'"))
      }.filter { !$0.isEmpty }
      settings.diagnosticsExcludes = Sourced(names, at: keys.location)
    } else if settings.diagnosticsAllows == nil, let file = diagnosticsCode.files.first?.file {
      settings.diagnosticsExcludes = Sourced([], at: FileLocation(file: file, line: 0, column: 1))
    }
  }

  /// The handoff server: the files with `handoff` in their path under the profile's
  /// `parts.handoffServer`, else under the monorepo's server folders (`apps/api/src`, where
  /// OpenMapX keeps it, and `apps/web/src`), read by `HandoffServerReader`.
  private func readHandoffServer(into settings: inout BridgeShellSettings) {
    let roots = profile.parts["handoffServer"].map { [$0.value] } ?? BridgeReader.servers
    var search = CodeSearch(
      repository, under: roots, suffixes: [".ts"], quotes: ["\"", "'", "`"])
    let routeSearch = HandoffRoutesReader.routeFiles(search)
    var routes = HandoffRoutesReader.read(routeSearch)
    let served = HandoffContractReader.routes(routeSearch, server: search)
    routes?.exchange = served.exchange
    routes?.issue = served.issue
    if profile.parts["handoffServer"] == nil {
      search.files = search.files.filter { $0.file.lowercased().contains("handoff") }
    }
    settings.handoffServer = HandoffServerReader(search: search).read()
    settings.handoffServer.routes = routes
    if routes?.throttle == nil {
      settings.handoffServer.routes?.throttle = HandoffRoutesReader.outstandingLimit(
        search, routes: routes)
      if let dead = HandoffRoutesReader.unreachableThrottle(
        routes: routeSearch, service: search, read: routes)
      {
        settings.handoffServer.routes?.throttles = dead
      }
    }
    settings.handoffServer.searched = roots
    // The page that posts the code and its verifier: the web app's, beside the server.
    let clientRoots = profile.parts["handoffClient"].map { [$0.value] } ?? BridgeReader.webClients
    let client = CodeSearch(
      repository, under: clientRoots, suffixes: [".ts", ".tsx"], quotes: ["\"", "'", "`"])
    (settings.exchangeCall, settings.issueCall, settings.exchangeCallUnread) =
      HandoffContractReader.calls(client, routeFiles: settings.handoffServer.routes?.files ?? [])
    settings.exchangeCallSearched = clientRoots
  }
}
