import Foundation
import QualifyCore
import QualifyCrypto

/// The hybrid shell's Android side: its Gradle script, its manifest and its Kotlin.
extension BuildReader {
  mutating func readHybridAndroid(into build: inout AppBuild) {
    let paths = profile.paths
    if let path = paths["android.buildGradle"] {
      do {
        if let (text, file) = try repository.text(path) {
          let script = GradleScript.read(
            text: text, file: file, buildType: gradleBuildType, environment: EnvLayers([]),
            ext: [:], properties: [:])
          if let id = script.applicationId?.value {
            build.appId = Sourced(id, at: script.applicationId?.location)
          }
          build.hybrid?.targetSdk = targetSdk(text, file: file)
          for (index, line) in SourceText.codeLines(text) {
            if let range = line.range(
              of: #"versionName\s*=?\s*"([^"]+)""#, options: .regularExpression)
            {
              let value = line[range].split(separator: "\"").dropFirst().first.map(String.init)
              build.hybrid?.versionName = value.map { Sourced($0, at: location(file, index + 1)) }
              break
            }
          }
        }
      } catch {
        collect(error)
      }
    }
    readManifest(
      into: &build,
      placeholders: [
        "applicationId": ResolvedValue(
          value: build.appId.value, derivation: [], location: build.appId.location, unresolved: nil)
      ])
    readHybridManifest(into: &build)
    readGoogleServices(into: &build)
    let appLinks = build.hybrid?.linkFilters.first(where: \.autoVerify)
    build.hybrid?.code = readHybridAndroidCode(appLinks: appLinks)
  }

  /// The manifest's `POST_NOTIFICATIONS` and its App Links intent filters.
  private func readHybridManifest(into build: inout AppBuild) {
    let paths = profile.paths
    if let path = paths["android.manifest"], let (text, file) = try? repository.text(path),
      let root = try? XMLReader.parse(text: text, file: file)
    {
      let permission = root.children("uses-permission").first {
        $0.attributes["android:name"] == "android.permission.POST_NOTIFICATIONS"
      }
      build.hybrid?.declaresPostNotifications = Sourced(
        permission != nil, at: location(file, permission?.line ?? 0))
      for activity in root.children("application").first?.children("activity") ?? [] {
        let name = activity.attributes["android:name"] ?? "(unnamed)"
        for filter in activity.children("intent-filter") {
          let actions = filter.children("action").compactMap { $0.attributes["android:name"] }
          let categories = filter.children("category").compactMap {
            $0.attributes["android:name"]
          }
          let data = filter.children("data")
          let schemes = data.compactMap { $0.attributes["android:scheme"]?.lowercased() }
          guard actions.contains("android.intent.action.VIEW"),
            schemes.contains(where: { $0 == "http" || $0 == "https" })
          else { continue }
          var link = LinkIntentFilter(
            activity: name, autoVerify: filter.attributes["android:autoVerify"] == "true",
            schemes: schemes,
            hosts: data.compactMap { $0.attributes["android:host"]?.lowercased() },
            isBrowsable: categories.contains("android.intent.category.BROWSABLE")
              && categories.contains("android.intent.category.DEFAULT"),
            location: location(file, filter.line))
          link.paths = data.compactMap { $0.attributes["android:path"] }
          link.pathPrefixes = data.compactMap { $0.attributes["android:pathPrefix"] }
          link.pathPatterns = data.compactMap { $0.attributes["android:pathPattern"] }
          link.launchMode = Sourced(
            activity.attributes["android:launchMode"] ?? "standard",
            at: location(file, activity.line))
          build.hybrid?.linkFilters.append(link)
        }
      }
    }
  }

  /// `google-services.json`: the Firebase project and the packages it has clients for.
  private mutating func readGoogleServices(into build: inout AppBuild) {
    guard let services = readGoogleServicesJSON() else { return }
    if let project = services.project { build.hybrid?.firebaseProject = project }
    build.hybrid?.firebaseApps += services.packages
  }

  /// The Android container's Kotlin or Java: the bridge, the permission asked on page load
  /// and its answer, the token registration, taps, links and auto-cancel.
  private func readHybridAndroidCode(appLinks: LinkIntentFilter?) -> HybridShellCode {
    let sources = XcodeProject.join(profile.capacitorRoot, "android/app/src/main/java")
    let kotlin = CodeSearch(repository, under: sources, suffixes: [".kt", ".java"], quotes: ["\""])
    var code = HybridShellCode()
    if kotlin.files.isEmpty { code.unread = sources + "/**/*.{kt,java}" }
    code.bridgeName = kotlin.captures(#"addJavascriptInterface\([^"]*"([A-Za-z0-9_]+)"\)"#).first
    code.bridgeMethods = bridgeMethods(kotlin)
    code.bridgeClass =
      kotlin.captures(#"class\s+([A-Za-z0-9_]+)\s*\(private val context"#).first
      ?? kotlin.files.first { $0.lines.contains { $0.1.contains("@JavascriptInterface") } }.map {
        Sourced($0.file, at: FileLocation(file: $0.file, line: 0, column: 1))
      }
    code.asksPermissionOnPageLoad = kotlin.blockDoes(
      after: "fun onPageFinished(", ["Manifest.permission.POST_NOTIFICATIONS"],
      home: "WebViewClient")
    code.permissionEvent = kotlin.fact(
      [["evaluateJavascript", "onNativePermissionResult"]], home: "WebViewClient")
    code.registersToken = kotlin.fact([["/api/android-register"]], home: "onPageFinished")
    code.registrationForm = Self.registrationForm(
      kotlin, path: "/api/android-register", pairs: #""(\w+)"\s+to\s+(\w+)"#, fieldFirst: true,
      separator: #"joinToString\("&"\)\s*\{\s*\(\s*(\w+)\s*,\s*\w+\s*\)\s*->\s*"\$(\w+)([^"$]*)"#)
    code.opensTargetUrl = kotlin.fact(
      [["targetUrl", "onNewIntent", "loadUrl("]], home: "FirebaseMessagingService")
    code.opensLinks = kotlin.fact([["intent?.data", "loadUrl("], ["getData()", "loadUrl("]])
    if let filter = appLinks, let mode = filter.launchMode, !kotlin.isEmpty {
      let running = RunningLinkReader.android(kotlin, activity: filter.activity, launchMode: mode)
      code.linksKeepWebView = running.keepsWebView
      code.routesRunningLinks = running.routes
    }
    code.loadsLiveSite = Self.loadsLiveSite(
      kotlin, bundled: ["file:///android_asset", "loadDataWithBaseURL(", "WebViewAssetLoader"],
      live: "loadUrl(")
    // WebSettings turns JavaScript and DOM storage off unless the container turns them on:
    // `webView.settings.javaScriptEnabled = true`, inside `settings.apply { … }`, or Java's
    // `setJavaScriptEnabled(true)`. A value other than a literal is not judged.
    if let webView = kotlin.find(["findViewById<WebView>"]) ?? kotlin.find(["WebView("])
      ?? kotlin.find(["WebView"])
    {
      for (setting, keyPath) in [
        ("javaScriptEnabled", \HybridShellCode.enablesJavaScript),
        ("domStorageEnabled", \HybridShellCode.enablesDomStorage),
      ] {
        let setter = "set" + setting.prefix(1).uppercased() + setting.dropFirst()
        if let written = kotlin.captures(
          #"(?:\b"# + setting + #"\s*=\s*|\b"# + setter + #"\(\s*)([\w.]+)"#
        ).first {
          if ["true", "false"].contains(written.value) {
            code[keyPath: keyPath] = Sourced(written.value == "true", at: written.location)
          }
        } else {
          code[keyPath: keyPath] = Sourced(
            false, at: webView,
            derivation: ["\(setting) is not set: WebSettings' default is false"])
        }
      }
    }
    // NotificationCompat leaves a notification in the tray after its tap unless the builder
    // sets auto-cancel.
    if let written = kotlin.captures(#"\.setAutoCancel\(\s*(true|false)\s*\)"#).first {
      code.autoCancels = Sourced(written.value == "true", at: written.location)
    } else if let builder = kotlin.find(["NotificationCompat.Builder("]) {
      code.autoCancels = Sourced(
        false, at: builder,
        derivation: ["setAutoCancel is not called: NotificationCompat's default is false"])
    }
    return code
  }
}
