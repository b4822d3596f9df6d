import Foundation

/// POST /api/ios-register (userId, userToken, appToken), with the WebView's session cookie.
enum DeviceRegistration {
    static func register(origin: String, userId: String, userSalt: String, appToken: String, cookies: [HTTPCookie]) {
        guard let url = URL(string: origin + "/api/ios-register") else { return }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        for (name, value) in HTTPCookie.requestHeaderFields(with: cookies) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        var form = URLComponents()
        form.queryItems = [
            URLQueryItem(name: "userId", value: userId),
            URLQueryItem(name: "userToken", value: userSalt),
            URLQueryItem(name: "appToken", value: appToken),
        ]
        request.httpBody = form.percentEncodedQuery?.data(using: .utf8)
        URLSession.shared.dataTask(with: request).resume()
    }
}
