import QualifyCore

/// Seed 001's config module run as the app runs it at start (`BuildReader+BridgeConfig`):
/// a throw on the channel's build env is the app's fatal-configuration screen.
extension BuildGuards {
  static let bridgeConfigRules: [GuardRule] = [
    GuardRule(
      id: "config-accepts-env", title: "The config module accepts the channel's build env",
      source: "seed 001, Fixed origin (every value read once, validated, frozen)",
      devAllows: false, reads: [.files, .frontendEnv],
      shells: [.reactNativeBridge],
      check: { build in
        // A function qualify could not run says nothing of a throw either way.
        let unread = build.bridge?.configUnread.map {
          GuardHit(
            "whether the config module accepts this channel's build env is unverified: \($0.value)",
            at: $0.location, value: "config not run", unverified: true)
        }
        let thrown = build.bridge?.configThrows.flatMap {
          $0.value
            ? GuardHit(
              "the config module throws on this channel's build env\($0.because): the app opens on its fatal-configuration screen",
              at: $0.location, value: "throws") : nil
        }
        return [unread ?? thrown].compactMap { $0 }
      },
      fix:
        "give the channel's build env what the config module validates (the origins, the identifiers it requires in a release), or fix the validation that refuses it"
    )
  ]
}
