import Capacitor
import UIKit
import WebKit

/// Keeps the active instance in the primary WebView and sends every other origin to the
/// system browser. Capacitor's own handler assumes bundled content and would open a
/// runtime-chosen remote origin externally, so a same-origin decision never reaches it.
class MainViewController: CAPBridgeViewController, WKNavigationDelegate {
  private weak var capacitorHandler: WebViewDelegationHandler?
  /// The local page's user scripts, copied value by value: the configuration's array is
  /// emptied when remote mode removes them.
  private var localScripts: [(source: String, time: WKUserScriptInjectionTime, mainOnly: Bool)] =
    []
  private static let activeKey = "CapacitorStorage.sovereign.activeUrl"
  private let deviceBridge = DeviceBridge()
  /// Whether the WebView is set up for an instance (Capacitor out, the device bridge in).
  private var showsInstance = false

  override func capacitorDidLoad() {
    webView?.allowsBackForwardNavigationGestures = true
    capacitorHandler = webView?.navigationDelegate as? WebViewDelegationHandler
    localScripts = (webView?.configuration.userContentController.userScripts ?? []).map {
      ($0.source, $0.injectionTime, $0.isForMainFrameOnly)
    }
    webView?.navigationDelegate = self
  }

  override func responds(to selector: Selector!) -> Bool {
    super.responds(to: selector) || (capacitorHandler?.responds(to: selector) ?? false)
  }

  override func forwardingTarget(for selector: Selector!) -> Any? {
    capacitorHandler?.responds(to: selector) == true ? capacitorHandler : nil
  }

  func webView(
    _ webView: WKWebView, decidePolicyFor action: WKNavigationAction,
    decisionHandler: @escaping (WKNavigationActionPolicy) -> Void
  ) {
    guard let url = action.request.url, url.scheme == "http" || url.scheme == "https" else {
      restoreLocalScripts()
      if let handler = capacitorHandler {
        handler.webView(webView, decidePolicyFor: action, decisionHandler: decisionHandler)
      } else {
        decisionHandler(.allow)
      }
      return
    }
    guard action.targetFrame?.isMainFrame ?? false else { return decisionHandler(.allow) }
    guard let active = UserDefaults.standard.string(forKey: Self.activeKey).flatMap(URL.init)
    else {
      isolateForInstance()
      return decisionHandler(.allow)
    }
    if url.scheme == active.scheme && url.host == active.host && url.port == active.port {
      isolateForInstance()
      decisionHandler(.allow)
      return
    }
    decisionHandler(.cancel)
    UIApplication.shared.open(url)
  }

  /// `sovereign://host/path`: back to the local page, which resolves the link.
  func loadDeepLink(_ url: URL) {
    var local = URLComponents(string: "capacitor://localhost/")!
    local.queryItems = [URLQueryItem(name: "deeplink", value: url.absoluteString)]
    restoreLocalScripts()
    webView?.load(URLRequest(url: local.url!))
  }

  /// An instance gets none of Capacitor: its scripts go into every main frame and its "bridge"
  /// handler answers every frame, whatever their origin. Decided before the instance's
  /// document exists, so the next page starts without them.
  private func isolateForInstance() {
    guard !showsInstance, let controller = webView?.configuration.userContentController else {
      return
    }
    controller.removeAllUserScripts()
    controller.removeScriptMessageHandler(forName: "bridge")
    controller.add(deviceBridge, name: DeviceBridge.handlerName)
    showsInstance = true
  }

  private func restoreLocalScripts() {
    guard let controller = webView?.configuration.userContentController else { return }
    controller.removeAllUserScripts()
    for script in localScripts {
      controller.addUserScript(
        WKUserScript(
          source: script.source, injectionTime: script.time, forMainFrameOnly: script.mainOnly))
    }
    guard showsInstance else { return }
    controller.removeScriptMessageHandler(forName: DeviceBridge.handlerName)
    showsInstance = false
  }
}
