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
      case .inspected: return nil
      }
    }
  }

  /// Runs one inspection of the live bundle: the manifest answered `status` with `version`
  /// (nil: it did not parse), the download ending as `download`.
  static func inspect(
    _ machine: inout Machine, status: Int? = 200, _ version: String?,
    download: Machine.Download = .verified, hasKey: Bool = true
  ) -> OTAUpdater.LiveBundle? {
    var action = machine.beginInspection(.init(servesFromDevServer: false, hasPublicKey: hasKey))
    while true {
      switch action {
      case .fetchConfig: action = machine.configRead(.some(manifestURL))
      case .fetchManifest:
        action = machine.manifestRead(
          status: status, manifest: version.map(manifest), parseError: "bad JSON")
      case .download: action = machine.downloaded(download)
      case .inspected(let live): return live
      case .decided: return nil
      }
    }
  }

  struct InspectionRow: Sendable, CustomTestStringConvertible {
    var why: String
    var status: Int? = 200
    var version: String?
    var download: Machine.Download = .verified
    var hasKey = true
    var expected: OTAUpdater.LiveBundle
    var testDescription: String { why }
  }

  /// A store release asks of its live channel whether this build's devices would take what
  /// is published there, whatever the ordering rules say: a downgrade verifies too.
  @Test(arguments: [
    InspectionRow(
      why: "a published bundle verifies", version: "999-old", expected: .verified("999-old")),
    InspectionRow(
      why: "no key", version: "1-a", hasKey: false,
      expected: .refused("the build embeds no OTA public key: its updater is off")),
    InspectionRow(
      why: "unreachable", status: nil, version: nil,
      expected: .unavailable("the manifest \(manifestURL) is unreachable")),
    InspectionRow(
      why: "nothing published", status: 404, version: nil,
      expected: .unavailable("no manifest published at \(manifestURL) (404)")),
    InspectionRow(
      why: "a manifest that does not parse", version: nil,
      expected: .refused("the manifest does not parse: bad JSON")),
    InspectionRow(
      why: "a bundle the key refuses", version: "2-b", download: .refused("checksum"),
      expected: .refused("checksum")),
    InspectionRow(
      why: "a failed download", version: "2-b", download: .failed,
      expected: .unavailable(
        "the bundle 2-b did not download from https://ota.test/channels/prod/bundles/2-b.zip")),
  ])
  func anInspectionJudgesTheLiveBundleAndChangesNothing(_ row: InspectionRow) {
    var machine = Machine(builtin: "1000-aaa", behaviours: .init(), ordering: .count)
    let live = Self.inspect(
      &machine, status: row.status, row.version, download: row.download, hasKey: row.hasKey)
    #expect(live == row.expected)
    #expect(machine.current == "1000-aaa")
    #expect(machine.phase == .idle)
    #expect(machine.failedVersion == nil)
    // The device then checks as usual: an inspection left no conversation behind.
    #expect(Self.check(&machine, "1001-bbb")?.label == "applied")
  }

  @Test func aCheckWalksThroughEveryPhase() {
    var machine = Machine(builtin: "1000-aaa", behaviours: .init())
    #expect(machine.beginCheck(Self.build) == .fetchConfig)
    #expect(machine.phase == .readingConfig(.check))
    _ = machine.configRead(.some(Self.manifestURL))
    #expect(machine.phase == .readingManifest(.check, url: Self.manifestURL))
    _ = machine.manifestRead(status: 200, manifest: Self.manifest("1001-b"))
    #expect(
      machine.phase
        == .downloading(
          .check, version: "1001-b", manifestURL: Self.manifestURL,
          bundleURL: "https://ota.test/channels/prod/bundles/1001-b.zip", sequence: nil))
    #expect(machine.downloaded(.verified) == .decided(.applied("1001-b")))
    #expect(machine.phase == .idle)
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
