import Foundation
import Testing

@testable import Scenarios

/// What makes a message frame an srcdoc document with a sandbox and a CSP, as browsers read
/// the attributes and the policy, not as the words appear.
@Suite struct RenderFramingTests {
  func frame(
    sandbox: String? = "allow-same-origin allow-popups",
    csp: [String] = ["img-src 'self' data:; default-src 'none'; script-src 'none'"],
    srcdoc: Bool = true, src: String? = nil
  ) -> RenderResult.Frame {
    RenderResult.Frame(
      srcdoc: srcdoc, sandbox: sandbox, src: src, url: "about:srcdoc", text: "", csp: csp,
      ran: nil, nestedFrames: 0)
  }

  @Test func theSamplesFrameIsFramed() {
    #expect(RenderChecks.framing(frame()) == nil)
    #expect(RenderChecks.framing(frame(csp: ["DEFAULT-SRC  'none' ; img-src data:"])) == nil)
  }

  @Test func eachMissingLayerIsNamed() {
    #expect(RenderChecks.framing(frame(sandbox: nil)) == "the frame has no sandbox")
    #expect(
      RenderChecks.framing(frame(csp: [])) == "the body's document has no Content-Security-Policy")
    #expect(RenderChecks.framing(frame(srcdoc: false)) == "the frame has no srcdoc")
    #expect(
      RenderChecks.framing(frame(src: "blob:x"))?.hasPrefix("the body is loaded from") == true)
  }

  @Test func lookAlikesOfTheRightWordsAreNotTheRightPolicy() {
    // 'none' beside a source is ignored by browsers: the policy allows https.
    #expect(RenderChecks.framing(frame(csp: ["default-src 'none' https:"])) != nil)
    #expect(RenderChecks.framing(frame(csp: ["script-src 'none'; img-src 'self'"])) != nil)
    // The dangerous pair separated by a tab or a newline is still the pair.
    #expect(RenderChecks.framing(frame(sandbox: "allow-scripts\tallow-same-origin")) != nil)
    #expect(RenderChecks.framing(frame(sandbox: "ALLOW-SAME-ORIGIN\nallow-scripts")) != nil)
    #expect(RenderChecks.framing(frame(sandbox: "allow-scripts")) == nil)
  }
}
