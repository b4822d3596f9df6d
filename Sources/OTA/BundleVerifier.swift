import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

/// What a device would conclude of a channel's manifest and bundle (`qualify ota verify`).
public struct VerificationReport: Sendable {
  public var manifest: Manifest
  /// Nil when the bundle verified.
  public var refusal: CapgoBundle.Refusal?
  /// Files of the decrypted bundle.
  public var files: [String]
  /// The decision for a device on `current`, when one was given.
  public var decision: (applies: Bool, rule: String)?

  public var verified: Bool { refusal == nil }
}

/// Verifies a manifest and its bundle the way the plugin does.
public enum BundleVerifier {
  public static func verify(
    manifest: Manifest, bundle: [UInt8], publicKey: Key, current: BundleVersion?
  ) -> VerificationReport {
    var report = VerificationReport(manifest: manifest, refusal: nil, files: [], decision: nil)
    do {
      let zip = try CapgoBundle.open(
        encrypted: bundle, checksum: manifest.checksum, sessionKey: manifest.sessionKey,
        publicKey: publicKey)
      report.files = try CapgoBundle.validate(zip: zip).entries.map(\.name)
    } catch {
      report.refusal = error
    }
    if let current { report.decision = BundleVersion(manifest.version).isUpdate(over: current) }
    return report
  }
}

/// Fetches a manifest or a bundle from a file, a `file://` URL or an http(s) URL.
public struct ObjectFetcher: Sendable {
  let client: HTTPClient?

  public init(client: HTTPClient?) {
    self.client = client
  }

  /// The bytes at `location`, resolved against `base` when relative.
  public func fetch(_ location: String, relativeTo base: String? = nil) throws -> (
    bytes: [UInt8], resolved: String
  ) {
    let resolved = Manifest.resolve(location, against: base)
    if resolved.hasPrefix("http://") || resolved.hasPrefix("https://") {
      guard let client else { throw InputError("cannot fetch \(resolved): no HTTP client") }
      let exchange = client.send(ClientRequest(url: resolved))
      guard let response = exchange.response else {
        throw InputError("cannot fetch \(resolved): \(exchange.error?.message ?? "no response")")
      }
      guard response.status == 200 else {
        throw InputError("GET \(resolved) answered \(response.status)")
      }
      return (response.body, resolved)
    }
    let path = resolved.hasPrefix("file://") ? URL(string: resolved)?.path ?? resolved : resolved
    guard let data = FileManager.default.contents(atPath: path) else {
      throw InputError("cannot read \(path)")
    }
    return (Array(data), resolved)
  }
}
