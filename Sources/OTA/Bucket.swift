import Foundation
import HTTP
import QualifyCore

/// Where OTA objects live: a public object store with one folder per channel (rule 10).
public protocol BucketStore: Sendable {
  /// The object at `key`, nil when absent.
  func get(_ key: String) throws -> [UInt8]?
  func put(_ key: String, _ data: [UInt8], contentType: String) throws
  /// Keys under `prefix`, sorted.
  func list(prefix: String) throws -> [String]
  /// The public URL devices download `key` from.
  func publicURL(_ key: String) -> String
}

/// A bucket in a local directory (`qualify ota publish --bucket DIR`).
public struct DirectoryBucket: BucketStore {
  public let root: URL
  public let publicBase: String?

  public init(root: URL, publicBase: String? = nil) {
    self.root = root
    self.publicBase = publicBase
  }

  public func get(_ key: String) throws -> [UInt8]? {
    FileManager.default.contents(atPath: root.appendingPathComponent(key).path).map(Array.init)
  }

  public func put(_ key: String, _ data: [UInt8], contentType: String) throws {
    let url = root.appendingPathComponent(key)
    do {
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(data).write(to: url, options: .atomic)
    } catch {
      throw InputError("cannot write \(url.path): \(error.localizedDescription)")
    }
  }

  public func list(prefix: String) throws -> [String] {
    let base = root.standardizedFileURL.path
    guard let walker = FileManager.default.enumerator(atPath: base) else { return [] }
    return walker.compactMap { $0 as? String }.filter { $0.hasPrefix(prefix) && !$0.hasSuffix("/") }
      .filter {
        !((try? FileManager.default.attributesOfItem(atPath: base + "/" + $0)[.type]
          as? FileAttributeType) == .typeDirectory)
      }
      .sorted()
  }

  public func publicURL(_ key: String) -> String {
    if let publicBase {
      return publicBase.hasSuffix("/") ? publicBase + key : publicBase + "/" + key
    }
    return root.appendingPathComponent(key).absoluteString
  }
}

/// A bucket reached over HTTP(S): GET and PUT of objects, S3-style listing.
public final class HTTPBucket: BucketStore, Sendable {
  public let base: String
  let client: HTTPClient

  /// - Parameter base: the bucket's URL, ending with `/`.
  public init(base: String, client: HTTPClient) {
    self.base = base.hasSuffix("/") ? base : base + "/"
    self.client = client
  }

  public func get(_ key: String) throws -> [UInt8]? {
    let response = try client.response(to: ClientRequest(url: base + key))
    if response.status == 404 { return nil }
    guard response.status == 200 else {
      throw InputError("GET \(base + key) answered \(response.status)")
    }
    return response.body
  }

  public func put(_ key: String, _ data: [UInt8], contentType: String) throws {
    let response = try client.response(
      to: ClientRequest(
        method: "PUT", url: base + key, headers: ["Content-Type": contentType], body: data))
    guard (200..<300).contains(response.status) else {
      throw InputError(
        "PUT \(base + key) answered \(response.status): \(response.bodyText.prefix(200))")
    }
  }

  public func list(prefix: String) throws -> [String] {
    let response = try client.response(
      to: ClientRequest(url: base + "?list-type=2&prefix=" + Query.escape(prefix)))
    guard response.status == 200 else {
      throw InputError("listing \(base) answered \(response.status)")
    }
    return ListBucketResult.keys(in: response.bodyText)
  }

  public func publicURL(_ key: String) -> String { base + key }
}

/// The S3 `ListBucketResult` XML, as far as keys go.
public enum ListBucketResult {
  public static func render(bucket: String, prefix: String, keys: [String]) -> String {
    var out =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
    out +=
      "<Name>\(escape(bucket))</Name><Prefix>\(escape(prefix))</Prefix><KeyCount>\(keys.count)</KeyCount><IsTruncated>false</IsTruncated>"
    for key in keys { out += "<Contents><Key>\(escape(key))</Key></Contents>" }
    return out + "</ListBucketResult>\n"
  }

  public static func keys(in xml: String) -> [String] {
    xml.components(separatedBy: "<Key>").dropFirst().compactMap { part in
      part.components(separatedBy: "</Key>").first.map(unescape)
    }
  }

  private static func escape(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;")
  }

  private static func unescape(_ text: String) -> String {
    text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
      .replacingOccurrences(of: "&amp;", with: "&")
  }
}
