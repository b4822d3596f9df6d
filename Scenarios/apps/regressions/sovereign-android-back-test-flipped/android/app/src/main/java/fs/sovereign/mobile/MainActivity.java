package fs.sovereign.mobile;

import android.content.Intent;
import android.net.Uri;
import android.view.KeyEvent;
import android.webkit.WebView;
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

    /**
     * Back from a loaded instance returns to the instance manager. WebView.canGoBack() is
     * false after the cold-launch redirect even though the history holds the local page, so
     * the manager is loaded directly rather than trusting goBack().
     */
    @Override
    public boolean dispatchKeyEvent(KeyEvent event) {
        if (event.getKeyCode() == KeyEvent.KEYCODE_BACK) {
            WebView webView = bridge.getWebView();
            String url = webView.getUrl();
            if (url != null && url.startsWith(LOCAL_ORIGIN)) {
                if (event.getAction() == KeyEvent.ACTION_DOWN) {
                    webView.loadUrl(LOCAL_ORIGIN + "?manage=1");
                }
                return true;
            }
        }
        return super.dispatchKeyEvent(event);
    }
}
