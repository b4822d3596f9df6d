import QualifyCore

/// The static guards of a multi-instance shell (seed 004): what its build must carry for the
/// shell to open at all, to receive its deep links, and to load the user's instances over
/// HTTPS only, with nothing of an instance baked in.
extension BuildGuards {
  static let instanceShellRules: [GuardRule] = [
    GuardRule(
      id: "swift-sources-compiled", title: "Every Swift file of the app is compiled",
      source: "seed 004, task 20.1 (a Swift file missing from project.pbxproj: a black screen)",
      devAllows: false, shells: [.multiInstance],
      check: { build in
        guard build.platform == .ios, let shell = build.instanceShell else { return [] }
        return shell.uncompiledSwiftFiles.map { file in
          GuardHit(
            "\(file.value) is not in the App target's Sources phase of \(shell.projectFile ?? "project.pbxproj"): Xcode leaves it out without a build error, and what it defines is missing at run time (for the view controller the storyboard names: \"Unknown class\" and a blank black screen)",
            at: file.location, value: file.value)
        }
      },
      fix:
        "add the file to project.pbxproj in all four places: a PBXBuildFile, a PBXFileReference, the App group's children and the Sources build phase"
    ),
    GuardRule(
      id: "launcher-activity", title: "Android has a launcher activity",
      source: "seed 004, task 20.1 (the app opens on Android)", devAllows: false,
      shells: [.multiInstance],
      check: { build in
        guard build.platform == .android, build.instanceShell?.launcherActivity == nil else {
          return []
        }
        return [
          GuardHit(
            "no activity of AndroidManifest.xml has an intent-filter with android.intent.action.MAIN and android.intent.category.LAUNCHER: the app has no icon to open",
            at: build.files["android.manifest"].map { FileLocation(file: $0, line: 0, column: 1) })
        ]
      },
      fix: "give the main activity the MAIN / LAUNCHER intent-filter"
    ),
    GuardRule(
      id: "release-features", title: "A feature declared absent is not shipped",
      source:
        "issue 28: what qualify.json says the release does not ship is said \"not in this release\", so the build must not ship it",
      devAllows: false, shells: [.multiInstance],
      check: { build in
        let deepLinks = build.features.deepLinks
        guard deepLinks.use == .unused, deepLinks.declaredByProfile,
          let scheme = build.registeredSchemes.first
        else { return [] }
        return [
          GuardHit(
            "qualify.json declares no deep links in this release (\(deepLinks.decidedBy)), but the build registers \(scheme.value):// (\(scheme.origin)): it ships a deep-link entry point that nothing qualifies",
            at: scheme.location, value: scheme.value)
        ]
      },
      fix:
        "remove the scheme's registration from this release, or declare features.deepLinks and name deepLinkScheme"
    ),
    GuardRule(
      id: "deep-link-scheme", title: "The deep-link scheme is registered on both platforms",
      source:
        "seed 004, deep links (sovereign://<host>/<path>, singleTask on Android); checklist items 10-12",
      devAllows: false, shells: [.multiInstance],
      check: { build in
        guard let shell = build.instanceShell, let scheme = shell.deepLinkScheme else { return [] }
        if build.registers(scheme: scheme.value) {
          guard build.platform == .android, let mode = shell.deepLinkLaunchMode,
            !["singleTask", "singleInstance", "singleInstancePerTask"].contains(mode.value)
          else { return [] }
          return [
            GuardHit(
              "the activity receiving \(scheme.value):// has android:launchMode=\"\(mode.value)\": a link opened while the app runs starts another activity instead of reaching the running one's onNewIntent",
              at: mode.location, value: mode.value)
          ]
        }
        if let blocked = build.undeliverableSchemes.first(where: {
          $0.scheme.value.lowercased() == scheme.value.lowercased()
        }) {
          return [
            GuardHit(
              "\(scheme.value):// is declared but cannot be delivered: \(blocked.reason)",
              at: blocked.scheme.location, value: scheme.value)
          ]
        }
        let file =
          build.platform == .ios
          ? build.files["ios.infoPlist"] ?? "Info.plist"
          : build.files["android.manifest"] ?? "AndroidManifest.xml"
        return [
          GuardHit(
            build.platform == .ios
              ? "the deep-link scheme \"\(scheme.value)\" (\(scheme.origin)) is not in CFBundleURLTypes of \(file): iOS never hands \(scheme.value):// links to the app"
              : "the deep-link scheme \"\(scheme.value)\" (\(scheme.origin)) is in no intent-filter of \(file) with VIEW and BROWSABLE: Android never hands \(scheme.value):// links to the app",
            at: FileLocation(file: file, line: 0, column: 1), value: scheme.value)
        ]
      },
      fix:
        "register the scheme in Info.plist (CFBundleURLTypes) and on the main activity (an intent-filter with VIEW, DEFAULT, BROWSABLE and <data android:scheme>, android:launchMode=\"singleTask\")"
    ),
    GuardRule(
      id: "instance-transport", title: "Instances load over HTTPS only in release builds",
      source: "seed 004, task 20.1 (server.url → the remote instance over https)",
      devAllows: true, shells: [.multiInstance],
      check: { build in
        var out: [GuardHit] = []
        if let cleartext = build.capacitor?.cleartext, cleartext.value {
          out.append(
            GuardHit(
              "server.cleartext = true: instances may load over plain HTTP", at: cleartext.location,
              value: "true"))
        }
        if build.platform == .android, let flag = build.transport.usesCleartextTraffic, flag.value {
          out.append(
            GuardHit(
              "AndroidManifest.xml sets android:usesCleartextTraffic=\"true\": instances may load over plain HTTP",
              at: flag.location, value: "true"))
        }
        if build.platform == .ios, let ats = build.transport.atsShipped {
          if let arbitrary = ats.allowsArbitraryLoads, arbitrary.value {
            out.append(
              GuardHit(
                "the shipped Info.plist sets NSAllowsArbitraryLoads: instances may load over plain HTTP",
                at: arbitrary.location, value: "true"))
          }
          for domain in ats.insecureExceptionDomains {
            out.append(
              GuardHit(
                "the shipped Info.plist allows plain HTTP to \(domain.value) (NSExceptionAllowsInsecureHTTPLoads)",
                at: domain.location, value: domain.value))
          }
        }
        return out
      },
      fix:
        "keep cleartext to dev builds: no server.cleartext, usesCleartextTraffic or ATS exception in a release build"
    ),
    GuardRule(
      id: "no-baked-instance", title: "No instance or navigation allowance baked in",
      source:
        "seed 004, task 20.1 (never bundle assets behind capacitor://; the navigation policy, not Capacitor's, keeps instances in-app)",
      devAllows: false, shells: [.multiInstance],
      check: { build in
        var out: [GuardHit] = []
        if let url = build.capacitor?.serverURL {
          out.append(
            GuardHit(
              "server.url = \"\(url.value)\" bakes an origin into the shell: the WebView loads it instead of the onboarding page, whatever instance the user chose",
              at: url.location, value: url.value, devAllows: true))
        }
        if let server = build.instanceShell?.computedServer {
          out.append(
            GuardHit(
              "server is computed in the Capacitor config: qualify cannot tell which origin it bakes in",
              at: server.location, value: server.value))
        }
        for origin in build.instanceShell?.allowNavigation ?? [] {
          out.append(
            GuardHit(
              "server.allowNavigation lists \(origin.value): Capacitor keeps it in the WebView on its own, beside the shell's navigation policy",
              at: origin.location, value: origin.value))
        }
        return out
      },
      fix:
        "remove server.url and server.allowNavigation from the Capacitor config: the instance is chosen at run time and the navigation policy decides"
    ),
    GuardRule(
      id: "deep-link-handoff", title: "Native code hands deep links to the local page",
      source:
        "seed 004, deep links: a link that arrives while an instance is loaded reaches the local page (onNewIntent, application(_:open:))",
      devAllows: false, shells: [.multiInstance],
      check: { build in
        // A release without deep links (features.deepLinks = false) has no scheme to hand over.
        guard let shell = build.instanceShell, let scheme = shell.deepLinkScheme else { return [] }
        let hit: GuardHit? =
          build.platform == .android
          ? GuardHit.missing(
            shell.code.androidDeepLinkHandoff,
            "no onNewIntent hands the link's data to the local page: deep links are lost once an instance is loaded",
            value: "no onNewIntent")
          : GuardHit.missing(
            shell.code.iosDeepLinkHandoff,
            "application(_:open:) does not take \(scheme.value):// links: they are lost once an instance is loaded",
            value: "no \(scheme.value):// handling")
        return hit.map { [$0] } ?? []
      },
      fix:
        "hand the link to the local page: onNewIntent (Android) and application(_:open:) (iOS) pass it to the page that routes it"
    ),
    GuardRule(
      id: "shell-code", title: "The shell's code keeps seed 004's rules",
      source:
        "seed 004: back to the manager (ADR 0006), the navigation policy (ADR 0007), pageshow, /api/instance, assign not replace, Preferences",
      devAllows: false, shells: [.multiInstance],
      check: { build in
        guard let shell = build.instanceShell else { return [] }
        let code = shell.code
        var out: [GuardHit] = []
        func missing(_ fact: Sourced<Bool>?, _ message: String, value: String) {
          if let hit = GuardHit.missing(fact, message, value: value) { out.append(hit) }
        }
        switch build.platform {
        case .android:
          if let unread = code.androidBackUnread {
            out.append(
              GuardHit(
                "what Android's back key loads is unverified: \(unread.value)",
                at: unread.location, value: "back URL", unverified: true))
          }
          // Back carries the parameter; boot() must then not redirect.
          missing(
            code.bootHonoursManager,
            "boot() redirects to the active instance even when the URL carries the manager parameter Android's back loads: back never reaches the manager",
            value: "boot() ignores the manager parameter")
          if let plain = code.androidBackLoadsPlainLocal {
            let parameter = code.bootManagerParameter?.value ?? "manage"
            out.append(
              GuardHit(
                "the back key loads \(plain.value) without ?\(parameter)=1\(code.bootManagerParameter.map { ", the parameter boot() tests (\($0.origin))" } ?? ""): boot() takes it for a cold start and redirects to the active instance, so back never reaches the manager",
                at: plain.location, value: "without ?\(parameter)=1"))
          } else {
            // A handler whose test keeps its loadUrl from running on an instance is named as such.
            let skipped =
              code.androidBackLoadsManager?.derivation.first?.contains(" only when ") == true
            missing(
              code.androidBackLoadsManager,
              skipped
                ? "back on a loaded instance does not load the manager: after a cold relaunch canGoBack() is false and back closes the app"
                : "no back handling loads the manager (no dispatchKeyEvent with loadUrl(…manage…)): after a cold relaunch canGoBack() is false and back closes the app",
              value: skipped ? "only when" : "no dispatchKeyEvent")
          }
          missing(
            code.androidNavigationPolicy,
            "no navigation policy (shouldOverrideUrlLoading set with setWebViewClient): Capacitor's handler opens the instance outside",
            value: "no shouldOverrideUrlLoading")
        case .ios:
          missing(
            code.iosBackGesture,
            "the WebView's back swipe is off (allowsBackForwardNavigationGestures is not set true): iOS has no back button, so a loaded instance cannot be left for the manager",
            value: "no back gesture")
          missing(
            code.iosNavigationPolicy,
            "no navigation policy (decidePolicyFor as the WebView's navigation delegate): Capacitor's handler opens the instance outside",
            value: "no decidePolicyFor")
        }
        if let (reads, written) = code.activeKeyMismatch(on: build.platform) {
          out.append(
            GuardHit(
              "the navigation policy reads the active instance from \(reads.value), but the web code stores it as \(written) (\(code.webActiveKey?.origin ?? "the web code")): the policy never sees an active instance and keeps every site in the WebView",
              at: reads.location, value: reads.value))
        }
        if let decision = build.platform == .ios ? code.iosSameOrigin : code.androidSameOrigin {
          out += sameOriginHits(decision)
        }
        if let gate = build.platform == .ios ? code.iosSchemeGate : code.androidSchemeGate {
          out += schemeGateHits(gate, build: build)
        }
        missing(
          code.pageshowHandler,
          "no pageshow handler: the local page restored from the back-forward cache keeps its placeholder",
          value: "no pageshow handler")
        missing(
          code.bootChecksBackForward,
          "boot() redirects to the active instance on a back_forward load: once the back-forward cache is evicted, back from an instance lands on that instance again",
          value: "redirects on back_forward")
        if build.instanceShell?.deepLinkScheme != nil {
          missing(
            code.deepLinkHandlerNavigates,
            "the deep link's handler opens no instance: a link to a known instance leaves the local page on its placeholder",
            value: "opens no instance")
          // Without boot() the deep link's handler is out of reach for the same reason: one
          // finding below says both.
          if code.deepLinkHandlerNavigates == nil, code.bootUnfound == nil,
            let unread = code.deepLinkHandlerUnread
          {
            out.append(
              GuardHit(
                "whether a deep link opens its instance is unverified: \(unread.value)",
                at: unread.location, value: "deep-link handler", unverified: true))
          }
        }
        if let unfound = code.bootUnfound {
          out.append(
            GuardHit(
              "what the local page does on a load\(build.instanceShell?.deepLinkScheme != nil ? ", and so whether a deep link opens its instance," : "") is unverified: \(unfound.value)",
              at: unfound.location, value: "boot()", unverified: true))
        }
        if let unread = code.bootRedirectUnread {
          out.append(
            GuardHit(
              "boot()'s redirect rests on if (\(unread.value)), which qualify does not evaluate (a call of a function the web code does not define, or a form it does not read): whether it redirects on a back_forward load is unverified",
              at: unread.location, value: "boot() redirect", unverified: true))
        }
        if build.platform == .ios {
          missing(
            code.iosSnapshotsLocalScripts,
            "the local page's user scripts are kept as the live array, which removeAllUserScripts() empties: the local page reloaded after an instance has no Capacitor bridge (Preferences \"is not implemented\") and boot() stays on its placeholder",
            value: "user scripts kept by reference")
          missing(
            code.iosRestoresLocalMode,
            "Capacitor is not put back for the local page: loaded again after an instance (a deep link, back once the back-forward cache is evicted), it has no Capacitor bridge (Preferences never answers) and boot() stays on its placeholder",
            value: "Capacitor not put back")
        }
        if let open = code.managerOpen, open.value != .savesFirst {
          out.append(
            GuardHit(
              "the manager's open button navigates \(open.value == .never ? "without saving the instance as active" : "before it saves the instance as active")\(open.because): the navigation policy still sees the old active instance and sends the one opened outside, and a cold restart loads the old one",
              at: open.location, value: "open does not save the active instance"))
        }
        missing(
          code.addLoadsInstance,
          "the submit handler adds the instance and loads nothing: the user stays on the local page after adding one",
          value: "adds and loads nothing")
        missing(
          code.managerRemoveLabelled,
          "the manager's remove button shows nothing (no text, no child, no drawn content; an aria-label is not seen): a user cannot find how to remove an instance",
          value: "remove button unlabelled")
        if let remove = code.managerRemove, remove.value != .whenRemoved {
          out.append(
            GuardHit(
              "removeInstance \(remove.value == .never ? "never clears the active instance" : "clears the active instance only when another one is removed")\(remove.because): after the active instance is removed, a cold restart loads the site the user removed",
              at: remove.location, value: "remove keeps the active instance"))
        }
        missing(
          code.managerClearsRoot,
          "renderOnboarding does not empty its root before appending the manager: after ✕, or back to the page restored from the back-forward cache, the entries it rendered before stay listed",
          value: "does not empty its root")
        // `/api/health` is served too; what its answer lacks is parseInstanceResponse's to say.
        if let endpoint = code.validationEndpoint,
          !["/api/instance", "/api/health"].contains(endpoint.value)
        {
          let why =
            endpoint.value == "/api/admin/health"
            ? "which is admin-gated (403)" : "which a Sovereign instance does not serve (404)"
          out.append(
            GuardHit(
              "onboarding checks \(endpoint.value), \(why): every instance is refused; check /api/instance",
              at: endpoint.location, value: endpoint.value))
        }
        missing(
          code.loadsInstance,
          "the web code never navigates to an instance (no location.assign( or location.href =): adding or opening one leaves the user on the local page",
          value: "no location.assign(")
        if let replace = code.replacesLocation, replace.value {
          out.append(
            GuardHit(
              "location.replace( drops the local page from history: back cannot reach the manager",
              at: replace.location, value: "location.replace("))
        }
        if let storage = code.storesInLocalStorage, storage.value {
          out.append(
            GuardHit(
              "the list is kept in localStorage, not @capacitor/preferences: evicted with the WebView's data",
              at: storage.location, value: "localStorage"))
        }
        return out
      },
      fix:
        "keep the rules of seed 004's shell in the code: back loads ?manage=1, the native policy keeps the active instance, native code hands deep links to the local page, pageshow re-renders the manager (emptying its root first), boot() does not redirect on a back_forward load, iOS rebuilds the local scripts from their parts, /api/instance, location.assign(), @capacitor/preferences"
    ),
    GuardRule(
      id: "remote-isolation", title: "A loaded instance gets no uncontrolled native access",
      source:
        "seed 004's shell (sovereign-mobile's hard rule: remote instance content never gets uncontrolled native access; the device bridge is scoped to the active origin)",
      devAllows: false, shells: [.multiInstance],
      check: { build in
        guard let code = build.instanceShell?.code else { return [] }
        var out: [GuardHit] = []
        if build.platform == .ios,
          let hit = GuardHit.missing(
            code.iosIsolatesRemoteContent,
            "Capacitor's scripts and its \"bridge\" handler stay installed when an instance loads: the instance's page (and any frame in it) reaches every Capacitor plugin",
            value: "Capacitor bridge kept for remote content")
        {
          out.append(hit)
        }
        let bridge = build.platform == .ios ? code.iosDeviceBridge : code.androidDeviceBridge
        if let bridge, bridge.value.reachableFromOtherOrigins {
          out.append(
            GuardHit(
              "\(bridge.value.name) answers every frame of the instance's page, whatever its origin (no \(build.platform == .ios ? "frameInfo.isMainFrame or frameInfo.securityOrigin" : "allowed origin rule or isMainFrame") check): a frame of another origin the instance embeds reaches the device",
              at: bridge.location, value: "\(bridge.value.name) answers any frame"))
        }
        return out
      },
      fix:
        "remove Capacitor's user scripts and its \"bridge\" handler before remote content loads (iOS), and have the device bridge refuse sub-frames or other origins (iOS: guard message.frameInfo.isMainFrame; Android: addWebMessageListener with the active origin only)"
    ),
    GuardRule(
      id: "no-native-auth", title: "No auth handled in native code",
      source: "seed 004, task 20.1 (no auth, role or plugin-permission logic in native code)",
      devAllows: false, shells: [.multiInstance],
      check: { build in
        (build.instanceShell?.nativeAuthCode ?? []).filter { code in
          // Each platform's own sources.
          let file = code.location?.file ?? ""
          return build.platform == .ios ? file.hasSuffix(".swift") : !file.hasSuffix(".swift")
        }.map { code in
          GuardHit(
            "\(code.origin) uses \(code.value): the shell handles sign-in state itself instead of leaving it to the instance",
            at: code.location, value: code.value)
        }
      },
      fix: "leave cookies, auth headers and sign-in to the instance's own web code"
    ),
  ]
}

/// The navigation policy's same-origin condition, tried on the look-alikes where such checks
/// break (issue 23, B): the instance's own page must stay; another port, another scheme, a
/// host that ends with the instance's and another site must leave the WebView.
func sameOriginHits(_ decision: Sourced<ReadDecision<NavigationDecision>>) -> [GuardHit] {
  switch decision.value {
  case .unverified(let reason):
    return [GuardHit(reason, at: decision.location, value: "unverified", unverified: true)]
  case .read(let read):
    let active = "https://work.example"
    let probes: [(url: String, what: String, stays: Bool)] = [
      ("https://work.example/plugins/console", "the instance's own page", true),
      ("https://work.example:8443/plugins/console", "the same host on another port", false),
      ("http://work.example/plugins/console", "the same host over http", false),
      ("https://evilwork.example/plugins/console", "a host that ends with the instance's", false),
      ("https://docs.example/guide", "another site", false),
    ]
    return probes.compactMap { probe in
      guard read.keeps(probe.url, active: active) != probe.stays else { return nil }
      return GuardHit(
        "the navigation policy's same-origin condition `\(read.written)` \(probe.stays ? "sends" : "keeps") \(probe.what) (\(probe.url) with \(active) active) \(probe.stays ? "out of" : "in") the WebView",
        at: decision.location, value: read.written)
    }
  }
}

/// The policy's scheme test, tried on an http instance onboarding keeps and the platform lets
/// through (a dev server at a LAN address: ATS exempts IP literals, Android where cleartext is
/// permitted): turned away, it is added, then opened in the system browser by Capacitor's
/// handler, never in the app.
func schemeGateHits(_ gate: Sourced<ReadDecision<SchemeGate>>, build: AppBuild) -> [GuardHit] {
  switch gate.value {
  case .unverified(let reason):
    return [GuardHit(reason, at: gate.location, value: "unverified", unverified: true)]
  case .read(let read):
    let instance = "http://192.168.1.20:3000/"
    let accepted = build.instanceShell?.code.normalizerAcceptsHTTP?.value
    let keepsHTTP = build.channel.isRelease ? accepted?.release ?? false : accepted?.dev ?? true
    let reachable =
      build.platform == .ios || build.transport.androidCleartext(host: "192.168.1.20").value
    guard keepsHTTP, reachable, !read.admits(instance) else { return [] }
    return [
      GuardHit(
        "the navigation policy's scheme test `\(read.written)` turns an http instance away (\(instance), which onboarding keeps and the platform reaches): Capacitor's handler opens it in the system browser, never in the app",
        at: gate.location, value: read.written)
    ]
  }
}
