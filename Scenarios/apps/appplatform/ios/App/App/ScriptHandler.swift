import UIKit
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
              let action = body["type"] as? String
        else { return }

        if action == "share", let url = (body["url"] as? String).flatMap(URL.init) {
            // The same share sheet Android's openNativeShare opens, from the site's button.
            let text = body["title"] as? String ?? ""
            let sheet = UIActivityViewController(activityItems: [text, url], applicationActivities: nil)
            webView?.window?.rootViewController?.present(sheet, animated: true)
            return
        }
        guard action == "request" else { return }

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
