import Artifacts
import QualifyCore

/// Mutations of the spine: trust, transport policy, configuration.
enum CoreMutations {
  static let all: [MutationSpec] = [
    MutationSpec(
      "tls.untrusted-ca",
      summary: "The mocks present certificates issued by a CA the devices do not trust.",
      breaks: "HTTPS verification (a release shell must refuse an untrusted server)"
    ) { configuration, _ in
      configuration.stack.untrustedCertificate = true
    },
    MutationSpec(
      "shell.ignores-transport-policy",
      summary: "The native HTTP stack ignores ATS and the Android cleartext policy.",
      breaks: "rule 16: the simulated release shell refuses a cleartext request at runtime"
    ) { configuration, _ in
      configuration.shell.ignoresTransportPolicy = true
    },
    MutationSpec(
      "app.no-cleartext-exception",
      summary:
        "The build loses every cleartext allowance: no ATS exception (iOS), no usesCleartextTraffic or server.cleartext (Android).",
      breaks: "the dev build's access to the plain-HTTP dev stack (seed 000, Networking & session)"
    ) { configuration, _ in
      configuration.build.transport.atsShipped = nil
      configuration.build.transport.usesCleartextTraffic = nil
      configuration.build.transport.networkSecurityConfig = nil
      configuration.build.transport.capacitorCleartext = nil
      configuration.build.capacitor?.cleartext = nil
    },
    MutationSpec(
      "backend.config-manifest-url", [.value("url", .text)],
      summary: "The backend's /config advertises URL as MOBILE_OTA_MANIFEST_URL.",
      breaks: "rule 16: every origin a release build uses is HTTPS"
    ) { configuration, arguments in
      configuration.stack.configManifestURLOverride = arguments["url"] ?? ""
    },
    MutationSpec(
      "app.api-origin-cleartext",
      summary: "The build calls its own API origin over http:// instead of https://.",
      breaks: "rule 16: HTTPS origins on release channels"
    ) { configuration, _ in
      let origin = configuration.build.frontend.apiOrigin
      configuration.build.frontend.apiOrigin = Sourced(
        CoreMutations.cleartext(origin.value), at: origin.location)
      // The app's own setting too, when a real backend (`--stack`) stands in for it.
      if let own = configuration.build.frontend.ownAPIOrigin {
        configuration.build.frontend.ownAPIOrigin = Sourced(
          CoreMutations.cleartext(own.value), at: own.location)
      }
    },
    MutationSpec(
      "backend.manifest-url-cleartext",
      summary: "The backend's /config advertises its OTA manifest URL over http://.",
      breaks: "rule 16: every origin a release build uses is HTTPS (OTA over HTTPS)"
    ) { configuration, _ in
      let url = configuration.build.backend?.otaManifestURL ?? "https://ota.invalid/manifest.json"
      configuration.stack.configManifestURLOverride = CoreMutations.cleartext(url)
    },
    MutationSpec(
      "backend.env-cleartext", [.value("key", .text)],
      summary:
        "The URL in the backend setting KEY is downgraded to http:// (e.g. OIDC_OP_AUTHORIZATION_ENDPOINT).",
      breaks: "rule 16: HTTPS origins for the IdP and the OTA bucket"
    ) { configuration, arguments in
      let key = arguments["key"] ?? ""
      let value = configuration.build.backend?.env[key] ?? "https://unset.invalid/"
      configuration.build.backend?.env.set(key, CoreMutations.cleartext(value))
    },
    MutationSpec(
      "backend.unhealthy",
      summary: "The backend's heartbeat answers 503.",
      breaks: "the backend's availability"
    ) { configuration, _ in
      configuration.stack.backendUnhealthy = true
    },
    MutationSpec(
      "backend.env", [.value("key", .text), .value("value", .text)],
      summary:
        "Overrides one setting of the backend's env file (e.g. MOBILE_AUTH_CALLBACK_SCHEMES, or PUSH_APNS_USE_SANDBOX for rule 14).",
      breaks: "whatever the setting configures"
    ) { configuration, arguments in
      configuration.build.backend?.env.set(arguments["key"] ?? "", arguments["value"] ?? "")
    },
    MutationSpec(
      "app.api-origin", [.value("url", .text)],
      summary: "The build calls URL as its API origin (NEXT_PUBLIC_API_ORIGIN).",
      breaks: "rule 16: HTTPS origins on release channels"
    ) { configuration, arguments in
      configuration.build.frontend.apiOrigin = Sourced(arguments["url"] ?? "", at: nil)
    },
  ]

  /// `url` with its scheme downgraded to http.
  static func cleartext(_ url: String) -> String {
    url.lowercased().hasPrefix("https://") ? "http://" + url.dropFirst("https://".count) : url
  }
}
