import Foundation
import QualifyCore

/// `channels/<channel>/manifest.json`: what a device polls (rule 10).
public struct Manifest: Codable, Sendable, Equatable {
  public var version: String
  /// Where the encrypted bundle is.
  public var url: String
  /// Lowercase hex of the RSA private-key encryption of the SHA-256 of the decrypted zip.
  public var checksum: String?
  /// `base64(iv):base64(RSA private-key encryption of the AES key)`.
  public var sessionKey: String?
  /// The channel's release counter, bumped by every manifest write (a publish, a forced
  /// republish, a rollback): what orders releases when ids are bare commits (the real
  /// repository's *Release sequence*). Any finite JSON number, as `ota.ts` takes it (a device's
  /// floor can be 7.5 or 1e16 if a manifest said so); nil on a manifest without one or with
  /// one that is not a number (demoted to the count ordering).
  public var sequence: Double?

  public init(
    version: String, url: String, checksum: String?, sessionKey: String?, sequence: Double? = nil
  ) {
    self.version = version
    self.url = url
    self.checksum = checksum
    self.sessionKey = sessionKey
    self.sequence = sequence
  }

  /// Parses a manifest, naming what is wrong.
  public static func parse(_ data: [UInt8], source: String) throws -> Manifest {
    guard let object = (try? JSONSerialization.jsonObject(with: Data(data))) as? [String: Any]
    else {
      throw InputError("\(source) is not a JSON object")
    }
    guard let version = object["version"] as? String, !version.isEmpty else {
      throw InputError("\(source) has no \"version\"")
    }
    guard let url = object["url"] as? String, !url.isEmpty else {
      throw InputError("\(source) has no \"url\"")
    }
    let checksum = (object["checksum"] as? String).flatMap { $0.isEmpty ? nil : $0 }
    let sessionKey = (object["sessionKey"] as? String).flatMap { $0.isEmpty ? nil : $0 }
    return Manifest(
      version: version, url: url, checksum: checksum, sessionKey: sessionKey,
      sequence: sequence(object["sequence"]))
  }

  /// A finite JSON number; a boolean, a string or null is no sequence.
  static func sequence(_ value: Any?) -> Double? {
    // JSONSerialization gives `true` as a boolean NSNumber (objCType "c"); `is Bool` would
    // also match the number 1 on Linux.
    guard let number = value as? NSNumber, number.objCType.pointee != CChar(UInt8(ascii: "c"))
    else { return nil }
    let double = number.doubleValue
    return double.isFinite ? double : nil
  }

  /// The manifest as the bucket serves it.
  public var json: [UInt8] {
    var object: [String: Any] = ["version": version, "url": url]
    if let checksum { object["checksum"] = checksum }
    if let sessionKey { object["sessionKey"] = sessionKey }
    if let sequence {
      object["sequence"] = Manifest.isWhole(sequence) ? Int(sequence) as Any : sequence as Any
    }
    return Array(
      (try? JSONSerialization.data(
        withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]))
        ?? Data())
  }

  /// A sequence a publisher can count on from: a whole number below 2^53, where a double still
  /// holds every integer.
  public static func isWhole(_ sequence: Double) -> Bool {
    sequence >= 0 && sequence < 9_007_199_254_740_992 && sequence == sequence.rounded()
  }

  /// `7`, or `7.5`: a sequence as a person reads it.
  public static func text(_ sequence: Double) -> String {
    isWhole(sequence) ? String(Int(sequence)) : String(sequence)
  }

  /// The object key of a channel's manifest.
  /// `location` (a manifest's `url`) resolved against where the manifest was read: a URL, a
  /// `file://` URL or a file path. An absolute location stays as it is.
  public static func resolve(_ location: String, against base: String?) -> String {
    guard !location.contains("://"), let base else { return location }
    if base.contains("://") {
      return URL(string: location, relativeTo: URL(string: base))?.absoluteString ?? location
    }
    if location.hasPrefix("/") { return location }
    return URL(string: location, relativeTo: URL(fileURLWithPath: base))?.absoluteString ?? location
  }

  public static func key(channel: String) -> String { "channels/\(channel)/manifest.json" }

  /// The object key of a channel's bundle.
  public static func bundleKey(channel: String, version: String) -> String {
    "channels/\(channel)/bundles/\(version).zip"
  }
}
