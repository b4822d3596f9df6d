import Foundation
import QualifyCore

/// A multi-instance shell (seed 004): no env files and no fixed origin. What is read is the
/// Capacitor config at the Capacitor root (`capacitor.config.ts` as committed, not a synced
/// copy), the native projects (schemes, transport policy, the Swift files the iOS target
/// compiles, the Android activity that receives deep links) and the native sources' use of
/// cookies and auth headers.
extension BuildReader {
  mutating func readMultiInstance() -> [Platform: AppBuild] {
    var settings = InstanceShellSettings()
    var appId: Sourced<String>?
    var capacitor = CapacitorConfig(
      file: XcodeProject.join(profile.capacitorRoot, "capacitor.config.ts"))
    readConfigSource(into: &settings, capacitor: &capacitor, appId: &appId)
    let deepLinks = profile.use(of: .deepLinks)
    if profile.deepLinkScheme == nil && deepLinks != .unused {
      diagnostics.append(
        .error(
          at: profile.file.map { FileLocation(file: $0, line: 1, column: 1) },
          "a multi-instance shell names the scheme its deep links arrive on",
          hint:
            "add \"deepLinkScheme\": \"sovereign\" (for sovereign://<host>/<path>) to qualify.json, or \"features\": {\"deepLinks\": false} when this release has none"
        )
      )
    }
    // A release without deep links has no scheme to register or hand over, whatever a base
    // profile names.
    if let scheme = profile.deepLinkScheme, deepLinks != .unused {
      settings.deepLinkScheme = Sourced(
        scheme,
        at: FileLocation(
          file: profile.file ?? "qualify.json", line: profile.keyLines["deepLinkScheme"] ?? 1,
          column: 1))
    }
    settings.nativeAuthCode = nativeAuthCode()
    settings.code = readCode(scheme: profile.deepLinkScheme)

    var builds: [Platform: AppBuild] = [:]
    for platform in Platform.allCases {
      var build = AppBuild(
        platform: platform, channel: channel, parts: .multiInstance(settings), name: profile.name,
        displayName: profile.title,
        appId: appId ?? Sourced(profile.appId ?? "", at: nil), syncedAppId: appId,
        callbackScheme: settings.deepLinkScheme,
        registeredSchemes: [], capacitor: capacitor, transport: TransportSettings(),
        authSession: AuthSessionSettings(), push: PushShellSettings(),
        guards: BuildGuardSettings(),
        // No fixed API origin: the instances are the user's, chosen at run time.
        frontend: FrontendSettings(apiOrigin: Sourced("", at: nil), isDevBuild: channel == .dev),
        files: resolvedFiles(for: platform))
      build.features.ota = FeatureState(
        enabled: false, use: .unused, decidedBy: "a multi-instance shell has no OTA channel")
      build.features.deepLinks =
        deepLinks == .unused
        ? FeatureState(
          enabled: false, use: .unused,
          decidedBy:
            "declared at \(profile.file ?? "qualify.json"):\(profile.keyLines["features.deepLinks"] ?? 1)"
        )
        : FeatureState(
          enabled: true, use: deepLinks,
          decidedBy: "deep links arrive on \(profile.deepLinkScheme ?? "?")://")
      build.features.deepLinks.declaredByProfile = true
      build.transport.capacitorCleartext = capacitor.cleartext.flatMap { $0.value ? $0 : nil }
      switch platform {
      case .ios: readInstanceShellIOS(into: &build)
      case .android: readInstanceShellAndroid(into: &build)
      }
      readDeviceBridgeFeature(into: &build)
      builds[platform] = build
    }
    return builds
  }

  /// `capacitor.config.ts` (or `.js`, `.json`) at the Capacitor root.
  private mutating func readConfigSource(
    into settings: inout InstanceShellSettings, capacitor: inout CapacitorConfig,
    appId: inout Sourced<String>?
  ) {
    let candidates = ["capacitor.config.ts", "capacitor.config.js", "capacitor.config.json"]
      .map { XcodeProject.join(profile.capacitorRoot, $0) }
    for path in candidates {
      let found: (text: String, display: String)?
      do {
        found = try repository.text(path)
      } catch {
        collect(error)
        return
      }
      guard let (text, file) = found else { continue }
      do {
        let config =
          path.hasSuffix(".json")
          ? try JSONDocument(text: text, file: file).value
          : try ConfigLiteral.parse(text: text, file: file)
        capacitor = CapacitorConfig(file: file)
        func at(_ path: String) -> FileLocation { location(file, config.line(at: path)) }
        if let id = config["appId"]?.string {
          appId = Sourced(id, at: at("appId"))
          capacitor.appId = appId
        }
        if config["server"] == .null {
          settings.computedServer = Sourced("(computed)", at: at("server"))
        } else if let server = config["server"] {
          if let url = server["url"], url != .string("") {
            // A computed URL is still a baked-in one.
            capacitor.serverURL = Sourced(url.string ?? "(computed)", at: at("server.url"))
          }
          if let cleartext = server["cleartext"] {
            // A computed flag may be true: taken as set.
            capacitor.cleartext = Sourced(cleartext.bool ?? true, at: at("server.cleartext"))
          }
          for item in server["allowNavigation"]?.array ?? [] {
            settings.allowNavigation.append(
              Sourced(item.string ?? "(computed)", at: at("server.allowNavigation")))
          }
        }
        capacitor.nativeHTTP = config.at("plugins.CapacitorHttp.enabled")?.bool.map {
          Sourced($0, at: at("plugins.CapacitorHttp.enabled"))
        }
      } catch {
        collect(error)
      }
      return
    }
    diagnostics.append(
      .error(
        at: nil,
        "no Capacitor config at \(candidates.joined(separator: ", "))",
        hint: "set \"capacitorRoot\" in qualify.json to the folder holding capacitor.config.ts"))
  }

  private mutating func readInstanceShellIOS(into build: inout AppBuild) {
    let paths = profile.paths
    let project = readXcodeProject()
    build.instanceShell?.projectFile = project?.file
    let settings = buildSettings(project: project, environment: EnvLayers([]))
    if let id = settings.value("PRODUCT_BUNDLE_IDENTIFIER"), !id.value.isEmpty {
      build.appId = Sourced(id.value, at: id.location, derivation: id.derivation)
    }
    if let path = paths["ios.infoPlist"] {
      do {
        if let (data, file) = try repository.data(path) {
          let plist = try PropertyListReader.parse(data: data, file: file)
          readInfoPlist(plist, file: file, path: path, settings: settings, into: &build)
        } else {
          diagnostics.append(
            .error(
              at: nil, "iOS Info.plist not found at \(path)",
              hint: "name it as \"ios.infoPlist\" under \"paths\" in qualify.json"))
        }
      } catch {
        collect(error)
      }
    }
    let conditions = Set(
      (settings.value("SWIFT_ACTIVE_COMPILATION_CONDITIONS")?.value ?? "")
        .split(separator: " ").map(String.init))
    // The Swift files in the app's folder against what the target's Sources phase compiles:
    // in a classic-format project a file must be added by hand, and one left out is not a
    // build error but a black screen at launch (seed 004, task 20.1).
    guard let project, let target = project.applicationTarget else {
      build.instanceShell?.code.iosBackGesture = readBackGesture(
        conditions: conditions, compiled: nil)
      return
    }
    let folder =
      paths["ios.infoPlist"].map { ($0 as NSString).deletingLastPathComponent }
      ?? XcodeProject.join(profile.capacitorRoot, "ios/App/App")
    let compiled = Set(target.compiledSources.filter { $0.hasSuffix(".swift") })
    build.instanceShell?.compiledSwiftFiles = compiled.sorted()
    build.instanceShell?.code.iosBackGesture = readBackGesture(
      conditions: conditions, compiled: compiled)
    let sourcesLine = target.line
    for file in repository.files(under: folder, suffix: ".swift") where !compiled.contains(file) {
      build.instanceShell?.uncompiledSwiftFiles.append(
        Sourced(file, at: location(project.file, sourcesLine)))
    }
  }

  private mutating func readInstanceShellAndroid(into build: inout AppBuild) {
    let paths = profile.paths
    if let path = paths["android.buildGradle"] {
      do {
        if let (text, file) = try repository.text(path) {
          let script = GradleScript.read(
            text: text, file: file, buildType: gradleBuildType, environment: EnvLayers([]),
            ext: [:], properties: [:])
          if let id = script.applicationId?.value {
            build.appId = Sourced(id, at: script.applicationId?.location)
          }
        }
      } catch {
        collect(error)
      }
    }
    readManifest(
      into: &build,
      placeholders: [
        "applicationId": ResolvedValue(
          value: build.appId.value, derivation: [], location: build.appId.location, unresolved: nil)
      ])
    // Which activity receives the scheme, and how it is launched; which one the launcher starts.
    guard let path = paths["android.manifest"], let (text, file) = try? repository.text(path),
      let root = try? XMLReader.parse(text: text, file: file)
    else { return }
    let scheme = build.instanceShell?.deepLinkScheme?.value.lowercased()
    for activity in root.children("application").first?.children("activity") ?? [] {
      let name = activity.attributes["android:name"] ?? "(unnamed)"
      for filter in activity.children("intent-filter") {
        let actions = filter.children("action").compactMap { $0.attributes["android:name"] }
        let categories = filter.children("category").compactMap { $0.attributes["android:name"] }
        if actions.contains("android.intent.action.MAIN")
          && categories.contains("android.intent.category.LAUNCHER")
        {
          build.instanceShell?.launcherActivity = Sourced(name, at: location(file, activity.line))
        }
        let schemes = filter.children("data").compactMap {
          $0.attributes["android:scheme"]?.lowercased()
        }
        if let scheme, schemes.contains(scheme) {
          build.instanceShell?.deepLinkLaunchMode = Sourced(
            activity.attributes["android:launchMode"] ?? "standard",
            at: location(file, activity.line))
        }
      }
    }
  }

  /// What the app's own code does about seed 004's rules (see `InstanceShellCode`).
  private func readCode(scheme: String?) -> InstanceShellCode {
    var code = InstanceShellCode()
    func sources(_ root: String, _ suffixes: [String], quotes: Set<Character>) -> CodeSearch {
      CodeSearch(
        repository, under: XcodeProject.join(profile.capacitorRoot, root), suffixes: suffixes,
        quotes: quotes)
    }
    let android = sources("android/app/src/main/java", [".java", ".kt"], quotes: ["\""])
    let ios = sources("ios/App/App", [".swift"], quotes: ["\""])
    let web = sources("src", [".ts", ".js", ".tsx", ".jsx"], quotes: ["\"", "'", "`"])
    // Back must carry the parameter boot() tests, whatever the web code names it.
    let boot = LocalPageBootReader(web: web)
    code.bootManagerParameter = boot.managerParameter()
    code.bootHonoursManager = boot.bootHonoursManager(
      parameter: code.bootManagerParameter?.value ?? "manage")
    (code.androidBackLoadsManager, code.androidBackLoadsPlainLocal) =
      AndroidBackReader(android: android).read(
        parameter: code.bootManagerParameter?.value ?? "manage", unread: &code.androidBackUnread)
    code.androidNavigationPolicy = android.fact(
      [["shouldOverrideUrlLoading", "setWebViewClient("]], home: "BridgeActivity")
    code.iosNavigationPolicy = ios.fact(
      [["decidePolicyFor", "navigationDelegate = self"]], home: "CAPBridgeViewController")
    code.iosSameOrigin =
      ios.files.lazy.compactMap {
        NavigationPolicyReader(file: $0.file, lines: $0.lines).decision(marker: "decidePolicyFor")
      }.first
    code.androidSameOrigin =
      android.files.lazy.compactMap {
        NavigationPolicyReader(file: $0.file, lines: $0.lines).decision(
          marker: "shouldOverrideUrlLoading")
      }.first
    code.iosSchemeGate =
      ios.files.lazy.compactMap {
        NavigationPolicyReader(file: $0.file, lines: $0.lines).schemeGate(
          marker: "decidePolicyFor")
      }.first
    code.androidSchemeGate =
      android.files.lazy.compactMap {
        NavigationPolicyReader(file: $0.file, lines: $0.lines).schemeGate(
          marker: "shouldOverrideUrlLoading")
      }.first
    if let scheme {
      Self.readDeepLinkHandoff(scheme: scheme, ios: ios, android: android, into: &code)
    }
    Self.readOnboardingDecisions(web, into: &code)
    let manager = ManagerActionsReader(
      web: web, styles: sources("src", [".css"], quotes: ["\"", "'"]))
    code.managerRemoveLabelled = manager.removeButtonLabelled()
    code.managerOpen = manager.openSavesActive()
    code.managerRemove = manager.removeClearsActive()
    code.addLoadsInstance = manager.addLoadsInstance()
    code.pageshowHandler = web.fact([["pageshow"]], home: "boot")
    if code.pageshowHandler?.value == true, let restore = boot.pageshowRendersOnRestore(),
      !restore.value
    {
      code.pageshowHandler = restore
    }
    var unread: Sourced<String>?
    code.bootChecksBackForward = boot.bootChecksBackForward(unread: &unread)
    code.bootRedirectUnread = unread
    if boot.bootBlock() == nil { code.bootUnfound = Sourced(boot.bootUnfound, at: nil) }
    code.deepLinkHandlerNavigates = boot.deepLinkHandlerNavigates(
      unread: &code.deepLinkHandlerUnread)
    code.iosSnapshotsLocalScripts = LocalScriptsSnapshotReader.read(ios)
    if let written = SharedStorageKeyReader.web(web) {
      code.webActiveKey = written.key
      code.webStorageGroup = written.group
    }
    code.iosIsolatesRemoteContent = RemoteIsolationReader.iosIsolation(ios)
    code.iosRestoresLocalMode = RemoteIsolationReader.iosLocalRestore(
      ios, isolation: code.iosIsolatesRemoteContent)
    code.iosDeviceBridge = RemoteIsolationReader.iosDeviceBridge(ios)
    code.androidDeviceBridge = RemoteIsolationReader.androidDeviceBridge(android)
    code.iosActiveKey = SharedStorageKeyReader.ios(ios)
    code.androidActiveKey = SharedStorageKeyReader.android(android)
    code.replacesLocation = web.fact([["location.replace("]], home: "location.assign(")
    // An assignment, not a comparison (`location.href === x` only reads the URL).
    let assigns = web.captures(#"(location\.(?:assign|replace)\(|location\.href\s*=(?!=))"#)
      .first
    if let first = web.files.first {
      code.loadsInstance = Sourced(
        assigns != nil,
        at: assigns?.location ?? web.find(["loadInstance"])
          ?? FileLocation(file: first.file, line: 0, column: 1))
    }
    if let first = web.files.first {
      // The path the check fetches, as written (a typo is a 404 on every instance); else the
      // first endpoint of seed 004 the code names.
      let fetch = #"fetch\(\s*[`'"][^`'"]*?(/api/[A-Za-z0-9_/.-]*[A-Za-z0-9_])/?[`'"?]"#
      let check = web.definition(of: "checkInstance")
      let inCheck = check.flatMap { block -> Sourced<String>? in
        guard let path = InstanceDecisionReader.matches(fetch, block.body).first?.first,
          let range = block.body.range(of: fetch, options: .regularExpression)
        else { return nil }
        let line = block.line + block.body[..<range.lowerBound].filter { $0 == "\n" }.count
        return Sourced(path, at: FileLocation(file: block.file, line: line, column: 1))
      }
      if let fetched = inCheck ?? web.captures(fetch).first {
        code.validationEndpoint = fetched
      } else {
        for endpoint in ["/api/admin/health", "/api/instance", "/api/health"] {
          if let at = web.find([endpoint]) {
            code.validationEndpoint = Sourced(endpoint, at: at)
            break
          }
        }
      }
      let preferences = web.find(["@capacitor/preferences"]) != nil
      if !preferences, let at = web.find(["localStorage"]) {
        code.storesInLocalStorage = Sourced(true, at: at)
      } else {
        code.storesInLocalStorage = Sourced(
          false, at: FileLocation(file: first.file, line: 0, column: 1))
      }
    }
    return code
  }

  /// The deep link handed to the web view on each platform, and the scheme tests on the way
  /// evaluated on a link the seed's checklist opens.
  static func readDeepLinkHandoff(
    scheme: String, ios: CodeSearch, android: CodeSearch, into code: inout InstanceShellCode
  ) {
    code.iosDeepLinkHandoff = ios.fact(
      [["open url", "\"\(scheme)\""]], home: "UIApplicationDelegate")
    code.androidDeepLinkHandoff = android.fact(
      [["onNewIntent", "getData()", "loadUrl("]], home: "BridgeActivity")
    // The scheme tests on the way, evaluated on a link the seed's checklist opens.
    let link = "\(scheme)://work.example/plugins/console"
    if code.iosDeepLinkHandoff?.value == true,
      let read = ios.files.lazy.compactMap({
        NavigationPolicyReader(file: $0.file, lines: $0.lines).deepLinkHandoff(
          marker: "open url", handoff: ["loadDeepLink(", ".load(", "loadUrl("], testURL: link)
      }).first, !read.value
    {
      code.iosDeepLinkHandoff = read
    }
    if code.androidDeepLinkHandoff?.value == true,
      let read = android.files.lazy.compactMap({
        NavigationPolicyReader(file: $0.file, lines: $0.lines).deepLinkHandoff(
          marker: "getData()", handoff: ["loadUrl("], testURL: link)
      }).first, !read.value
    {
      code.androidDeepLinkHandoff = read
    }
  }

  /// Native sources that handle sign-in themselves: cookie stores, auth headers, the
  /// instance's auth endpoints. The shell is a window on the instance; auth is the instance's.
  private func nativeAuthCode() -> [Sourced<String>] {
    let markers = [
      "HTTPCookieStorage", "WKHTTPCookieStore", "httpCookieStore", "CookieManager",
      "\"Authorization\"", "setRequestProperty(\"Cookie\"", "/api/auth",
    ]
    var out: [Sourced<String>] = []
    let roots = [
      XcodeProject.join(profile.capacitorRoot, "ios/App/App"),
      XcodeProject.join(profile.capacitorRoot, "android/app/src/main/java"),
    ]
    for root in roots {
      for suffix in [".swift", ".java", ".kt"] {
        for path in repository.files(under: root, suffix: suffix) {
          guard let (text, display) = (try? repository.text(path)).flatMap({ $0 }) else {
            continue
          }
          for (index, code) in SourceText.codeLines(text) {
            if let marker = markers.first(where: { code.contains($0) }) {
              out.append(
                Sourced(marker, at: FileLocation(file: display, line: index + 1, column: 1)))
            }
          }
        }
      }
    }
    return out
  }
}

extension BuildReader {
  /// The project `ios.project` names, nil (with a diagnostic) when it is missing or unreadable.
  mutating func readXcodeProject() -> XcodeProject? {
    guard let path = profile.paths["ios.project"] else { return nil }
    do {
      if let (text, file) = try repository.text(path) {
        return try XcodeProject.parse(text: text, file: file, projectPath: path)
      }
      diagnostics.append(
        .error(
          at: nil, "the iOS project is not found at \(path)",
          hint: "name it as \"ios.project\" under \"paths\" in qualify.json"))
    } catch {
      collect(error)
    }
    return nil
  }

  /// The device bridge as a feature: on when the platform's code gives instances one, unless
  /// the profile declares it absent (`features.deviceBridge`).
  private func readDeviceBridgeFeature(into build: inout AppBuild) {
    let code = build.instanceShell?.code
    let bridge = build.platform == .ios ? code?.iosDeviceBridge : code?.androidDeviceBridge
    let use = profile.use(of: .deviceBridge)
    if use == .unused {
      build.features.deviceBridge = FeatureState(
        enabled: false, use: .unused,
        decidedBy:
          "declared at \(profile.file ?? "qualify.json"):\(profile.keyLines["features.deviceBridge"] ?? 1)"
      )
      build.features.deviceBridge.declaredByProfile = true
      return
    }
    build.features.deviceBridge = FeatureState(
      enabled: bridge != nil, use: use,
      decidedBy: bridge.map { "\($0.value.name) (\($0.origin))" }
        ?? (build.platform == .ios
          ? "no WKScriptMessageHandler of the app's own (didReceive message: WKScriptMessage)"
          : "no addWebMessageListener( or addJavascriptInterface( in the app's code"))
    build.features.deviceBridge.declaredByProfile = use != .auto
  }
}
