import Foundation
import HTTP
import OTA
import QualifyCore

/// The public object store the OTA channels live in (seed 000: "a public S3 bucket — no
/// Capgo server"): GET of objects, PUT through the publish path, S3-style listing, one
/// folder per channel, nothing ever pruned.
public final class OTABucket: HTTPHandler, BucketStore, Sendable {
  public let origin: Origin
  /// The path the bucket's keys start at (`/messages-ota/` on the dev stack, `/` on a CDN).
  public let basePath: String
  let context: StackContext
  private struct Contents {
    var objects: [String: (data: [UInt8], contentType: String)] = [:]
    var failuresToServe = 0
  }

  private let contents = Locked(Contents())

  init(origin: Origin, basePath: String, context: StackContext) {
    self.origin = origin
    self.basePath = basePath.hasSuffix("/") ? basePath : basePath + "/"
    self.context = context
  }

  /// The bucket of a manifest URL: the part before `channels/<channel>/manifest.json`.
  static func basePath(of manifestURL: String) -> String {
    guard let path = URLComponents(string: manifestURL)?.path,
      let range = path.range(of: "channels/")
    else { return "/" }
    return String(path[..<range.lowerBound])
  }

  /// The next bundle downloads answer 503 (a transient failure).
  public func failNextDownloads(_ count: Int = 1) {
    contents.withLock { $0.failuresToServe = count }
  }

  public func handle(_ request: HTTPRequest) -> HTTPResponse {
    guard request.path.hasPrefix(basePath) || request.path + "/" == basePath else {
      return .notFound
    }
    let key = String(request.path.dropFirst(min(basePath.count, request.path.count)))
    return contents.withLock { answer(request, key: key, &$0) }
  }

  private func answer(_ request: HTTPRequest, key: String, _ contents: inout Contents)
    -> HTTPResponse
  {
    switch request.method {
    case "GET", "HEAD":
      if key.isEmpty, request.query("list-type") == "2" {
        let prefix = request.query("prefix") ?? ""
        let keys = contents.objects.keys.filter { $0.hasPrefix(prefix) }.sorted()
        return HTTPResponse(
          status: 200, headers: ["Content-Type": "application/xml"],
          body: Array(ListBucketResult.render(bucket: basePath, prefix: prefix, keys: keys).utf8))
      }
      if key.hasSuffix(".zip") && contents.failuresToServe > 0 {
        contents.failuresToServe -= 1
        context.event("bucket", "GET \(key) → 503 (transient failure)")
        return .text("Slow Down", status: 503)
      }
      guard let object = contents.objects[key] else {
        return HTTPResponse(
          status: 404, headers: ["Content-Type": "application/xml"],
          body: Array(
            "<Error><Code>NoSuchKey</Code><Key>\(HTMLText.escape(key))</Key></Error>".utf8))
      }
      // Resumable downloads, as S3 and every object store serve them.
      return HTTPResponse(
        status: 200, headers: ["Content-Type": object.contentType, "Cache-Control": "no-cache"],
        body: object.data
      ).ranged(for: request)
    case "PUT":
      contents.objects[key] = (
        request.body, request.headers["Content-Type"] ?? "application/octet-stream"
      )
      context.event("bucket", "PUT \(key) (\(request.body.count) bytes)")
      return HTTPResponse(status: 200)
    default:
      return HTTPResponse.problem(405, "Method not allowed").with("Allow", "GET, HEAD, PUT")
    }
  }

  // MARK: BucketStore (the publish path, in-process)

  public func get(_ key: String) throws -> [UInt8]? {
    contents.withLock { $0.objects[key]?.data }
  }

  public func put(_ key: String, _ data: [UInt8], contentType: String) throws {
    contents.withLock { $0.objects[key] = (data, contentType) }
    context.event("bucket", "PUT \(key) (\(data.count) bytes)")
  }

  public func list(prefix: String) throws -> [String] {
    contents.withLock { $0.objects.keys.filter { $0.hasPrefix(prefix) }.sorted() }
  }

  public func publicURL(_ key: String) -> String { origin.url(basePath + key) }
}
