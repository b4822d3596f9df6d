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
    case disabled(String)

    public var label: String {
      switch self {
      case .applied: return "applied"
      case .skipped: return "skipped"
      case .refused: return "refused"
      case .failed: return "failed"
      case .disabled: return "disabled"
      }
    }

    public var reason: String {
      switch self {
      case .applied(let v): return "applied \(v)"
      case .skipped(let r), .refused(let r), .failed(let r), .disabled(let r): return r
      }
    }
  }

  /// The marker a bundle's index.html carries when it crashes before `notifyAppReady()`.
  public static let crashMarker = "qualify:crash-on-boot"
  /// The local-storage key mirroring failed boots (`ota.ts`).
  public static let failedVersionsKey = "ota_failed_versions"

  unowned let app: App
  /// The builtin bundle's version: the stamped `CapacitorUpdater.version`, or `builtin`.
  public let builtin: String
  public private(set) var current: String
  private var lastGood: String
  private var bundles: [String: ZipArchive] = [:]
  private var unconfirmed: String?
  /// The plugin's "last failed update", cleared when read.
  private var failedRecord: String?

  init(app: App) {
    self.app = app
    builtin = app.build.capacitor.updaterVersion?.value ?? "builtin"
    current = builtin
    lastGood = builtin
  }

  private var source: String { "\(app.device.platform.rawValue)/\(app.name) updater" }

  private func note(_ summary: String) {
    app.device.environment.decision(source, summary)
  }

  /// The running bundle's index.html (nil for the builtin bundle).
  public var runningIndex: String? {
    bundles[current]?.entry("index.html").map { String(decoding: $0.data, as: UTF8.self) }
  }

  /// Plugin start-up: a bundle that never confirmed its boot is rolled back to the last good
  /// bundle (or the builtin), and recorded as the last failed update.
  func pluginStart() {
    guard let version = unconfirmed else { return }
    unconfirmed = nil
    // Capgo rolls back to "the previously successful version (or built-in bundle)".
    current = app.behaviours.updaterRollsBackToBuiltin ? builtin : lastGood
    lastGood = current
    failedRecord = version
    note(
      "rolled back: \(version) never called notifyAppReady(); running \(current) again and recording \(version) as the last failed update"
    )
  }

  /// Whether the running bundle crashes before `notifyAppReady()`.
  var crashesOnBoot: Bool { runningIndex?.contains(OTAUpdater.crashMarker) ?? false }

  /// `notifyAppReady()`: the running bundle booted.
  func notifyAppReady() {
    if unconfirmed == current { unconfirmed = nil }
    lastGood = current
  }

  /// `CapacitorUpdater.reset()`: back to the builtin bundle, which always boots.
  public func reset() {
    current = builtin
    lastGood = builtin
    unconfirmed = nil
    note("reset to the builtin bundle \(builtin)")
  }

  /// The versions ota.ts refuses to re-apply, mirrored from the plugin's record.
  var failedVersions: [String] {
    guard let raw = app.localStorage[OTAUpdater.failedVersionsKey],
      let list = try? JSONSerialization.jsonObject(with: Data(raw.utf8)) as? [String]
    else { return [] }
    return list
  }

  private func remember(failed version: String) {
    var list = failedVersions
    if !list.contains(version) { list.append(version) }
    let data = (try? JSONSerialization.data(withJSONObject: list)) ?? Data("[]".utf8)
    app.localStorage[OTAUpdater.failedVersionsKey] = String(decoding: data, as: UTF8.self)
  }

  /// `checkAndApplyOtaUpdate()` (seed 000): mirror the failed-boot record, resolve the
  /// manifest URL through `/config`, apply the manifest only if it is genuinely newer, never
  /// a failed boot, and only once downloaded and verified with the baked public key.
  public func check() -> Decision {
    let behaviours = app.behaviours
    if let failed = failedRecord {
      failedRecord = nil  // The record clears itself when read.
      if !behaviours.updaterForgetsFailedBoots { remember(failed: failed) }
    }
    let build = app.build
    if build.frontend.isDevBuild && build.capacitor.serverURL != nil
      && !behaviours.updaterIgnoresDevServer
    {
      return decide(
        .disabled(
          "a dev server URL is baked in: the startup OTA check is skipped during hot reload"))
    }
    guard let baked = build.capacitor.updaterPublicKey?.value,
      build.frontend.otaPublicKey != nil || behaviours.updaterSkipsVerification
    else {
      return decide(
        .disabled(
          "the build embeds no OTA public key (MOBILE_OTA_SIGNING_PUBLIC_KEY_B64): ota.ts refuses every manifest"
        ))
    }
    guard case .sent(let configExchange) = app.fetchConfig(),
      let config = configExchange.response?.jsonObject as? [String: Any]
    else {
      return decide(.failed("the backend's /config could not be read"))
    }
    guard let manifestURL = config["MOBILE_OTA_MANIFEST_URL"] as? String, !manifestURL.isEmpty
    else {
      return decide(.disabled("/config serves no MOBILE_OTA_MANIFEST_URL: OTA is off"))
    }
    guard case .sent(let manifestExchange) = app.native.send(ClientRequest(url: manifestURL)),
      let manifestResponse = manifestExchange.response
    else {
      return decide(.failed("the manifest \(manifestURL) is unreachable"))
    }
    guard manifestResponse.status == 200,
      let manifest = try? Manifest.parse(manifestResponse.body, source: manifestURL)
    else {
      return decide(
        .skipped("no manifest published at \(manifestURL) (\(manifestResponse.status))"))
    }
    let version = manifest.version
    if version == current {
      let stamp =
        current == builtin && builtin != "builtin"
        ? " (the builtin is stamped with the same commit)" : ""
      return decide(.skipped("the manifest's \(version) is the running bundle\(stamp)"))
    }
    let ordering = BundleVersion(version).isUpdate(over: BundleVersion(current))
    if !ordering.applies && !behaviours.updaterSkipsDowngradeGuard {
      return decide(.refused("\(version) refused: \(ordering.rule)"))
    }
    if failedVersions.contains(version) {
      return decide(.refused("\(version) refused: recorded as a failed boot, never re-applied"))
    }
    let bundleURL = Manifest.resolve(manifest.url, against: manifestURL)
    guard case .sent(let download) = app.native.send(ClientRequest(url: bundleURL)),
      let bundle = download.response,
      bundle.status == 200
    else {
      if behaviours.updaterRecordsTransientFailures { remember(failed: version) }
      return decide(
        .failed("downloading \(version) failed (transient): not recorded, the next check retries"))
    }
    if behaviours.updaterSkipsVerification {
      // Decrypts with whatever session key the manifest gives, never compares the checksum;
      // unpacking still refuses an entry outside the bundle's folder.
      guard
        let zip = OTAUpdater.decryptUnverified(bundle.body, manifest: manifest, publicKey: baked)
      else {
        return decide(.refused("\(version) refused: the download does not decrypt to a zip"))
      }
      do {
        bundles[version] = try unpack(zip)
      } catch {
        return decide(
          .refused("\(version) refused: \(error.description) [\(error.reason.rawValue)]"))
      }
    } else {
      do {
        let key = try CapgoBundle.key(base64: baked, isPrivate: false)
        let zip = try CapgoBundle.open(
          encrypted: bundle.body, checksum: manifest.checksum, sessionKey: manifest.sessionKey,
          publicKey: key)
        bundles[version] =
          try behaviours.updaterUnpacksAnyPath
          ? ZipArchive(bytes: zip) : CapgoBundle.validate(zip: zip)
        if let escaping = bundles[version]?.entries.first(where: {
          !CapgoBundle.isContained($0.name)
        }) {
          note("unpacked \(escaping.name) outside the bundle's folder")
        }
      } catch let refusal as CapgoBundle.Refusal {
        return decide(
          .refused("\(version) refused: \(refusal.description) [\(refusal.reason.rawValue)]"))
      } catch {
        return decide(.refused("\(version) refused: the baked public key does not parse: \(error)"))
      }
    }
    current = version
    unconfirmed = version
    note("set(\(version)): the WebView reloads on the new bundle")
    // The reloaded bundle runs ota.ts again, whose first call confirms the boot.
    if !crashesOnBoot { notifyAppReady() }
    return decide(.applied(version))
  }

  /// Unpacks a zip the unverifying updater took: the path check still applies unless that
  /// behaviour is off too.
  private func unpack(_ zip: [UInt8]) throws(CapgoBundle.Refusal) -> ZipArchive {
    if app.behaviours.updaterUnpacksAnyPath, let archive = try? ZipArchive(bytes: zip) {
      return archive
    }
    return try CapgoBundle.unpackable(zip: zip)
  }

  private func decide(_ decision: Decision) -> Decision {
    note("update check: \(decision.label): \(decision.reason)")
    return decision
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
