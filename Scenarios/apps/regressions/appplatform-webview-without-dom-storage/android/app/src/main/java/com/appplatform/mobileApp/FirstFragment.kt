package com.appplatform.mobileApp

import android.Manifest
import android.content.pm.PackageManager
import android.os.Build
import android.os.Bundle
import android.view.LayoutInflater
import android.view.View
import android.view.ViewGroup
import android.webkit.CookieManager
import android.webkit.WebView
import android.webkit.WebViewClient
import androidx.activity.result.contract.ActivityResultContracts
import androidx.core.content.ContextCompat
import androidx.fragment.app.Fragment
import com.google.firebase.messaging.FirebaseMessaging

class FirstFragment : Fragment() {

    private val notifPermissionLauncher = registerForActivityResult(
        ActivityResultContracts.RequestPermission()
    ) { granted: Boolean ->
        notifyJsPermissionState(granted)
    }

    override fun onCreateView(inflater: LayoutInflater, container: ViewGroup?, savedInstanceState: Bundle?): View =
        inflater.inflate(R.layout.fragment_first, container, false)

    override fun onViewCreated(view: View, savedInstanceState: Bundle?) {
        super.onViewCreated(view, savedInstanceState)
        val webView = view.findViewById<WebView>(R.id.webview)

        webView.settings.javaScriptEnabled = true

        // The page calls window.AndroidBridge.getAppVersion() / openNativeShare(title, url).
        webView.addJavascriptInterface(AppPlatformJsBridge(requireContext()), "AndroidBridge")

        webView.webViewClient = object : WebViewClient() {
            override fun onPageFinished(view: WebView?, url: String?) {
                checkAndPromptNotificationPermission()
                registerDeviceWhenSignedIn(view)
            }
        }

        // A push tap or an App Link hands its URL over; otherwise the home page.
        val start = arguments?.getString(MainActivity.EXTRA_TARGET_URL) ?: getString(R.string.web_origin)
        webView.loadUrl(start)
    }

    /** Routes the WebView to a URL of the site (a push's targetUrl, an App Link). */
    fun open(url: String) {
        if (url.startsWith(getString(R.string.web_origin) + "/")) {
            view?.findViewById<WebView>(R.id.webview)?.loadUrl(url)
        }
    }

    private fun checkAndPromptNotificationPermission() {
        if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.TIRAMISU) {
            val isGranted = ContextCompat.checkSelfPermission(
                requireContext(),
                Manifest.permission.POST_NOTIFICATIONS
            ) == PackageManager.PERMISSION_GRANTED

            if (!isGranted) {
                notifPermissionLauncher.launch(Manifest.permission.POST_NOTIFICATIONS)
            }
        }
    }

    private fun notifyJsPermissionState(granted: Boolean) {
        val script = "window.dispatchEvent(new CustomEvent('onNativePermissionResult', { detail: { granted: $granted } }));"
        view?.findViewById<WebView>(R.id.webview)?.evaluateJavascript(script, null)
    }

    /** The signed-in page carries the user's id and salt: the FCM token is registered with them. */
    private fun registerDeviceWhenSignedIn(webView: WebView?) {
        webView?.evaluateJavascript("document.querySelector('meta[name=app-user]')?.content") { value ->
            val parts = value.trim('"').split(":")
            if (parts.size != 2) return@evaluateJavascript
            FirebaseMessaging.getInstance().token.addOnSuccessListener { token ->
                val cookies = CookieManager.getInstance().getCookie(getString(R.string.web_origin))
                DeviceRegistration.register(getString(R.string.web_origin), parts[0], parts[1], token, cookies)
            }
        }
    }
}
