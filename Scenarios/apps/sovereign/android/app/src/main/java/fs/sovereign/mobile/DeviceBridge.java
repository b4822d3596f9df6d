package fs.sovereign.mobile;

import android.content.Context;
import android.net.Uri;
import android.os.VibrationEffect;
import android.os.Vibrator;
import android.webkit.WebView;
import androidx.annotation.NonNull;
import androidx.webkit.JavaScriptReplyProxy;
import androidx.webkit.WebMessageCompat;
import androidx.webkit.WebViewCompat;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * What the instance's page gets of the device: a short vibration. Registered for the active
 * instance's origin only; a sub-frame of that origin is refused too, as iOS refuses it.
 */
final class DeviceBridge implements WebViewCompat.WebMessageListener {
    static final String NAME = "sovereignBridge";

    private final Context context;

    DeviceBridge(Context context) {
        this.context = context;
    }

    @Override
    public void onPostMessage(
        @NonNull WebView view,
        @NonNull WebMessageCompat message,
        @NonNull Uri sourceOrigin,
        boolean isMainFrame,
        @NonNull JavaScriptReplyProxy replyProxy
    ) {
        if (!isMainFrame || message.getData() == null) return;
        try {
            JSONObject request = new JSONObject(message.getData());
            if (!"haptics.impact".equals(request.optString("capability"))) return;
        } catch (JSONException e) {
            return;
        }
        Vibrator vibrator = context.getSystemService(Vibrator.class);
        if (vibrator != null) {
            vibrator.vibrate(VibrationEffect.createPredefined(VibrationEffect.EFFECT_TICK));
        }
        replyProxy.postMessage("{\"status\":\"ok\"}");
    }
}
