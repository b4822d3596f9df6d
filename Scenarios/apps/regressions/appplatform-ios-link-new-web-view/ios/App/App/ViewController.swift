import UIKit
import WebKit

class ViewController: UIViewController, WKNavigationDelegate {
    private var webView: WKWebView!
    private let scriptHandler = ScriptHandler()
    private var fcmToken: String?
    private let origin = Bundle.main.object(forInfoDictionaryKey: "AppWebOrigin") as? String ?? ""

    override func viewDidLoad() {
        super.viewDidLoad()
        let configuration = WKWebViewConfiguration()
        // The page posts window.webkit.messageHandlers.notify.postMessage({ type: 'request' }).
        configuration.userContentController.add(scriptHandler, name: "notify")
        webView = WKWebView(frame: view.bounds, configuration: configuration)
        webView.navigationDelegate = self
        scriptHandler.webView = webView
        view.addSubview(webView)

        NotificationCenter.default.addObserver(forName: Notification.Name("UniversalLinkOpened"), object: nil, queue: .main) { [weak self] note in
            guard let self, let url = note.object as? URL, url.absoluteString.hasPrefix(self.origin + "/") else { return }
            // A clean web view for each link, so no earlier page gets in its way.
            self.webView.removeFromSuperview()
            self.webView = WKWebView(frame: self.view.bounds, configuration: self.webView.configuration)
            self.webView.navigationDelegate = self
            self.view.addSubview(self.webView)
            self.webView.load(URLRequest(url: url))
        }
        NotificationCenter.default.addObserver(forName: Notification.Name("FCMTokenReceived"), object: nil, queue: .main) { [weak self] note in
            self?.fcmToken = note.object as? String
        }
        webView.load(URLRequest(url: URL(string: origin)!))
    }

    func webView(_ webView: WKWebView, didFinish navigation: WKNavigation!) {
        // The signed-in page carries the user's id and salt: the FCM token is registered with them.
        webView.evaluateJavaScript("document.querySelector('meta[name=app-user]')?.content") { [weak self] value, _ in
            guard let self, let parts = (value as? String)?.split(separator: ":"), parts.count == 2,
                  let token = self.fcmToken else { return }
            webView.configuration.websiteDataStore.httpCookieStore.getAllCookies { cookies in
                DeviceRegistration.register(origin: self.origin, userId: String(parts[0]), userSalt: String(parts[1]), appToken: token, cookies: cookies)
            }
        }
    }
}
