package fs.sovereign.mobile;

import android.content.Intent;
import android.net.Uri;
import com.getcapacitor.BridgeActivity;

public class MainActivity extends BridgeActivity {
    private static final String LOCAL_ORIGIN = "https://localhost/";

    @Override
    protected void load() {
        super.load();
        bridge.setWebViewClient(new NavigationPolicyWebViewClient(bridge));
        handleDeepLinkIntent(getIntent());
    }

    @Override
    protected void onNewIntent(Intent intent) {
        super.onNewIntent(intent);
        handleDeepLinkIntent(intent);
    }

    /** Hands sovereign://host/path to the local page as it arrived; the page resolves it. */
    private void handleDeepLinkIntent(Intent intent) {
        if (intent == null || intent.getData() == null) return;
        Uri data = intent.getData();
        if (!"sovereign".equalsIgnoreCase(data.getScheme())) return;
        bridge.getWebView().loadUrl(LOCAL_ORIGIN + "?deeplink=" + Uri.encode(data.toString()));
    }
}
