import Artifacts
import QualifyCore

/// Edits a control makes to a multi-instance shell's build (seed 004): what its static guards
/// must catch.
enum InstanceShellMutations {
  static let all: [MutationSpec] = [
    MutationSpec(
      "app.code-lacks",
      [
        .value(
          "rule",
          .choice([
            "back-to-manager", "navigation-policy", "deep-link-handoff", "pageshow",
            "loads-instance", "manager-clear",
          ]))
      ],
      summary:
        "The shell's code loses one of seed 004's rules: the back key loading the manager (Android), the native navigation policy, the native deep-link handoff, the local page's pageshow handler, the onboarding's navigation to an instance, or the manager emptying its root before it re-renders.",
      breaks: "seed 004, ADRs 0006 and 0007, the deep-link handoff"
    ) { configuration, arguments in
      guard var code = configuration.build.instanceShell?.code else { return }
      let at = FileLocation(file: "(mutation)", line: 0, column: 1)
      let ios = configuration.platform == .ios
      switch arguments["rule"] {
      case "back-to-manager": if !ios { code.androidBackLoadsManager = Sourced(false, at: at) }
      case "navigation-policy":
        if ios {
          code.iosNavigationPolicy = Sourced(false, at: at)
        } else {
          code.androidNavigationPolicy = Sourced(false, at: at)
        }
      case "deep-link-handoff":
        if ios {
          code.iosDeepLinkHandoff = Sourced(false, at: at)
        } else {
          code.androidDeepLinkHandoff = Sourced(false, at: at)
        }
      case "loads-instance": code.loadsInstance = Sourced(false, at: at)
      case "manager-clear": code.managerClearsRoot = Sourced(false, at: at)
      default: code.pageshowHandler = Sourced(false, at: at)
      }
      configuration.build.instanceShell?.code = code
    },
    MutationSpec(
      "app.instance-check-ignores",
      [
        .value(
          "field", .choice(["http-status", "status", "product", "instanceName", "platformVersion"]))
      ],
      summary:
        "parseInstanceResponse no longer tests FIELD (`http-status`: the answer's HTTP status; otherwise a field of its body): every test reading it passes.",
      breaks:
        "seed 004, task 20.2: an instance answers /api/instance with 200, status ok, product sovereign and its name and version"
    ) { configuration, arguments in
      guard let check = configuration.build.instanceShell?.code.responseCheck,
        var read = check.value.value
      else { return }
      let field = arguments["field"] ?? ""
      // The HTTP status is the function's first parameter; the others are the body's fields.
      let statusName = read.statusName
      let matches: @Sendable ([String]) -> Bool = { path in
        field == "http-status" ? path == [statusName] : path.count > 1 && path.last == field
      }
      read.rejections = read.rejections.map {
        Sourced($0.value.ignoring(matches), at: $0.location)
      }
      configuration.build.instanceShell?.code.responseCheck = Sourced(
        .read(read), at: check.location)
    },
    MutationSpec(
      "app.same-origin-compares",
      [.value("test", .choice(["host-only", "host-suffix"]))],
      summary:
        "The native policy's same-origin condition compares the host alone (`url.host == active.host`), or by suffix (`url.host.hasSuffix(active.host)`), whatever the app's code writes.",
      breaks:
        "seed 004, ADR 0007: only the active instance's origin (scheme, host and port) stays in-app"
    ) { configuration, arguments in
      guard var code = configuration.build.instanceShell?.code else { return }
      let host = OriginCondition.Operand(side: .url, component: "host")
      let activeHost = OriginCondition.Operand(side: .active, component: "host")
      let decision =
        arguments["test"] == "host-suffix"
        ? NavigationDecision(
          staysInWebView: .matches(.suffix, host, activeHost),
          written: "url.host.hasSuffix(active.host)")
        : NavigationDecision(
          staysInWebView: .equal(host, activeHost), written: "url.host == active.host")
      let read = Sourced(
        ReadDecision.read(decision), at: FileLocation(file: "(mutation)", line: 0, column: 1))
      if configuration.platform == .ios {
        code.iosSameOrigin = read
      } else {
        code.androidSameOrigin = read
      }
      configuration.build.instanceShell?.code = code
    },
    MutationSpec(
      "app.scheme-test-https-only",
      summary:
        "The navigation policy's scheme test lets only https through to its own decision (`url.scheme == \"https\"`): an http instance — a dev server on the LAN — goes to Capacitor's handler, which opens it in the system browser.",
      breaks:
        "seed 004, item 5 as the team verified it: a dev server over http is added beside sovereign.openfs.io and shows in the app"
    ) { configuration, _ in
      let gate = Sourced(
        ReadDecision.read(
          SchemeGate(
            reachesPolicy: .equal(
              .init(side: .url, component: "scheme"), .init(side: .literal, component: "https")),
            written: "guard url.scheme == \"https\" else Capacitor's handler")),
        at: FileLocation(file: "(mutation)", line: 0, column: 1))
      if configuration.platform == .ios {
        configuration.build.instanceShell?.code.iosSchemeGate = gate
      } else {
        configuration.build.instanceShell?.code.androidSchemeGate = gate
      }
    },
    MutationSpec(
      "shell.same-origin-to-default-handler",
      summary:
        "A same-origin navigation is handed to Capacitor's default handler, which opens it in the system browser.",
      breaks: "seed 004, ADR 0007: a same-origin decision never reaches Capacitor's handler"
    ) { configuration, _ in
      configuration.shell.sameOriginToDefaultHandler = true
    },
    MutationSpec(
      "shell.no-navigation-policy",
      summary: "No native navigation policy: every origin loads in the primary WebView.",
      breaks: "seed 004, RFC 0058: configured instances stay in-app, everything else opens outside"
    ) { configuration, _ in
      configuration.shell.noNavigationPolicy = true
    },
    MutationSpec(
      "shell.trusts-can-go-back",
      summary:
        "Android's back key trusts canGoBack() / goBack(), stale after the cold-launch redirect.",
      breaks:
        "seed 004, ADR 0006: back from a loaded instance reaches the manager, cold relaunch included"
    ) { configuration, _ in
      configuration.shell.trustsCanGoBack = true
    },
    MutationSpec(
      "shell.no-pageshow-handler",
      summary:
        "The local page has no pageshow handler: a back-forward cache restore shows what it showed when left.",
      breaks: "seed 004, ADR 0006: the onboarding page survives a back-forward cache restore"
    ) { configuration, _ in
      configuration.shell.noPageshowHandler = true
    },
    MutationSpec(
      "shell.deep-link-url-authority",
      summary:
        "resolveDeepLink reads the host through URL's authority, which Chromium WebView leaves empty for sovereign:.",
      breaks: "seed 004, deep links bug 2: parse scheme, host and path from the string"
    ) { configuration, _ in
      configuration.shell.deepLinkViaURLAuthority = true
    },
    MutationSpec(
      "shell.deep-link-replaces",
      summary: "A known-host deep link navigates with location.replace().",
      breaks: "seed 004, ADR 0006: assign, not replace — back still reaches the manager"
    ) { configuration, _ in
      configuration.shell.deepLinkReplaces = true
    },
    MutationSpec(
      "shell.drops-pending-path",
      summary: "An unknown-host deep link's path is forgotten once its instance is added.",
      breaks: "seed 004, deep links: resumes to <path> once added"
    ) { configuration, _ in
      configuration.shell.dropsPendingPath = true
    },
    MutationSpec(
      "shell.keeps-pending-path",
      summary: "An unknown-host deep link's path is kept after its instance opened there.",
      breaks: "seed 004, deep links: resumes to <path> once added — that once"
    ) { configuration, _ in
      configuration.shell.keepsPendingPath = true
    },
    MutationSpec(
      "shell.validates-against-admin-health",
      summary: "Onboarding validates against the admin-gated /api/admin/health (403).",
      breaks: "seed 004, task 20.1: validate against /api/instance, not /api/admin/health"
    ) { configuration, _ in
      configuration.shell.validatesAgainstAdminHealth = true
    },
    MutationSpec(
      "shell.switches-before-saving-active",
      summary:
        "Switching loads the instance before saving it as active: the native policy still sees the old one.",
      breaks: "seed 004, ADR 0007: the active URL is written before navigating"
    ) { configuration, _ in
      configuration.shell.switchesBeforeSavingActive = true
    },
    MutationSpec(
      "app.remove-keeps-active",
      summary:
        "removeInstance clears the active instance only when another one is removed (=== written !==).",
      breaks:
        "seed 004, task 20.1: removing an instance removes it, also as the one a restart loads"
    ) { configuration, _ in
      configuration.build.instanceShell?.code.managerRemove = Sourced(
        .whenOther, at: FileLocation(file: "(mutation)", line: 0, column: 1))
    },
    MutationSpec(
      "app.remove-unlabelled",
      summary:
        "The manager's remove button gets no text (its textContent = '✕' dropped; an aria-label alone is not seen).",
      breaks: "seed 004, task 20.1: users remove instances from the manager"
    ) { configuration, _ in
      configuration.build.instanceShell?.code.managerRemoveLabelled = Sourced(
        false, at: FileLocation(file: "(mutation)", line: 0, column: 1))
    },
    MutationSpec(
      "shell.instances-in-webview-storage",
      summary: "The instance list lives in the WebView's localStorage instead of Preferences.",
      breaks: "seed 004, task 20.1 and ADR 0003: the list survives WebView data eviction"
    ) { configuration, _ in
      configuration.shell.instancesInWebViewStorage = true
    },
    MutationSpec(
      "shell.local-scripts-not-snapshotted",
      summary: "iOS: the local page's user scripts are kept by reference, emptied by remote mode.",
      breaks: "seed 004, deep links bug 1: a reload of the local page keeps Capacitor's bridge"
    ) { configuration, _ in
      configuration.shell.localScriptsNotSnapshotted = true
    },
    MutationSpec(
      "app.policy-reads-another-key",
      summary:
        "The native navigation policy reads the active instance under another storage key than the web code writes it (a key renamed on one side).",
      breaks:
        "seed 004, ADR 0007: the native policy keeps the active instance and sends the rest out"
    ) { configuration, _ in
      let at = FileLocation(file: "(mutation)", line: 0, column: 1)
      configuration.build.instanceShell?.code.iosActiveKey = Sourced("activeUrl", at: at)
      configuration.build.instanceShell?.code.androidActiveKey = Sourced(
        "CapacitorStorage/activeUrl", at: at)
      if configuration.build.instanceShell?.code.webActiveKey == nil {
        configuration.build.instanceShell?.code.webActiveKey = Sourced(
          "sovereign.activeUrl", at: at)
      }
    },
    MutationSpec(
      "shell.remote-keeps-capacitor-bridge",
      summary:
        "Remote content reaches Capacitor's bridge: iOS does not remove Capacitor's scripts and bridge handler before an instance loads; Android runs the legacy bridge, a JavaScript interface every origin reaches.",
      breaks:
        "sovereign-mobile's hard rule: remote instance content never gets uncontrolled native access"
    ) { configuration, _ in
      configuration.shell.remoteKeepsCapacitorBridge = true
    },
    MutationSpec(
      "app.keeps-capacitor-for-instances",
      summary:
        "iOS's decidePolicyFor calls nothing that removes Capacitor's user scripts and its \"bridge\" handler before an instance loads.",
      breaks:
        "sovereign-mobile's hard rule: remote instance content never gets uncontrolled native access"
    ) { configuration, _ in
      if configuration.build.platform == .ios {
        configuration.build.instanceShell?.code.iosIsolatesRemoteContent = Sourced(
          false, at: FileLocation(file: "(mutation)", line: 0, column: 1))
      }
    },
    MutationSpec(
      "app.device-bridge-unscoped",
      summary:
        "The device bridge's code refuses no frame: iOS's didReceive checks neither frameInfo.isMainFrame nor frameInfo.securityOrigin, Android's listener is registered for \"*\" and its onPostMessage ignores isMainFrame.",
      breaks: "sovereign-mobile's hard rule: the device bridge is scoped to the active origin"
    ) { configuration, _ in
      let code = configuration.build.instanceShell?.code
      for platform in Platform.allCases {
        guard var bridge = platform == .ios ? code?.iosDeviceBridge : code?.androidDeviceBridge
        else { continue }
        bridge.value.originScoped = false
        bridge.value.mainFrameOnly = false
        if platform == .ios {
          configuration.build.instanceShell?.code.iosDeviceBridge = bridge
        } else {
          configuration.build.instanceShell?.code.androidDeviceBridge = bridge
        }
      }
    },
    MutationSpec(
      "shell.device-bridge-any-frame",
      summary:
        "The device bridge answers every frame of the instance's page, whatever its origin (no isMainFrame or origin check).",
      breaks: "sovereign-mobile's hard rule: the device bridge is scoped to the active origin"
    ) { configuration, _ in
      configuration.shell.deviceBridgeAnyFrame = true
    },
    MutationSpec(
      "app.no-back-gesture",
      summary:
        "iOS: the WebView's back swipe is off (allowsBackForwardNavigationGestures not set, false by default).",
      breaks: "seed 004, ADR 0006: the edge swipe returns from an instance to the manager"
    ) { configuration, _ in
      configuration.build.instanceShell?.code.iosBackGesture = Sourced(
        false, at: FileLocation(file: "(mutation)", line: 0, column: 1))
    },
    MutationSpec(
      "app.boot-ignores-manager",
      summary:
        "main.ts's boot() redirects to the active instance without testing the manager parameter (?manage=1).",
      breaks: "seed 004, ADR 0006: Android's back loads the manager with ?manage=1"
    ) { configuration, _ in
      configuration.build.instanceShell?.code.bootHonoursManager = Sourced(
        false, at: FileLocation(file: "(mutation)", line: 0, column: 1))
    },
    MutationSpec(
      "app.boot-ignores-back-forward",
      summary:
        "main.ts's boot() redirects to the active instance without testing whether the load is back_forward.",
      breaks:
        "seed 004, ADR 0006: back from an instance reaches the manager, also when the local page reloads"
    ) { configuration, _ in
      configuration.build.instanceShell?.code.bootChecksBackForward = Sourced(
        false, at: FileLocation(file: "(mutation)", line: 0, column: 1))
    },
    MutationSpec(
      "shell.accepts-http-instances",
      summary: "normalizeInstanceUrl accepts http: in a release build.",
      breaks: "seed 004, task 20.1: instances over https"
    ) { configuration, _ in
      configuration.shell.acceptsHTTPInstances = true
    },
    MutationSpec(
      "app.swift-file-not-compiled", [.value("file", .text, optional: true)],
      summary:
        "FILE (MainViewController.swift by default) drops out of the iOS target's Sources phase: on disk, never compiled.",
      breaks: "seed 004, task 20.1: every Swift file of the app is in the classic-format project"
    ) { configuration, arguments in
      guard configuration.platform == .ios, var shell = configuration.build.instanceShell else {
        return
      }
      let name = arguments["file"] ?? "MainViewController.swift"
      let dropped =
        shell.compiledSwiftFiles.first { $0.hasSuffix("/" + name) } ?? "ios/App/App/" + name
      shell.compiledSwiftFiles.removeAll { $0 == dropped }
      // On disk and not compiled, whatever the project said before.
      if !shell.uncompiledSwiftFiles.contains(where: { $0.value == dropped }) {
        shell.uncompiledSwiftFiles.append(
          Sourced(
            dropped,
            at: FileLocation(file: shell.projectFile ?? "project.pbxproj", line: 0, column: 1)))
      }
      configuration.build.instanceShell = shell
    },
    MutationSpec(
      "app.deep-link-launch-mode", [.value("mode", .text)],
      summary: "The Android activity receiving the deep-link scheme is launched with MODE.",
      breaks: "seed 004, deep links: singleTask routes a warm link through onNewIntent"
    ) { configuration, arguments in
      guard configuration.platform == .android else { return }
      let manifest = configuration.build.files["android.manifest"] ?? "AndroidManifest.xml"
      configuration.build.instanceShell?.deepLinkLaunchMode = Sourced(
        arguments["mode"] ?? "standard", at: FileLocation(file: manifest, line: 0, column: 1))
    },
    MutationSpec(
      "app.no-launcher-activity",
      summary: "No activity of the Android manifest carries the MAIN / LAUNCHER intent-filter.",
      breaks: "seed 004, task 20.1, and every kind: the app opens on Android"
    ) { configuration, _ in
      guard configuration.platform == .android else { return }
      configuration.build.instanceShell?.launcherActivity = nil
      configuration.build.launcherActivity = nil
    },
    MutationSpec(
      "app.allow-navigation", [.value("origin", .text)],
      summary: "The Capacitor config lists ORIGIN under server.allowNavigation.",
      breaks:
        "seed 004, navigation policy: the shell's policy, not Capacitor's, keeps instances in-app"
    ) { configuration, arguments in
      let config = configuration.build.capacitor?.location(line: 0)
      configuration.build.instanceShell?.allowNavigation.append(
        Sourced(arguments["origin"] ?? "*", at: config))
    },
    MutationSpec(
      "app.native-auth-code",
      summary:
        "The native view controller (iOS) or activity (Android) reads the WebView's cookie store itself.",
      breaks: "seed 004, task 20.1: no auth, role or plugin-permission logic in native code"
    ) { configuration, _ in
      let ios = configuration.platform == .ios
      configuration.build.instanceShell?.nativeAuthCode.append(
        Sourced(
          ios ? "WKHTTPCookieStore" : "CookieManager",
          at: FileLocation(
            file: ios
              ? "ios/App/App/MainViewController.swift"
              : "android/app/src/main/java/MainActivity.java",
            line: 0, column: 1)))
    },
  ]
}
