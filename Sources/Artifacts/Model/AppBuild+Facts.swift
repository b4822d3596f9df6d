import QualifyCore

/// One resolved fact of a build, for `qualify check-app --explain` and the report: what
/// qualify read, where, and how build variables resolved.
public struct BuildFact: Sendable, Codable {
  public var name: String
  public var value: String
  public var origin: String?
  public var derivation: [String]
}

extension AppBuild {
  /// The facts the verdicts rest on, in reading order.
  public var facts: [BuildFact] {
    var out: [BuildFact] = []
    func add<T>(_ name: String, _ sourced: Sourced<T>?, _ text: (T) -> String) {
      guard let sourced else {
        out.append(BuildFact(name: name, value: "(not found)", origin: nil, derivation: []))
        return
      }
      out.append(
        BuildFact(
          name: name, value: text(sourced.value),
          origin: sourced.location.map { _ in sourced.origin }, derivation: sourced.derivation))
    }
    add("app id", appId) { $0 }
    if let client = sessionClient {
      // A session-contract app: what its own client code does about seed 002's client rules.
      if let unread = client.unread {
        out.append(
          BuildFact(
            name: "client code", value: "(not found: looked in \(unread))", origin: nil,
            derivation: []))
      }
      for rule in client.rules {
        add("client keeps: \(rule.name)", rule.fact) { $0 ? "yes" : "no" }
      }
    }
    if let shell = instanceShell {
      // A multi-instance shell: its own facts, and what its code does about seed 004's rules.
      add("deep-link scheme", shell.deepLinkScheme) { $0 }
      for scheme in registeredSchemes { add("registered scheme", scheme) { $0 } }
      add("server.url", capacitor?.serverURL) { $0 }
      add("server.cleartext", capacitor?.cleartext) { "\($0)" }
      let code = shell.code
      func yes(_ value: Bool) -> String { value ? "yes" : "no" }
      switch platform {
      case .ios:
        out.append(
          BuildFact(
            name: "compiled Swift files", value: shell.compiledSwiftFiles.joined(separator: ", "),
            origin: shell.projectFile, derivation: []))
        for file in shell.uncompiledSwiftFiles { add("Swift file not compiled", file) { $0 } }
        add("back swipe (allowsBackForwardNavigationGestures)", code.iosBackGesture, yes)
        add("navigation policy (decidePolicyFor)", code.iosNavigationPolicy, yes)
        add("deep links handed to the local page", code.iosDeepLinkHandoff, yes)
      case .android:
        add("launcher activity", shell.launcherActivity) { $0 }
        add("deep-link activity launchMode", shell.deepLinkLaunchMode) { $0 }
        add("usesCleartextTraffic", transport.usesCleartextTraffic) { "\($0)" }
        add("navigation policy (shouldOverrideUrlLoading)", code.androidNavigationPolicy, yes)
        add("back key loads the manager", code.androidBackLoadsManager, yes)
        add("deep links handed to the local page", code.androidDeepLinkHandoff, yes)
      }
      let gate = platform == .ios ? code.iosSchemeGate : code.androidSchemeGate
      add("scheme test before the decision (reaches it when)", gate) {
        switch $0 {
        case .read(let read): "\(read.written)  ⇒ \(read.reachesPolicy)"
        case .unverified(let reason): "unverified: \(reason)"
        }
      }
      let decision = platform == .ios ? code.iosSameOrigin : code.androidSameOrigin
      add("same-origin decision (stays in the WebView when)", decision) {
        switch $0 {
        case .read(let read): "\(read.written)  ⇒ \(read.staysInWebView)"
        case .unverified(let reason): "unverified: \(reason)"
        }
      }
      add("pageshow handler", code.pageshowHandler, yes)
      add("onboarding respects an explicit http://", code.normalizerAcceptsHTTP) {
        $0.release ? "in every build" : $0.dev ? "in dev builds only" : "in no build"
      }
      add("boot() does not redirect on a back-forward load", code.bootChecksBackForward, yes)
      if platform == .android {
        add("boot() does not redirect with the manager parameter", code.bootHonoursManager, yes)
      }
      if platform == .ios {
        add(
          "Capacitor's scripts and bridge removed for remote content",
          code.iosIsolatesRemoteContent, yes)
      }
      add("device bridge", platform == .ios ? code.iosDeviceBridge : code.androidDeviceBridge) {
        "\($0.name): \($0.originScoped ? "the instance's origin only" : "any origin"), \($0.mainFrameOnly ? "main frame only" : "any frame")"
      }
      add("the web code stores the active instance as", code.webActiveKey) {
        "\($0) (Preferences group \(code.webStorageGroup))"
      }
      add(
        "the navigation policy reads the active instance from",
        platform == .ios ? code.iosActiveKey : code.androidActiveKey
      ) { $0 }
      if platform == .ios {
        add("local page's user scripts rebuilt for local mode", code.iosSnapshotsLocalScripts, yes)
        add(
          "Capacitor's scripts and bridge put back for the local page", code.iosRestoresLocalMode,
          yes)
      }
      add("the manager empties its root before re-rendering", code.managerClearsRoot, yes)
      add("loads an instance (location.assign)", code.loadsInstance, yes)
      add("instance check endpoint", code.validationEndpoint) { $0 }
      add("instance check (parseInstanceResponse returns null when)", code.responseCheck) {
        switch $0 {
        case .read(let read): read.rejections.map { "\($0.value)" }.joined(separator: " ; ")
        case .unverified(let reason): "unverified: \(reason)"
        }
      }
      add("onboarding stops before adding when", code.addGate) {
        switch $0 {
        case .read(let read): read.returns.map { "\($0.value)" }.joined(separator: " ; ")
        case .unverified(let reason): "unverified: \(reason)"
        }
      }
      add("a deep link's handler opens the instance", code.deepLinkHandlerNavigates, yes)
      add("location.replace(", code.replacesLocation, yes)
      add("the submit handler loads the instance it added", code.addLoadsInstance, yes)
      add("the manager's open button", code.managerOpen) { $0.rawValue }
      add("removeInstance clears the active instance", code.managerRemove) { $0.rawValue }
      add("the remove button shows a label", code.managerRemoveLabelled, yes)
      add("list kept in localStorage", code.storesInLocalStorage, yes)
      return out
    }
    if let bridge {
      // A React Native bridge shell (seed 001): what it compiles in and what its code does.
      func yes(_ value: Bool) -> String { value ? "yes" : "no" }
      add("release build", bridge.release, yes)
      add("web origin", bridge.webOrigin) { $0 }
      add("API origin", bridge.apiOrigin) { $0 }
      add("scheme", bridge.scheme) { $0 }
      add("official id", bridge.officialAppId) { $0 }
      add("official origin", bridge.officialOrigin) { $0 }
      add("the config refuses the official id elsewhere", bridge.officialBinding, yes)
      if let unread = bridge.configUnread {
        add("the config module run on the build env", unread) { "(not run: \($0))" }
      } else {
        add("the config module throws on the build env", bridge.configThrows, yes)
      }
      add("the callback's refusals let through", bridge.handoff.callbackCheck) {
        ($0.accepts.isEmpty ? "no wrong callback" : $0.accepts.joined(separator: ", "))
          + ($0.refusesRight.map { "; they refuse the right one (\($0.value))" } ?? "")
      }
      for (check, fact) in (bridge.receiverChecks ?? [:]).sorted(by: { $0.key < $1.key }) {
        add("receive() checks the \(check)", fact, yes)
      }
      add("receive() refuses a well-formed message at", bridge.receiverRefusesWellFormed) { $0 }
      for unjudged in bridge.receiverUnjudgedRefusals {
        add("receive() refusal not evaluated", unjudged) { $0 }
      }
      add("a refusal is answered", bridge.rejectionReplies) { $0.rawValue }
      add("version.json protocol", bridge.releaseProtocol) { "\($0)" }
      add("protocol constants", bridge.protocolConstants) { "\($0)" }
      for name in bridge.limits.keys.sorted() { add(name, bridge.limits[name]) { "\($0)" } }
      for capability in bridge.capabilities {
        add("capability \(capability.name)", capability.value, yes)
      }
      add("dispatcher composed", bridge.dispatcherComposed, yes)
      add("descriptor before page scripts", bridge.descriptorBeforeContent, yes)
      add("WebView geolocation off", bridge.geolocationDisabled, yes)
      add("media capture denied", bridge.mediaCaptureDenied, yes)
      add("WebView source", bridge.webViewSource) { $0 }
      add("runtime server selector", bridge.runtimeServerSelector) { $0 }
      add("handoff verifier bytes", bridge.handoff.verifierBytes) { "\($0)" }
      add("handoff path", bridge.handoff.path) { $0 }
      add("handoff challenge method", bridge.handoff.challengeMethod) { $0 }
      add("handoff callback", bridge.handoff.callback) { $0 }
      let navigation = bridge.navigation
      add("WebView navigation handler", navigation.handler) { $0 }
      add("loads in the WebView when", navigation.loadsOn) { $0 }
      add("hands to the system browser when", navigation.opensOn) { $0 }
      add("classifyNavigation returns", navigation.decisions) { $0.joined(separator: ", ") }
      add("classifyNavigation run on look-alike URLs", navigation.function) { _ in
        "yes (the whole function evaluated)"
      }
      add("classifyNavigation keeps in the WebView when", navigation.sameOrigin) { $0 }
      add("envelope() puts the message type in", bridge.envelopeTag) { $0 }
      add("classifyNavigation refuses credentials when", navigation.credentialRefusal) {
        $0.value.map { "\($0)" } ?? "unverified: \($0.problem ?? "")"
      }
      add("classifyNavigation refuses on length when", navigation.lengthRefusal) {
        $0.value.map { "\($0)" } ?? "unverified: \($0.problem ?? "")"
      }
      add("navigation URL length limit", navigation.lengthLimit) { "\($0)" }
      for vocabulary in bridge.vocabularies {
        out.append(
          BuildFact(
            name: "\(vocabulary.list) / \(vocabulary.schema)",
            value:
              "\(vocabulary.listed?.count ?? 0) listed, \(vocabulary.checked?.count ?? 0) with an envelope"
              + (vocabulary.discriminator.map { ", picked by \"\($0.value)\"" } ?? ""),
            origin: vocabulary.schemaAt.map { "\($0)" }, derivation: []))
      }
      for status in bridge.handoff.statuses { add("handoff answers status", status) { $0 } }
      add("auth.result accepts", bridge.handoff.acceptedStatuses) { $0.joined(separator: ", ") }
      add("host test of release origins", bridge.publicHostCheck) {
        switch $0 {
        case .read(let check): "\(check.function.name) (evaluated)"
        case .unverified(let reason): "unread: \(reason)"
        }
      }
      add("diagnostics leave out", bridge.diagnosticsExcludes) { $0.joined(separator: ", ") }
      add("diagnostics keep only", bridge.diagnosticsAllows) { $0.joined(separator: ", ") }
      add("server hashes the code", bridge.handoffServer.hashesCode, yes)
      add("server code lifetime (ms)", bridge.handoffServer.ttlMilliseconds) { "\($0)" }
      add("server consumes atomically", bridge.handoffServer.consumesAtomically, yes)
      add("a wrong verifier burns the code", bridge.handoffServer.wrongVerifierBurns, yes)
      add("the state is the attempt's", bridge.handoffServer.checksState, yes)
      add("rejections are uniform", bridge.handoffServer.uniformRejections, yes)
      add("handoff answers are no-store", bridge.handoffServer.routes?.noStore, yes)
      add("handoff routes refuse another Origin", bridge.handoffServer.routes?.checksOrigin, yes)
      add(
        "handoff routes admit the web app's own page",
        bridge.handoffServer.routes?.admitsOwnPage, yes)
      add("handoff routes throttle", bridge.handoffServer.routes?.throttles, yes)
      add("handoff throttle bound", bridge.handoffServer.routes?.throttle) { $0.description }
      return out
    }
    if let hybrid {
      // A hybrid WebView app (seed 003): the site, what certifies its links, Firebase, and
      // what its native and backend code do about the seed's rules.
      func yes(_ value: Bool) -> String { value ? "yes" : "no" }
      add("site", hybrid.webOrigin) { $0 }
      let code = hybrid.code
      add("the WebView starts on the live site", code.loadsLiveSite, yes)
      switch platform {
      case .ios:
        add("team id", hybrid.teamId) { $0 }
        for domain in hybrid.associatedDomains { add("associated domain", domain) { $0 } }
        add("FirebaseAppDelegateProxyEnabled", hybrid.firebaseProxyEnabled) { "\($0)" }
        add("script message handler", code.bridgeName) { $0 }
        add("APNs token handed to Firebase Messaging", code.apnsHandoff, yes)
        add("push shown in the foreground (willPresent)", code.presentsInForeground, yes)
        add("bridge message checked (name, action)", code.validatesBridgeMessage, yes)
        add("share sheet opened natively", code.sharesNatively, yes)
      case .android:
        add("targetSdk", hybrid.targetSdk) { "\($0)" }
        add("POST_NOTIFICATIONS declared", hybrid.declaresPostNotifications, yes)
        add("WebView JavaScript enabled", code.enablesJavaScript, yes)
        add("WebView DOM storage enabled", code.enablesDomStorage, yes)
        add("a tapped notification leaves the tray (setAutoCancel)", code.autoCancels, yes)
        for filter in hybrid.linkFilters {
          out.append(
            BuildFact(
              name: "link intent filter (\(filter.activity))",
              value:
                "\(filter.hosts.joined(separator: " ")) \((filter.paths + filter.pathPrefixes + filter.pathPatterns).joined(separator: " ")), autoVerify \(filter.autoVerify)",
              origin: filter.location.map { "\($0.file):\($0.line)" }, derivation: []))
        }
        add("signing certificate SHA-256", hybrid.signingCertificateSHA256) { $0 }
        for scheme in registeredSchemes { add("registered scheme", scheme) { $0 } }
        add("JavaScript interface", code.bridgeName) { $0 }
        out.append(
          BuildFact(
            name: "@JavascriptInterface methods", value: code.bridgeMethods.joined(separator: ", "),
            origin: nil, derivation: []))
        add("permission asked on page load", code.asksPermissionOnPageLoad, yes)
      }
      add("Firebase project", hybrid.firebaseProject) { $0 }
      for app in hybrid.firebaseApps { add("Firebase app", app) { $0 } }
      add("backend FIREBASE_PROJECT_ID", hybrid.backendFirebaseProject) { $0 }
      add("permission answer sent to the page", code.permissionEvent, yes)
      add("FCM token registered with the backend", code.registersToken, yes)
      func fields(_ form: RegistrationForm) -> String {
        [form.userId, form.salt, form.token].map { "\($0)\(form.separator)…" }
          .joined(separator: "&")
      }
      add("token registration posts", code.registrationForm, fields)
      add("RegisterNotificationDeviceApi reads", hybrid.backendCode.registrationForm, fields)
      add("push tap opens targetUrl", code.opensTargetUrl, yes)
      add("links open their page", code.opensLinks, yes)
      if platform == .android {
        add("a link while the app runs reaches onNewIntent", code.routesRunningLinks, yes)
      }
      add("a link while the app runs stays in the running WebView", code.linksKeepWebView, yes)
      let backend = hybrid.backendCode
      add("backend checks the user salt", backend.checksUserSalt, yes)
      add("backend moves another user's token", backend.movesOtherUsersToken, yes)
      add("backend registration idempotent", backend.idempotentForSameUser, yes)
      add("logout runs DeleteDeviceTask", backend.logoutDeletesToken, yes)
      add("push payload carries targetUrl", backend.sendsTargetUrl, yes)
      add("no push to a device whose notifications are off", backend.honoursDeviceOptOut, yes)
      return out
    }
    add("synced appId", syncedAppId) { $0 }
    add("callback scheme (JS)", callbackScheme) { $0 }
    for scheme in registeredSchemes { add("registered scheme", scheme) { $0 } }
    for scheme in undeliverableSchemes {
      out.append(
        BuildFact(
          name: "undeliverable scheme", value: "\(scheme.scheme.value): \(scheme.reason)",
          origin: scheme.scheme.location.map { _ in scheme.scheme.origin },
          derivation: scheme.scheme.derivation))
    }
    add("API origin", frontend.apiOrigin) { $0 }
    add("server.url", capacitor?.serverURL) { $0 }
    add("server.cleartext", capacitor?.cleartext) { "\($0)" }
    if authSession.nativeLogout == nil, let path = files["web.auth"] {
      out.append(
        BuildFact(
          name: "nativeLogout", value: "not read: no \(path)", origin: nil,
          derivation: [
            "the simulated logout takes seed 000's four steps, each whatever the others do"
          ]))
    }
    if let logout = authSession.nativeLogout, let problem = logout.problem {
      out.append(
        BuildFact(
          name: "nativeLogout", value: "unverified: \(problem)", origin: logout.file,
          derivation: [
            "the simulated logout takes seed 000's four steps, each whatever the others do"
          ]))
    }
    if let logout = authSession.nativeLogout {
      for step in logout.order {
        guard let placement = logout.steps[step] else { continue }
        out.append(
          BuildFact(
            name: "nativeLogout step", value: step.rawValue + logout.reachText(step),
            origin: "\(placement.location.file):\(placement.location.line)", derivation: []))
      }
    }
    switch platform {
    case .ios:
      add("auth plugin registered", authSession.pluginRegistered) {
        $0 ? "yes" : "no: \(authSession.registrationProblem ?? "not registered")"
      }
      add("prefersEphemeralWebBrowserSession", authSession.prefersEphemeral) { "\($0)" }
      add("strip ATS phase (Release)", guards.iosStripATSPhase) {
        $0 ? "strips" : "does not strip: \(guards.iosStripATSProblem ?? "?")"
      }
      add("aps-environment", push.apsEnvironment) { $0 }
    case .android:
      add("release guard", guards.androidReleaseGuard) {
        $0
          ? "fails on server.url and server.cleartext" : guards.androidReleaseGuardProblem ?? "none"
      }
      add("usesCleartextTraffic", transport.usesCleartextTraffic) { "\($0)" }
      add("Firebase project", push.firebaseProjectId) { $0 }
    }
    out.append(
      BuildFact(
        name: "OTA", value: features.ota.enabled ? "on" : "off", origin: nil,
        derivation: [features.ota.decidedBy]))
    if features.ota.enabled, let capacitor {
      let mode = capacitor.updaterAutoUpdate
      out.append(
        BuildFact(
          name: "CapacitorUpdater.autoUpdate",
          value: mode.map { "\($0.value)" } ?? "unset (the plugin's default: true)",
          origin: mode.map(\.origin) ?? capacitor.file, derivation: mode?.derivation ?? []))
    }
    if features.ota.enabled, otaClient == nil, let path = files["web.ota"] {
      out.append(
        BuildFact(
          name: "OTA client", value: "not read: no \(path)", origin: nil,
          derivation: [
            "the simulated updater keeps seed 000's rules; guards/ota-client is unverified"
          ]))
    }
    if features.ota.enabled, let client = otaClient {
      let sequenced = otaOrdering == "sequence"
      let refusal = { (refuses: Bool) in refuses ? "refuses" : "not refused" }
      // The rules of the ordering the app declares: a count-ordered client has no floor of
      // sequences or of the binary to read.
      let rules: [(name: String, value: String, origin: String, sequenceOnly: Bool)] = [
        (
          "a manifest's sequence", client.sequenceFloor.value.rawValue,
          client.sequenceFloor.origin, true
        ),
        ("a manifest's count", client.countOrder.value.rawValue, client.countOrder.origin, false),
        ("native floor", refusal(client.nativeFloor.value), client.nativeFloor.origin, true),
        (
          "failed-boot record", refusal(client.failedBootGuard.value),
          client.failedBootGuard.origin, false
        ),
      ]
      for rule in rules where sequenced || !rule.sequenceOnly {
        out.append(
          BuildFact(
            name: "OTA client: \(rule.name)", value: rule.value, origin: rule.origin,
            derivation: rule.name == "a manifest's count" ? client.countOrder.derivation : []))
      }
      if let pattern = client.idPattern {
        out.append(
          BuildFact(
            name: "OTA client: id pattern",
            value: "/\(pattern.value)/"
              + (client.unreadId.map { ", does not read \($0)" } ?? ", reads every release id"),
            origin: pattern.origin, derivation: []))
      }
    }
    out.append(
      BuildFact(
        name: "push", value: features.push.enabled ? "on" : "off", origin: nil,
        derivation: [features.push.decidedBy]))
    if let identityProvider {
      out.append(
        BuildFact(
          name: "identity provider", value: identityProvider,
          origin: realm.map { $0.file }, derivation: []))
    }
    return out
  }
}
