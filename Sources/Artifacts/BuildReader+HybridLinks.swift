import Foundation
import QualifyCore

/// The iOS container's links and FCM token, followed from the app delegate to the view
/// controller through the notifications it relays.
extension BuildReader {
  /// Universal Links reaching the web view, and the FCM token reaching the registration, each
  /// followed through a notification the delegate relays.
  func readLinkHandling(
    _ swift: CodeSearch, sceneManifest: FileLocation?, into code: inout HybridShellCode
  ) {
    code.opensLinks = swift.fact(
      [["NSUserActivityTypeBrowsingWeb", "webpageURL", "webView.load("]],
      home: "UIApplicationDelegate")
    // The delegate may relay the link to the view controller: follow the notification's name
    // to the observer that loads it.
    let relay = NotificationRelay(swift)
    if let handler = swift.find(["NSUserActivityTypeBrowsingWeb"]) {
      let loadsThere =
        swift.find(["NSUserActivityTypeBrowsingWeb", "webView.load("], sameFile: true) != nil
      if let delivered = relay.delivers(
        postedAfter: handler, doing: "webView.load(", doneAtOrigin: loadsThere)
      {
        code.opensLinks = delivered
      } else if !loadsThere, !relay.usesURL(after: handler, in: swift) {
        // Neither loaded where it arrives nor passed on to anything: the link goes nowhere.
        code.opensLinks = Sourced(
          false, at: handler,
          derivation: ["the handler neither loads webpageURL nor passes it on"])
      }
    }
    let running = RunningLinkReader.ios(swift, relay: relay, sceneManifest: sceneManifest)
    code.linksKeepWebView = running.keepsWebView
    if let unreachable = running.unreachable { code.opensLinks = unreachable }
    if let handler = swift.find(["didReceiveRegistrationToken"]),
      let delivered = relay.delivers(
        postedAfter: handler, doing: "fcmToken =",
        doneAtOrigin: swift.find(["didReceiveRegistrationToken", "-register"], sameFile: true)
          != nil),
      !delivered.value
    {
      code.registersToken = delivered
    }
  }
}
