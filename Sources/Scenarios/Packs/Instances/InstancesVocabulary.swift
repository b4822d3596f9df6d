import Devices
import Foundation
import HTTP
import MockStack
import QualifyCore

/// The statements of the multi-instance shell (seed 004): what its user does and what the
/// shell shows. Sites are named as the world serves them: `work`, `home`, `unlisted` (all
/// Sovereign instances, over https), `plain` (an instance over http), `dev` (a dev server on
/// the LAN, over http at an IP address), `blog` (not an instance), `docs` (the outside site
/// instance pages link to).
enum InstancesVocabulary {
  static let sites = InstanceServers.catalogue.map(\.name)

  static let actions: [ActionSpec] = [
    ActionSpec(
      .app, "starts",
      summary:
        "A cold start: a new process and WebView; the local page boots — the stored active instance is loaded with `location.assign()`, or onboarding is shown.",
      example: "sovereign starts"
    ) { context in
      let shell = try context.instanceShell()
      shell.start()
      return screenOutcome(shell, "started")
    },
    ActionSpec(
      .app, "is closed",
      summary: "The process ends (swiped away, or killed in the background) and is not reopened.",
      example: "sovereign is closed"
    ) { context in
      let shell = try context.instanceShell()
      shell.close()
      return screenOutcome(shell, "closed")
    },
    ActionSpec(
      .app, "restarts cold",
      summary:
        "Force-stopped (or killed in the background) and opened again: the WebView's history is gone, Preferences stay.",
      example: "sovereign restarts cold"
    ) { context in
      let shell = try context.instanceShell()
      shell.restartCold()
      return screenOutcome(shell, "restarted cold")
    },
    ActionSpec(
      .app, "loses its webview data",
      summary:
        "The WebView's website data is evicted (storage pressure, long disuse): its localStorage goes, Preferences stay.",
      example: "sovereign loses its webview data"
    ) { context in
      let shell = try context.instanceShell()
      shell.evictWebViewData()
      return Outcome("\(shell.name) lost its WebView data")
    },
    ActionSpec(
      .app, "instance page calls",
      [
        .value("surface", .choice(InstanceShell.NativeSurface.allCases.map(\.rawValue))),
        .flag("from-another-origin"),
      ],
      summary:
        "The loaded instance's page calls native code: `capacitor` (Capacitor's bridge, e.g. `Preferences.get`) or `device-bridge` (the shell's own `sovereignBridge`), from its main frame or from a frame of another origin it embeds.",
      example: "sovereign instance page calls device-bridge from-another-origin"
    ) { context in
      let shell = try context.instanceShell()
      let surface =
        InstanceShell.NativeSurface(rawValue: context.arguments["surface"] ?? "")
        ?? .capacitor
      let (answered, why) = shell.instancePageCalls(
        surface, fromOtherOrigin: context.arguments.has("from-another-origin"))
      shell.lastNativeCall = (answered, why)
      return Outcome("\(shell.name): \(answered ? "answered" : "not answered") — \(why)")
    },
    ActionSpec(
      .app, "loses its back-forward cache",
      summary:
        "The WebView's back-forward cache is evicted (memory pressure, a long time in the background): the page gone back to next loads again as a `back_forward` navigation — boot() runs, iOS's local mode is entered again — instead of being restored.",
      example: "sovereign loses its back-forward cache"
    ) { context in
      let shell = try context.instanceShell()
      // What the page does on the load that follows is the unread decision's to say.
      if let unfound = shell.build.instanceShell?.code.bootUnfound {
        throw ScenarioNotApplicable(
          "the local page's boot() is unverified: \(unfound.value)", cause: .unverified)
      }
      if let unread = shell.build.instanceShell?.code.bootRedirectUnread {
        throw ScenarioNotApplicable(
          "boot()'s redirect is unverified at \(unread.origin): if (\(unread.value)) is not evaluated, so what a back_forward load does is not known"
        )
      }
      shell.evictBackForwardCache()
      return Outcome("\(shell.name) lost its back-forward cache")
    },
    ActionSpec(
      .app, "adds instance", [.value("site", .text)],
      summary:
        "Types SITE's address (a site name of the world, or a URL) in the onboarding form and submits: normalized, checked against `/api/instance`, stored, made active and loaded — resuming a deep link's path. `prefilled` submits the pre-filled field.",
      example: "sovereign adds instance work"
    ) { context in
      let shell = try context.instanceShell()
      // What onboarding accepts cannot be simulated from a check that was not read.
      let code = shell.build.instanceShell?.code
      for (what, decision) in [
        ("parseInstanceResponse", code?.responseCheck.map { ($0.location, $0.value.problem) }),
        ("the submit handler", code?.addGate.map { ($0.location, $0.value.problem) }),
      ] {
        guard let (location, problem) = decision, let problem else { continue }
        throw ScenarioNotApplicable(
          "\(what) is unverified at \(location.map { "\($0)" } ?? "its file"): \(problem)")
      }
      try requirePolicyRead(shell)
      let site = context.arguments["site"] ?? ""
      let input =
        site == "prefilled"
        ? shell.prefill ?? ""
          // What a user types: the bare host of an https site, the whole URL of an http one.
        : context.world.instances?.servers.site(named: site).map {
          $0.origin.isSecure ? $0.origin.hostHeader : $0.origin.description
        } ?? site
      guard case .onboarding = shell.screen else {
        // Nothing to type the address in: the step fails, whatever it expects.
        return Outcome(
          "\(shell.name) adds \(input)",
          problem: .init(
            kind: .failed,
            message:
              "no onboarding page to add \(input) on: \(shell.name) shows \(describe(shell))",
            reason: .instanceScreen))
      }
      shell.add(input)
      return screenOutcome(shell, "added \(input)")
    },
    ActionSpec(
      .app, "opens instance", [.value("site", .text)],
      summary: "Taps SITE in the instance manager: made active, then loaded.",
      example: "sovereign opens instance home"
    ) { context in
      let shell = try context.instanceShell()
      shell.open(try origin(context.arguments["site"] ?? "", in: context.world))
      return screenOutcome(shell, "opened \(context.arguments["site"] ?? "")")
    },
    ActionSpec(
      .app, "removes instance", [.value("site", .text)],
      summary: "Taps ✕ on SITE in the instance manager.",
      example: "sovereign removes instance home"
    ) { context in
      let shell = try context.instanceShell()
      let site = context.arguments["site"] ?? ""
      if let why = shell.remove(try origin(site, in: context.world)) {
        // Nothing drawn to tap: the step fails, whatever it expects.
        return Outcome(
          "\(shell.name) removes \(site)",
          problem: .init(
            kind: .failed, message: "no ✕ to tap for \(site): \(why)", reason: .instanceScreen))
      }
      return screenOutcome(shell, "removed \(site)")
    },
    ActionSpec(
      .app, "follows link",
      [
        .value(
          "link", .choice(["same-origin", "outside", "other-port", "other-scheme", "look-alike"]))
      ],
      summary:
        "Taps a link of the instance page shown: `same-origin` (its own /plugins/console), `outside` (a page of another site), or a look-alike of the instance's origin where same-origin checks break: `other-port` (its host on port 8443), `other-scheme` (its host over http), `look-alike` (a host that ends with its host).",
      example: "sovereign follows link other-port"
    ) { context in
      let shell = try context.instanceShell()
      try requirePolicyRead(shell)
      let link = context.arguments["link"] ?? "same-origin"
      let current = shell.activeURL.flatMap { URLComponents(string: $0) }
      let host = current?.host ?? ""
      let target: String
      switch link {
      case "outside": target = InstanceServers.outside.origin.url("/guide")
      case "other-port": target = "https://\(host):8443/plugins/console"
      case "other-scheme": target = "http://\(host)/plugins/console"
      case "look-alike": target = "https://evil\(host)/plugins/console"
      default: target = "/plugins/console"
      }
      shell.followLink(target)
      return screenOutcome(shell, "followed the \(link) link")
    },
    ActionSpec(
      .app, "goes back",
      summary:
        "Back: the edge swipe on iOS (WebView history), the back key on Android (`dispatchKeyEvent`).",
      example: "sovereign goes back"
    ) { context in
      let shell = try context.instanceShell()
      // What the back key loads is the unread URL's to say.
      if shell.build.platform == .android,
        let unread = shell.build.instanceShell?.code.androidBackUnread
      {
        throw ScenarioNotApplicable(
          "Android's back key is unverified\(unread.location.map { " at \($0)" } ?? ""): \(unread.value)",
          cause: .unverified)
      }
      shell.back()
      return screenOutcome(shell, "went back")
    },
    ActionSpec(
      .app, "receives deep link", [.value("url", .text)],
      summary:
        "The OS opens URL (`sovereign://<host>/<path>`) in the app: a cold launch when it is not running, else native code hands it to the local page. `{work}` in URL stands for that site's host (a real instance's under `--stack`), `{WORK}` for it in capitals.",
      example: "sovereign receives deep link sovereign://{work}/plugins/console"
    ) { context in
      let shell = try context.instanceShell()
      // What the local page does with the link is the unfound handler's to say.
      if let code = shell.build.instanceShell?.code, code.deepLinkHandlerNavigates == nil,
        let unread = code.deepLinkHandlerUnread
      {
        throw ScenarioNotApplicable(
          "the deep link's handler is unverified\(unread.location.map { " at \($0)" } ?? ""): \(unread.value)",
          cause: .unverified)
      }
      let url = hostsFilledIn(context.arguments["url"] ?? "", world: context.world)
      shell.openDeepLink(url)
      return screenOutcome(shell, "received \(url)")
    },
  ]

  static let expectations: [ExpectationSpec] = [
    ExpectationSpec(
      "onboarding on", [.value("app", .app), .keyword("prefilled", "url", .text)],
      negatable: true,
      summary:
        "APP shows its local onboarding page (the instance manager when instances are stored), with URL in its field when given (`{unlisted}` stands for that site's host).",
      example: "expect onboarding on sovereign prefilled https://unlisted.example"
    ) { context in
      let shell = try context.instanceShell("app")
      let shown: Bool
      if case .onboarding(let prefill) = shell.screen {
        if let wanted = context.arguments["url"].map({ hostsFilledIn($0, world: context.world) }),
          prefill != wanted
        {
          return context.negated
            ? nil
            : context.fail(
              .onboardingPrefill, prefill.isEmpty ? "empty" : prefill,
              "onboarding is shown with \(prefill.isEmpty ? "an empty field" : prefill), not \(wanted)"
            )
        }
        shown = true
      } else {
        shown = false
      }
      if shown != context.negated { return nil }
      return context.fail(
        .instanceScreen, label(shell.screen),
        context.negated
          ? "\(shell.name) shows onboarding"
          : "\(shell.name) shows \(describe(shell)), not onboarding")
    },
    ExpectationSpec(
      "instances on", [.value("app", .app), .keyword("are", "sites", .text)],
      summary:
        #"The instances APP stores, in order (`none`, or site names in one quoted list: `"work, home"`): what its manager lists."#,
      example: #"expect instances on sovereign are "work, home""#
    ) { context in
      let shell = try context.instanceShell("app")
      let wanted = (context.arguments["sites"] ?? "").split(separator: ",").map {
        String($0).trimmingCharacters(in: .whitespaces)
      }.filter { $0 != "none" }
      let stored = shell.instances.map(\.url)
      let expected = try wanted.map { try origin($0, in: context.world) }
      let labels = shell.instances.map(\.label)
      if stored == expected, case .onboarding = shell.screen, shell.listed != labels {
        let clears = shell.build.instanceShell?.code.managerClearsRoot
        return context.fail(
          .instanceList, nil,
          "\(shell.name) stores \(labels.isEmpty ? "no instance" : labels.joined(separator: ", ")), but its manager shows \(shell.listed.joined(separator: ", ")): renderOnboarding does not empty its root before appending\(clears.flatMap { $0.location.map { " (\($0))" } } ?? ""), so what it rendered before stays on the page"
        )
      }
      if stored == expected { return nil }
      return context.fail(
        .instanceList, nil,
        "\(shell.name) stores \(stored.isEmpty ? "no instance" : stored.joined(separator: ", ")), not \(expected.isEmpty ? "none" : expected.joined(separator: ", "))"
      )
    },
    ExpectationSpec(
      "instance on", [.value("app", .app), .value("site", .text), .keyword("at", "path", .text)],
      negatable: true,
      summary: "APP's primary WebView shows SITE (at PATH when given).",
      example: "expect instance on sovereign work at /plugins/console"
    ) { context in
      let shell = try context.instanceShell("app")
      let site = try origin(context.arguments["site"] ?? "", in: context.world)
      let path = context.arguments["path"]
      let shows: Bool
      if let url = shell.currentRemote, let components = URLComponents(string: url),
        Origin(url: url)?.description == site
      {
        // An origin loaded as it is shows its root.
        shows = path == nil || components.path == path || (path == "/" && components.path.isEmpty)
      } else {
        shows = false
      }
      if shows != context.negated { return nil }
      return context.fail(
        .instanceScreen, label(shell.screen),
        context.negated
          ? "\(shell.name) shows \(describe(shell))"
          : "\(shell.name) shows \(describe(shell)), not \(site)\(path ?? "")")
    },
    ExpectationSpec(
      "system browser opened", [.value("site", .text, optional: true)], negatable: true,
      summary:
        "During this step the shell handed a URL (of SITE, when given) to the system browser; `no` with no SITE: nothing at all.",
      example: "expect system browser opened docs"
    ) { context in
      let shells = context.world.instances?.shells.values.map { $0 } ?? []
      let opened = shells.flatMap(\.systemBrowserThisStep)
      let matching: [String]
      if let site = context.arguments["site"] {
        let wanted = try origin(site, in: context.world)
        matching = opened.filter { Origin(url: $0)?.description == wanted }
      } else {
        matching = opened
      }
      if matching.isEmpty == context.negated { return nil }
      return context.negated
        ? context.fail(
          .systemBrowser, "opened",
          "the shell handed \(matching.joined(separator: ", ")) to the system browser")
        : context.fail(
          .systemBrowser, "none",
          "nothing\(context.arguments["site"].map { " of \($0)" } ?? "") went to the system browser\(opened.isEmpty ? "" : " (it got \(opened.joined(separator: ", ")))")"
            + shells.compactMap(\.policyBlindness).map { ": " + $0 }.joined()
        )
    },
    ExpectationSpec(
      "native access on", [.value("app", .app)], negatable: true,
      summary:
        "Native code answered APP's last instance-page call (`no`: it could not be reached, or refused it).",
      example: "expect no native access on sovereign"
    ) { context in
      let shell = try context.instanceShell("app")
      guard let (answered, why) = shell.lastNativeCall else {
        throw ScenarioRuntimeError("no instance page called native code before this expectation")
      }
      if answered != context.negated { return nil }
      return context.fail(.nativeAccess, answered ? "answered" : "refused", why)
    },
    ExpectationSpec(
      "add refused on", [.value("app", .app)], negatable: true,
      summary: "APP's last add was refused (the form shows why).",
      example: "expect add refused on sovereign"
    ) { context in
      let shell = try context.instanceShell("app")
      let refused = shell.addRefusal != nil
      if refused != context.negated { return nil }
      return context.negated
        ? context.fail(.addRefused, nil, "the add was refused: \(shell.addRefusal ?? "")")
        : context.fail(
          .addAccepted, nil,
          "the add went through\(shell.lastAcceptance.map { " (\($0))" } ?? ""): \(shell.name) shows \(describe(shell))"
        )
    },
  ]

  /// `{site}` replaced by that site's host, `{SITE}` by it in capitals.
  static func hostsFilledIn(_ text: String, world: World) -> String {
    var out = text
    for site in world.instances?.servers.sites ?? [] {
      out = out.replacingOccurrences(of: "{\(site.name)}", with: site.origin.hostHeader)
      out = out.replacingOccurrences(
        of: "{\(site.name.uppercased())}", with: site.origin.hostHeader.uppercased())
    }
    return out
  }

  /// A site name of the world, or a URL, as an origin.
  static func origin(_ site: String, in world: World) throws -> String {
    if let known = world.instances?.servers.site(named: site) { return known.origin.description }
    guard let origin = Origin(url: site) else {
      throw ScenarioRuntimeError(
        "\(site) is neither a site of the world (\(sites.joined(separator: ", "))) nor a URL")
    }
    return origin.description
  }

  static func label(_ screen: InstanceShell.Screen) -> String {
    switch screen {
    case .closed: return "closed"
    case .placeholder: return "placeholder"
    case .onboarding: return "onboarding"
    case .remote: return "remote"
    }
  }

  static func describe(_ shell: InstanceShell) -> String {
    screen(shell) + (shell.leftBecause.map { " (\($0))" } ?? "")
  }

  static func screen(_ shell: InstanceShell) -> String {
    switch shell.screen {
    case .closed: return "nothing (the app is closed\(shell.closedBecause.map { ": " + $0 } ?? ""))"
    case .placeholder(let why): return "the local page's placeholder (\(why))"
    case .onboarding(let prefill):
      return "onboarding" + (prefill.isEmpty ? "" : " pre-filled with \(prefill)")
    case .remote(let url): return url + (shell.remoteBecause.map { " (\($0))" } ?? "")
    }
  }

  /// What the policy keeps cannot be simulated from a decision that was not read: its scheme
  /// test (every load of an instance passes it) or its same-origin condition.
  static func requirePolicyRead(_ shell: InstanceShell) throws {
    for (what, decision) in [
      ("scheme test", shell.schemeGate.map { ($0.location, $0.value.problem) }),
      ("same-origin decision", shell.sameOriginDecision.map { ($0.location, $0.value.problem) }),
    ] {
      guard let (location, problem) = decision, let problem else { continue }
      throw ScenarioNotApplicable(
        "the navigation policy's \(what) is unverified at \(location.map { "\($0)" } ?? "its file"): \(problem)"
      )
    }
  }

  static func screenOutcome(_ shell: InstanceShell, _ what: String) -> Outcome {
    Outcome("\(shell.name) \(what): shows \(describe(shell))")
  }
}

extension ActionContext {
  /// The acting app's multi-instance shell.
  func instanceShell() throws -> InstanceShell {
    let app = try requireApp()
    guard let shell = world.instances?.shells[app.name] else {
      throw ScenarioRuntimeError("\(app.name) is not a multi-instance shell")
    }
    return shell
  }
}

extension ExpectationContext {
  /// The multi-instance shell named by parameter `name`.
  func instanceShell(_ name: String) throws -> InstanceShell {
    guard let value = arguments[name], let shell = world.instances?.shells[value] else {
      throw ScenarioRuntimeError("no multi-instance shell \(arguments[name] ?? name) in this world")
    }
    return shell
  }
}
