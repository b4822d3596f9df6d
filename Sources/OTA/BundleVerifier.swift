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
  /// - Parameters:
  ///   - current: the bundle a device runs; with it, the report says whether it would apply
  ///     the manifest under `ordering`, given the device's builtin and applied sequence.
  public static func verify(
    manifest: Manifest, bundle: [UInt8], publicKey: Key, current: BundleVersion?,
    ordering: ReleaseOrdering = .count, builtin: String? = nil, appliedSequence: Double? = nil
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
    if let current {
      report.decision = ordering.decide(
        manifest: manifest, running: current.text, builtin: builtin ?? current.text,
        applied: appliedSequence)
    }
    return report
  }
}

/// Fetches a manifest or a bundle from a file, a `file://` URL or an http(s) URL, never more
/// than a bound: a release manager points `ota verify` at buckets they do not control.
public struct ObjectFetcher: Sendable {
  /// The most bytes a manifest may have; real ones are a few hundred.
  public static let manifestLimit = 1 << 20
  /// The default bound for a bundle (`--max-bundle-size`); a web bundle is a few MiB.
  public static let defaultBundleLimit = 100 << 20

  let client: HTTPClient?

  public init(client: HTTPClient?) {
    self.client = client
  }

  /// The bytes at `location`, resolved against `base` when relative, at most `limit` of them.
  /// A network download streams to a temporary file so that an endless body stops at the
  /// bound instead of filling memory. A location from a remote manifest must be remote too:
  /// a bucket cannot make the verifier read this machine's files.
  public func fetch(_ location: String, relativeTo base: String? = nil, limit: Int) throws -> (
    bytes: [UInt8], resolved: String
  ) {
    let resolved = Manifest.resolve(location, against: base)
    let scheme = URLComponents(string: resolved)?.scheme?.lowercased()
    let isRemote = scheme == "http" || scheme == "https"
    if let base, ObjectFetcher.isRemote(base), !isRemote {
      throw InputError(
        "the manifest at \(base) points at \(resolved): a remote manifest may only name http(s) bundles"
      )
    }
    if isRemote {
      guard let client else { throw InputError("cannot fetch \(resolved): no HTTP client") }
      let file = FileManager.default.temporaryDirectory.appendingPathComponent(
        "qualify-download-\(UUID().uuidString)")
      defer { try? FileManager.default.removeItem(at: file) }
      let exchange = client.send(
        ClientRequest(url: resolved, maxResponseBytes: limit, bodyFile: file))
      if let error = exchange.error { throw error }
      guard let response = exchange.response else {
        throw HTTPClientError(.transport, "cannot fetch \(resolved): no response")
      }
      guard response.status == 200 else {
        throw InputError("GET \(resolved) answered \(response.status)")
      }
      guard let data = FileManager.default.contents(atPath: file.path) else {
        throw EnvironmentError("cannot read back the download of \(resolved) from \(file.path)")
      }
      return (Array(data), resolved)
    }
    if let scheme, scheme != "file", scheme.count > 1 {
      throw InputError("cannot fetch \(resolved): only http, https and file locations are read")
    }
    let path = scheme == "file" ? URL(string: resolved)?.path ?? resolved : resolved
    let attributes = try? FileManager.default.attributesOfItem(atPath: path)
    guard let attributes, attributes[.type] as? FileAttributeType == .typeRegular else {
      throw InputError(
        attributes == nil ? "cannot read \(path)" : "\(path) is not a regular file")
    }
    let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
    guard size <= limit else {
      throw InputError("\(path) has \(size) bytes, more than the \(limit) allowed")
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw InputError("cannot read \(path)")
    }
    return (Array(data), resolved)
  }

  static func isRemote(_ location: String) -> Bool {
    let scheme = URLComponents(string: location)?.scheme?.lowercased()
    return scheme == "http" || scheme == "https"
  }
}
