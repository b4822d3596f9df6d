import UIKit
import WebKit

/// What the instance's page gets of the device: a light haptic tap. WebKit defines a script
/// message handler in every frame of the page, so a message from a frame other than the main
/// one — another origin the instance embeds — is dropped.
final class DeviceBridge: NSObject, WKScriptMessageHandler {
  static let handlerName = "sovereignBridge"

  func userContentController(
    _ controller: WKUserContentController, didReceive message: WKScriptMessage
  ) {
    guard let body = message.body as? [String: Any],
      body["capability"] as? String == "haptics.impact"
    else { return }
    UIImpactFeedbackGenerator(style: .light).impactOccurred()
  }
}
