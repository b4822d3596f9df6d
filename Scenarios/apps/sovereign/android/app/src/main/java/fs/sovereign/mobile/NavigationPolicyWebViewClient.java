package fs.sovereign.mobile;

import android.content.Context;
import android.content.Intent;
import android.net.Uri;
import android.webkit.WebResourceRequest;
import android.webkit.WebView;
import androidx.webkit.WebViewCompat;
import androidx.webkit.WebViewFeature;
import com.getcapacitor.Bridge;
import com.getcapacitor.BridgeWebViewClient;
import java.util.Collections;

/**
 * The active instance stays in the WebView; other origins open in the system browser. A
 * same-origin load is never passed to Capacitor's handler, which would open it externally.
 */
public class NavigationPolicyWebViewClient extends BridgeWebViewClient {
    private final Bridge bridge;
    /** The origin the device bridge is registered for, null while none is. */
    private String deviceBridgeOrigin;

    public NavigationPolicyWebViewClient(Bridge bridge) {
        super(bridge);
        this.bridge = bridge;
    }

    @Override
    public boolean shouldOverrideUrlLoading(WebView view, WebResourceRequest request) {
        Uri url = request.getUrl();
        String scheme = url.getScheme();
        if (!request.isForMainFrame() || !("http".equals(scheme) || "https".equals(scheme))) {
            return super.shouldOverrideUrlLoading(view, request);
        }
        String active = bridge.getContext()
            .getSharedPreferences("CapacitorStorage", Context.MODE_PRIVATE)
            .getString("sovereign.activeUrl", null);
        if (active == null) return false;
        Uri activeUri = Uri.parse(active);
        if (scheme.equals(activeUri.getScheme()) && url.getHost() != null
            && url.getHost().equals(activeUri.getHost()) && url.getPort() == activeUri.getPort()) {
            scopeDeviceBridge(view, activeUri.getScheme() + "://" + activeUri.getEncodedAuthority());
            return false;
        }
        Intent intent = new Intent(Intent.ACTION_VIEW, url);
        intent.addFlags(Intent.FLAG_ACTIVITY_NEW_TASK);
        bridge.getContext().startActivity(intent);
        return true;
    }

    /**
     * The device bridge answers the active instance's origin only. A listener's origin rules
     * cannot change once registered, so another instance gets a new registration.
     */
    private void scopeDeviceBridge(WebView view, String origin) {
        if (origin.equals(deviceBridgeOrigin)
            || !WebViewFeature.isFeatureSupported(WebViewFeature.WEB_MESSAGE_LISTENER)) {
            return;
        }
        if (deviceBridgeOrigin != null) {
            WebViewCompat.removeWebMessageListener(view, DeviceBridge.NAME);
        }
        WebViewCompat.addWebMessageListener(
            view, DeviceBridge.NAME, Collections.singleton(origin), new DeviceBridge(bridge.getContext()));
        deviceBridgeOrigin = origin;
    }
}
