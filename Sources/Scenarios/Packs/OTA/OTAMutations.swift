import Artifacts
import Devices
import QualifyCore

/// Mutations of the OTA world, each switching off one behaviour of rules 10–13.
extension OTAVocabulary {
  static let mutations: [MutationSpec] = [
    .shell(
      "updater.no-downgrade-guard",
      "The updater applies any manifest that differs, lower counts included.",
      breaks: "rule 11: strictly greater count"
    ) { $0.updaterSkipsDowngradeGuard = true },
    .shell(
      "updater.compares-counts-as-text",
      "The updater compares the counts of two ids as text: 999 orders above 1200, 10000 below it.",
      breaks: "rule 11: the count is a number"
    ) { $0.updaterComparesCountsAsText = true },
    .shell(
      "updater.forgets-sequence-floor",
      "A sequence-ordered app keeps no floor of the sequences it staged: any manifest's sequence looks new.",
      breaks: "Release sequence: a stale or replayed manifest never moves a device back"
    ) { $0.updaterForgetsSequenceFloor = true },
    .shell(
      "updater.ignores-native-floor",
      "A sequence-ordered app takes a count-prefixed bundle older than the store build's, as long as its sequence is new.",
      breaks: "ota.ts: the native floor, no bundle below the binary"
    ) { $0.updaterIgnoresNativeFloor = true },
    .shell(
      "updater.skips-verification",
      "The updater applies a bundle without checking its checksum and session key.",
      breaks: "rule 12: verified with the baked public key"
    ) { $0.updaterSkipsVerification = true },
    .shell(
      "updater.forgets-failed-boots",
      "The updater does not mirror the failed-boot record: a broken bundle is downloaded again.",
      breaks: "rule 12: a failed boot is never re-applied"
    ) { $0.updaterForgetsFailedBoots = true },
    .shell(
      "updater.records-transient-failures",
      "A transient download failure is recorded like a failed boot.",
      breaks: "rule 12: a transient failure is retried"
    ) { $0.updaterRecordsTransientFailures = true },
    .shell(
      "updater.rolls-back-to-builtin",
      "A bundle that never called notifyAppReady() is rolled back to the builtin bundle, not to the last one that booted.",
      breaks:
        "rule 12: rolled back to the last good bundle (Capgo: the previously successful version)"
    ) { $0.updaterRollsBackToBuiltin = true },
    .shell(
      "updater.unpacks-any-path",
      "The updater unpacks a bundle's entries wherever their names point, ../ included (zip-slip).",
      breaks: "rule 12: a bundle only writes inside its own folder"
    ) { $0.updaterUnpacksAnyPath = true },
    .shell(
      "updater.ignores-dev-server", "The startup check runs even with a dev server URL baked in.",
      breaks: "rule 13: no OTA check during hot reload"
    ) { $0.updaterIgnoresDevServer = true },
    MutationSpec(
      "app.ota-public-key-removed",
      summary:
        "The build embeds no OTA public key (capacitor.config CapacitorUpdater.publicKey, MOBILE_OTA_SIGNING_PUBLIC_KEY_B64).",
      breaks: "rule 12: no public key, no OTA"
    ) { configuration, _ in
      configuration.build.capacitor?.updaterPublicKey = nil
      configuration.build.frontend.otaPublicKey = nil
    },
    MutationSpec(
      "app.ota-key-mismatch",
      summary:
        "capacitor.config's CapacitorUpdater.publicKey is the public half of another key pair than the pipeline signs with.",
      breaks: "seed 000: the two halves of the signing key must stay a matched set"
    ) { configuration, _ in
      configuration.bakesForeignOTAKey = true
    },
    MutationSpec(
      "app.ota-public-key-spki",
      summary:
        "capacitor.config's CapacitorUpdater.publicKey is the right key as an SPKI PEM (BEGIN PUBLIC KEY) — what openssl's -pubout writes — not the PKCS#1 BEGIN RSA PUBLIC KEY the plugin reads.",
      breaks: "Capgo v2: the plugin reads only a PKCS#1 RSA public key"
    ) { configuration, _ in
      configuration.bakesSPKIOTAKey = true
    },
    MutationSpec(
      "app.ota-auto-update",
      summary:
        "capacitor.config's CapacitorUpdater.autoUpdate is true (or left out, the plugin's default): the plugin updates itself from its update server.",
      breaks: "seed 000: OTA is driven entirely from JS, autoUpdate: false"
    ) { configuration, _ in
      let setting = configuration.build.capacitor?.updaterAutoUpdate
      configuration.build.capacitor?.updaterAutoUpdate = Sourced(true, at: setting?.location)
    },
    MutationSpec(
      "app.ota-accepts-equal-release",
      summary:
        "ota.ts refuses a manifest only when its sequence (or count) is below the applied (running) one: `sequence < applied`, not `<=`, so a pointer re-written under the same sequence, or another build of the same count, applies.",
      breaks: "a device takes only a strictly greater sequence (count)"
    ) { configuration, _ in
      let file = configuration.build.otaClient?.file ?? "src/features/native/ota.ts"
      let somewhere = FileLocation(file: file, line: 1, column: 1)
      var code =
        configuration.build.otaClient
        ?? OTAClientCode(
          file: file, sequenceFloor: Sourced(.refusesEqual, at: somewhere),
          countOrder: Sourced(.refusesEqual, at: somewhere),
          nativeFloor: Sourced(true, at: somewhere), failedBootGuard: Sourced(true, at: somewhere))
      code.sequenceFloor = Sourced(.acceptsEqual, at: code.sequenceFloor.location)
      code.countOrder = Sourced(.acceptsEqual, at: code.countOrder.location)
      configuration.build.otaClient = code
    },
    MutationSpec(
      "app.builtin-unstamped",
      summary:
        "The store build was synced without MOBILE_OTA_BUILD_ID: its builtin bundle reports the literal \"builtin\".",
      breaks: "rule 11: the builtin stamp skips a manifest of the same commit"
    ) { configuration, _ in
      configuration.build.capacitor?.updaterVersion = nil
    },
    MutationSpec(
      "app.builtin-bare-sha",
      summary:
        "The store build is stamped with the bare commit id (git rev-parse --short HEAD) instead of <count>-<sha>: its builtin bundle has no release count.",
      breaks: "rule 11: counts order releases only when both ids carry one"
    ) { configuration, _ in
      if let stamp = configuration.build.capacitor?.updaterVersion,
        let dash = stamp.value.firstIndex(of: "-")
      {
        configuration.build.capacitor?.updaterVersion = Sourced(
          String(stamp.value[stamp.value.index(after: dash)...]), at: stamp.location)
      }
    },
    MutationSpec(
      "ci.sequence-not-bumped",
      summary:
        "The pipeline re-points the manifest without bumping its sequence (a rollback written with the channel's current sequence).",
      breaks: "Release sequence: every manifest write bumps the sequence, so a rollback is followed"
    ) { configuration, _ in
      configuration.publishKeepsSequence = true
    },
    MutationSpec(
      "ci.ota-bundle-drops", [.value("file", .text)],
      summary:
        "The pipeline zips the web bundle without FILE (a path of the bundle, `assets/message-body.js`): a packaging step that loses an asset the shipped build has.",
      breaks: "seed 000, item 3 on the OTA path: the bundle devices apply renders the thread"
    ) { configuration, arguments in
      configuration.publishDropsFile = arguments["file"]
    },
    MutationSpec(
      "ci.publish-without-guard",
      summary: "The pipeline publishes without the downgrade guard (as with --force).",
      breaks: "rule 13: publishing refuses a version that does not order above the channel"
    ) { configuration, _ in
      configuration.publishForces = true
    },
    MutationSpec(
      "backend.manifest-channel", [.value("channel", .text)],
      summary:
        "The backend's /config names CHANNEL's manifest (`other`: one the app does not follow) — a staging-configured backend serving prod apps.",
      breaks: "rule 13: bundles never cross channels"
    ) { configuration, arguments in
      let url = configuration.build.backend?.otaManifestURL ?? ""
      let followed =
        url.range(of: "channels/").map { String(url[$0.upperBound...].prefix { $0 != "/" }) } ?? ""
      var channel = arguments["channel"] ?? "other"
      if channel == "other" { channel = followed == "staging" ? "prod" : "staging" }
      if let url = configuration.build.backend?.otaManifestURL,
        let range = url.range(of: "channels/")
      {
        let rest = url[range.upperBound...].drop { $0 != "/" }
        configuration.stack.configManifestURLOverride =
          String(url[..<range.upperBound]) + channel + rest
      }
    },
  ]
}
