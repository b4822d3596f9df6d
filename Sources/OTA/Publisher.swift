import Foundation
import QualifyCore
import QualifyCrypto

/// `ota-publish` (seed 000, *OTA updates*): zip, encrypt, upload the bundle under its
/// channel, then write the channel's manifest — refusing a version that does not order
/// above the current manifest unless forced (rule 13). Nothing is ever deleted.
public struct Publisher: Sendable {
  public struct Result: Sendable {
    public var manifest: Manifest
    public var bundleKey: String
    /// The version the channel advertised before.
    public var previous: String?
  }

  /// The guard refused the version.
  public struct Refusal: Error, CustomStringConvertible, Sendable {
    public var description: String
  }

  let store: BucketStore
  let privateKey: Key
  let random: @Sendable (Int) throws -> [UInt8]

  public init(
    store: BucketStore, privateKey: Key, random: @escaping @Sendable (Int) throws -> [UInt8]
  ) {
    self.store = store
    self.privateKey = privateKey
    self.random = random
  }

  /// Publishes `zip` as `version` on `channel`.
  /// - Parameters:
  ///   - withoutChecksum: write a manifest without checksum (a broken pipeline; tests only).
  ///   - ordering: how the channel's devices order releases: by count, a version must be a
  ///     `<count>-<sha>` id above the channel's; by sequence, any id publishes (a bare commit is
  ///     the norm) and only a hybrid id is still held to the count guard against a hybrid
  ///     channel. Either way the manifest's `sequence` is the channel's plus one.
  ///   - keepsSequence: write the channel's current sequence again (a broken pipeline; tests).
  public func publish(
    zip: ZipArchive, channel: String, version: String, force: Bool = false,
    withoutChecksum: Bool = false, bareChecksum: Bool = false, ordering: ReleaseOrdering = .count,
    keepsSequence: Bool = false
  ) throws -> Result {
    guard zip.entry("index.html") != nil else {
      throw InputError(
        "the bundle has no index.html at its root", hint: "publish the built dist/ directory")
    }
    guard Publisher.isSafeChannel(channel) else {
      throw InputError(
        "channel \"\(channel)\" is not a channel name",
        hint: "letters, digits, '.', '_' and '-', not starting with '.' (dev, staging, prod)")
    }
    guard Publisher.isSafeVersion(version) else {
      throw InputError(
        "version \"\(version)\" is not safe in an object key",
        hint: "use <count>-<sha>, e.g. 1234-a1b2c3d")
    }
    // A pinned id breaks the ordering devices rely on (seed 000, *Bundle versioning*): it is
    // a deliberate act, never a typo that slips through.
    if ordering == .count && !BundleVersion(version).isHybrid && !force {
      throw Refusal(
        description:
          "refusing to publish \(version) on \(channel): it is not a <count>-<sha> id, so devices cannot order it and would later accept any version over it; pass --force to pin it"
      )
    }
    let manifestKey = Manifest.key(channel: channel)
    var previous: String?
    var sequence: Double = 1
    if let data = try store.get(manifestKey) {
      let current = try Manifest.parse(data, source: manifestKey)
      previous = current.version
      // A sequence that is no whole number a counter reaches (7.5, 1e16) cannot be bumped
      // safely: devices may already hold a floor above anything written next.
      if let seen = current.sequence, !Manifest.isWhole(seen), !force {
        throw Refusal(
          description:
            "refusing to publish \(version) on \(channel): the channel's sequence \(Manifest.text(seen)) is not a whole number below 2^53, so devices may hold a floor above any next one; pass --force to write over it"
        )
      }
      // `keepsSequence`: a broken pipeline that writes the channel's sequence again (tests).
      let base = current.sequence.map { Manifest.isWhole($0) ? $0 : $0.rounded(.up) } ?? 0
      sequence = base + (keepsSequence ? 0 : 1)
      let verdict = BundleVersion(version).ordersAbove(BundleVersion(current.version))
      // Under sequence ordering a republish of the channel's own version (a retried or
      // redeployed release) is never held to the count, as the real publisher skips it.
      let guarded =
        ordering == .count
        || (BundleVersion(version).isHybrid && BundleVersion(current.version).isHybrid
          && version != current.version)
      if guarded && !verdict.ok && !force {
        throw Refusal(
          description:
            "refusing to publish \(version) on \(channel): \(verdict.rule); pass --force to override"
        )
      }
    }
    let sealed = try CapgoBundle.seal(zip: zip.bytes, privateKey: privateKey, randomBytes: random)
    let bundleKey = Manifest.bundleKey(channel: channel, version: version)
    try store.put(bundleKey, sealed.encrypted, contentType: "application/zip")
    let manifest = Manifest(
      version: version, url: store.publicURL(bundleKey),
      checksum: withoutChecksum
        ? nil : bareChecksum ? Hex.encode(Digest.sha256(zip.bytes)) : sealed.checksum,
      sessionKey: sealed.sessionKey, sequence: sequence)
    try store.put(manifestKey, manifest.json, contentType: "application/json")
    return Result(manifest: manifest, bundleKey: bundleKey, previous: previous)
  }

  /// Whether `version` is safe as an object-key segment: ASCII letters, digits, `-_.`, not
  /// starting with a dot (no `..`, no hidden file).
  static func isSafeVersion(_ version: String) -> Bool {
    isSafeSegment(version, maxLength: 128)
  }

  /// Whether `channel` is safe as the folder of `channels/<channel>/`: the same alphabet.
  static func isSafeChannel(_ channel: String) -> Bool {
    isSafeSegment(channel, maxLength: 64)
  }

  private static func isSafeSegment(_ text: String, maxLength: Int) -> Bool {
    !text.isEmpty && text.count <= maxLength && !text.hasPrefix(".")
      && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
  }
}
