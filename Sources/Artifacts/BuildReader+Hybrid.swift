import Foundation
import QualifyCore
import QualifyCrypto

/// A hybrid WebView app (seed 003): Kotlin and Swift containers loading a server-rendered
/// site. What is read: the site's origin and links (qualify.json `hybrid`), the native
/// projects (bundle id and team, entitlements, the manifest's permission and App Links
/// filters, the Firebase configs), the signing certificate, the backend's env and
/// `.well-known` files, and what the native and PHP code do about the seed's rules.
extension BuildReader {
  mutating func readHybrid() -> [Platform: AppBuild] {
    let profileFile = profile.file ?? "qualify.json"
    let hybridProfile = profile.hybrid ?? HybridProfile()
    let hybridLine = profile.keyLines["hybrid"] ?? 1
    let at: (String) -> FileLocation = { key in
      FileLocation(file: profileFile, line: hybridProfile.lines[key] ?? hybridLine, column: 1)
    }
    guard let origin = hybridProfile.webOrigin else {
      diagnostics.append(
        .error(
          at: at("webOrigin"), "a hybrid WebView app names the site its containers load",
          hint: "add \"hybrid\": {\"webOrigin\": \"https://www.example.org\"} to qualify.json"))
      return [:]
    }
    guard let components = URLComponents(string: origin), components.scheme == "https",
      components.host?.isEmpty == false, ["", "/"].contains(components.path),
      components.query == nil
    else {
      diagnostics.append(
        .error(
          at: at("webOrigin"),
          "hybrid.webOrigin must be the site's https origin (https://host), not \(origin)",
          hint: "Universal Links and App Links are https only"))
      return [:]
    }
    let webOrigin = Sourced(
      origin.hasSuffix("/") ? String(origin.dropLast()) : origin, at: at("webOrigin"))
    var base = HybridShellSettings(webOrigin: webOrigin)
    base.links = hybridProfile.links
    base.settingsLink = hybridProfile.settingsLink.map { Sourced($0, at: at("settingsLink")) }
    readBackend(hybridProfile.backend, into: &base)
    let release = certificate(hybridProfile.releaseCertificate, key: "releaseCertificate", at: at)
    let debug = certificate(hybridProfile.debugCertificate, key: "debugCertificate", at: at)
    base.debugCertificateSHA256 = debug?.value
    if channel.isRelease {
      base.signingCertificateSHA256 = release
    } else {
      // A debug build is signed with the debug keystore: the team's when the profile names
      // it, else one of this machine's, which no assetlinks.json lists.
      base.signingCertificateSHA256 =
        debug
        ?? Sourced(
          AssociationFiles.localDebugFingerprint,
          at: nil, derivation: ["a debug build is signed with the local debug keystore"])
    }
    if channel.isRelease && release == nil && hybridProfile.releaseCertificate == nil {
      diagnostics.append(
        .error(
          at: at("releaseCertificate"),
          "a hybrid WebView app names the certificate its release builds are signed with",
          hint:
            "add \"releaseCertificate\": \"path/to/release-certificate.pem\" under \"hybrid\" (keytool -exportcert -rfc, or Play Console's app-signing certificate)"
        ))
    }

    var builds: [Platform: AppBuild] = [:]
    for platform in Platform.allCases {
      var build = AppBuild(
        platform: platform, channel: channel, parts: .hybridWebView(base), name: profile.name,
        displayName: profile.title,
        appId: Sourced(profile.appId ?? "", at: nil), syncedAppId: nil,
        callbackScheme: nil, registeredSchemes: [], capacitor: nil, transport: TransportSettings(),
        authSession: AuthSessionSettings(), push: PushShellSettings(),
        guards: BuildGuardSettings(),
        frontend: FrontendSettings(apiOrigin: webOrigin, isDevBuild: channel == .dev),
        files: resolvedFiles(for: platform))
      build.features.ota = FeatureState(
        enabled: false, use: .unused, decidedBy: "a hybrid WebView app has no OTA channel")
      build.features.push = FeatureState(
        enabled: true, use: .used, decidedBy: "seed 003: FCM pushes carrying a targetUrl")
      switch platform {
      case .ios: readHybridIOS(into: &build)
      case .android: readHybridAndroid(into: &build)
      }
      builds[platform] = build
    }
    return builds
  }

  /// A PEM certificate's SHA-256, or the fingerprint written as such.
  private mutating func certificate(
    _ value: String?, key: String, at: (String) -> FileLocation
  ) -> Sourced<String>? {
    guard let value else { return nil }
    if value.filter(\.isHexDigit).count == 64 && !value.contains("/") && !value.contains(".") {
      return Sourced(AssociationFiles.normalized(value), at: at(key))
    }
    do {
      guard let (text, file) = try repository.text(value) else {
        diagnostics.append(
          .error(
            at: at(key), "the certificate \(value) named as hybrid.\(key) does not exist",
            hint: "a PEM certificate (its public half): keytool -exportcert -rfc -alias …"))
        return nil
      }
      guard let fingerprint = AssociationFiles.fingerprint(ofPEM: text) else {
        diagnostics.append(
          .error(
            at: FileLocation(file: file, line: 1, column: 1),
            "\(file) holds no PEM certificate (-----BEGIN CERTIFICATE-----)"))
        return nil
      }
      return Sourced(
        fingerprint, at: FileLocation(file: file, line: 1, column: 1),
        derivation: ["SHA-256 of the certificate in \(file)"])
    } catch {
      collect(error)
      return nil
    }
  }

  /// The Symfony backend: `FIREBASE_PROJECT_ID` from `.env` then `.env.<APP_ENV>` (prod for
  /// release channels), the `.well-known` files, and the PHP code's rules.
  private mutating func readBackend(_ root: String, into settings: inout HybridShellSettings) {
    var files: [EnvFile] = []
    let mode = channel.isRelease ? "prod" : "dev"
    for name in [".env", ".env.local", ".env.\(mode)", ".env.\(mode).local"] {
      do {
        if let (text, display) = try repository.text(XcodeProject.join(root, name)) {
          files.append(try EnvFile(text: text, path: display))
        }
      } catch {
        collect(error)
      }
    }
    // The pipeline's own env (`--backend-env`), over the committed files.
    files += commandLineEnv(extraEnv.backend, role: "backend")
    let env = EnvLayers(files)
    if let project = env["FIREBASE_PROJECT_ID"], !project.isEmpty {
      settings.backendFirebaseProject = Sourced(
        project, at: env.location(of: "FIREBASE_PROJECT_ID"))
    }
    for (name, keyPath) in [
      ("apple-app-site-association", \HybridShellSettings.appleAssociation),
      ("assetlinks.json", \HybridShellSettings.assetLinks),
    ] {
      do {
        if let (text, display) = try repository.text(
          XcodeProject.join(root, "public/.well-known/\(name)"))
        {
          settings[keyPath: keyPath] = AssociationFileText(path: display, text: text)
        }
      } catch {
        collect(error)
      }
    }
    let php = CodeSearch(
      repository, under: XcodeProject.join(root, "src"), suffixes: [".php"], quotes: ["\"", "'"])
    var code = HybridBackendCode()
    code.checksUserSalt = php.fact(
      [["getSalt()", "HTTP_UNAUTHORIZED"]], home: "-register", sameFile: true)
    code.movesOtherUsersToken = php.fact(
      [["findOneByToken", "->remove($existingToken)"]], home: "-register", sameFile: true)
    code.idempotentForSameUser = php.fact(
      [["getUser() === $user", "already registered"]], home: "-register", sameFile: true)
    // The handler of LogoutEvent itself calls the task (a `use` or an injected but unused
    // task is not a deletion).
    code.logoutDeletesToken = php.blockDoes(
      after: "LogoutEvent $",
      ["deleteDeviceTask)(", "deleteDeviceTask->__invoke(", "DeleteDeviceTask())("],
      home: "LogoutEvent")
    code.registrationForm = Self.registrationForm(
      php, path: "-register", pairs: #"\$(\w+)\s*=\s*\$request->request->get\('(\w+)'\)"#,
      fieldFirst: false)
    code.sendsTargetUrl = php.fact(
      [["messages:send", "'targetUrl'"]], home: "messages:send", sameFile: true)
    if let sender = php.find(["function sendToDevice("]) {
      let optOut = php.captures(
        #"(if\s*\(\s*!\s*\$\w+->isNotificationActivated\(\)\s*(?:\|\||\)))"#
      ).first
      code.honoursDeviceOptOut = Sourced(
        optOut != nil, at: optOut?.location ?? sender,
        derivation: optOut == nil
          ? ["sendToDevice sends whatever the device's notificationActivated says"] : [])
    }
    settings.backendCode = code
  }

  private mutating func readHybridIOS(into build: inout AppBuild) {
    let paths = profile.paths
    let project = readXcodeProject()
    let settings = buildSettings(project: project, environment: EnvLayers([]))
    if let id = settings.value("PRODUCT_BUNDLE_IDENTIFIER"), !id.value.isEmpty {
      build.appId = Sourced(id.value, at: id.location, derivation: id.derivation)
    }
    if let team = settings.value("DEVELOPMENT_TEAM"), !team.value.isEmpty {
      build.hybrid?.teamId = Sourced(team.value, at: team.location, derivation: team.derivation)
    }
    let appFolder =
      paths["ios.infoPlist"].map { ($0 as NSString).deletingLastPathComponent }
      ?? XcodeProject.join(profile.capacitorRoot, "ios/App/App")
    var sceneManifest: FileLocation?
    if let path = paths["ios.infoPlist"] {
      do {
        if let (data, file) = try repository.data(path) {
          let plist = try PropertyListReader.parse(data: data, file: file)
          readInfoPlist(plist, file: file, path: path, settings: settings, into: &build)
          if plist["UIApplicationSceneManifest"] != nil {
            sceneManifest = location(file, plist.line(of: "UIApplicationSceneManifest"))
          }
          if let proxy = plist["FirebaseAppDelegateProxyEnabled"]?.bool {
            build.hybrid?.firebaseProxyEnabled = Sourced(
              proxy, at: location(file, plist.line(of: "FirebaseAppDelegateProxyEnabled")))
          }
        }
      } catch {
        collect(error)
      }
    }
    readHybridEntitlements(settings, into: &build)
    readGoogleServiceInfo(in: appFolder, into: &build)
    build.hybrid?.code = readHybridIOSCode(in: appFolder, sceneManifest: sceneManifest)
  }

  /// The entitlements the target signs with: CODE_SIGN_ENTITLEMENTS, relative to the
  /// project's folder.
  private mutating func readHybridEntitlements(
    _ settings: XcodeBuildSettings, into build: inout AppBuild
  ) {
    let paths = profile.paths
    if let entitlements = settings.value("CODE_SIGN_ENTITLEMENTS"), !entitlements.value.isEmpty {
      let projectFolder =
        paths["ios.project"].map {
          (($0 as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
        } ?? XcodeProject.join(profile.capacitorRoot, "ios/App")
      let path = XcodeProject.join(projectFolder, entitlements.value)
      do {
        if let (data, file) = try repository.data(path) {
          build.hybrid?.entitlementsFile = file
          let plist = try PropertyListReader.parse(data: data, file: file)
          if let aps = plist["aps-environment"]?.string {
            build.hybrid?.apsEnvironment = Sourced(
              aps, at: location(file, plist.line(of: "aps-environment")))
          }
          let line = plist.line(of: "com.apple.developer.associated-domains")
          for domain in plist["com.apple.developer.associated-domains"]?.array ?? [] {
            if let value = domain.string {
              build.hybrid?.associatedDomains.append(Sourced(value, at: location(file, line)))
            }
          }
        } else {
          diagnostics.append(
            .error(
              at: entitlements.location,
              "CODE_SIGN_ENTITLEMENTS names \(entitlements.value), which does not exist at \(path)")
          )
        }
      } catch {
        collect(error)
      }
    }
  }

  /// `GoogleService-Info.plist` beside the Info.plist: the Firebase project and app.
  private mutating func readGoogleServiceInfo(in appFolder: String, into build: inout AppBuild) {
    let googleService = XcodeProject.join(appFolder, "GoogleService-Info.plist")
    do {
      if let (data, file) = try repository.data(googleService) {
        let plist = try PropertyListReader.parse(data: data, file: file)
        // FirebaseApp.configure() takes the app id and sender from here; Firebase
        // Installations, which every FCM token request goes through, also needs the API key
        // and the project: without one, Messaging never hands the app a token.
        build.hybrid?.firebaseConfigFile = file
        build.hybrid?.firebaseMissing = ["GOOGLE_APP_ID", "GCM_SENDER_ID", "API_KEY", "PROJECT_ID"]
          .filter { (plist[$0]?.string ?? "").isEmpty }
        if let project = plist["PROJECT_ID"]?.string {
          build.hybrid?.firebaseProject = Sourced(
            project, at: location(file, plist.line(of: "PROJECT_ID")))
        }
        if let bundle = plist["BUNDLE_ID"]?.string {
          build.hybrid?.firebaseApps.append(
            Sourced(bundle, at: location(file, plist.line(of: "BUNDLE_ID"))))
        }
      }
    } catch {
      collect(error)
    }
  }

  /// The iOS container's Swift code: the bridge, the permission's answer, the APNs hand-over,
  /// the token registration, foreground pushes, taps and links.
  /// `sceneManifest`: where Info.plist declares scenes (`UIApplicationSceneManifest`), if it does.
  private func readHybridIOSCode(in appFolder: String, sceneManifest: FileLocation?)
    -> HybridShellCode
  {
    let swift = CodeSearch(repository, under: appFolder, suffixes: [".swift"], quotes: ["\""])
    var code = HybridShellCode()
    if swift.files.isEmpty { code.unread = appFolder + "/**/*.swift" }
    code.bridgeName = swift.captures(#"\.add\([^)]*name:\s*"([A-Za-z0-9_]+)"\)"#).first
    code.permissionEvent = swift.fact(
      [["evaluateJavaScript", "onNativePermissionResult"]], home: "WKScriptMessageHandler")
    code.apnsHandoff = swift.fact(
      [["registerForRemoteNotifications", "apnsToken = "]], home: "UIApplicationDelegate")
    code.registersToken = swift.fact([["/api/ios-register"]], home: "didFinish")
    code.registrationForm = Self.registrationForm(
      swift, path: "/api/ios-register",
      pairs: #"URLQueryItem\(name:\s*"(\w+)",\s*value:\s*(\w+)\)"#, fieldFirst: true)
    code.presentsInForeground = Self.presentsInForeground(swift)
    // The handler compares the message's name, and before each native act its body's action,
    // with literals: a page script posting anything else is ignored.
    if let handler = swift.blocks(after: "didReceive message").first {
      let unguarded = ScriptMessageGuards.unguardedActs(handler.body)
      let validates =
        handler.body.range(of: #"message\.name\s*==\s*""#, options: .regularExpression) != nil
        && unguarded.isEmpty
      code.validatesBridgeMessage = Sourced(
        validates,
        at: FileLocation(
          file: handler.file, line: handler.line + (unguarded.first?.line ?? 0), column: 1),
        derivation: validates
          ? []
          : unguarded.isEmpty
            ? ["the handler does not compare message.name with a literal"]
            : unguarded.map {
              "\($0.act) is reached without comparing the message's action with a literal"
            })
    }
    code.opensTargetUrl = swift.fact(
      [["didReceive response", "targetUrl", "webView.load("]],
      home: "UNUserNotificationCenterDelegate")
    readLinkHandling(swift, sceneManifest: sceneManifest, into: &code)
    code.loadsLiveSite = Self.loadsLiveSite(
      swift, bundled: ["loadFileURL(", "loadHTMLString(", "Bundle.main.url(forResource"],
      live: ".load(URLRequest(")
    if let handler = swift.blocks(after: "didReceive message").first {
      let share = swift.find(["UIActivityViewController("])
      code.sharesNatively = Sourced(
        share != nil, at: share ?? FileLocation(file: handler.file, line: handler.line, column: 1),
        derivation: share == nil ? ["no UIActivityViewController in the container's code"] : [])
    }
    return code
  }

  /// Whether the container starts its WebView on the live site: false at the first load of a
  /// bundled copy, true at the first load of a URL, nil when neither is found.
  static func loadsLiveSite(_ code: CodeSearch, bundled: [String], live: String) -> Sourced<Bool>? {
    for marker in bundled {
      if let at = code.find([marker]) {
        return Sourced(false, at: at, derivation: ["the WebView loads a bundled copy (\(marker))"])
      }
    }
    return code.find([live]).map { Sourced(true, at: $0) }
  }

  /// With the notification center's delegate set, iOS shows a push that arrives in the
  /// foreground only with what willPresent hands its completion handler; without the method,
  /// or with an empty or silent set, nothing is shown. Nil without the delegate.
  static func presentsInForeground(_ swift: CodeSearch) -> Sourced<Bool>? {
    if swift.find(["UNUserNotificationCenter.current().delegate"]) != nil {
      if let handler = swift.blocks(after: "willPresent notification").first {
        // The options may be built first (`options.insert(.banner)` per iOS version) and
        // handed over as a variable, the handler may have another name
        // (`withCompletionHandler handler:`), or the async form may return them: the method
        // must hand over a visible option (comments are already blanked).
        let body = handler.body
        let visibleOption =
          body.range(
            of: #"\.(banner|list|alert)\b(?!\w)"#, options: .regularExpression) != nil
        let name =
          body.range(of: #"withCompletionHandler\s+\w+\s*:"#, options: .regularExpression)
          .map { String(body[$0]).split(whereSeparator: { $0 == " " || $0 == ":" })[1] }
          .map(String.init) ?? "completionHandler"
        let isAsync =
          body.range(
            of: #"\)\s*async\s*->\s*UNNotificationPresentationOptions"#,
            options: .regularExpression) != nil
        let visible = visibleOption && (isAsync || body.contains(name + "("))
        return Sourced(
          visible, at: FileLocation(file: handler.file, line: handler.line, column: 1))
      } else {
        return Sourced(false, at: swift.find(["UNUserNotificationCenter.current().delegate"]))
      }
    }
    return nil
  }

  /// The registration form of the file that names `path`: its (field, variable) pairs, and,
  /// for a body joined by hand (`joinToString("&") { (k, v) -> "$k=" + … }`), what the code
  /// writes between a name and its value. Nil when that file does not name each value once.
  static func registrationForm(
    _ code: CodeSearch, path: String, pairs: String, fieldFirst: Bool, separator: String? = nil
  ) -> Sourced<RegistrationForm>? {
    guard let file = code.find([path])?.file else { return nil }
    let found = code.captures(pairs, groups: 2).filter { $0.location?.file == file }
    var between = "="
    if let separator,
      let join = code.captures(separator, groups: 3).first(where: { $0.location?.file == file })
    {
      // `"$k="`: the lambda's key parameter, then the text before the value.
      guard join.value[0] == join.value[1] else { return nil }
      between = join.value[2]
    }
    guard
      let form = RegistrationForm.named(
        found.map { fieldFirst ? ($0.value[0], $0.value[1]) : ($0.value[1], $0.value[0]) },
        separator: between)
    else { return nil }
    return Sourced(form, at: found.first?.location)
  }

  /// The methods after each `@JavascriptInterface` (Kotlin `fun name(`, Java `name(`).
  func bridgeMethods(_ search: CodeSearch) -> [String] {
    var out: [String] = []
    for (_, lines) in search.files {
      var annotated = false
      for (_, line) in lines {
        if line.contains("@JavascriptInterface") {
          annotated = true
          if line.contains("fun ") == false { continue }
        }
        guard annotated else { continue }
        let pattern = #"fun\s+([A-Za-z0-9_]+)\s*\(|public\s+\w+\s+([A-Za-z0-9_]+)\s*\("#
        if let regex = try? NSRegularExpression(pattern: pattern),
          let match = regex.firstMatch(in: line, range: NSRange(line.startIndex..., in: line))
        {
          for group in 1..<match.numberOfRanges {
            if let range = Range(match.range(at: group), in: line) {
              out.append(String(line[range]))
              annotated = false
              break
            }
          }
        }
      }
    }
    return out
  }

  /// `targetSdk 34`, `targetSdkVersion = 34`; a variable is looked up in `variables.gradle`.
  func targetSdk(_ text: String, file: String) -> Sourced<Int>? {
    func find(_ text: String, _ file: String) -> (value: String, line: Int)? {
      let regex = try? NSRegularExpression(
        pattern: #"targetSdk(?:Version)?\s*=?\s*([A-Za-z0-9_.]+)"#)
      for (index, code) in SourceText.codeLines(text) {
        if let match = regex?.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)),
          let range = Range(match.range(at: 1), in: code)
        {
          return (String(code[range]), index + 1)
        }
      }
      return nil
    }
    guard let found = find(text, file) else { return nil }
    if let number = Int(found.value) {
      return Sourced(number, at: location(file, found.line))
    }
    let variables = XcodeProject.join(profile.capacitorRoot, "android/variables.gradle")
    if let (other, display) = (try? repository.text(variables)).flatMap({ $0 }),
      let value = find(other, display), let number = Int(value.value)
    {
      return Sourced(number, at: location(display, value.line))
    }
    return nil
  }
}
