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
    // Case and separators do not matter to Android.
    #expect(
      AssociationFiles.androidProblems(
        statement(package, fingerprint.lowercased()), package: package, fingerprint: fingerprint
      ).isEmpty)
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

  @Test func aCodeRuleNeedsItsMarkersInOneFile() throws {
    // DeleteDeviceTask exists as a class; a LogoutEvent subscriber that does not call it is
    // not a logout that deletes the token.
    let build = try #require(
      try builds(Fixtures.regressionsDirectory + "/appplatform-logout-keeps-token")[.android])
    let fact = try #require(build.hybrid?.backendCode.logoutDeletesToken)
    #expect(fact.value == false)
    #expect(fact.origin.hasSuffix("LogoutSubscriber.php"))
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
}
