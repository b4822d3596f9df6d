import Artifacts
import Foundation
import HTTP
import OTA
import QualifyCore
import QualifyCrypto

/// The app's OTA side (seed 000, *OTA updates*, *Bundle versioning*, *Rollback*): the
/// `@capgo/capacitor-updater` primitives (builtin bundle, download, `set()`, the failed-boot
/// rollback and its self-clearing record) driven by `ota.ts`'s `checkAndApplyOtaUpdate()`.
public final class OTAUpdater {
  /// What a check decided.
  public enum Decision: Sendable, Equatable {
    /// Downloaded, verified and `set()`: the app reloaded on it.
    case applied(String)
    /// Nothing to do (no newer version, same commit as the builtin stamp).
    case skipped(String)
    /// The manifest or bundle was refused (downgrade, failed boot, verification).
    case refused(String)
    /// The download failed; nothing was recorded, the next check retries.
    case failed(String)
    /// OTA is off (no public key, no manifest URL, a dev server session).
    case otaOff(String)

    public var label: String {
      switch self {
      case .applied: return "applied"
      case .skipped: return "skipped"
      case .refused: return "refused"
      case .failed: return "failed"
      case .otaOff: return "disabled"
      }
    }

    public var reason: String {
      switch self {
      case .applied(let v): return "applied \(v)"
      case .skipped(let r), .refused(let r), .failed(let r), .otaOff(let r): return r
      }
    }
  }

  /// The marker a bundle's index.html carries when it crashes before `notifyAppReady()`.
  public static let crashMarker = "qualify:crash-on-boot"
  /// The local-storage key mirroring the last failed boot (the real `ota.ts`'s).
  public static let failedVersionKey = "ota-boot-failed-version"
  /// The local-storage key of the sequence floor (the real `ota.ts`'s).
  public static let appliedSequenceKey = "ota-applied-sequence"

  unowned let app: App
  /// The update decisions; this class sends the requests, verifies bundles and keeps the
  /// failed-boot mirror in the app's local storage.
  private var machine: UpdaterStateMachine
  private var bundles: [String: ZipArchive] = [:]
  /// Notes of the machine already written to the evidence.
  private var said = 0

  init(app: App) {
    self.app = app
    let behaviours = app.behaviours
    let ordering = ReleaseOrdering(rawValue: app.build.otaOrdering) ?? .count
    // The app's own ota.ts, where read, decides which refusals exist: a rule it does not
    // write is a rule the device does not keep.
    let code = app.build.otaClient
    machine = UpdaterStateMachine(
      builtin: app.build.capacitor?.updaterVersion?.value ?? "builtin",
      behaviours: .init(
        skipsDowngradeGuard: behaviours.updaterSkipsDowngradeGuard
          || (ordering == .count && code?.countOrder.value == OTAClientCode.Floor.none),
        forgetsFailedBoots: behaviours.updaterForgetsFailedBoots
          || code?.failedBootGuard.value == false,
        recordsTransientFailures: behaviours.updaterRecordsTransientFailures,
        ignoresDevServer: behaviours.updaterIgnoresDevServer,
        rollsBackToBuiltin: behaviours.updaterRollsBackToBuiltin,
        forgetsSequenceFloor: behaviours.updaterForgetsSequenceFloor
          || code?.sequenceFloor.value == OTAClientCode.Floor.none,
        ignoresNativeFloor: behaviours.updaterIgnoresNativeFloor
          || code?.nativeFloor.value == false,
        comparesCountsAsText: behaviours.updaterComparesCountsAsText,
        acceptsEqualSequence: code?.sequenceFloor.value == .acceptsEqual,
        acceptsEqualCount: code?.countOrder.value == .acceptsEqual),
      ordering: ordering)
  }

  /// The builtin bundle's version: the stamped `CapacitorUpdater.version`, or `builtin`.
  public var builtin: String { machine.builtin }
  public var current: String { machine.current }

  private var source: String { "\(app.device.platform.rawValue)/\(app.name) updater" }

  /// Writes what the machine said since the last time.
  private func flushNotes() {
    for note in machine.notes.dropFirst(said) { app.device.environment.decision(source, note) }
    said = machine.notes.count
  }

  private func note(_ summary: String) {
    flushNotes()
    app.device.environment.decision(source, summary)
  }

  /// The running bundle's index.html (nil for the builtin bundle).
  public var runningIndex: String? {
    bundles[current]?.entry("index.html").map { String(decoding: $0.data, as: UTF8.self) }
  }

  /// Plugin start-up: a bundle that never confirmed its boot is rolled back.
  func pluginStart() {
    machine.pluginStart()
    flushNotes()
  }

  /// Whether the running bundle crashes before `notifyAppReady()`.
  var crashesOnBoot: Bool { runningIndex?.contains(OTAUpdater.crashMarker) ?? false }

  /// `notifyAppReady()`: the running bundle booted.
  func notifyAppReady() {
    machine.notifyAppReady()
  }

  /// `CapacitorUpdater.reset()`: back to the builtin bundle, which always boots.
  public func reset() {
    machine.reset()
    flushNotes()
  }

  /// The version ota.ts refuses to re-apply, mirrored from the plugin's record.
  var failedVersion: String? { app.localStorage[OTAUpdater.failedVersionKey] }

  /// `checkAndApplyOtaUpdate()` (seed 000): the machine decides, this sends and verifies.
  public func check() -> Decision {
    let build = app.build
    let baked = build.capacitor?.updaterPublicKey?.value
    let verifies = !app.behaviours.updaterSkipsVerification
    machine.restoreFailedVersion(failedVersion)
    machine.restoreAppliedSequence(
      app.localStorage[OTAUpdater.appliedSequenceKey].flatMap { Double($0) }.flatMap {
        $0.isFinite ? $0 : nil
      })
    let decided = drive(
      machine.beginCheck(
        .init(
          servesFromDevServer: build.frontend.isDevBuild && build.capacitor?.serverURL != nil,
          hasPublicKey: baked != nil && (build.frontend.otaPublicKey != nil || !verifies))))
    guard case .decided(let decision) = decided else {
      preconditionFailure("a check ends in a decision")
    }
    persistFailedVersion()
    persistAppliedSequence()
    flushNotes()
    if case .applied = decision, !crashesOnBoot {
      // The reloaded bundle runs ota.ts again, whose first call confirms the boot.
      notifyAppReady()
    }
    return decision
  }

  /// Carries out the machine's requests until it ends the conversation (`.decided` or
  /// `.inspected`): the backend's /config, the manifest, the bundle and its verification.
  private func drive(_ first: UpdaterStateMachine.Action) -> UpdaterStateMachine.Action {
    var action = first
    var manifest: Manifest?
    while true {
      switch action {
      case .fetchConfig:
        guard case .sent(let exchange) = app.fetchConfig(),
          let config = exchange.response?.jsonObject as? [String: Any]
        else {
          action = machine.configRead(nil)
          continue
        }
        action = machine.configRead(.some(config["MOBILE_OTA_MANIFEST_URL"] as? String))
      case .fetchManifest(let url):
        guard case .sent(let exchange) = app.native.send(ClientRequest(url: url)),
          let response = exchange.response
        else {
          action = machine.manifestRead(status: nil, manifest: nil)
          continue
        }
        var parseError: String?
        do {
          manifest = try Manifest.parse(response.body, source: url)
        } catch {
          manifest = nil
          parseError = "\(error)"
        }
        action = machine.manifestRead(
          status: response.status, manifest: manifest, parseError: parseError)
      case .download(let url, let version):
        guard case .sent(let download) = app.native.send(ClientRequest(url: url)),
          let bundle = download.response, bundle.status == 200, let manifest,
          let baked = app.build.capacitor?.updaterPublicKey?.value
        else {
          action = machine.downloaded(.failed)
          continue
        }
        action = machine.downloaded(
          verify(bundle.body, manifest: manifest, publicKey: baked, as: version))
      case .decided, .inspected:
        return action
      }
    }
  }

  /// The files of a bundle this updater verified and unpacked (a download, or the live
  /// bundle `inspectLiveBundle` judged), nil when it holds none of that version.
  public func verifiedBundle(_ version: String) -> ZipArchive? { bundles[version] }

  /// What the updater makes of the bundle its channel serves now.
  public enum LiveBundle: Sendable, Equatable {
    /// Downloaded and verified with the baked key (never applied).
    case verified(String)
    /// The bundle or its manifest would be refused (verification, no key).
    case refused(String)
    /// The channel gave nothing to verify (no manifest URL, no manifest, a failed download).
    case unavailable(String)

    public var label: String {
      switch self {
      case .verified: return "verified"
      case .refused: return "refused"
      case .unavailable: return "unavailable"
      }
    }

    public var reason: String {
      switch self {
      case .verified(let version): return "verified \(version)"
      case .refused(let reason), .unavailable(let reason): return reason
      }
    }
  }

  /// The bundle the channel serves now, fetched as a check fetches it and verified with the
  /// baked key whatever the ordering rules would decide, never applied: what a store release
  /// asks of its live channel — would this build's devices take what is published there?
  public func inspectLiveBundle() -> LiveBundle {
    let build = app.build
    let inspected = drive(
      machine.beginInspection(
        .init(
          servesFromDevServer: false,
          hasPublicKey: build.capacitor?.updaterPublicKey != nil
            && (build.frontend.otaPublicKey != nil || app.behaviours.updaterSkipsVerification))))
    flushNotes()
    guard case .inspected(let live) = inspected else {
      preconditionFailure("an inspection ends in a live bundle's judgement")
    }
    return live
  }

  /// Verifies and unpacks a downloaded bundle as the plugin does (or as a mutated updater
  /// that skips a check does), keeping it for `set()`.
  private func verify(
    _ body: [UInt8], manifest: Manifest, publicKey baked: String, as version: String
  )
    -> UpdaterStateMachine.Download
  {
    let behaviours = app.behaviours
    if behaviours.updaterSkipsVerification {
      // Decrypts with whatever session key the manifest gives, never compares the checksum;
      // unpacking still refuses an entry outside the bundle's folder.
      guard let zip = OTAUpdater.decryptUnverified(body, manifest: manifest, publicKey: baked)
      else {
        return .refused("the download does not decrypt to a zip")
      }
      do {
        bundles[version] = try unpack(zip)
      } catch {
        return .refused("\(error.description) [\(error.reason.rawValue)]")
      }
      return .verified
    }
    // A key the plugin cannot use refuses every bundle, however well it was signed.
    if let problem = CapgoBundle.deviceKeyProblem(baked) {
      return .refused("\(problem) [device-key]")
    }
    do {
      let key = try CapgoBundle.key(base64: baked, isPrivate: false)
      let zip = try CapgoBundle.open(
        encrypted: body, checksum: manifest.checksum, sessionKey: manifest.sessionKey,
        publicKey: key)
      bundles[version] =
        try behaviours.updaterUnpacksAnyPath
        ? ZipArchive(bytes: zip) : CapgoBundle.validate(zip: zip)
      if let escaping = bundles[version]?.entries.first(where: {
        !CapgoBundle.isContained($0.name)
      }) {
        note("unpacked \(escaping.name) outside the bundle's folder")
      }
      return .verified
    } catch let refusal as CapgoBundle.Refusal {
      return .refused("\(refusal.description) [\(refusal.reason.rawValue)]")
    } catch {
      return .refused("the baked public key does not parse: \(error)")
    }
  }

  /// Unpacks a zip the unverifying updater took: the path check still applies unless that
  /// behaviour is off too.
  private func unpack(_ zip: [UInt8]) throws(CapgoBundle.Refusal) -> ZipArchive {
    if app.behaviours.updaterUnpacksAnyPath, let archive = try? ZipArchive(bytes: zip) {
      return archive
    }
    return try CapgoBundle.unpackable(zip: zip)
  }

  private func persistAppliedSequence() {
    guard let floor = machine.appliedSequence else { return }
    app.localStorage[OTAUpdater.appliedSequenceKey] = Manifest.text(floor)
  }

  private func persistFailedVersion() {
    guard let version = machine.failedVersion, version != failedVersion else { return }
    app.localStorage[OTAUpdater.failedVersionKey] = version
  }
}

extension OTAUpdater {
  /// What an updater without verification would do: decrypt with the session key when there
  /// is one, take the bytes as they are otherwise.
  static func decryptUnverified(_ body: [UInt8], manifest: Manifest, publicKey: String) -> [UInt8]?
  {
    guard let (iv, encryptedKey) = manifest.sessionKey.flatMap(CapgoBundle.sessionKeyParts),
      let key = try? CapgoBundle.key(base64: publicKey, isPrivate: false),
      let aesKey = try? key.publicDecrypt(encryptedKey)
    else { return body }
    return try? AES128CBC.decrypt(body, key: aesKey, iv: iv)
  }
}
