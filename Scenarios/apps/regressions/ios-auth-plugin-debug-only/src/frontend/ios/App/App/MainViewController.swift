import Capacitor
import UIKit

class MainViewController: CAPBridgeViewController {
    override open func capacitorDidLoad() {
        // App-local plugins are not auto-registered: without this line the JS side silently
        // falls back to the Browser plugin (SFSafariViewController) and cross-app SSO is gone.
        #if DEBUG
        bridge?.registerPluginInstance(WebAuthSessionPlugin())
        #endif
    }
}
