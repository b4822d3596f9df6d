import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

@testable import Artifacts

/// The association files judged as the OS judges them (seed 003, 5.3).
@Suite struct AssociationFilesTests {
  let appID = "8XK2M4QZ7P.com.appplatform.mobileApp"

  @Test func componentsDecideInOrderWithWildcardsAndExclusions() {
    let text = """
      {"applinks": {"details": [{"appIDs": ["\(appID)"], "components": [
        {"/": "/booking/admin/*", "exclude": true},
        {"/": "/booking/*"},
        {"/": "/m?/*", "caseSensitive": false}
      ]}]}}
      """
    #expect(AssociationFiles.appleOpens(text, appID: appID, path: "/booking/123"))
    #expect(!AssociationFiles.appleOpens(text, appID: appID, path: "/booking/admin/1"))
    #expect(AssociationFiles.appleOpens(text, appID: appID, path: "/MS/42"))
    #expect(!AssociationFiles.appleOpens(text, appID: appID, path: "/messages/42"))
    #expect(
      !AssociationFiles.appleOpens(
        text, appID: "OTHERTEAM1.com.appplatform.mobileApp", path: "/booking/1"))
  }

  @Test func theLegacyFormatReadsAppIDAndPathsWithNOT() {
    let text = """
      {"applinks": {"apps": [], "details": [
        {"appID": "\(appID)", "paths": ["NOT /booking/draft", "/booking/*"]}
      ]}}
      """
    #expect(AssociationFiles.appleOpens(text, appID: appID, path: "/booking/7"))
    #expect(!AssociationFiles.appleOpens(text, appID: appID, path: "/booking/draft"))
  }

  @Test func aWrongAppIDNamesTheFieldItsLineAndWhatItLists() throws {
    let text =
      "{\n  \"applinks\": {\n    \"details\": [\n      {\"appIDs\": [\"ZZ.com.x\"], \"components\": []}\n    ]\n  }\n}"
    let problem = try #require(
      AssociationFiles.appleProblems(text, appID: appID, paths: []).first)
    #expect(problem.field == "applinks.details[0].appIDs")
    #expect(problem.line == 4)
    #expect(problem.message.contains("ZZ.com.x") && problem.message.contains(appID))
    #expect(
      AssociationFiles.appleProblems("<html>", appID: appID, paths: []).first?.field == "(file)")
    #expect(
      AssociationFiles.appleProblems("{\"webcredentials\": {}}", appID: appID, paths: []).first?
        .field == "applinks")
  }

  @Test func assetLinksNeedThePackageTheRelationAndTheCertificate() {
    let fingerprint =
      "97:96:EE:C5:72:48:1C:1B:29:4D:34:4C:0D:80:70:40:0D:D2:2F:35:14:68:5B:6C:3E:F0:B3:A0:2A:7D:01:37"
    func statement(
      _ package: String, _ print: String, relation: String = AssociationFiles.handleAllURLs
    ) -> String {
      """
      [{"relation": ["\(relation)"], "target": {"namespace": "android_app",
        "package_name": "\(package)", "sha256_cert_fingerprints": ["\(print)"]}}]
      """
    }
    let package = "com.appplatform.mobileApp"
    #expect(
      AssociationFiles.androidProblems(
        statement(package, fingerprint), package: package, fingerprint: fingerprint
      ).isEmpty)
    // Digital Asset Links compares the documented spelling: another one is named as such.
    let spelled = AssociationFiles.androidProblems(
      statement(package, fingerprint.lowercased().replacingOccurrences(of: ":", with: "")),
      package: package, fingerprint: fingerprint)
    #expect(spelled.first?.message.contains("upper-case colon-separated") == true)
    // Any statement that grants the package with the certificate verifies it.
    let two = """
      [{"relation": ["delegate_permission/common.get_login_creds"], "target": {"namespace": "android_app",
        "package_name": "\(package)", "sha256_cert_fingerprints": ["\(fingerprint)"]}},
       {"relation": ["\(AssociationFiles.handleAllURLs)"], "target": {"namespace": "android_app",
        "package_name": "\(package)", "sha256_cert_fingerprints": ["\(fingerprint)"]}}]
      """
    #expect(
      AssociationFiles.androidProblems(two, package: package, fingerprint: fingerprint).isEmpty)
    let broken = AssociationFiles.androidProblems(
      "[{relation: 1}]", package: package, fingerprint: fingerprint)
    #expect(broken.first?.field == "(file)" && broken.first?.line == 1)
    #expect(broken.first?.message.hasPrefix("is not JSON: ") == true)
    let debug = AssociationFiles.localDebugFingerprint
    let wrongCertificate = AssociationFiles.androidProblems(
      statement(package, debug), package: package, fingerprint: fingerprint,
      debugFingerprint: debug)
    #expect(wrongCertificate.first?.field == "[0].target.sha256_cert_fingerprints")
    #expect(wrongCertificate.first?.message.contains("the debug certificate's") == true)
    #expect(
      AssociationFiles.androidProblems(
        statement(package + ".debug", fingerprint), package: package, fingerprint: fingerprint
      ).first?.field == "[].target.package_name")
    #expect(
      AssociationFiles.androidProblems(
        statement(package, fingerprint, relation: "delegate_permission/common.get_login_creds"),
        package: package, fingerprint: fingerprint
      ).first?.field == "[0].relation")
    #expect(
      AssociationFiles.androidProblems("{}", package: package, fingerprint: fingerprint).first?
        .field == "(file)")
  }

  @Test func aPEMCertificateFingerprintIsItsDERsSHA256() throws {
    let pem = try String(
      contentsOfFile: Fixtures.hybridApp + "/android/signing/release-certificate.pem",
      encoding: .utf8)
    // `openssl x509 -noout -fingerprint -sha256` on the same file.
    #expect(
      AssociationFiles.fingerprint(ofPEM: pem)
        == "97:96:EE:C5:72:48:1C:1B:29:4D:34:4C:0D:80:70:40:0D:D2:2F:35:14:68:5B:6C:3E:F0:B3:A0:2A:7D:01:37"
    )
    #expect(AssociationFiles.fingerprint(ofPEM: "no certificate") == nil)
  }

  @Test func androidPathPatternsAreDotAndStar() {
    #expect(AssociationFiles.androidPatternMatches("/booking/.*", "/booking/12"))
    #expect(AssociationFiles.androidPatternMatches("/a.c", "/abc"))
    #expect(!AssociationFiles.androidPatternMatches("/a.c", "/abcd"))
    #expect(AssociationFiles.androidPatternMatches("/x*y", "/xxxy"))
  }
}

/// The hybrid sample app read as its files say (seed 003's layout).
@Suite struct HybridShellReaderTests {
  func builds(_ app: String = Fixtures.hybridApp, _ channel: Channel = .prod) throws -> [Platform:
    AppBuild]
  {
    try AppRepository(directory: app).builds(for: channel)
  }

  /// Seed 003, 5.1: the token registration's fields as each side's code names them — the
  /// containers' writers and the controller's reader — and what the Kotlin join writes
  /// between a name and its value.
  @Test func theRegistrationFormIsReadOnBothSides() throws {
    let builds = try builds()
    for platform in [Platform.ios, .android] {
      let hybrid = try #require(builds[platform]?.hybrid)
      #expect(hybrid.code.registrationForm?.value == RegistrationForm())
      #expect(hybrid.backendCode.registrationForm?.value == RegistrationForm())
    }
    let kotlinPath = "android/app/src/main/java/com/appplatform/mobileApp/DeviceRegistration.kt"
    let phpPath =
      "backend/src/Infrastructure/Api/Front/Exposed/Misc/RegisterNotificationDeviceApi.php"
    let kotlin = try String(contentsOfFile: Fixtures.hybridApp + "/" + kotlinPath, encoding: .utf8)
    let php = try String(contentsOfFile: Fixtures.hybridApp + "/" + phpPath, encoding: .utf8)
    let directory = try Fixtures.temporaryApp("qualify-hybrid-form")
    defer { try? FileManager.default.removeItem(at: directory) }
    try Data(#"{"base": "\#(Fixtures.hybridApp)"}"#.utf8).write(
      to: directory.appendingPathComponent("qualify.json"))
    for (path, text) in [
      (kotlinPath, kotlin.replacingOccurrences(of: #""$k=" +"#, with: #""$k" +"#)),
      (phpPath, php.replacingOccurrences(of: "get('userToken')", with: "get('salt')")),
    ] {
      let url = directory.appendingPathComponent(path)
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text.utf8).write(to: url)
    }
    let android = try #require(
      try AppRepository(directory: directory.path).builds(for: .prod)[.android]?.hybrid)
    #expect(android.code.registrationForm?.value.separator == "")
    #expect(android.backendCode.registrationForm?.value.salt == "salt")
    #expect(
      android.code.registrationForm?.location?.file.hasSuffix("DeviceRegistration.kt") == true)
  }

  @Test func aFormNamingAValueTwiceOrNotAtAllIsNotRead() {
    #expect(
      RegistrationForm.named([("userId", "userId"), ("userToken", "userSalt")]) == nil)
    #expect(
      RegistrationForm.named([
        ("a", "userId"), ("b", "userSalt"), ("c", "appToken"), ("d", "otherToken"),
      ]) == nil)
    #expect(
      RegistrationForm.named([("a", "userId"), ("b", "userSalt"), ("c", "appToken")])
        == RegistrationForm(userId: "a", salt: "b", token: "c"))
  }

  /// FirebaseOptions: without its sender (or app id, API key, project) Messaging never asks
  /// for a token; the finding names the plist.
  @Test func aFirebaseConfigWithoutItsSenderGetsNoToken() throws {
    var ios = try #require(try builds()[.ios])
    #expect(ios.hybrid?.firebaseMissing == [])
    ios.hybrid?.firebaseMissing = ["GCM_SENDER_ID"]
    let finding = try #require(
      BuildGuards.findings(for: ios).first { $0.message.contains("no GCM_SENDER_ID") })
    #expect(finding.rule == "firebase-app")
    #expect(finding.location?.file.hasSuffix("GoogleService-Info.plist") == true)
  }

  @Test func theSampleReadsTheSiteTheLinksTheCertificateAndTheCode() throws {
    let builds = try builds()
    let ios = try #require(builds[.ios]?.hybrid)
    let android = try #require(builds[.android]?.hybrid)
    #expect(builds[.ios]?.shell == .hybridWebView)
    #expect(ios.teamId?.value == "8XK2M4QZ7P")
    #expect(ios.associatedDomains.map(\.value) == ["applinks:appplatform.example"])
    #expect(ios.firebaseProxyEnabled?.value == false)
    #expect(ios.code.bridgeName?.value == "notify")
    #expect(ios.code.apnsHandoff?.value == true)
    #expect(android.code.bridgeName?.value == "AndroidBridge")
    #expect(android.code.bridgeMethods == ["getAppVersion", "openNativeShare"])
    #expect(android.targetSdk?.value == 34)
    #expect(android.versionName?.value == "2.3.0")
    #expect(android.declaresPostNotifications?.value == true)
    let filter = try #require(android.linkFilters.first)
    #expect(filter.autoVerify && filter.isBrowsable)
    #expect(filter.takes(host: "appplatform.example", path: "/booking/1"))
    #expect(!filter.takes(host: "appplatform.example", path: "/aide"))
    #expect(android.signingCertificateSHA256?.value.hasPrefix("97:96:EE") == true)
    #expect(android.backendFirebaseProject?.value == "appplatform-1a2b3")
    #expect(android.backendCode.logoutDeletesToken?.value == true)
    #expect(android.backendCode.checksUserSalt?.value == true)
    for build in builds.values {
      #expect(BuildGuards.findings(for: build).filter { $0.severity == .error }.isEmpty)
    }
  }

  @Test func aDebugBuildIsSignedWithAnotherCertificate() throws {
    let dev = try #require(try builds(Fixtures.hybridApp, .dev)[.android]?.hybrid)
    #expect(dev.signingCertificateSHA256?.value == AssociationFiles.localDebugFingerprint)
    // The dev channel may ship without the site certifying its debug build.
    let build = try #require(try builds(Fixtures.hybridApp, .dev)[.android])
    let finding = try #require(BuildGuards.findings(for: build).first { $0.rule == "assetlinks" })
    #expect(finding.severity != .error)
  }

  @Test func aCodeRuleIsReadWhereTheCodeDoesIt() throws {
    // DeleteDeviceTask exists as a class; a LogoutEvent subscriber that does not call it is
    // not a logout that deletes the token.
    let build = try #require(
      try builds(Fixtures.regressionsDirectory + "/appplatform-logout-keeps-token")[.android])
    let fact = try #require(build.hybrid?.backendCode.logoutDeletesToken)
    #expect(fact.value == false)
    #expect(fact.location?.file.hasSuffix("LogoutSubscriber.php") == true)
  }

  @Test func aHybridAppWithoutItsSiteIsBadInputNamingTheKey() throws {
    let scratch = try Fixtures.temporaryDirectory("qualify-hybrid-profile")
    defer { try? FileManager.default.removeItem(at: scratch) }
    try Data(
      "{\"shell\": \"hybrid-webview\",\n \"hybrid\": {\"webOrigin\": \"http://x.example\"}}".utf8
    )
    .write(to: scratch.appendingPathComponent("qualify.json"))
    #expect {
      _ = try AppRepository(directory: scratch.path).builds(for: .prod)
    } throws: { error in
      let diagnostic = (error as? InputError)?.diagnostics.first
      return diagnostic?.location?.file.hasSuffix("qualify.json") == true
        && diagnostic?.location?.line == 2 && diagnostic?.message.contains("https origin") == true
    }
    try Data("{\"shell\": \"hybrid-webview\", \"hybrid\": {\"webOrgin\": \"https://x\"}}".utf8)
      .write(to: scratch.appendingPathComponent("qualify.json"))
    #expect {
      _ = try AppRepository(directory: scratch.path).builds(for: .prod)
    } throws: { error in
      (error as? InputError)?.diagnostics.contains { $0.hint == "did you mean \"webOrigin\"?" }
        == true
    }
  }

  /// A container whose sources are not where the reader looks (a moved folder, a profile that
  /// points elsewhere) was not read: its rules are unverified, never assumed to hold.
  @Test func aContainerWithoutSourcesIsUnverifiedNotPassed() throws {
    let scratch = try Fixtures.temporaryDirectory("qualify-hybrid-unread")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let copy = scratch.appendingPathComponent("app")
    try FileManager.default.copyItem(atPath: Fixtures.hybridApp, toPath: copy.path)
    let read = try #require(try builds(copy.path)[.android])
    #expect(read.hybrid?.code.unread == nil)
    #expect(!BuildGuards.findings(for: read).contains { $0.rule == "container-code" })
    try FileManager.default.removeItem(at: copy.appendingPathComponent("android/app/src/main/java"))
    let android = try #require(try builds(copy.path)[.android])
    #expect(android.hybrid?.code.unread == "android/app/src/main/java/**/*.{kt,java}")
    let finding = try #require(
      BuildGuards.findings(for: android).first { $0.rule == "container-code" })
    #expect(finding.severity == .unverified)
    #expect(finding.message.contains("its code was not read"))
  }

  /// A rule is what the code does where it does it: a task injected but not called, or a
  /// helper that asks for the permission but is not called when a page finishes, is absent.
  @Test func aCommentedOutCallIsNotTheRule() throws {
    let scratch = try Fixtures.temporaryDirectory("qualify-hybrid-code")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let copy = scratch.appendingPathComponent("app")
    try FileManager.default.copyItem(atPath: Fixtures.hybridApp, toPath: copy.path)
    func edit(_ path: String, _ old: String, _ new: String) throws {
      let url = copy.appendingPathComponent(path)
      let text = try String(contentsOf: url, encoding: .utf8)
      #expect(text.contains(old))
      try text.replacingOccurrences(of: old, with: new).write(
        to: url, atomically: true, encoding: .utf8)
    }
    try edit(
      "backend/src/Infrastructure/Security/LogoutSubscriber.php",
      "        ($this->deleteDeviceTask)(", "        // ($this->deleteDeviceTask)(")
    try edit(
      "android/app/src/main/java/com/appplatform/mobileApp/FirstFragment.kt",
      "                checkAndPromptNotificationPermission()",
      "                // checkAndPromptNotificationPermission()")
    let android = try #require(try builds(copy.path)[.android]?.hybrid)
    #expect(android.backendCode.logoutDeletesToken?.value == false)
    #expect(android.code.asksPermissionOnPageLoad?.value == false)
  }

  /// Seed 003: the containers load the live site, iOS shares natively, and each native act
  /// of the script message handler is reached only past a comparison of the action.
  @Test func theLiveSiteTheShareSheetAndEachActsGuardAreRead() throws {
    let sample = try builds()
    #expect(sample[.ios]?.hybrid?.code.loadsLiveSite?.value == true)
    #expect(sample[.android]?.hybrid?.code.loadsLiveSite?.value == true)
    #expect(sample[.ios]?.hybrid?.code.sharesNatively?.value == true)
    #expect(sample[.ios]?.hybrid?.code.validatesBridgeMessage?.value == true)
    let scratch = try Fixtures.temporaryDirectory("qualify-hybrid-live-site")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let copy = scratch.appendingPathComponent("app")
    try FileManager.default.copyItem(atPath: Fixtures.hybridApp, toPath: copy.path)
    func edit(_ path: String, _ old: String, _ new: String) throws {
      let url = copy.appendingPathComponent(path)
      let text = try String(contentsOf: url, encoding: .utf8)
      #expect(text.contains(old), "\(path): \(old)")
      try text.replacingOccurrences(of: old, with: new).write(
        to: url, atomically: true, encoding: .utf8)
    }
    try edit(
      "android/app/src/main/java/com/appplatform/mobileApp/FirstFragment.kt",
      "        webView.loadUrl(start)",
      "        webView.loadUrl(\"file:///android_asset/site/index.html\")")
    try edit(
      "ios/App/App/ScriptHandler.swift", "        guard action == \"request\" else { return }\n", ""
    )
    try edit(
      "ios/App/App/ScriptHandler.swift",
      "            let sheet = UIActivityViewController(activityItems: [text, url], applicationActivities: nil)\n            webView?.window?.rootViewController?.present(sheet, animated: true)\n",
      "            _ = (text, url)\n")
    let changed = try builds(copy.path)
    #expect(changed[.android]?.hybrid?.code.loadsLiveSite?.value == false)
    #expect(changed[.android]?.hybrid?.code.loadsLiveSite?.location?.line == 48)
    #expect(changed[.ios]?.hybrid?.code.sharesNatively?.value == false)
    let validation = changed[.ios]?.hybrid?.code.validatesBridgeMessage
    #expect(validation?.value == false)
    #expect(validation?.derivation.first?.contains("requestNotificationPermission") == true)
  }

  /// willPresent's options are read from the whole method: built per iOS version and handed
  /// over as a variable they show the push; a commented-out banner does not.
  @Test func theForegroundOptionsAreReadFromTheWholeHandler() throws {
    let scratch = try Fixtures.temporaryDirectory("qualify-hybrid-foreground")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let copy = scratch.appendingPathComponent("app")
    try FileManager.default.copyItem(atPath: Fixtures.hybridApp, toPath: copy.path)
    let delegate = copy.appendingPathComponent("ios/App/App/AppDelegate.swift")
    let original = try String(contentsOf: delegate, encoding: .utf8)
    let call = "        completionHandler([.banner, .sound, .badge])\n"
    #expect(original.contains(call))
    func presents(_ body: String) throws -> Bool? {
      try original.replacingOccurrences(of: call, with: body).write(
        to: delegate, atomically: true, encoding: .utf8)
      return try builds(copy.path)[.ios]?.hybrid?.code.presentsInForeground?.value
    }
    #expect(
      try presents(
        """
                var options: UNNotificationPresentationOptions = [.sound]
                if #available(iOS 14.0, *) {
                    options.insert(.banner)
                } else {
                    options.insert(.alert)
                }
                completionHandler(options)

        """) == true)
    #expect(try presents("        completionHandler([.sound]) // .banner later\n") == false)
    #expect(try presents("        completionHandler([.sound, .badge])\n") == false)
    // Another name for the handler, and the async form that returns the options.
    func presents(signature old: String, _ new: String, body: String) throws -> Bool? {
      #expect(original.contains(old))
      try original.replacingOccurrences(of: old, with: new).replacingOccurrences(
        of: call, with: body
      ).write(to: delegate, atomically: true, encoding: .utf8)
      return try builds(copy.path)[.ios]?.hybrid?.code.presentsInForeground?.value
    }
    let handler = "withCompletionHandler completionHandler: @escaping"
    #expect(
      try presents(
        signature: handler, "withCompletionHandler present: @escaping",
        body: "        present([.list, .sound])\n") == true)
    #expect(
      try presents(
        signature: handler, "withCompletionHandler present: @escaping",
        body: "        completionHandler([.banner])\n") == false)
    #expect(
      try presents(
        signature:
          "willPresent notification: UNNotification,\n        withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void\n    ) {",
        "willPresent notification: UNNotification\n    ) async -> UNNotificationPresentationOptions {",
        body: "        [.banner, .sound]\n") == true)
  }
}

/// The React Native bridge sample read as its monorepo lays it out (seed 001).
@Suite struct BridgeShellReaderTests {
  /// Seed 001's callback rules are read where the code writes them: the state the URL sends,
  /// and the callback's state and host compared, inline or through a local.
  @Test func theHandoffsStateAndCallbackChecksAreRead() throws {
    let sample = try #require(
      try AppRepository(directory: Fixtures.bridgeApp).builds(for: .prod)[.ios]?.bridge)
    #expect(sample.handoff.sendsState?.value == "state")
    #expect(sample.handoff.checksCallbackState != nil)
    #expect(sample.handoff.checksCallbackHost?.value == #"parsed.host !== "auth""#)
    let scratch = try Fixtures.temporaryDirectory("qualify-bridge-handoff")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let copy = scratch.appendingPathComponent("app")
    try FileManager.default.copyItem(atPath: Fixtures.bridgeApp, toPath: copy.path)
    let file = copy.appendingPathComponent("apps/mobile/src/auth/SystemAuthSession.ts")
    let original = try String(contentsOf: file, encoding: .utf8)
    func handoff(_ edits: [(String, String)]) throws -> HandoffClientCode? {
      var text = original
      for (old, new) in edits {
        #expect(text.contains(old), "\(old)")
        text = text.replacingOccurrences(of: old, with: new)
      }
      try text.write(to: file, atomically: true, encoding: .utf8)
      return try AppRepository(directory: copy.path).builds(for: .prod)[.ios]?.bridge?.handoff
    }
    let local = try #require(
      try handoff([
        (
          #"parsed.searchParams.get("state") !== state"#,
          #"returned !== state"#
        ),
        (
          #"const parsed = new URL(callback);"#,
          #"const parsed = new URL(callback); const returned = parsed.searchParams.get("state");"#
        ),
        (#"parsed.host !== "auth""#, #"parsed.host.toLowerCase() !== "auth""#),
      ]))
    #expect(local.checksCallbackState != nil)
    #expect(local.checksCallbackHost != nil)
    #expect(local.callbackCheck?.value == HandoffCallbackCheck(refusesRight: nil, accepts: []))
    #expect(sample.handoff.callbackCheck?.value.accepts == [])
    let reversed = try #require(
      try handoff([
        (
          #"parsed.searchParams.get("state") !== state"#,
          #"state !== parsed.searchParams.get("state")"#
        ),
        (
          #"parsed.protocol !== `${this.deps.scheme}:` || parsed.host !== "auth""#,
          #"!callback.startsWith(this.redirectUrl)"#
        ),
      ]))
    #expect(reversed.checksCallbackState != nil)
    #expect(reversed.checksCallbackHost != nil)
    // Run on wrong callbacks, the refusals show what they let through: a presence test lets
    // another attempt's state in, `&&` a wrong host, a flipped test refuses the right one.
    let presence = try #require(
      try handoff([
        (
          #"parsed.searchParams.get("state") !== state"#,
          #"parsed.searchParams.get("state") === null"#
        )
      ]))
    #expect(presence.checksCallbackState == nil)
    #expect(presence.callbackCheck?.value.accepts == ["state"])
    let joined = try #require(
      try handoff([(#" || parsed.host !== "auth""#, #" && parsed.host !== "auth""#)]))
    #expect(joined.callbackCheck?.value.accepts == ["host", "scheme"])
    let flipped = try #require(
      try handoff([(#"parsed.host !== "auth""#, #"parsed.host === "auth""#)]))
    #expect(flipped.callbackCheck?.value.refusesRight?.location?.line == 46)
    // A test qualify cannot run (a function of no module it reads) leaves the matched forms
    // to judge, and a state read but not compared in them is unverified, not failed.
    let opaque = try #require(
      try handoff([
        (
          #"parsed.searchParams.get("state") !== state"#,
          #"!sameAttempt(parsed.searchParams.get("state"))"#
        )
      ]))
    #expect(opaque.callbackCheck == nil)
    #expect(opaque.checksCallbackState == nil)
    #expect(opaque.readsCallbackState != nil)
    let build = try #require(try AppRepository(directory: copy.path).builds(for: .prod)[.ios])
    let findings = BuildGuards.findings(for: build).filter { $0.rule == "handoff-client" }
    #expect(findings.contains { $0.severity == .unverified })
    #expect(!findings.contains { $0.severity == .error })
    let unchecked = try #require(
      try handoff([
        (#"url.searchParams.set("state", state);"#, ""),
        (#" || parsed.searchParams.get("state") !== state"#, ""),
        (#" || parsed.host !== "auth""#, ""),
      ]))
    #expect(unchecked.sendsState == nil)
    #expect(unchecked.checksCallbackState == nil)
    #expect(unchecked.checksCallbackHost == nil)
    #expect(unchecked.readsCallbackState == nil)
    #expect(unchecked.readsCallbackHost == nil)
  }

  /// The callback checked in a method of its own, in the idioms OpenMapX's client uses
  /// (written here): the URL parsed in a `try`, the scheme and path normalised before they
  /// are compared, the state and code read into locals, the code held to a length and an
  /// alphabet — run on callbacks of the real shape, it refuses exactly the wrong ones.
  @Test func aCallbackCheckedInAMethodOfItsOwnIsRun() throws {
    let client = #"""
      const VERIFIER_BYTES = 32;
      export class BrowserSignIn {
        constructor(private readonly deps: { config: { scheme: string; webOrigin: string } }) {}
        get redirectUrl(): string {
          return `${this.deps.config.scheme}://auth/callback`;
        }
        async start(state: string) {
          const target = new URL("/mobile-auth", this.deps.config.webOrigin);
          target.searchParams.set("state", state);
          const returned = await openBrowser(target.toString(), this.redirectUrl);
          const accepted = this.accept(returned, state);
          if (!accepted) return { status: "failed" };
          return { status: "ok", callbackCode: accepted.code };
        }
        private accept(raw: string, wanted: string): { code: string } | null {
          let link: URL;
          try {
            link = new URL(raw);
          } catch {
            return null;
          }
          if (link.protocol.replace(/:$/, "").toLowerCase() !== this.deps.config.scheme) {
            return null;
          }
          if (link.host.toLowerCase() !== "auth") return null;
          if (link.pathname.replace(/\/+$/, "") !== "/callback") return null;
          const given = link.searchParams.get("state");
          const code = link.searchParams.get("code");
          if (!given || !code) return null;
          if (given !== wanted) return null;
          if (code.length < 16 || !/^[A-Za-z0-9_-]+$/.test(code)) return null;
          return { code };
        }
      }
      """#
    let scratch = try Fixtures.temporaryDirectory("qualify-bridge-callback")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let copy = scratch.appendingPathComponent("app")
    try FileManager.default.copyItem(atPath: Fixtures.bridgeApp, toPath: copy.path)
    let file = copy.appendingPathComponent("apps/mobile/src/auth/SystemAuthSession.ts")
    func check(_ text: String) throws -> HandoffCallbackCheck? {
      try text.write(to: file, atomically: true, encoding: .utf8)
      return try AppRepository(directory: copy.path).builds(for: .prod)[.ios]?.bridge?.handoff
        .callbackCheck?.value
    }
    #expect(try check(client) == HandoffCallbackCheck(refusesRight: nil, accepts: []))
    let noState = client.replacingOccurrences(of: "if (given !== wanted) return null;", with: "")
    #expect(try check(noState)?.accepts == ["state"])
    let flipped = client.replacingOccurrences(of: #"!== "auth""#, with: #"=== "auth""#)
    #expect(try check(flipped)?.refusesRight?.location?.line == 25)
  }

  @Test func theConfigModuleAndTheEnvMakeTheCompiledOriginIdAndScheme() throws {
    let prod = try #require(
      try AppRepository(directory: Fixtures.bridgeApp).builds(for: .prod)[.ios]?.bridge)
    #expect(prod.release.value)
    #expect(prod.webOrigin.value == "https://openmapx.com")
    #expect(prod.appId.value == "org.openmapx.app")
    #expect(prod.scheme.value == "openmapx")
    #expect(prod.releaseProtocol?.value == ProtocolRange(min: 3, max: 3))
    #expect(prod.protocolConstants?.value == ProtocolRange(min: 3, max: 3))
    #expect(prod.limits["MAX_MESSAGE_BYTES"]?.value == 8 * 1024 * 1024)
    #expect(prod.limits["MAX_TOTAL_COORDINATES"]?.value == 100_000)
    #expect(prod.unavailableCapabilities.count == 5)
    #expect(prod.dispatcherComposed?.value == false)
    #expect(prod.handoff.verifierBytes?.value == 32)
    #expect(prod.handoff.challengeMethod?.value == "S256")
    #expect(prod.handoffServer.ttlMilliseconds?.value == 120_000)
    #expect(prod.handoffServer.wrongVerifierBurns?.value == true)
    let dev = try #require(
      try AppRepository(directory: Fixtures.bridgeApp).builds(for: .dev)[.android]?.bridge)
    #expect(!dev.release.value)
    #expect(dev.scheme.value == "openmapx-dev")
    #expect(dev.appId.value == "org.openmapx.app.dev")
    #expect(dev.serverCallbackScheme == "openmapx-dev")
    for channel in [Channel.dev, .staging, .prod] {
      for build in try AppRepository(directory: Fixtures.bridgeApp).builds(for: channel).values {
        #expect(
          BuildGuards.findings(for: build).filter { $0.severity == .error }.isEmpty,
          "\(channel)")
      }
    }
  }

  @Test func publicHostsExcludeLoopbackPrivateRangesAndReservedNames() {
    for host in ["openmapx.com", "maps.example.org", "172.32.0.1"] {
      #expect(BuildGuards.isPublicHost(host), "\(host)")
    }
    for host in ["localhost", "10.0.2.2", "192.168.1.4", "172.20.0.1", "app.test", "x.example"] {
      #expect(!BuildGuards.isPublicHost(host), "\(host)")
    }
  }
}
