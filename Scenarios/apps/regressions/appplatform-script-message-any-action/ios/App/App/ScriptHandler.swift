import WebKit
import UserNotifications

class ScriptHandler: NSObject, WKScriptMessageHandler {
    weak var webView: WKWebView?

    func userContentController(
        _ userContentController: WKUserContentController,
        didReceive message: WKScriptMessage
    ) {
        guard message.name == "notify",
              let body = message.body as? [String: Any],
              body["type"] is String
        else { return }

        requestNotificationPermission { [weak self] granted in
            let js = "window.dispatchEvent(new CustomEvent('onNativePermissionResult', { detail: { granted: \(granted) } }));"
            self?.webView?.evaluateJavaScript(js, completionHandler: nil)
        }
    }

    private func requestNotificationPermission(completion: @escaping (Bool) -> Void) {
        UNUserNotificationCenter.current().requestAuthorization(options: [.alert, .badge, .sound]) { granted, _ in
            DispatchQueue.main.async {
                completion(granted)
            }
        }
    }
}
