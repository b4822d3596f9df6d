import Artifacts
import Devices
import Foundation
import HTTP
import QualifyCore

/// The guards pack: static inspection of the build and the artifact edits that controls make
/// (DESIGN.md fidelity rules 16 and 17).
enum GuardVocabulary {
  static let actions: [ActionSpec] = [
    ActionSpec(
      .app, "is inspected",
      summary:
        "Runs the static build guards on the app's build (what `qualify check-app` prints) and records each finding as evidence.",
      example: "mail is inspected"
    ) { context in
      let app = try context.requireApp()
      let findings = BuildGuards.findings(for: app.build)
      for finding in findings {
        context.world.evidence.append(
          Evidence(
            kind: .finding, source: "\(app.build.platform.rawValue)/\(app.name)",
            summary: context.world.redactor.redact(
              "[\(finding.severity.rawValue)] \(finding.rule): \(finding.description)"),
            detail: "fix: \(finding.fix)", time: context.world.clock.now))
      }
      var outcome = Outcome(
        "inspected the \(app.build.platform.displayName) \(app.build.channel.rawValue) build: \(findings.count) finding\(findings.count == 1 ? "" : "s")"
      )
      outcome.findings = findings
      outcome.app = app.name
      return outcome
    }
  ]

  static let expectations: [ExpectationSpec] = [
    ExpectationSpec(
      "finding", [.value("rule", .choice(BuildGuards.rules.map(\.id)))], negatable: true,
      summary:
        "The last inspection reported (or, with `no`, did not report as an error) a finding of RULE. `expect no finding` ignores what the dev channel allows.",
      example: "expect no finding dev-server-url"
    ) { context in
      let rule = context.arguments["rule"] ?? ""
      guard let findings = context.outcome?.findings else {
        return context.missing(
          .noInspection, "expected an inspection (APP is inspected) before this expectation")
      }
      let matching = findings.filter { $0.rule == rule }
      let errors = matching.filter { $0.severity == .error }
      // An error the rule could read fails the check even beside a decision it could not.
      if context.negated, !errors.isEmpty {
        return context.fail(
          .finding, rule, errors.map(\.description).joined(separator: "; "),
          fix: errors.first?.fix)
      }
      if let unverified = matching.first(where: { $0.severity == .unverified }) {
        // "unverified at FILE:LINE" names the decision qualify could not read; a finding without
        // a place says in its message where qualify looked, or that the channel's env was not
        // supplied (the runner's own cause for that).
        // An env not supplied is the pipeline's to give, not a decision left unread: its place
        // is the code that reads the env, not "unverified at".
        let place = unverified.location.map { "unverified at \($0): " } ?? ""
        let named =
          unverified.isInputNotSupplied
          ? "\(rule)\(unverified.location.map { " (\($0))" } ?? "") is \(unverified.message)"
          : "\(rule) is \(place)\(unverified.message)"
        throw ScenarioNotApplicable(
          named,
          cause: unverified.isInputNotSupplied ? nil : .unverified)
      }
      if context.negated { return nil }
      return matching.isEmpty
        ? context.fail(.noFinding, rule, "expected a \(rule) finding, the build has none") : nil
    },
    ExpectationSpec(
      "blocking findings", negatable: true,
      summary:
        "The last inspection reported findings that block a release (errors; what the dev channel allows does not count).",
      example: "expect no blocking findings"
    ) { context in
      guard let findings = context.outcome?.findings else {
        return context.missing(
          .noInspection, "expected an inspection (APP is inspected) before this expectation")
      }
      let errors = findings.filter { $0.severity == .error }
      if context.negated {
        return errors.isEmpty
          ? nil
          : context.fail(
            .blockingFindings, nil,
            errors.map { "\($0.rule): \($0.description)" }.joined(separator: "; "))
      }
      return errors.isEmpty
        ? context.fail(.noBlockingFindings, nil, "expected blocking findings, there are none") : nil
    },
    ExpectationSpec(
      "webview loads", [.value("source", .choice(["embedded", "dev-server"]))],
      summary:
        "After a launch, the WebView shows the embedded bundle, or the dev server (hot reload).",
      example: "expect webview loads embedded"
    ) { context in
      let wanted = context.arguments["source"] ?? "embedded"
      guard let launch = context.outcome?.launch else {
        return context.missing(
          .noLaunch, "expected a launch (APP launches) before this expectation")
      }
      switch launch.webView {
      case .embedded where wanted == "embedded", .devServer where wanted == "dev-server":
        return nil
      case .blank(let why):
        return context.fail(
          .webView, "blank", "expected the WebView to load the \(wanted), it is blank: \(why)")
      case .embedded:
        return context.fail(
          .webView, "embedded", "expected the WebView to load the \(wanted), it loads the embedded")
      case .devServer:
        return context.fail(
          .webView, "dev-server",
          "expected the WebView to load the \(wanted), it loads the dev-server")
      }
    },
  ]

  static let mutations: [MutationSpec] = [
    MutationSpec(
      "app.info-plist", [.value("key", .text), .value("value", .text)],
      summary:
        "The built iOS Info.plist has KEY written as VALUE (`removed`: the key is gone), as a typo in Info.plist or its build setting would leave it.",
      breaks: "the App Store's Info.plist requirements (ios-store-bundle)"
    ) { configuration, arguments in
      guard configuration.platform == .ios, var bundle = configuration.build.bundleInfo,
        let key = arguments["key"], let value = arguments["value"]
      else { return }
      if value == "removed" {
        bundle.values[key] = nil
      } else {
        let location = bundle.values[key]?.expanded.location
        bundle.values[key] = BundleInfo.Entry(
          raw: value, expanded: Sourced(value.contains("$(") ? "" : value, at: location))
      }
      configuration.build.bundleInfo = bundle
    },
    MutationSpec(
      "app.server-url", [.value("url", .text)],
      summary: "The synced capacitor.config.json carries server.url = URL (a dev build left over).",
      breaks: "checklist item 7: no dev server baked in"
    ) { configuration, arguments in
      let at = configuration.build.capacitor?.location(line: 0)
      configuration.build.capacitor?.serverURL = Sourced(arguments["url"] ?? "", at: at)
    },
    MutationSpec(
      "app.plugin-block-renamed", [.value("plugin", .text), .value("as", .text)],
      summary:
        "The synced capacitor.config.json configures PLUGIN under the key AS (a typo in capacitor.config.ts).",
      breaks: "each plugin reads the block under its own name"
    ) { configuration, arguments in
      let keys = configuration.build.capacitor?.pluginKeys ?? []
      configuration.build.capacitor?.pluginKeys = keys.map {
        $0.value == arguments["plugin"] ? Sourced(arguments["as"] ?? "", at: $0.location) : $0
      }
    },
    MutationSpec(
      "app.server-url-cleared",
      summary:
        "The build carries no server.url (a dev build synced without MOBILE_DEV_SERVER_URL).",
      breaks: "hot reload in dev builds (seed 000, Hot reload)"
    ) { configuration, _ in
      configuration.build.capacitor?.serverURL = nil
    },
    MutationSpec(
      "app.server-cleartext",
      summary: "The synced capacitor.config.json carries server.cleartext = true.",
      breaks: "rule 16: no server.cleartext in a release build"
    ) { configuration, _ in
      let at = configuration.build.capacitor?.location(line: 0)
      configuration.build.capacitor?.cleartext = Sourced(true, at: at)
      configuration.build.transport.capacitorCleartext = Sourced(true, at: at)
    },
    MutationSpec(
      "app.uses-cleartext-traffic",
      summary: "AndroidManifest.xml sets android:usesCleartextTraffic=\"true\".",
      breaks: "rule 16: no usesCleartextTraffic"
    ) { configuration, _ in
      guard configuration.platform == .android else { return }
      configuration.build.transport.usesCleartextTraffic = Sourced(
        true,
        at: FileLocation(
          file: configuration.build.files["android.manifest"] ?? "AndroidManifest.xml", line: 0,
          column: 1))
    },
    MutationSpec(
      "app.network-security-cleartext",
      summary:
        "The manifest names a network security config whose domain-config permits cleartext to the API's host.",
      breaks: "rule 16: no cleartext in a release build (Android's network security config)"
    ) { configuration, _ in
      guard configuration.platform == .android else { return }
      let file = "res/xml/network_security_config.xml"
      let host =
        Origin(url: configuration.build.frontend.apiOrigin.value)?.host
        ?? configuration.build.frontend.apiOrigin.value
      let at = FileLocation(file: file, line: 3, column: 1)
      var config =
        configuration.build.transport.networkSecurityConfig
        ?? NetworkSecurityConfig(file: file)
      config.domainConfigs.append(
        NetworkSecurityConfig.Config(
          domains: [.init(name: host, includeSubdomains: false, location: at)],
          cleartext: Sourced(true, at: at), location: at))
      configuration.build.transport.networkSecurityConfig = config
    },
    MutationSpec(
      "app.strip-phase-removed",
      summary:
        "The iOS project loses its \"Strip dev ATS exception\" build phase: the dev ATS exception ships.",
      breaks: "rule 16: no NSAppTransportSecurity exception in the shipped Info.plist"
    ) { configuration, _ in
      guard configuration.platform == .ios else { return }
      configuration.build.guards.iosStripATSPhase = Sourced(false, at: nil)
      configuration.build.transport.atsShipped = configuration.build.transport.atsInSource
    },
    MutationSpec(
      "app.ats-arbitrary-loads",
      summary: "The shipped Info.plist allows arbitrary loads (NSAllowsArbitraryLoads = true).",
      breaks: "rule 16: no ATS exception"
    ) { configuration, _ in
      guard configuration.platform == .ios else { return }
      let file = configuration.build.files["ios.infoPlist"] ?? "Info.plist"
      var ats =
        configuration.build.transport.atsShipped
        ?? ATSSettings(location: FileLocation(file: file, line: 0, column: 1))
      ats.allowsArbitraryLoads = Sourced(true, at: FileLocation(file: file, line: 0, column: 1))
      configuration.build.transport.atsShipped = ats
    },
    MutationSpec(
      "app.callback-parameter", [.value("name", .text)],
      summary:
        "nativeLogin() in auth.ts reads the callback's one-time token from the query parameter NAME (`searchParams.get(\"code\")`).",
      breaks: "seed 000: the app exchanges the token the callback carries"
    ) { configuration, arguments in
      configuration.build.authSession.callbackParameter = Sourced(
        arguments["name"] ?? "",
        at: FileLocation(
          file: configuration.build.files["web.auth"] ?? "auth.ts", line: 0, column: 1))
    },
    MutationSpec(
      "app.auth-session-ephemeral",
      summary: "WebAuthSessionPlugin.swift sets prefersEphemeralWebBrowserSession = true.",
      breaks: "rules 7 and 17: the auth session shares Safari's persistent cookies"
    ) { configuration, _ in
      guard configuration.platform == .ios else { return }
      configuration.build.authSession.prefersEphemeral = Sourced(
        true,
        at: FileLocation(
          file: configuration.build.files["ios.authPlugin"] ?? "WebAuthSessionPlugin.swift",
          line: 0, column: 1))
    },
    MutationSpec(
      "app.auth-plugin-unregistered",
      summary:
        "MainViewController.swift no longer registers WebAuthSessionPlugin: the app falls back to SFSafariViewController.",
      breaks: "rule 17: the auth plugin stays registered"
    ) { configuration, _ in
      guard configuration.platform == .ios else { return }
      configuration.build.authSession.pluginRegistered = Sourced(
        false,
        at: FileLocation(
          file: configuration.build.files["ios.viewController"] ?? "MainViewController.swift",
          line: 0, column: 1))
      configuration.build.authSession.usesWebAuthenticationSession = false
    },
    MutationSpec(
      "app.scheme-unregistered",
      summary:
        "The callback scheme is removed from CFBundleURLTypes (iOS) or the intent-filters (Android).",
      breaks: "rule 17: the callback scheme is registered on both platforms"
    ) { configuration, _ in
      let scheme = configuration.build.callbackScheme?.value.lowercased()
      configuration.build.registeredSchemes.removeAll { $0.value.lowercased() == scheme }
    },
    MutationSpec(
      "app.release-guard-removed",
      summary: "android/app/build.gradle loses its preReleaseBuild guard.",
      breaks: "checklist item 7: Android release builds fail on a leftover server.url"
    ) { configuration, _ in
      guard configuration.platform == .android else { return }
      configuration.build.guards.androidReleaseGuard = Sourced(false, at: nil)
    },
    MutationSpec(
      "app.native-http-disabled",
      summary: "capacitor.config.json turns CapacitorHttp off: fetch stays in the WebView.",
      breaks: "seed 000, Networking & session: the session lives in the native jar"
    ) { configuration, _ in
      let at = configuration.build.capacitor?.location(line: 0)
      configuration.build.capacitor?.nativeHTTP = Sourced(false, at: at)
    },
    MutationSpec(
      "app.banner-string-missing", [.value("key", .text, optional: true)],
      summary:
        "The last locale's strings lose the loc-key KEY (by default the platform's first banner key).",
      breaks: "checklist item 8: banners render from strings present in the build"
    ) { configuration, arguments in
      let key = arguments["key"] ?? configuration.build.push.requiredBannerKeys.first ?? ""
      guard let locale = configuration.build.push.bannerStrings.keys.sorted().last else { return }
      configuration.build.push.bannerStrings[locale]?[key] = nil
    },
  ]
}
