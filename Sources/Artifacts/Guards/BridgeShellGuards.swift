import Foundation
import QualifyCore

/// The static guards of a React Native bridge shell (seed 001): the fixed origin, the
/// protocol range, the schemes, the WebView's restrictions, and both sides of the sign-in
/// handoff as their code reads.
extension BuildGuards {
  static let bridgeShellRules: [GuardRule] = [
    GuardRule(
      id: "release-origin", title: "Release origins are HTTPS public hosts",
      source: "seed 001, Fixed origin (config/mobileConfig.ts validates the origin at build time)",
      devAllows: true, reads: [.files, .frontendEnv],
      shells: [.reactNativeBridge],
      check: { build in
        guard let bridge = build.bridge else { return [] }
        var hits: [GuardHit] = []
        for (role, origin) in [("web", bridge.webOrigin), ("API", bridge.apiOrigin)] {
          guard let url = URLComponents(string: origin.value), url.host?.isEmpty == false else {
            hits.append(
              GuardHit(
                "the \(role) origin \(origin.value) is not a URL\(origin.because): the config module throws and the app opens on its fatal-configuration screen",
                at: origin.location, value: origin.value, devAllows: false))
            continue
          }
          if !["", "/"].contains(url.path) || url.query != nil || url.user != nil {
            hits.append(
              GuardHit(
                "the \(role) origin \(origin.value) has more than a scheme, a host and a port\(origin.because): the config module refuses it and the app opens on its fatal-configuration screen",
                at: origin.location, value: origin.value, devAllows: false))
            continue
          }
          guard bridge.release.value || build.channel.isRelease else { continue }
          if url.scheme != "https" {
            hits.append(
              GuardHit(
                "the \(role) origin \(origin.value) is not HTTPS\(origin.because): a release build must load its UI and API over TLS",
                at: origin.location, value: origin.value))
          } else if !isPublicHost(url.host ?? "") {
            hits.append(
              GuardHit(
                "the \(role) origin \(origin.value) is not a public host\(origin.because)",
                at: origin.location, value: origin.value))
          }
        }
        return hits
      },
      fix:
        "set OPENMAPX_MOBILE_WEB_ORIGIN (and …_API_ORIGIN) to the public https origin in the release env"
    ),
    GuardRule(
      id: "official-origin", title: "The official identifier loads only its official origin",
      source: "seed 001, Fixed origin (org.openmapx.app is restricted to https://openmapx.com)",
      devAllows: true, reads: [.files, .frontendEnv],
      shells: [.reactNativeBridge],
      check: { build in
        guard let bridge = build.bridge, let official = bridge.officialAppId,
          let origin = bridge.officialOrigin, bridge.appId.value == official.value
        else { return [] }
        let officialOrigin = BuildReader.normalizedOrigin(Sourced(origin.value, at: nil)).value
        return [("web", bridge.webOrigin), ("API", bridge.apiOrigin)].compactMap {
          role, value in
          value.value == officialOrigin
            ? nil
            : GuardHit(
              "\(official.value) is bound to \(origin.value) (\(origin.origin)), but its \(role) origin is \(value.value)\(value.because)",
              at: value.location, value: value.value)
        }
      },
      fix:
        "a self-hosted distribution needs its own application identifier, scheme, signing and origin"
    ),
    GuardRule(
      id: "runtime-server-selector", title: "Nothing changes the origin at run time",
      source: "seed 001, Fixed origin (there is no runtime server selector)", devAllows: false,
      shells: [.reactNativeBridge],
      check: { build in
        guard let bridge = build.bridge else { return [] }
        var hits: [GuardHit] = []
        if let selector = bridge.runtimeServerSelector {
          hits.append(
            GuardHit(
              "\(selector.value) lets the server change at run time: a signed binary must load only the origin compiled into it",
              at: selector.location, value: selector.value))
        }
        if let source = bridge.webViewSource, !source.value.hasPrefix("config.") {
          hits.append(
            GuardHit(
              "the WebView loads \(source.value), not the compiled config's origin",
              at: source.location, value: source.value))
        }
        return hits
      },
      fix: "load config.webOrigin from the build-time config module; remove the selector"
    ),
    GuardRule(
      id: "protocol-range", title: "version.json's protocol range equals the protocol constants",
      source: "seed 001, The bridge protocol (both say min 3, max 3)", devAllows: false,
      shells: [.reactNativeBridge],
      check: { build in
        guard let bridge = build.bridge else { return [] }
        guard let release = bridge.releaseProtocol, let constants = bridge.protocolConstants
        else {
          return [
            GuardHit(
              bridge.releaseProtocol == nil
                ? "apps/mobile/release/version.json has no protocol {min, max}"
                : "the protocol module has no MOBILE_PROTOCOL_MIN / MOBILE_PROTOCOL_MAX",
              at: bridge.releaseProtocol?.location ?? bridge.protocolConstants?.location)
          ]
        }
        guard release.value != constants.value else { return [] }
        // Point at the bound that differs.
        let maxDiffers = release.value.max != constants.value.max
        let constantAt =
          maxDiffers ? bridge.protocolConstantsMax ?? constants.location : constants.location
        return [
          GuardHit(
            "version.json declares protocol \(release.value) but the shell's constants implement \(constants.value) (\(constantAt.map { "\($0.file):\($0.line)" } ?? constants.origin)): the release descriptor promises what the bridge does not speak",
            at: maxDiffers ? bridge.releaseProtocolMax ?? release.location : release.location,
            value: "\(release.value)")
        ]
      },
      fix: "make version.json's protocol {min, max} equal MOBILE_PROTOCOL_MIN / MAX"
    ),
    GuardRule(
      id: "dev-scheme", title: "The development scheme only in development builds",
      source:
        "seed 001, The handoff (development builds use a suffixed scheme such as openmapx-dev)",
      devAllows: false, reads: [.files, .frontendEnv],
      shells: [.reactNativeBridge],
      check: { build in
        guard let bridge = build.bridge, bridge.release.value || build.channel.isRelease else {
          return []
        }
        var hits: [GuardHit] = []
        if !bridge.release.value {
          hits.append(
            GuardHit(
              "the \(build.channel.rawValue) channel's build env does not set the release flag\(bridge.release.because): it builds a development binary (suffixed scheme and id, no HTTPS check)",
              at: bridge.release.location, value: "release"))
        }
        for (what, value) in [("scheme", bridge.scheme), ("application id", bridge.appId)]
        where value.value.hasSuffix("-dev") || value.value.hasSuffix(".dev") {
          hits.append(
            GuardHit(
              "a release build's \(what) is \(value.value)\(value.because): the sign-in callback and the store identity are the development build's",
              at: value.location, value: value.value))
        }
        return hits
      },
      fix:
        "leave OPENMAPX_MOBILE_SCHEME / …_APP_ID unset (or the official values) in the release env"
    ),
    GuardRule(
      id: "webview-restrictions",
      title: "The descriptor precedes page scripts; geolocation off, media capture denied",
      source:
        "seed 001, The authority matrix and Fixed origin (App.tsx disables WebView geolocation, denies media capture)",
      devAllows: false, shells: [.reactNativeBridge],
      check: { build in
        guard let bridge = build.bridge else { return [] }
        var hits: [GuardHit] = []
        if let fact = bridge.descriptorBeforeContent, !fact.value {
          hits.append(
            GuardHit(
              "the shell descriptor is not injectedJavaScriptBeforeContentLoaded (main frame only): page scripts run before the shell's restrictions apply",
              at: fact.location, value: "descriptor"))
        }
        if let fact = bridge.geolocationDisabled, !fact.value {
          hits.append(
            GuardHit(
              "the WebView enables geolocation: the browser's location stream competes with the shell's",
              at: fact.location, value: "geolocationEnabled"))
        }
        if let fact = bridge.mediaCaptureDenied, !fact.value {
          hits.append(
            GuardHit(
              "media capture is not denied\(fact.because): the page can ask for the microphone (mediaCapturePermissionGrantType=\"deny\" denies it)",
              at: fact.location, value: "mediaCapturePermissionGrantType"))
        }
        return hits
      },
      fix:
        "injectedJavaScriptBeforeContentLoaded with …ForMainFrameOnly, geolocationEnabled={false}, mediaCapturePermissionGrantType=\"deny\""
    ),
    GuardRule(
      id: "handoff-client",
      title: "The handoff: a 32-byte verifier, S256, the compiled origin and scheme",
      source: "seed 001, The handoff, and its threat model (SystemAuthSession.ts)",
      devAllows: false, shells: [.reactNativeBridge],
      check: { build in
        guard let handoff = build.bridge?.handoff else { return [] }
        guard handoff.found else {
          return [
            GuardHit(
              "no handoff code under apps/mobile/src/auth: the system-browser sign-in cannot be checked",
              at: nil, value: "SystemAuthSession")
          ]
        }
        var hits: [GuardHit] = []
        if handoff.verifierBytes == nil {
          hits.append(
            GuardHit(
              "no VERIFIER_BYTES constant: the verifier's length cannot be checked", at: nil,
              value: "VERIFIER_BYTES"))
        }
        if handoff.challengeMethod == nil {
          hits.append(
            GuardHit(
              "no code_challenge_method is set on the /mobile-auth URL: the server cannot tell S256 from plain",
              at: handoff.verifierBytes?.location, value: "code_challenge_method"))
        }
        if let bytes = handoff.verifierBytes, bytes.value < 32 {
          hits.append(
            GuardHit(
              "the PKCE verifier is \(bytes.value) random bytes: seed 001 and RFC 7636 want 32 (43 characters)",
              at: bytes.location, value: "\(bytes.value)"))
        }
        if let method = handoff.challengeMethod, method.value != "S256" {
          hits.append(
            GuardHit(
              "code_challenge_method is \(method.value): the challenge must be S256, or the URL carries the verifier itself",
              at: method.location, value: method.value))
        }
        if handoff.path == nil, handoff.verifierBytes != nil {
          hits.append(
            GuardHit(
              "the handoff URL is not built from the compiled web origin (new URL(\"/mobile-auth\", webOrigin))",
              at: handoff.verifierBytes?.location, value: "/mobile-auth"))
        }
        if let callback = handoff.callback, callback.value != "auth/callback" {
          hits.append(
            GuardHit(
              "the callback is <scheme>://\(callback.value), not <scheme>://auth/callback",
              at: callback.location, value: callback.value))
        }
        if handoff.verifierBytes != nil {
          let at = handoff.path?.location ?? handoff.verifierBytes?.location
          if handoff.sendsState == nil {
            hits.append(
              GuardHit(
                "the /mobile-auth URL carries no state (searchParams.set(\"state\", …)): the callback cannot be tied to this attempt",
                at: at, value: "state"))
          }
          if let check = handoff.callbackCheck {
            // Run, the refusals say what they let through: the matched forms below are moot.
            if let refusal = check.value.refusesRight {
              hits.append(
                GuardHit(
                  "the callback's refusal if (\(refusal.value)) turns away the callback the server sends back: every sign-in fails",
                  at: refusal.location, value: "refuses the callback"))
            }
            for part in check.value.accepts {
              hits.append(
                GuardHit(
                  "a callback with another \(part) passes every refusal of the callback: "
                    + [
                      "host": "any link on the app's scheme is taken for the sign-in callback",
                      "scheme": "a link on another scheme is taken for the sign-in callback",
                    ][part, default: "a callback from another attempt is accepted"],
                  at: check.location, value: part))
            }
          } else if handoff.checksCallbackState == nil {
            if let read = handoff.readsCallbackState {
              hits.append(
                GuardHit(
                  "the callback's state is read (\(read.value)) but not compared with the attempt's in a form qualify reads (`!== state`, either order, or through a local): unverified",
                  at: read.location, value: "state", unverified: true))
            } else {
              hits.append(
                GuardHit(
                  "the callback's state is never compared with the attempt's (searchParams.get(\"state\") !== state): a callback from another attempt is accepted",
                  at: at, value: "state"))
            }
          }
          if handoff.callbackCheck == nil, handoff.checksCallbackHost == nil {
            if let read = handoff.readsCallbackHost {
              hits.append(
                GuardHit(
                  "the callback's host is used (\(read.value)) but not compared with auth in a form qualify reads (`.host !== \"auth\"`, or `startsWith(this.redirectUrl)`): unverified",
                  at: read.location, value: "host", unverified: true))
            } else {
              hits.append(
                GuardHit(
                  "the callback's host is never compared with auth (parsed.host !== \"auth\"): any <scheme>:// link is taken for the sign-in callback",
                  at: at, value: "host"))
            }
          }
        }
        return hits
      },
      fix:
        "VERIFIER_BYTES = 32, S256, new URL(\"/mobile-auth\", webOrigin), `${scheme}://auth/callback`"
    ),
    GuardRule(
      id: "handoff-server", title: "Handoff codes: hashed, two minutes, consumed atomically",
      source: "seed 001, The handoff, and its threat model (the server side)",
      devAllows: false, shells: [.reactNativeBridge],
      check: { build in
        guard let server = build.bridge?.handoffServer else { return [] }
        guard server.found else {
          // Not found is not the app's failure: the part may live where qualify did not look.
          return [
            GuardHit(
              "no handoff server code found (looked for files with \"handoff\" in their path under \(server.searched.joined(separator: ", "))): how codes are stored, expire and are consumed is not verified",
              at: nil, value: "handoff server", unverified: true)
          ]
        }
        var hits: [GuardHit] = []
        if let computed = server.computedTTL {
          hits.append(
            GuardHit(
              "\(server.ttlName ?? "the lifetime constant") is \(computed.value), computed or without a unit in its name: qualify cannot prove the two-minute lifetime",
              at: computed.location, value: computed.value, unverified: true))
        } else if server.ttlMilliseconds == nil {
          hits.append(
            GuardHit(
              "no lifetime constant (a name with TTL in it, such as CODE_TTL_MS) in the handoff server: the codes' lifetime is not verified",
              at: nil, value: "TTL", unverified: true))
        }
        if server.consumesAtomically != nil {
          for (fact, what) in [
            (server.wrongVerifierBurns, "where the verifier is compared"),
            (server.uniformRejections, "whether every refusal is one answer"),
          ] where fact == nil {
            hits.append(
              GuardHit(
                "the redemption's function was not read (\(what) is not verified): its refusals or its comparison are written in a form qualify does not read",
                at: nil, value: "redemption", unverified: true))
          }
        }
        if server.consumesAtomically == nil {
          hits.append(
            GuardHit(
              "no statement of the handoff server's files (\(server.files.joined(separator: ", "))) deletes a handoff row or marks it used: how a code is consumed is not verified (name the files that redeem codes with parts.handoffServer in qualify.json)",
              at: nil, value: "atomic consume", unverified: true))
        }
        if server.hashesCode == nil {
          hits.append(
            GuardHit(
              "no statement of the handoff server inserts a code: whether it stores the code or its hash is not verified",
              at: nil, value: "code hash", unverified: true))
        }
        hits += handoffRoutesHits(server, release: build.channel.isRelease)
        hits += build.bridge.map(handoffContractHits) ?? []
        if let uniform = server.uniformRejections, !uniform.value {
          hits.append(
            GuardHit(
              "the redemption refuses in different words\(uniform.because): each answer tells an attacker which check failed",
              at: uniform.location, value: "rejections"))
        }
        if let hit = GuardHit.missing(
          server.hashesCode,
          "the server stores the callback code itself, not its SHA-256: a read of the table is a sign-in",
          value: "code hash")
        {
          hits.append(hit)
        }
        if let ttl = server.ttlMilliseconds, ttl.value > 120_000 {
          hits.append(
            GuardHit(
              "a handoff code lives \(ttl.value / 1000) s: seed 001 says two minutes",
              at: ttl.location, value: "\(ttl.value)"))
        }
        if let hit = GuardHit.missing(
          server.consumesAtomically,
          "the code is not consumed by the statement that reads it: two concurrent redemptions can both succeed",
          value: "atomic consume")
        {
          hits.append(hit)
        }
        if let hit = GuardHit.missing(
          server.wrongVerifierBurns,
          "the verifier is checked before the code is consumed: a wrong verifier leaves the code redeemable",
          value: "wrong verifier")
        {
          hits.append(hit)
        }
        hits += [
          GuardHit.missing(
            server.checksState,
            "the redemption takes a code with any state: the state the page sends is not held to the attempt's",
            value: "state")
        ].compactMap { $0 }
        return hits
      },
      fix:
        "store sha256(code), expire after 2 min, delete … returning in one statement, compare the verifier and the state after"
    ),
    GuardRule(
      id: "handoff-diagnostics", title: "The diagnostic export leaves the handoff material out",
      source:
        "seed 001 (native session storage and diagnostic exports must exclude the handoff material)",
      devAllows: false, shells: [.reactNativeBridge],
      check: { build in
        let material = ["codeVerifier", "handoffCode", "state"]
        var hits: [GuardHit] = []
        if let allowed = build.bridge?.diagnosticsAllows {
          let kept = material.filter(allowed.value.contains)
          if !kept.isEmpty {
            hits.append(
              GuardHit(
                "the diagnostics allowlist keeps \(kept.joined(separator: ", ")): a bug report can carry a live sign-in",
                at: allowed.location, value: kept.joined(separator: ", ")))
          }
        }
        if let excluded = build.bridge?.diagnosticsExcludes {
          let missing = material.filter { !excluded.value.contains($0) }
          if !missing.isEmpty {
            hits.append(
              GuardHit(
                "the diagnostic export does not leave out \(missing.joined(separator: ", ")): a bug report can carry a live sign-in",
                at: excluded.location, value: missing.joined(separator: ", ")))
          }
        }
        return hits
      },
      fix:
        "keep codeVerifier, handoffCode and state out of the diagnostics allowlist, or add them to the export's excluded keys"
    ),
    GuardRule(
      id: "capability-report", title: "No capability is reported that nothing composes",
      source:
        "seed 001 (createShellBridge without a dispatcher reports navigation capabilities unavailable)",
      devAllows: false, shells: [.reactNativeBridge],
      check: { build in
        guard let bridge = build.bridge else { return [] }
        guard bridge.dispatcherComposed?.value != true else { return [] }
        if let provider = bridge.capabilityProvider {
          return [
            GuardHit(
              "App.tsx passes createShellBridge a capabilities provider and no dispatcher: what it reports is computed at run time, so whether it reports a capability nothing runs is not verified",
              at: provider.location, value: "capabilities", unverified: true)
          ]
        }
        if bridge.capabilities.isEmpty {
          return [
            GuardHit(
              "no describeShell() capabilities found (looked in apps/mobile/src/bridge/createShellBridge.ts for `capabilities: {` or `capabilities = … ?? {`): what the shell reports is not verified",
              at: nil, value: "describeShell", unverified: true)
          ]
        }
        return bridge.capabilities.filter(\.value.value).map { capability in
          GuardHit(
            "describeShell() reports \(capability.name) available, but App.tsx composes no dispatcher (\(bridge.dispatcherComposed?.origin ?? "createShellBridge")): the page would start what nothing can run",
            at: capability.value.location, value: capability.name)
        }
      },
      fix: "report a capability only once its processor is registered and dispatched"
    ),
  ]
}
