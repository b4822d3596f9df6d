import Foundation
import QualifyCore

/// The static guards: what a build must (not) carry, per channel. `qualify check-app` prints
/// these findings; the guards scenarios assert on them during a full run.
public enum BuildGuards {
  /// Every rule, in the order findings are reported.
  public static let rules: [GuardRule] = [
    GuardRule(
      id: "dev-server-url", title: "No dev server URL baked in",
      source: "seed 000, Hot reload; checklist item 7", devAllows: true,
      check: { build in
        guard let url = build.capacitor.serverURL else { return [] }
        return [
          (
            "server.url = \"\(url.value)\" is baked in: the WebView would load from the dev server instead of the embedded bundle",
            url.location, url.value
          )
        ]
      },
      fix: "set MOBILE_DEV_SERVER_URL empty in frontend.local and rerun `make mobile-build`"),
    GuardRule(
      id: "server-cleartext", title: "No server.cleartext",
      source: "seed 000, Production hardening", devAllows: true,
      check: { build in
        guard let cleartext = build.capacitor.cleartext, cleartext.value else { return [] }
        return [
          ("server.cleartext = true is baked in: plain HTTP is allowed", cleartext.location, "true")
        ]
      },
      fix: "unset MOBILE_ALLOW_CLEARTEXT_FOR_DEV for release builds and rerun `cap sync`"),
    GuardRule(
      id: "uses-cleartext-traffic", title: "No android:usesCleartextTraffic",
      source: "seed 000, Production hardening", devAllows: true,
      check: { build in
        guard build.platform == .android, let flag = build.transport.usesCleartextTraffic,
          flag.value,
          flag.location?.file != build.capacitor.file
        else { return [] }
        return [
          (
            "AndroidManifest.xml sets android:usesCleartextTraffic=\"true\": the release app may speak plain HTTP",
            flag.location, "true"
          )
        ]
      },
      fix:
        "remove android:usesCleartextTraffic from the manifest (Capacitor's server.cleartext is the dev-only switch)"
    ),
    GuardRule(
      id: "ats-exception", title: "No ATS exception in the shipped Info.plist",
      source: "seed 000, Production hardening (Strip dev ATS exception)", devAllows: true,
      check: { build in
        guard build.platform == .ios, let shipped = build.transport.atsShipped else { return [] }
        let strip = build.guards.iosStripATSPhase?.value == true
        return shipped.exceptions.map { exception, location in
          let why =
            strip || !build.channel.isRelease
            ? "" : " (no \"Strip dev ATS exception\" build phase removes it from release products)"
          return ("Info.plist ships \(exception)\(why)", location, exception)
        }
      },
      fix:
        "keep the \"Strip dev ATS exception\" build phase (it deletes NSAppTransportSecurity from every non-Debug product)"
    ),
    GuardRule(
      id: "https-origins", title: "Every origin is HTTPS",
      source: "seed 000, Production hardening (OTA over HTTPS, CSRF Origin on HTTPS)",
      devAllows: true,
      check: { build in
        var out: [(String, FileLocation?, String?)] = []
        let api = build.frontend.apiOrigin
        if api.value.lowercased().hasPrefix("http://") {
          out.append(
            ("NEXT_PUBLIC_API_ORIGIN = \(api.value) is cleartext", api.location, api.value))
        }
        for key in [
          "OIDC_OP_AUTHORIZATION_ENDPOINT", "OIDC_OP_TOKEN_ENDPOINT", "OIDC_OP_JWKS_ENDPOINT",
          "OIDC_OP_USER_ENDPOINT", "OIDC_OP_LOGOUT_ENDPOINT", "MOBILE_OTA_MANIFEST_URL",
        ] {
          if let value = build.backend.env[key], value.lowercased().hasPrefix("http://") {
            out.append(
              ("\(key) = \(value) is cleartext", build.backend.env.location(of: key), value))
          }
        }
        return out
      },
      fix: "serve the API, the identity provider and the OTA bucket over HTTPS"),
    GuardRule(
      id: "android-release-guard", title: "Android release builds fail on a dev server.url",
      source: "seed 000, Production hardening (gradle guard); checklist item 7", devAllows: true,
      check: { build in
        guard build.platform == .android, build.guards.androidReleaseGuard?.value != true else {
          return []
        }
        let file = build.files["android.buildGradle"] ?? "android/app/build.gradle"
        return [
          (
            "no preReleaseBuild guard against a synced server.url / server.cleartext",
            build.guards.androidReleaseGuard?.location
              ?? FileLocation(file: file, line: 0, column: 1), nil
          )
        ]
      },
      fix:
        "hook preReleaseBuild to fail when assets/capacitor.config.json carries server.url or server.cleartext"
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
            (
              "no ASWebAuthenticationSession plugin (\(build.files["ios.authPlugin"] ?? "WebAuthSessionPlugin.swift")): the default Browser plugin (SFSafariViewController) has an isolated cookie store",
              nil, nil
            )
          ]
        }
        guard let flag = build.authSession.prefersEphemeral else {
          return [
            (
              "prefersEphemeralWebBrowserSession is not set in \(build.files["ios.authPlugin"] ?? "the auth plugin"): it must be false to share Safari's cookies",
              nil, nil
            )
          ]
        }
        return flag.value
          ? [
            (
              "prefersEphemeralWebBrowserSession = true: the auth session does not share Safari's cookies, cross-app SSO is gone",
              flag.location, "true"
            )
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
        return [
          (
            "the auth plugin is not registered (registerPluginInstance): the JS side falls back to the Browser plugin (SFSafariViewController)",
            registered.location ?? FileLocation(file: file, line: 0, column: 1), nil
          )
        ]
      },
      fix: "register the plugin in MainViewController.capacitorDidLoad()"),
    GuardRule(
      id: "callback-scheme-registered", title: "The callback scheme is registered natively",
      source: "seed 000, Authentication architecture (CFBundleURLTypes / intent-filter)",
      devAllows: false,
      check: { build in
        let scheme = build.callbackScheme.value
        guard !build.registers(scheme: scheme) else { return [] }
        let registry =
          build.platform == .ios
          ? "CFBundleURLTypes of Info.plist" : "any intent-filter of AndroidManifest.xml"
        let file =
          build.platform == .ios ? build.files["ios.infoPlist"] : build.files["android.manifest"]
        let registered = build.registeredSchemes.map(\.value)
        return [
          (
            "the callback scheme \"\(scheme)\" is not in \(registry)\(registered.isEmpty ? "" : " (registered: \(registered.joined(separator: ", ")))")",
            file.map { FileLocation(file: $0, line: 0, column: 1) }, scheme
          )
        ]
      },
      fix: "register the scheme on both platforms (source of truth: AUTH_CALLBACK_SCHEME)"),
    GuardRule(
      id: "acr-mapped", title: "The requested ACR is mapped in the dev realm",
      source: "seed 000, Cross-app SSO conditions (acr.loa.map); checklist items 1 and 2",
      devAllows: false,
      check: { build in
        guard build.identityProvider == "keycloak-dev", let realm = build.realm,
          let acr = build.backend.oidcExtraParams["acr_values"], !acr.isEmpty
        else { return [] }
        let clientID = build.backend.oidcClientId ?? build.name
        guard let client = realm.client(clientID) else {
          return [
            (
              "the realm has no client \"\(clientID)\" (OIDC_RP_CLIENT_ID)",
              FileLocation(file: realm.file, line: 0, column: 1), clientID
            )
          ]
        }
        guard client.acrLevels[acr] == nil else { return [] }
        let map =
          client.acrLevels.isEmpty
          ? "empty" : client.acrLevels.keys.sorted().joined(separator: ", ")
        return [
          (
            "acr.loa.map of client \"\(clientID)\" does not map \(acr) (map: \(map)): Keycloak re-authenticates on every flow and cross-app SSO is lost",
            FileLocation(file: realm.file, line: client.acrMapLine ?? 0, column: 1), "acr.loa.map"
          )
        ]
      },
      fix: "map the requested ACR in the client's acr.loa.map (e.g. {\"eidas1\":1})"),
    GuardRule(
      id: "ota-public-key", title: "An OTA-enabled build embeds the bundle signing key",
      source: "seed 000, OTA updates (the key is mandatory as soon as OTA is on); checklist item 4",
      devAllows: false,
      check: { build in
        guard build.backend.otaManifestURL != nil else { return [] }
        var out: [(String, FileLocation?, String?)] = []
        if build.capacitor.updaterPublicKey == nil {
          out.append(
            (
              "plugins.CapacitorUpdater.publicKey is missing while the backend serves MOBILE_OTA_MANIFEST_URL: native verification has no key",
              FileLocation(file: build.capacitor.file, line: 0, column: 1),
              "CapacitorUpdater.publicKey"
            ))
        }
        if build.frontend.otaPublicKey == nil {
          let files = build.frontend.envFiles
          out.append(
            (
              "MOBILE_OTA_SIGNING_PUBLIC_KEY_B64 is in none of the frontend env files (\(files.joined(separator: ", "))): ota.ts refuses every manifest",
              files.first.map { FileLocation(file: $0, line: 0, column: 1) },
              "MOBILE_OTA_SIGNING_PUBLIC_KEY_B64"
            ))
        }
        return out
      },
      fix:
        "bake MOBILE_OTA_SIGNING_PUBLIC_KEY_B64 into the build (capacitor.config.ts publicKey) — qualify ota keygen makes a pair"
    ),
    GuardRule(
      id: "ota-key-pair", title: "The baked OTA key matches the signing key",
      source: "seed 000, Generating the signing key pair (the two halves must stay a matched set)",
      devAllows: false,
      check: { build in
        guard let baked = build.capacitor.updaterPublicKey else { return [] }
        var out: [(String, FileLocation?, String?)] = []
        // ota.ts verifies with the env's key and the native plugin with the config's: a
        // mismatch refuses every bundle on one side only.
        if let webKey = build.frontend.otaPublicKey, !OTAKeyPair.sameKey(webKey.value, baked.value)
        {
          out.append(
            (
              "MOBILE_OTA_SIGNING_PUBLIC_KEY_B64 and CapacitorUpdater.publicKey are different keys: one verifier refuses every bundle",
              webKey.location, "MOBILE_OTA_SIGNING_PUBLIC_KEY_B64"
            ))
        }
        if let privateKey = build.frontend.otaPrivateKey,
          let publicHalf = OTAKeyPair.publicHalf(ofPrivate: privateKey.value),
          !OTAKeyPair.sameKey(publicHalf, baked.value)
        {
          out.append(
            (
              "CapacitorUpdater.publicKey is not the public half of MOBILE_OTA_SIGNING_PRIVATE_KEY_B64: every bundle would be refused",
              baked.location, "CapacitorUpdater.publicKey"
            ))
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
        guard build.capacitor.nativeHTTP?.value != true else { return [] }
        return [
          (
            "plugins.CapacitorHttp.enabled is not true: the session would live in the WebView's cookie jar",
            build.capacitor.nativeHTTP?.location
              ?? FileLocation(file: build.capacitor.file, line: 0, column: 1),
            build.capacitor.nativeHTTP.map { "\($0.value)" }
          )
        ]
      },
      fix: "enable CapacitorHttp in capacitor.config.ts"),
    GuardRule(
      id: "banner-strings", title: "Push banner strings are in the build",
      source: "seed 000, Push notifications (loc-key banners); checklist item 8", devAllows: false,
      check: { build in
        var out: [(String, FileLocation?, String?)] = []
        for locale in build.push.bannerFiles.keys.sorted() {
          let strings = build.push.bannerStrings[locale] ?? [:]
          for key in build.push.requiredBannerKeys where (strings[key] ?? "").isEmpty {
            let file = build.push.bannerFiles[locale] ?? locale
            out.append(
              (
                "no \"\(key)\" string: the \(locale) banner would render blank",
                FileLocation(file: file, line: 0, column: 1), key
              ))
          }
        }
        if build.push.bannerFiles.isEmpty && !build.push.requiredBannerKeys.isEmpty {
          out.append(
            ("no push banner strings file found for \(build.platform.displayName)", nil, nil))
        }
        return out
      },
      fix: "add the loc-keys to every locale's Localizable.strings / strings.xml"),
  ]

  public static func rule(_ id: String) -> GuardRule? { rules.first { $0.id == id } }

  /// The findings of every rule for `build`; on the dev channel, what a dev build may carry
  /// comes back as `allowed`.
  public static func findings(for build: AppBuild) -> [Finding] {
    rules.flatMap { rule in
      rule.check(build).map { message, location, value in
        Finding(
          rule: rule.id, platform: build.platform,
          severity: rule.devAllows && !build.channel.isRelease ? .allowed : .error,
          message: message,
          location: location, value: value, fix: rule.fix)
      }
    }
  }
}
