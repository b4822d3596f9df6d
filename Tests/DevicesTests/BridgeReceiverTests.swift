import Artifacts
import Foundation
import Testing

@testable import Devices

/// The receiver's checks in the protocol module's order, and the snapshot rules (seed 001).
@Suite struct BridgeReceiverTests {
  let origin = "https://openmapx.com"

  func receiver(dispatches: Bool = false, limits: BridgeReceiver.Limits = .seed) -> BridgeReceiver {
    var receiver = BridgeReceiver(
      webOrigin: origin, limits: limits, shellRange: 3...3, dispatches: dispatches)
    receiver.adoptDocument(nonce: "n1")
    return receiver
  }

  func message(
    _ type: String, id: String, version: Int = 3, nonce: String = "n1",
    payload: [String: Any] = [:], extra: [String: Any] = [:]
  ) -> [UInt8] {
    // An acknowledgement's payload is the seed's strict `{ eventIds }`.
    let body = type == "event.ack" && payload.isEmpty ? ["eventIds": ["e1"]] : payload
    var object: [String: Any] = [
      "protocolVersion": version, "type": type, "messageId": id, "channelNonce": nonce,
      "sentAtMs": 1, "payload": body,
    ]
    object.merge(extra) { $1 }
    return Array((try? JSONSerialization.data(withJSONObject: object)) ?? Data())
  }

  func hello(_ min: Int, _ max: Int, id: String = "h") -> [UInt8] {
    message(
      "web.hello", id: id,
      payload: ["webBuildId": "w", "minProtocolVersion": min, "maxProtocolVersion": max])
  }

  @Test func theHandshakeSelectsTheCommonVersionOrNone() {
    var shell = receiver()
    #expect(shell.receive(from: origin + "/", data: hello(2, 4)) == .handshake(selected: 3))
    var newer = receiver()
    #expect(newer.receive(from: origin + "/", data: hello(4, 5)) == .handshake(selected: nil))
    // With no common version, nothing but another hello is accepted.
    #expect(
      newer.receive(from: origin + "/", data: message("event.ack", id: "a", version: 4))
        == .rejected(.protocol))
    #expect(ProtocolRange(min: 3, max: 5).negotiate(with: ProtocolRange(min: 1, max: 3)) == 3)
    #expect(ProtocolRange(min: 3, max: 3).negotiate(with: ProtocolRange(min: 4, max: 4)) == nil)
  }

  @Test func eachCheckRefusesInOrderAndOriginAndNonceAreSilent() {
    var shell = receiver()
    _ = shell.receive(from: origin + "/", data: hello(3, 3))
    #expect(
      shell.receive(from: "https://evil.example/", data: message("event.ack", id: "1"))
        == .rejected(.origin))
    #expect(
      shell.receive(from: origin + "/", data: message("event.ack", id: "2", nonce: "old"))
        == .rejected(.nonce))
    #expect(BridgeReceiver.Rejection.origin.isSilent && BridgeReceiver.Rejection.nonce.isSilent)
    #expect(
      shell.receive(
        from: origin + "/", data: message("event.ack", id: "3", extra: ["invokeNative": "x"]))
        == .rejected(.schema))
    #expect(shell.receive(from: origin + "/", data: message("eval", id: "4")) == .rejected(.schema))
    // Without the app's schema read, the seed's: a strict acknowledgement payload.
    #expect(
      shell.receive(
        from: origin + "/",
        data: message("event.ack", id: "4", payload: ["eventIds": [], "invokeNative": "x"]))
        == .rejected(.schema))
    #expect(shell.schemaRefusal == "payload.invokeNative: not in the schema")
    #expect(shell.receive(from: origin + "/", data: message("event.ack", id: "5")) == .acknowledged)
    #expect(
      shell.receive(from: origin + "/", data: message("event.ack", id: "5"))
        == .rejected(.duplicate))
    #expect(
      shell.receive(from: origin + "/", data: message("event.ack", id: "6", version: 2))
        == .rejected(.protocol))
    #expect(
      shell.receive(from: origin + "/", data: message("session.start", id: "7"))
        == .rejected(.unsupportedCapability))
    #expect(!BridgeReceiver.Rejection.unsupportedCapability.isSilent)
    var composed = receiver(dispatches: true)
    _ = composed.receive(from: origin + "/", data: hello(3, 3))
    #expect(
      composed.receive(from: origin + "/", data: message("session.start", id: "8"))
        == .dispatched(type: "session.start"))
  }

  @Test func anOversizeMessageIsRefusedBeforeItIsParsed() {
    let small = BridgeReceiver.Limits(messageBytes: 256, coordinates: 3, steps: 2, legs: 1)
    var shell = receiver(limits: small)
    _ = shell.receive(from: origin + "/", data: hello(3, 3))
    let parsed = shell.parsed
    #expect(
      shell.receive(from: origin + "/", data: [UInt8](repeating: 0x20, count: 257))
        == .rejected(.tooLarge))
    #expect(shell.parsed == parsed)
    #expect(
      shell.receive(from: origin + "/", data: Array("{not json".utf8)) == .rejected(.invalidJSON))
    let route: [String: Any] = [
      "route": ["geometry": [[1, 2], [3, 4], [5, 6], [7, 8]], "steps": [[:], [:]]]
    ]
    #expect(
      shell.receive(from: origin + "/", data: message("session.start", id: "r", payload: route))
        == .rejected(.bounds))
    #expect(BridgeReceiver.withinBounds(["legs": [[:]], "steps": [[:], [:]]], small))
    #expect(!BridgeReceiver.withinBounds(["legs": [[:], [:]]], small))
  }

  @Test func aDeltaAppliesOnlyOnItsBaseAndAGapAsksForASnapshot() {
    var page = SnapshotReducer()
    #expect(page.delta(session: "s", route: "r", base: 0, revision: 1) == .ignored)
    page.full(session: "s", route: "r", revision: 4)
    #expect(page.delta(session: "s", route: "r", base: 4, revision: 5) == .applied)
    #expect(page.delta(session: "t", route: "r", base: 5, revision: 6) == .ignored)
    #expect(page.delta(session: "s", route: "q", base: 5, revision: 6) == .ignored)
    #expect(page.delta(session: "s", route: "r", base: 4, revision: 5) == .ignored)
    #expect(page.delta(session: "s", route: "r", base: 7, revision: 8) == .gap)
    #expect(page.revision == 5)
  }
}
