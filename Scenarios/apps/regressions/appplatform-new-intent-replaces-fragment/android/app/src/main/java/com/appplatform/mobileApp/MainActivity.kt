package com.appplatform.mobileApp

import android.content.Intent
import android.os.Bundle
import androidx.appcompat.app.AppCompatActivity
import androidx.core.os.bundleOf

class MainActivity : AppCompatActivity() {

    companion object {
        const val EXTRA_TARGET_URL = "targetUrl"
    }

    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        setContentView(R.layout.activity_main)
        if (savedInstanceState == null) {
            val fragment = FirstFragment().apply { arguments = bundleOf(EXTRA_TARGET_URL to linkOf(intent)) }
            supportFragmentManager.beginTransaction().replace(R.id.container, fragment).commit()
        }
    }

    // singleTask: a push tap or an App Link while the app runs arrives here.
    override fun onNewIntent(intent: Intent) {
        super.onNewIntent(intent)
        val url = linkOf(intent) ?: return
        val fragment = FirstFragment().apply { arguments = bundleOf(EXTRA_TARGET_URL to url) }
        supportFragmentManager.beginTransaction().replace(R.id.container, fragment).commit()
    }

    /** An App Link's URL (intent.data) or a notification's targetUrl extra. */
    private fun linkOf(intent: Intent?): String? =
        intent?.data?.toString() ?: intent?.getStringExtra(EXTRA_TARGET_URL)
}
