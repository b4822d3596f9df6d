import Foundation
import OTA

/// The update logic of the app's OTA side, with no I/O: Capgo's updater primitives (the
/// builtin bundle, `set()`, the failed-boot rollback and its self-clearing record) and
/// `ota.ts`'s `checkAndApplyOtaUpdate()` (seed 000, *OTA updates*, *Bundle versioning*,
/// *Rollback*; DESIGN.md rules 11–13).
///
/// A check is a short conversation: `beginCheck` → `.fetchConfig`; `configRead` →
/// `.fetchManifest`; `manifestRead` → `.download`; `downloaded` → a `Decision`. Each step may
/// end it with a decision instead. An inspection of the channel's live bundle
/// (`beginInspection`) is the same conversation without the ordering rules, ending in a
/// `LiveBundle` and changing nothing on the device. Where a conversation stands is `phase`; an
/// answer the phase does not wait for traps in a debug build. `OTAUpdater` is the I/O around
/// it: the requests, the bundle verification, local storage.
struct UpdaterStateMachine: Sendable {
  typealias Decision = OTAUpdater.Decision

  /// The world's switches that turn one rule off (the updater's negative controls).
  struct Behaviours: Sendable {
    var skipsDowngradeGuard = false
    var forgetsFailedBoots = false
    var recordsTransientFailures = false
    var ignoresDevServer = false
    var rollsBackToBuiltin = false
    /// The app keeps no sequence floor: every sequence looks new (a stale manifest applies).
    var forgetsSequenceFloor = false
    /// A sequence-ordered app takes a hybrid id older than the native build's.
    var ignoresNativeFloor = false
    /// Counts are compared as text: `999` orders above `1200`, `10000` below it.
    var comparesCountsAsText = false
    /// A manifest whose sequence equals the applied one applies (`sequence < applied`).
    var acceptsEqualSequence = false
    /// A manifest whose count equals the running bundle's applies (`order < 0`).
    var acceptsEqualCount = false
  }

  /// What the build decides before any request.
  struct Build: Sendable {
    /// A dev build with a dev server URL baked in (hot reload).
    var servesFromDevServer: Bool
    /// Whether the updater has a public key to verify with.
    var hasPublicKey: Bool
  }

  enum Action: Sendable, Equatable {
    case fetchConfig
    case fetchManifest(String)
    /// Download and verify `url` as `version`.
    case download(url: String, version: String)
    case decided(Decision)
    /// How the live bundle fared (an inspection's end).
    case inspected(OTAUpdater.LiveBundle)
  }

  /// Why the updater is talking to the channel.
  enum Purpose: Sendable, Equatable {
    /// `checkAndApplyOtaUpdate()`.
    case check
    /// Would this build's devices take what the channel serves now?
    case inspection
  }

  /// Where a conversation stands.
  enum Phase: Sendable, Equatable {
    case idle
    case readingConfig(Purpose)
    case readingManifest(Purpose, url: String)
    /// The manifest's `version`, downloaded from `bundleURL`; `sequence` is the floor a
    /// verified bundle raises.
    case downloading(
      Purpose, version: String, manifestURL: String, bundleURL: String, sequence: Double?)
  }

  /// What came of a download.
  enum Download: Sendable, Equatable {
    /// Verified and unpacked.
    case verified
    /// The network failed, or the bucket answered an error: transient.
    case failed
    /// The bundle was refused, with why.
    case refused(String)
  }

  let builtin: String
  let behaviours: Behaviours
  /// How the app orders releases (`ota.ordering` of the profile).
  let ordering: ReleaseOrdering
  /// The highest manifest `sequence` this device staged (`ota.ts`'s `ota-applied-sequence`,
  /// in local storage): the anti-replay floor, which only moves up.
  private(set) var appliedSequence: Double?
  private(set) var current: String
  private var lastGood: String
  /// The version `set()` last, until it calls `notifyAppReady()`.
  private var unconfirmed: String?
  /// The plugin's "last failed update", cleared when read.
  private var failedRecord: String?
  /// `ota.ts`'s mirror of the plugin's last failed update, which it never re-applies (kept in
  /// local storage under `ota-boot-failed-version`). One slot, as the real `ota.ts` keeps it:
  /// a second failed boot takes the first one's place.
  private(set) var failedVersion: String?
  private(set) var phase: Phase = .idle
  /// What the updater says in the evidence, in order.
  private(set) var notes: [String] = []

  init(
    builtin: String, behaviours: Behaviours, failedVersion: String? = nil,
    ordering: ReleaseOrdering = .count
  ) {
    self.builtin = builtin
    self.behaviours = behaviours
    self.ordering = ordering
    self.failedVersion = failedVersion
    current = builtin
    lastGood = builtin
  }

  /// Plugin start-up: a bundle that never confirmed its boot is rolled back to the last good
  /// bundle (or the builtin), and recorded as the last failed update.
  mutating func pluginStart() {
    guard let version = unconfirmed else { return }
    unconfirmed = nil
    // Capgo rolls back to "the previously successful version (or built-in bundle)".
    current = behaviours.rollsBackToBuiltin ? builtin : lastGood
    lastGood = current
    failedRecord = version
    notes.append(
      "rolled back: \(version) never called notifyAppReady(); running \(current) again and recording \(version) as the last failed update"
    )
  }

  /// `notifyAppReady()`: the running bundle booted.
  mutating func notifyAppReady() {
    if unconfirmed == current { unconfirmed = nil }
    lastGood = current
  }

  /// `CapacitorUpdater.reset()`: back to the builtin bundle, which always boots.
  mutating func reset() {
    current = builtin
    lastGood = builtin
    unconfirmed = nil
    notes.append("reset to the builtin bundle \(builtin)")
  }

  /// Takes the failed-boot mirror as the app's storage holds it now (a cleared storage
  /// forgets it, as ota.ts would).
  mutating func restoreFailedVersion(_ stored: String?) {
    failedVersion = stored
  }

  /// Takes the sequence floor as the app's storage holds it now (a cleared storage loses it:
  /// the next manifest is trusted on first use).
  mutating func restoreAppliedSequence(_ stored: Double?) {
    appliedSequence = stored
  }

  /// Raises the floor to `sequence` (never lowers it).
  private mutating func raiseFloor(_ sequence: Double?) {
    guard ordering == .sequence, let sequence, !behaviours.forgetsSequenceFloor else { return }
    if appliedSequence.map({ sequence > $0 }) ?? true { appliedSequence = sequence }
  }

  /// The start of `checkAndApplyOtaUpdate()`: mirror the failed-boot record, then stop here
  /// when OTA is off for this build.
  mutating func beginCheck(_ build: Build) -> Action {
    assert(phase == .idle, "a check began while another conversation was under way")
    phase = .idle
    if let failed = failedRecord {
      failedRecord = nil  // The record clears itself when read.
      if !behaviours.forgetsFailedBoots { remember(failed: failed) }
    }
    if build.servesFromDevServer && !behaviours.ignoresDevServer {
      return decide(
        .otaOff(
          "a dev server URL is baked in: the startup OTA check is skipped during hot reload"))
    }
    guard build.hasPublicKey else {
      return decide(
        .otaOff(
          "the build embeds no OTA public key (MOBILE_OTA_SIGNING_PUBLIC_KEY_B64): ota.ts refuses every manifest"
        ))
    }
    phase = .readingConfig(.check)
    return .fetchConfig
  }

  /// The start of an inspection: the channel's live bundle fetched as a check fetches it and
  /// verified with the baked key, whatever the ordering rules would decide; never applied.
  mutating func beginInspection(_ build: Build) -> Action {
    assert(phase == .idle, "an inspection began while another conversation was under way")
    guard build.hasPublicKey else {
      return .inspected(.refused("the build embeds no OTA public key: its updater is off"))
    }
    phase = .readingConfig(.inspection)
    return .fetchConfig
  }

  /// `/config` answered: `nil` when it could not be read, else the manifest URL it serves.
  mutating func configRead(_ manifestURL: String??) -> Action {
    guard case .readingConfig(let purpose) = phase else {
      assertionFailure("/config answered outside a conversation")
      return decide(.failed("the backend's /config could not be read"))
    }
    if purpose == .inspection {
      guard let url = manifestURL ?? nil, !url.isEmpty else {
        return inspected(.unavailable("the backend's /config names no MOBILE_OTA_MANIFEST_URL"))
      }
      phase = .readingManifest(.inspection, url: url)
      return .fetchManifest(url)
    }
    guard let served = manifestURL else {
      return decide(.failed("the backend's /config could not be read"))
    }
    guard let url = served, !url.isEmpty else {
      return decide(.otaOff("/config serves no MOBILE_OTA_MANIFEST_URL: OTA is off"))
    }
    phase = .readingManifest(.check, url: url)
    return .fetchManifest(url)
  }

  /// The manifest request ended: no status when unreachable, a manifest when one parsed, else
  /// why it did not (`parseError`).
  mutating func manifestRead(status: Int?, manifest: Manifest?, parseError: String? = nil)
    -> Action
  {
    guard case .readingManifest(let purpose, let manifestURL) = phase else {
      assertionFailure("a manifest arrived outside a conversation")
      return decide(.failed("the manifest is unreachable"))
    }
    if purpose == .inspection {
      return inspect(manifestURL, status: status, manifest: manifest, parseError: parseError)
    }
    guard let status else { return decide(.failed("the manifest \(manifestURL) is unreachable")) }
    guard status == 200, let manifest else {
      return decide(.skipped("no manifest published at \(manifestURL) (\(status))"))
    }
    let version = manifest.version
    if version == current {
      // Already there: the floor still moves, so that a later stale manifest is not new.
      raiseFloor(manifest.sequence)
      let stamp =
        current == builtin && builtin != "builtin"
        ? " (the builtin is stamped with the same commit)" : ""
      return decide(.skipped("the manifest's \(version) is the running bundle\(stamp)"))
    }
    var verdict = ordering.decide(
      manifest: manifest, running: current, builtin: builtin,
      applied: behaviours.forgetsSequenceFloor ? nil : appliedSequence,
      nativeFloor: !behaviours.ignoresNativeFloor,
      equalSequenceApplies: behaviours.acceptsEqualSequence,
      equalCountApplies: behaviours.acceptsEqualCount)
    if behaviours.comparesCountsAsText, ordering == .count,
      let new = BundleVersion(version).countDigits, let old = BundleVersion(current).countDigits
    {
      verdict = (new > old, "count \(new) compared as text with the running \(old)")
    }
    // As ota.ts: a version that failed to boot is refused before any ordering, so that it
    // wins over a rollback pointing at it (a higher sequence).
    if failedVersion == version {
      return decide(.refused("\(version) refused: recorded as a failed boot, never re-applied"))
    }
    if !verdict.applies && !behaviours.skipsDowngradeGuard {
      return decide(.refused("\(version) refused: \(verdict.rule)"))
    }
    return download(.check, manifest, from: manifestURL)
  }

  private mutating func download(_ purpose: Purpose, _ manifest: Manifest, from manifestURL: String)
    -> Action
  {
    let url = Manifest.resolve(manifest.url, against: manifestURL)
    phase = .downloading(
      purpose, version: manifest.version, manifestURL: manifestURL, bundleURL: url,
      sequence: manifest.sequence)
    return .download(url: url, version: manifest.version)
  }

  /// An inspection's manifest: anything published and parsed is downloaded.
  private mutating func inspect(
    _ manifestURL: String, status: Int?, manifest: Manifest?, parseError: String?
  ) -> Action {
    guard let status else {
      return inspected(.unavailable("the manifest \(manifestURL) is unreachable"))
    }
    guard status == 200 else {
      return inspected(.unavailable("no manifest published at \(manifestURL) (\(status))"))
    }
    guard let manifest else {
      return inspected(.refused("the manifest does not parse: \(parseError ?? "no manifest")"))
    }
    return download(.inspection, manifest, from: manifestURL)
  }

  /// The download ended; a verified bundle is `set()` and the WebView reloads on it (a
  /// check), or is only judged (an inspection).
  mutating func downloaded(_ result: Download) -> Action {
    guard case .downloading(let purpose, let version, _, let bundleURL, let sequence) = phase else {
      assertionFailure("a download ended outside a conversation")
      return decide(.failed("a download ended outside a check"))
    }
    if purpose == .inspection {
      switch result {
      case .verified:
        notes.append("the live bundle \(version) verifies with the baked key")
        return inspected(.verified(version))
      case .refused(let reason):
        notes.append("the live bundle \(version) is refused: \(reason)")
        return inspected(.refused(reason))
      case .failed:
        return inspected(.unavailable("the bundle \(version) did not download from \(bundleURL)"))
      }
    }
    switch result {
    case .failed:
      if behaviours.recordsTransientFailures { remember(failed: version) }
      return decide(
        .failed("downloading \(version) failed (transient): not recorded, the next check retries"))
    case .refused(let why):
      return decide(.refused("\(version) refused: \(why)"))
    case .verified:
      raiseFloor(sequence)
      current = version
      unconfirmed = version
      notes.append("set(\(version)): the WebView reloads on the new bundle")
      return decide(.applied(version))
    }
  }

  private mutating func remember(failed version: String) {
    failedVersion = version
  }

  private mutating func inspected(_ live: OTAUpdater.LiveBundle) -> Action {
    phase = .idle
    return .inspected(live)
  }

  private mutating func decide(_ decision: Decision) -> Action {
    phase = .idle
    notes.append("update check: \(decision.label): \(decision.reason)")
    return .decided(decision)
  }
}
