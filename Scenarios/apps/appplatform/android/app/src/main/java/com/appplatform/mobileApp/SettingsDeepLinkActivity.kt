package com.appplatform.mobileApp

import android.app.Activity
import android.content.Intent
import android.os.Bundle
import android.provider.Settings

/** appplatform://settings/notifications: straight to the app's notification settings. */
class SettingsDeepLinkActivity : Activity() {
    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        startActivity(
            Intent(Settings.ACTION_APP_NOTIFICATION_SETTINGS)
                .putExtra(Settings.EXTRA_APP_PACKAGE, packageName)
        )
        finish()
    }
}
