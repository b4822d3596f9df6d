import Foundation
import QualifyCore

extension BuildGuards {
  /// Cleartext and trust on the wire: what a release build lets through to plain HTTP or to
  /// a user-installed CA, on both platforms (seed 000, Production hardening).
  static let transportRules: [GuardRule] = [
    GuardRule(
      id: "server-cleartext", title: "No server.cleartext",
      source: "seed 000, Production hardening", devAllows: true, reads: [.files, .frontendEnv],
      check: { build in
        guard let cleartext = build.capacitor?.cleartext, cleartext.value else { return [] }
        return [
          GuardHit(
            "server.cleartext = true is baked in\(cleartext.because): plain HTTP is allowed",
            at: cleartext.location, value: "true")
        ]
      },
      fix:
        "set MOBILE_ALLOW_CLEARTEXT_FOR_DEV (and MOBILE_DEV_SERVER_URL) empty in the release env and rerun `cap sync`"
    ),
    GuardRule(
      id: "uses-cleartext-traffic", title: "No android:usesCleartextTraffic",
      source: "seed 000, Production hardening", devAllows: true,
      check: { build in
        guard build.platform == .android, let flag = build.transport.usesCleartextTraffic,
          flag.value
        else { return [] }
        return [
          GuardHit(
            "AndroidManifest.xml sets android:usesCleartextTraffic=\"true\"\(flag.because): the release app may speak plain HTTP",
            at: flag.location, value: "true")
        ]
      },
      fix:
        "remove android:usesCleartextTraffic from the manifest (Capacitor's server.cleartext is the dev-only switch)"
    ),
    GuardRule(
      id: "network-security-config",
      title: "No cleartext or user CA in the network security config",
      source: "seed 000, Production hardening; Android network security configuration",
      devAllows: true,
      check: { build in
        guard build.platform == .android, let config = build.transport.networkSecurityConfig
        else { return [] }
        var hits = config.cleartextAllowances.map { what, value in
          GuardHit(
            "\(config.file) permits cleartext in its \(what): cleartextTrafficPermitted=\"true\"\(value.because)",
            at: value.location, value: "cleartextTrafficPermitted=\"true\"")
        }
        let debuggable = build.transport.releaseDebuggable.map { made in
          " — \(made.value)\(made.location.map { " (\($0))" } ?? "") makes the release build debuggable"
        }
        hits += config.userCertificateTrust(debuggable: build.transport.debuggable).map {
          what, at in
          GuardHit(
            "\(config.file) trusts user-installed CAs in its \(what): <certificates src=\"user\"/> lets anyone who installs a CA on the device read the app's traffic"
              + (what.hasPrefix("debug-overrides") ? debuggable ?? "" : ""),
            at: at, value: "src=\"user\"")
        }
        if !build.transport.debuggable, let unread = build.transport.unreadDebuggable,
          let at = config.debugOverridesUserCertificates
        {
          hits.append(
            GuardHit(
              "\(config.file) trusts user-installed CAs in its debug-overrides, and the release build type's debuggable cannot be evaluated here (\(unread.value)\(unread.location.map { ", \($0)" } ?? "")): unverified",
              at: at, value: "src=\"user\"", unverified: true))
        }
        // Below targetSdk 28 a base-config that says nothing permits cleartext everywhere.
        if config.base?.cleartext == nil && build.transport.androidPlatformCleartextDefault {
          hits.append(
            GuardHit(
              "\(config.file) sets no cleartextTrafficPermitted in a base-config, and targetSdk \(build.transport.targetSdk.map(String.init) ?? "?") permits cleartext by default",
              at: config.base?.location ?? FileLocation(file: config.file, line: 1, column: 1),
              value: "targetSdk \(build.transport.targetSdk.map(String.init) ?? "?")"))
        }
        return hits
      },
      fix:
        "set cleartextTrafficPermitted=\"false\" (or drop it) in every base-config and domain-config, and keep user CAs to <debug-overrides>"
    ),
    GuardRule(
      id: "ats-exception", title: "No ATS exception in the shipped Info.plist",
      source: "seed 000, Production hardening (Strip dev ATS exception)", devAllows: true,
      check: { build in
        guard build.platform == .ios, let shipped = build.transport.atsShipped else { return [] }
        let why =
          build.channel.isRelease
          ? " (\(build.guards.iosStripATSProblem ?? "no build phase removes it from release products")\(build.guards.iosStripATSPhase?.location.map { ", \($0.file):\($0.line)" } ?? ""))"
          : ""
        return shipped.exceptions.map { exception, location in
          GuardHit("Info.plist ships \(exception)\(why)", at: location, value: exception)
        }
      },
      fix:
        "keep the \"Strip dev ATS exception\" build phase deleting NSAppTransportSecurity in every non-Debug configuration"
    ),
  ]
}
