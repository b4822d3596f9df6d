import Devices
import Testing

/// Where a notification tap lands (`pushTargetUrl` of the app's push.ts).
@Suite struct PushClientTests {
  @Test func aTapOpensTheThreadWithTheMessageAnchor() {
    #expect(
      PushClient.targetURL(["mailbox_id": "m1", "thread_id": "t9", "message_id": "x2"])
        == "/mailbox/m1/thread/t9?has_active=1#thread-message-x2")
    #expect(
      PushClient.targetURL(["mailbox_id": "m1", "thread_id": "t9"])
        == "/mailbox/m1/thread/t9?has_active=1")
  }

  @Test func withoutRoutingIdsTheTapOpensTheHome() {
    #expect(PushClient.targetURL(["thread_id": "t9"]) == "/")
    #expect(PushClient.targetURL(["mailbox_id": "", "thread_id": "t9"]) == "/")
    #expect(PushClient.targetURL([:]) == "/")
  }
}
