import Foundation
import HTTP
import MockStack
import OTA
import QualifyCore
import QualifyTestSupport
import Testing

@Suite struct OTABucketTests {
  @Test func rangesResumeADownloadAndHeadTellsTheLength() throws {
    let (stack, client) = try StackFixture.start()
    defer { stack.stop() }
    let bucket = try #require(stack.bucket)
    let url = "https://ota.messages.example/channels/prod/bundles/1-a.zip"
    try bucket.put("channels/prod/bundles/1-a.zip", Array(0..<100), contentType: "application/zip")
    let tail = try client.response(
      to: ClientRequest(url: url, headers: ["Range": "bytes=90-"]))
    #expect(tail.status == 206)
    #expect(tail.body == Array(90..<100))
    #expect(tail.headers["Content-Range"] == "bytes 90-99/100")
    let past = try client.response(to: ClientRequest(url: url, headers: ["Range": "bytes=100-"]))
    #expect(past.status == 416)
    #expect(past.headers["Content-Range"] == "bytes */100")
    let head = try client.response(to: ClientRequest(method: "HEAD", url: url))
    #expect(head.status == 200)
    #expect(head.headers["Content-Length"] == "100")
    #expect(head.headers["Accept-Ranges"] == "bytes")
    #expect(head.body.isEmpty)
  }

  @Test func aMissingKeyIsEscapedInTheErrorDocument() throws {
    let (stack, client) = try StackFixture.start()
    defer { stack.stop() }
    let missing = try client.response(
      to: ClientRequest(url: "https://ota.messages.example/channels/%3Cx%3E.zip"))
    #expect(missing.status == 404)
    #expect(missing.bodyText.contains("&lt;x&gt;"))
    #expect(!missing.bodyText.contains("<x>"))
  }

  @Test func objectsAreServedListedAndFailTransientlyOnRequest() throws {
    let (stack, client) = try StackFixture.start()
    defer { stack.stop() }
    let bucket = try #require(stack.bucket)
    try bucket.put("channels/prod/manifest.json", Array("{}".utf8), contentType: "application/json")
    try bucket.put("channels/prod/bundles/1-a.zip", [1, 2, 3], contentType: "application/zip")
    try bucket.put("channels/staging/bundles/1-a.zip", [4], contentType: "application/zip")
    #expect(
      try client.response(
        to: ClientRequest(url: "https://ota.messages.example/channels/prod/bundles/1-a.zip")
      ).body == [1, 2, 3])
    #expect(
      try client.response(
        to: ClientRequest(url: "https://ota.messages.example/channels/prod/nothing.zip")
      ).status == 404)
    let listing = try client.response(
      to: ClientRequest(url: "https://ota.messages.example/?list-type=2&prefix=channels/prod/"))
    #expect(
      ListBucketResult.keys(in: listing.bodyText) == [
        "channels/prod/bundles/1-a.zip", "channels/prod/manifest.json",
      ])
    bucket.failNextDownloads(1)
    #expect(
      try client.response(
        to: ClientRequest(url: "https://ota.messages.example/channels/prod/bundles/1-a.zip")
      ).status == 503)
    #expect(
      try client.response(
        to: ClientRequest(url: "https://ota.messages.example/channels/prod/bundles/1-a.zip")
      ).status == 200)
  }

  @Test func anHTTPBucketPublishesThroughPUT() throws {
    let (stack, client) = try StackFixture.start()
    defer { stack.stop() }
    let remote = HTTPBucket(base: "https://ota.messages.example/", client: client)
    try remote.put(
      "channels/prod/manifest.json", Array("{\"version\":\"1-a\"}".utf8),
      contentType: "application/json")
    #expect(
      try stack.bucket?.get("channels/prod/manifest.json") == Array("{\"version\":\"1-a\"}".utf8))
    #expect(try remote.list(prefix: "channels/") == ["channels/prod/manifest.json"])
  }
}
