package com.appplatform.mobileApp

import java.net.HttpURLConnection
import java.net.URL
import java.net.URLEncoder
import kotlin.concurrent.thread

/** POST /api/android-register (userId, userToken, appToken), with the WebView's session cookie. */
object DeviceRegistration {
    fun register(origin: String, userId: String, userSalt: String, appToken: String, cookies: String?) {
        thread {
            val form = listOf("userId" to userId, "userToken" to userSalt, "appToken" to appToken)
                .joinToString("&") { (k, v) -> "$k=" + URLEncoder.encode(v, "UTF-8") }
            val connection = URL("$origin/api/android-register").openConnection() as HttpURLConnection
            connection.requestMethod = "POST"
            connection.doOutput = true
            connection.setRequestProperty("Content-Type", "application/x-www-form-urlencoded")
            cookies?.let { connection.setRequestProperty("Cookie", it) }
            connection.outputStream.use { it.write(form.toByteArray()) }
            connection.responseCode
            connection.disconnect()
        }
    }
}
