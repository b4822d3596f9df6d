import OTA
import Testing

@testable import Devices

/// Rules 11–13 driven through the updater's state machine: manifests and downloads are
/// written by the test, nothing is sent or decrypted.
@Suite struct UpdaterStateMachineTests {
  typealias Machine = UpdaterStateMachine

  static let build = Machine.Build(servesFromDevServer: false, hasPublicKey: true)
  static let manifestURL = "https://ota.test/channels/prod/manifest.json"

  static func manifest(_ version: String) -> Manifest {
    Manifest(version: version, url: "bundles/\(version).zip", checksum: "c", sessionKey: "s")
  }

  /// Runs one check against a manifest advertising `version`, with the download ending as
  /// `download`; returns the decision.
  static func check(
    _ machine: inout Machine, _ version: String?, download: Machine.Download = .verified
  ) -> OTAUpdater.Decision? {
    var action = machine.beginCheck(build)
    while true {
      switch action {
      case .fetchConfig: action = machine.configRead(.some(manifestURL))
      case .fetchManifest:
        action = machine.manifestRead(
          status: version == nil ? 404 : 200, manifest: version.map(manifest))
      case .download(let url, _):
        #expect(url.hasPrefix("https://ota.test/channels/prod/bundles/"))
        action = machine.downloaded(download)
      case .decided(let decision): return decision
      }
    }
  }

  /// Rule 11: a strictly greater count, or plain inequality for ids without a count.
  @Test(arguments: [
    ("1000-aaa", "1001-bbb", "applied"), ("1000-aaa", "1000-bbb", "refused"),
    ("1000-aaa", "999-bbb", "refused"), ("builtin", "1-aaa", "applied"),
    ("1000-aaa", "pinned", "applied"), ("1000-aaa", "1000-aaa", "skipped"),
  ])
  func aManifestAppliesOnlyOverALowerCount(running: String, advertised: String, label: String) {
    var machine = Machine(builtin: running, behaviours: .init())
    #expect(Self.check(&machine, advertised)?.label == label)
    #expect(machine.current == (label == "applied" ? advertised : running))
  }

  @Test func aStampedBuiltinSkipsTheManifestOfItsOwnCommit() {
    var machine = Machine(builtin: "1000-aaa", behaviours: .init())
    #expect(
      Self.check(&machine, "1000-aaa")?.reason.contains("stamped with the same commit") == true)
  }

  @Test func theDowngradeGuardCanBeSwitchedOffOnlyByItsMutation() {
    var machine = Machine(builtin: "1000-aaa", behaviours: .init(skipsDowngradeGuard: true))
    #expect(Self.check(&machine, "999-bbb")?.label == "applied")
  }

  /// Rule 12: a bundle that never calls notifyAppReady() is rolled back to the last good
  /// bundle on the next launch, recorded, and never applied again.
  @Test(arguments: [(false, "1001-good"), (true, "builtin")])
  func aFailedBootRollsBackAndIsNeverReapplied(toBuiltin: Bool, expected: String) {
    var machine = Machine(
      builtin: "builtin", behaviours: .init(rollsBackToBuiltin: toBuiltin))
    #expect(Self.check(&machine, "1001-good")?.label == "applied")
    machine.notifyAppReady()
    #expect(Self.check(&machine, "1002-crash")?.label == "applied")
    // The new bundle never confirms; the next launch rolls it back.
    machine.pluginStart()
    #expect(machine.current == expected)
    #expect(Self.check(&machine, "1002-crash")?.reason.contains("failed boot") == true)
    #expect(machine.failedVersion == "1002-crash")
    #expect(machine.notes.contains { $0.hasPrefix("rolled back: 1002-crash") })
  }

  /// The real `ota.ts` mirrors the plugin's record into one localStorage slot
  /// (`ota-boot-failed-version`): a second failed boot replaces the first, which a manifest
  /// pointing at it again may then apply once more (and see fail, and record, again).
  @Test func theMirrorHoldsTheLastFailedBootOnly() {
    var machine = Machine(builtin: "builtin", behaviours: .init())
    #expect(Self.check(&machine, "1002-crash")?.label == "applied")
    machine.pluginStart()
    #expect(Self.check(&machine, "1002-crash")?.reason.contains("failed boot") == true)
    #expect(Self.check(&machine, "1003-crash")?.label == "applied")
    machine.pluginStart()
    #expect(Self.check(&machine, "1003-crash")?.reason.contains("failed boot") == true)
    #expect(machine.failedVersion == "1003-crash")
    #expect(Self.check(&machine, "1002-crash")?.label == "applied")
  }

  @Test func forgettingFailedBootsReappliesTheBrokenBundle() {
    var machine = Machine(builtin: "builtin", behaviours: .init(forgetsFailedBoots: true))
    _ = Self.check(&machine, "1002-crash")
    machine.pluginStart()
    #expect(Self.check(&machine, "1002-crash")?.label == "applied")
  }

  /// Rule 12: a transient download failure is not recorded and is retried.
  @Test(arguments: [(false, "applied"), (true, "refused")])
  func aTransientFailureIsRetried(recorded: Bool, retry: String) {
    var machine = Machine(
      builtin: "builtin", behaviours: .init(recordsTransientFailures: recorded))
    #expect(Self.check(&machine, "1001-a", download: .failed)?.label == "failed")
    #expect(Self.check(&machine, "1001-a")?.label == retry)
  }

  @Test func aRefusedBundleIsNotSet() {
    var machine = Machine(builtin: "builtin", behaviours: .init())
    let decision = Self.check(&machine, "1001-a", download: .refused("checksum mismatch"))
    #expect(decision == .refused("1001-a refused: checksum mismatch"))
    #expect(machine.current == "builtin")
  }

  /// Rules 12–13: no key, a dev server, no manifest URL: OTA is off, and says why.
  @Test func theCheckStopsWhereOTAIsOff() {
    var noKey = Machine(builtin: "builtin", behaviours: .init())
    #expect(
      noKey.beginCheck(.init(servesFromDevServer: false, hasPublicKey: false))
        == .decided(
          .otaOff(
            "the build embeds no OTA public key (MOBILE_OTA_SIGNING_PUBLIC_KEY_B64): ota.ts refuses every manifest"
          )))
    var hotReload = Machine(builtin: "builtin", behaviours: .init())
    guard
      case .decided(.otaOff) = hotReload.beginCheck(
        .init(servesFromDevServer: true, hasPublicKey: true))
    else {
      Issue.record("checked during hot reload")
      return
    }
    var ignoring = Machine(builtin: "builtin", behaviours: .init(ignoresDevServer: true))
    #expect(
      ignoring.beginCheck(.init(servesFromDevServer: true, hasPublicKey: true)) == .fetchConfig)
    var off = Machine(builtin: "builtin", behaviours: .init())
    _ = off.beginCheck(Self.build)
    guard case .decided(.otaOff) = off.configRead(.some(nil)) else {
      Issue.record("no manifest URL did not disable OTA")
      return
    }
    var unreadable = Machine(builtin: "builtin", behaviours: .init())
    _ = unreadable.beginCheck(Self.build)
    guard case .decided(.failed) = unreadable.configRead(nil) else {
      Issue.record("an unreadable /config did not fail the check")
      return
    }
  }

  @Test func noManifestPublishedIsASkip() {
    var machine = Machine(builtin: "builtin", behaviours: .init())
    #expect(Self.check(&machine, nil)?.label == "skipped")
  }
}
