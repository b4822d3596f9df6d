package fs.sovereign.mobile;

import android.content.Context;
import android.content.Intent;
import android.net.Uri;
import android.webkit.WebResourceRequest;
import android.webkit.WebView;
import com.getcapacitor.Bridge;
import com.getcapacitor.BridgeWebViewClient;

/**
 * The active instance stays in the WebView; other origins open in the system browser. A
 * same-origin load is never passed to Capacitor's handler, which would open it externally.
 */
public class NavigationPolicyWebViewClient extends BridgeWebViewClient {
    private final Bridge bridge;

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
            .getString("sovereign.active_url", null);
        if (active == null) return false;
        Uri activeUri = Uri.parse(active);
        if (scheme.equals(activeUri.getScheme()) && url.getHost() != null
            && url.getHost().equals(activeUri.getHost()) && url.getPort() == activeUri.getPort()) {
            return false;
        }
        Intent intent = new Intent(Intent.ACTION_VIEW, url);
        intent.addFlags(Intent.FLAG_ACTIVITY_NEW_TASK);
        bridge.getContext().startActivity(intent);
        return true;
    }
}
