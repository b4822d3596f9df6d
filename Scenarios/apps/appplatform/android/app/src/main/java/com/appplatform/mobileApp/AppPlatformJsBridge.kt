package com.appplatform.mobileApp

import android.content.Context
import android.content.Intent
import android.webkit.JavascriptInterface

class AppPlatformJsBridge(private val context: Context) {

    @JavascriptInterface
    fun getAppVersion(): String = BuildConfig.VERSION_NAME

    @JavascriptInterface
    fun openNativeShare(title: String, url: String) {
        val sendIntent = Intent().apply {
            action = Intent.ACTION_SEND
            putExtra(Intent.EXTRA_TEXT, "$title $url")
            type = "text/plain"
        }
        context.startActivity(Intent.createChooser(sendIntent, "Partager via"))
    }
}
