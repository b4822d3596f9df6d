import Foundation
import QualifyCore

/// The static guards: what a build must (not) carry, per channel. `qualify check-app` prints
/// these findings; the guards scenarios assert on them during a full run.
public enum BuildGuards {
  /// Every rule, in the order findings are reported: those of seed 000's single-origin shell,
  /// then those of the multi-instance shell (InstanceShellGuards.swift).
  public static let rules: [GuardRule] =
    singleOriginRules + instanceShellRules + instanceDecisionRules + hybridShellRules
    + bridgeShellRules + bridgeBoundsRules + bridgeConfigRules + bridgeDecisionRules
    + storeBundleRules + pluginConfigRules + otaClientRules + logoutRules + loginRules
    + sessionClientRules

  /// The rules that judge builds of `shell`.
  public static func rules(for shell: ShellKind) -> [GuardRule] {
    rules.filter { $0.shells.contains(shell) }
  }

  static let singleOriginRules: [GuardRule] =
    [
      GuardRule(
        id: "dev-server-url", title: "No dev server URL baked in",
        source: "seed 000, Hot reload; checklist item 7", devAllows: true,
        reads: [.files, .frontendEnv],
        check: { build in
          guard let url = build.capacitor?.serverURL else { return [] }
          return [
            GuardHit(
              "server.url = \"\(url.value)\" is baked in\(url.because): the WebView would load from the dev server instead of the embedded bundle",
              at: url.location, value: url.value)
          ]
        },
        fix:
          "set MOBILE_DEV_SERVER_URL empty in the release env (frontend.local) and rerun `make mobile-build`"
      )
    ]
    + transportRules + [
      GuardRule(
        id: "https-origins", title: "Every origin is HTTPS",
        source: "seed 000, Production hardening (OTA over HTTPS, CSRF Origin on HTTPS)",
        devAllows: true, reads: [.backendEnv, .frontendEnv],
        check: { build in
          var out: [GuardHit] = []
          func judge(_ key: String, _ value: String, _ location: FileLocation?) {
            let scheme = URLComponents(string: value)?.scheme?.lowercased()
            switch scheme {
            case "https":
              return
            case "http":
              out.append(GuardHit("\(key) = \(value) is cleartext", at: location, value: value))
            case nil:
              out.append(
                GuardHit(
                  "\(key) = \(value) has no scheme: clients cannot reach it as https://",
                  at: location, value: value, devAllows: false))
            case let other?:
              out.append(
                GuardHit(
                  "\(key) = \(value) uses \(other):, not https:", at: location, value: value,
                  devAllows: false))
            }
          }
          // The app's own setting: a real backend from `--stack` is not the app's.
          let api = build.frontend.ownAPIOrigin ?? build.frontend.apiOrigin
          judge("NEXT_PUBLIC_API_ORIGIN", api.value, api.location)
          for key in [
            "OIDC_OP_AUTHORIZATION_ENDPOINT", "OIDC_OP_TOKEN_ENDPOINT", "OIDC_OP_JWKS_ENDPOINT",
            "OIDC_OP_USER_ENDPOINT", "OIDC_OP_LOGOUT_ENDPOINT", "MOBILE_OTA_MANIFEST_URL",
          ] {
            // The app's own setting: a real system's endpoint from `--stack` is not the app's.
            if let (value, location) = build.backend?.env.committed(key), !value.isEmpty {
              judge(key, value, location)
            }
          }
          return out
        },
        fix: "serve the API, the identity provider and the OTA bucket over https://"),
      GuardRule(
        id: "android-release-guard", title: "Android release builds fail on a dev server.url",
        source: "seed 000, Production hardening (gradle guard); checklist item 7", devAllows: true,
        check: { build in
          guard build.platform == .android, build.guards.androidReleaseGuard?.value != true else {
            return []
          }
          let file = build.files["android.buildGradle"] ?? "android/app/build.gradle"
          let problem = build.guards.androidReleaseGuardProblem ?? "no preReleaseBuild guard"
          return [
            GuardHit(
              "\(problem): a release build would ship a synced server.url / server.cleartext",
              at: build.guards.androidReleaseGuard?.location
                ?? FileLocation(file: file, line: 0, column: 1))
          ]
        },
        fix:
          "hook preReleaseBuild to throw when assets/capacitor.config.json carries server.url or server.cleartext"
      ),
      GuardRule(
        id: "non-ephemeral-auth-session", title: "The iOS auth session shares Safari's cookies",
        source: "seed 000, Authentication architecture; checklist item 1", devAllows: false,
        check: { build in
          guard build.platform == .ios else { return [] }
          guard
            build.authSession.usesWebAuthenticationSession
              || build.authSession.pluginRegistered?.value == false
          else {
            return [
              GuardHit(
                "no ASWebAuthenticationSession plugin (\(build.files["ios.authPlugin"] ?? "WebAuthSessionPlugin.swift")): the default Browser plugin (SFSafariViewController) has an isolated cookie store",
                at: build.files["ios.authPlugin"].map { FileLocation(file: $0, line: 0, column: 1) }
              )
            ]
          }
          guard let flag = build.authSession.prefersEphemeral else {
            return [
              GuardHit(
                "prefersEphemeralWebBrowserSession is not set in \(build.files["ios.authPlugin"] ?? "the auth plugin"): it must be false to share Safari's cookies",
                at: build.files["ios.authPlugin"].map { FileLocation(file: $0, line: 0, column: 1) }
              )
            ]
          }
          return flag.value
            ? [
              GuardHit(
                "prefersEphemeralWebBrowserSession = true: the auth session does not share Safari's cookies, cross-app SSO is gone",
                at: flag.location, value: "true")
            ] : []
        },
        fix: "set session.prefersEphemeralWebBrowserSession = false in WebAuthSessionPlugin.swift"),
      GuardRule(
        id: "auth-plugin-registered", title: "The iOS auth plugin is registered",
        source: "seed 000, Release checklist item 1", devAllows: false,
        check: { build in
          guard build.platform == .ios, let registered = build.authSession.pluginRegistered,
            !registered.value
          else { return [] }
          let file = build.files["ios.viewController"] ?? "MainViewController.swift"
          let problem =
            build.authSession.registrationProblem
            ?? "the auth plugin is not registered (registerPluginInstance)"
          return [
            GuardHit(
              "\(problem): the JS side falls back to the Browser plugin (SFSafariViewController)",
              at: registered.location ?? FileLocation(file: file, line: 0, column: 1))
          ]
        },
        fix:
          "register the plugin in MainViewController.capacitorDidLoad() (outside #if DEBUG) and make MainViewController the root view controller (SceneDelegate, storyboard)"
      ),
      GuardRule(
        id: "callback-scheme-registered", title: "The callback scheme is registered natively",
        source: "seed 000, Authentication architecture (CFBundleURLTypes / intent-filter)",
        devAllows: false, reads: [.files, .frontendEnv],
        check: { build in
          guard let callback = build.callbackScheme, !build.registers(scheme: callback.value)
          else { return [] }
          let scheme = callback.value
          let registry =
            build.platform == .ios
            ? "CFBundleURLTypes of Info.plist" : "a browsable intent-filter of AndroidManifest.xml"
          let file =
            build.platform == .ios ? build.files["ios.infoPlist"] : build.files["android.manifest"]
          if let undeliverable = build.undeliverableSchemes.first(where: {
            $0.scheme.value.lowercased() == scheme.lowercased() || $0.scheme.value.contains("${")
          }) {
            return [
              GuardHit(
                "the callback scheme \"\(scheme)\"\(callback.because) is declared but cannot be delivered: \(undeliverable.reason)\(undeliverable.scheme.because)",
                at: undeliverable.scheme.location, value: scheme)
            ]
          }
          let registered = build.registeredSchemes.map {
            "\"\($0.value)\"\($0.because)"
          }
          return [
            GuardHit(
              "the callback scheme \"\(scheme)\"\(callback.because) is not in \(registry)\(registered.isEmpty ? "" : " (registered: \(registered.joined(separator: ", ")))")",
              at: build.registeredSchemes.first?.location
                ?? file.map { FileLocation(file: $0, line: 0, column: 1) }, value: scheme)
          ]
        },
        fix:
          "register the scheme on both platforms from the same variable as AUTH_CALLBACK_SCHEME (Info.plist CFBundleURLSchemes, a BROWSABLE intent-filter on an exported activity)"
      ),
      GuardRule(
        id: "callback-scheme-allowed", title: "The backend allows the channel's callback scheme",
        source:
          "seed 000, Authentication architecture step 1: /authenticate refuses a mobile_scheme that is not in MOBILE_AUTH_CALLBACK_SCHEMES",
        devAllows: false, reads: [.backendEnv, .frontendEnv],
        check: { build in
          guard let callback = build.callbackScheme, let backend = build.backend,
            !backend.callbackSchemes.contains(callback.value)
          else { return [] }
          let scheme = callback.value
          let at = backend.env.location(of: "MOBILE_AUTH_CALLBACK_SCHEMES")
          let written =
            backend.env["MOBILE_AUTH_CALLBACK_SCHEMES"].map { "is \($0)" } ?? "is not set"
          return [
            GuardHit(
              "MOBILE_AUTH_CALLBACK_SCHEMES \(written): the backend refuses the app's callback scheme \"\(scheme)\"\(callback.because) and mobile login fails",
              at: at, value: scheme)
          ]
        },
        fix:
          "list the channel's callback scheme in MOBILE_AUTH_CALLBACK_SCHEMES of its backend env (a JSON list, e.g. [\"stmessages\"])"
      ),
      GuardRule(
        id: "synced-identity", title: "The native build has the identity cap sync wrote",
        source:
          "seed 000, Configuration (MOBILE_APP_ID is read by cap sync and by the native builds)",
        devAllows: true, reads: [.files, .frontendEnv],
        check: { build in
          guard let synced = build.syncedAppId, !build.appId.value.isEmpty,
            synced.value != build.appId.value
          else { return [] }
          return [
            GuardHit(
              "the native build resolves the app id \"\(build.appId.value)\"\(build.appId.because) but cap sync wrote \"\(synced.value)\" into \(synced.origin): the store identity would differ from the synced config",
              at: build.appId.location ?? synced.location, value: build.appId.value)
          ]
        },
        fix: "export the same MOBILE_APP_ID for cap sync and for the native build"),
      GuardRule(
        id: "acr-mapped", title: "The requested ACR is mapped in the dev realm",
        source: "seed 000, Cross-app SSO conditions (acr.loa.map); checklist items 1 and 2",
        devAllows: false, reads: [.files, .backendEnv],
        check: { build in
          guard build.identityProvider == "keycloak-dev", let realm = build.realm,
            let backend = build.backend, let acr = backend.oidcExtraParams["acr_values"],
            !acr.isEmpty
          else { return [] }
          let clientID = backend.oidcClientId ?? build.name
          guard let client = realm.client(clientID) else {
            return [
              GuardHit(
                "the realm \"\(realm.realm)\" has no client \"\(clientID)\" (OIDC_RP_CLIENT_ID\(backend.env.location(of: "OIDC_RP_CLIENT_ID").map { " at \($0.file):\($0.line)" } ?? "")); its clients are \(realm.clients.map(\.clientId).joined(separator: ", "))",
                at: FileLocation(file: realm.file, line: 1, column: 1), value: clientID)
            ]
          }
          guard client.acrLevels[acr] == nil else { return [] }
          let map =
            client.acrLevels.isEmpty
            ? "empty" : client.acrLevels.keys.sorted().joined(separator: ", ")
          return [
            GuardHit(
              "acr.loa.map of client \"\(clientID)\" does not map \(acr) (map: \(map)): Keycloak re-authenticates on every flow and cross-app SSO is lost",
              at: FileLocation(file: realm.file, line: client.acrMapLine ?? 1, column: 1),
              value: "acr.loa.map")
          ]
        },
        fix: "map the requested ACR in the client's acr.loa.map (e.g. {\"eidas1\":1})"),
      GuardRule(
        id: "oidc-settings", title: "The backend env sets every endpoint its OIDC login asks",
        source:
          "seed 000, Authentication architecture (mozilla-django-oidc): the authorization, token and userinfo endpoints and the client have no default; checklist items 1 and 2",
        devAllows: false, reads: [.backendEnv],
        check: { build in
          guard let env = build.backend?.env else { return [] }
          // A backend that signs in with mozilla-django-oidc names its provider in this env;
          // one that does not (another shell kind, a token-only API) has none of the keys.
          guard
            env.files.contains(where: { $0.entries.contains { $0.key.hasPrefix("OIDC_OP_") } })
          else { return [] }
          let required = [
            "OIDC_OP_AUTHORIZATION_ENDPOINT", "OIDC_OP_TOKEN_ENDPOINT", "OIDC_OP_USER_ENDPOINT",
            "OIDC_RP_CLIENT_ID", "OIDC_RP_CLIENT_SECRET",
          ]
          // The app's own files: a stack file that drops a setting its real system does not
          // offer is not the app's mistake.
          let missing = required.filter { (env.committed($0)?.value ?? "").isEmpty }
          guard !missing.isEmpty else { return [] }
          let paths = env.files.map(\.path)
          let channelFile = paths.last { !$0.hasPrefix("(") }
          return missing.map { key in
            GuardHit(
              "\(key) is not set in \(paths.joined(separator: " + ")): mozilla-django-oidc has no default for it and every login fails (ImproperlyConfigured)",
              at: channelFile.map { FileLocation(file: $0, line: 1, column: 1) }, value: key)
          }
        },
        fix: "set the key in the channel's backend env to the provider's value"),
      GuardRule(
        id: "ota-public-key", title: "An OTA-enabled build embeds the bundle signing key",
        source:
          "seed 000, OTA updates (the key is mandatory as soon as OTA is on); checklist item 4",
        devAllows: false, reads: [.files, .backendEnv, .frontendEnv],
        check: { build in
          guard build.features.ota.enabled else { return [] }
          var out: [GuardHit] = []
          if build.capacitor?.updaterPublicKey == nil {
            out.append(
              GuardHit(
                "plugins.CapacitorUpdater.publicKey is missing while OTA is on (\(build.features.ota.decidedBy)): native verification has no key",
                at: build.capacitor?.location(line: 1),
                value: "CapacitorUpdater.publicKey"))
          }
          if build.frontend.otaPublicKey == nil {
            let files = build.frontend.envFiles
            out.append(
              GuardHit(
                "MOBILE_OTA_SIGNING_PUBLIC_KEY_B64 is in none of the frontend env files (\(files.joined(separator: ", "))): ota.ts refuses every manifest",
                at: files.last.map { FileLocation(file: $0, line: 1, column: 1) },
                value: "MOBILE_OTA_SIGNING_PUBLIC_KEY_B64"))
          }
          return out
        },
        fix:
          "bake MOBILE_OTA_SIGNING_PUBLIC_KEY_B64 into the build (capacitor.config.ts publicKey) — qualify ota keygen makes a pair"
      ),
      GuardRule(
        id: "ota-key-pair", title: "The baked OTA key matches the signing key",
        source:
          "seed 000, Generating the signing key pair (the two halves must stay a matched set)",
        devAllows: false, reads: [.files, .frontendEnv],
        check: { build in
          guard let baked = build.capacitor?.updaterPublicKey else { return [] }
          var out: [GuardHit] = []
          // ota.ts verifies with the env's key and the native plugin with the config's: a
          // mismatch refuses every bundle on one side only.
          if let webKey = build.frontend.otaPublicKey,
            !OTAKeyPair.sameKey(webKey.value, baked.value)
          {
            out.append(
              GuardHit(
                "MOBILE_OTA_SIGNING_PUBLIC_KEY_B64 and CapacitorUpdater.publicKey are different keys: one verifier refuses every bundle",
                at: webKey.location, value: "MOBILE_OTA_SIGNING_PUBLIC_KEY_B64"))
          }
          if let privateKey = build.frontend.otaPrivateKey,
            let publicHalf = OTAKeyPair.publicHalf(ofPrivate: privateKey.value),
            !OTAKeyPair.sameKey(publicHalf, baked.value)
          {
            out.append(
              GuardHit(
                "CapacitorUpdater.publicKey is not the public half of the signing key MOBILE_OTA_SIGNING_PRIVATE_KEY_B64 (\(privateKey.origin)): every bundle would be refused",
                at: baked.location, value: "CapacitorUpdater.publicKey"))
          }
          return out
        },
        fix:
          "bake the public half of the signing key pair into the build (or sign with the matching private key)"
      ),
      GuardRule(
        id: "native-http", title: "API calls go through the native HTTP stack",
        source: "seed 000, Networking & session", devAllows: false,
        check: { build in
          guard build.capacitor?.nativeHTTP?.value != true else { return [] }
          return [
            GuardHit(
              "plugins.CapacitorHttp.enabled is not true: the session would live in the WebView's cookie jar",
              at: build.capacitor?.nativeHTTP?.location
                ?? build.capacitor?.location(line: 1),
              value: build.capacitor?.nativeHTTP.map { "\($0.value)" })
          ]
        },
        fix: "enable CapacitorHttp in capacitor.config.ts"),
      GuardRule(
        id: "banner-strings", title: "Push banner strings are in the build",
        source: "seed 000, Push notifications (loc-key banners); checklist item 8",
        devAllows: false,
        reads: [.files, .backendEnv],
        check: { build in
          guard
            build.features.push.enabled
              || (build.features.push.use == .used && build.channel.isRelease)
          else { return [] }
          var out: [GuardHit] = []
          if build.push.requiredBannerKeys.isEmpty {
            return [
              GuardHit(
                "push is on (\(build.features.push.decidedBy)) but qualify.json names no \(build.platform.displayName) banner loc-keys (push.bannerKeys.\(build.platform.rawValue)): the banners cannot be checked",
                at: nil)
            ]
          }
          for locale in build.push.bannerFiles.keys.sorted() {
            let strings = build.push.bannerStrings[locale] ?? [:]
            let fallback =
              build.platform == .android
              ? build.push.bannerFiles.first { $0.value.hasSuffix("/values/strings.xml") }?.key
              : nil
            for key in build.push.requiredBannerKeys where (strings[key] ?? "").isEmpty {
              let file = build.push.bannerFiles[locale] ?? locale
              let untranslated = fallback.flatMap { build.push.bannerStrings[$0]?[key] }
              out.append(
                GuardHit(
                  untranslated.map {
                    "no \"\(key)\" string: a \(locale) device falls back to the default values/ and shows \"\($0)\" untranslated"
                  } ?? "no \"\(key)\" string: the \(locale) banner would render blank",
                  at: FileLocation(file: file, line: 1, column: 1), value: key))
            }
          }
          if build.push.bannerFiles.isEmpty {
            out.append(
              GuardHit(
                "no push banner strings file found for \(build.platform.displayName)", at: nil))
          }
          return out
        },
        fix: "add the loc-keys to every locale's Localizable.strings / strings.xml"),
      GuardRule(
        id: "push-pairing", title: "The backend's push settings pair with the build",
        source: "seed 000, Push notifications in dev; DESIGN.md rule 14; checklist item 8",
        devAllows: false, reads: [.files, .backendEnv],
        check: { build in
          guard
            build.features.push.enabled
              || (build.features.push.use == .used && build.channel.isRelease)
          else { return [] }
          return build.platform == .ios ? PushPairing.ios(build) : PushPairing.android(build)
        },
        fix:
          "pair the channel's backend env with the build: PUSH_APNS_USE_SANDBOX=False for a store build (aps-environment production), PUSH_APNS_BUNDLE_ID = the app id, PUSH_FCM_PROJECT_ID = google-services.json's project_id, with a client for the app id"
      ),
    ]

  public static func rule(_ id: String) -> GuardRule? { rules.first { $0.id == id } }

  /// The findings of every rule for `build`; on the dev channel, what a dev build may carry
  /// comes back as `allowed`; a rule over an env the channel did not supply comes back as
  /// one `unverified` finding.
  public static func findings(for build: AppBuild) -> [Finding] {
    rules(for: build.shell).flatMap { rule in findings(of: rule, for: build) }
  }

  public static func findings(of rule: GuardRule, for build: AppBuild) -> [Finding] {
    if build.channel.isRelease, let missing = unsuppliedInput(of: rule, in: build) {
      return [
        Finding(
          rule: rule.id, platform: build.platform, severity: .unverified,
          message:
            "\(Finding.unsuppliedInputPrefix)\(build.channel.rawValue) \(missing), which was not supplied (only dev defaults were found)",
          location: nil, value: nil,
          fix: "supply the release \(missing) (--\(missing.prefix { $0 != " " })-env)")
      ]
    }
    return rule.check(build).map { hit in
      let allowed = (hit.devAllows ?? rule.devAllows) && !build.channel.isRelease
      return Finding(
        rule: rule.id, platform: build.platform,
        severity: hit.unverified ? .unverified : allowed ? .allowed : .error,
        message: hit.message, location: hit.location, value: hit.value,
        // The app may well keep the rule: what to do is make the decision readable.
        fix: hit.unverified ? Self.unverifiedFix : rule.fix)
    }
  }

  /// What to do about a decision qualify could not read.
  public static let unverifiedFix =
    "check the decision by hand; to have qualify read it, write it in a form docs/app-profile.md lists (or name where it lives under \"paths\" in qualify.json) — until then a prod run does not qualify"

  /// The env a rule reads that the channel did not supply.
  static func unsuppliedInput(of rule: GuardRule, in build: AppBuild) -> String? {
    if rule.reads.contains(.backendEnv) && build.environment.backend == .fallback {
      return "backend env"
    }
    if rule.reads.contains(.frontendEnv) && build.environment.frontend == .fallback {
      return "frontend env"
    }
    return nil
  }
}
