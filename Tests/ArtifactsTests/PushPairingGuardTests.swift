import Artifacts
import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

/// The push-pairing guard on the sample app's builds, with one side of the pairing changed at
/// a time: each finding names the setting, its file and line, and the build's side.
@Suite struct PushPairingGuardTests {
  static func build(_ channel: Channel, _ platform: Platform) throws -> AppBuild {
    try #require(try AppRepository(directory: Fixtures.sampleApp).builds(for: channel)[platform])
  }

  static func findings(_ build: AppBuild) -> [Finding] {
    BuildGuards.findings(for: build).filter { $0.rule == "push-pairing" }
  }

  @Test(arguments: [Platform.ios, Platform.android])
  func theSampleAppIsPaired(platform: Platform) throws {
    #expect(Self.findings(try Self.build(.prod, platform)).isEmpty)
  }

  @Test func aStoreBuildAgainstTheSandboxNamesBothFiles() throws {
    var build = try Self.build(.prod, .ios)
    build.backend?.env.set("PUSH_APNS_USE_SANDBOX", "True")
    let finding = try #require(Self.findings(build).first)
    #expect(finding.severity == .error)
    #expect(finding.message.contains("PUSH_APNS_USE_SANDBOX=True"))
    #expect(finding.message.contains("App.entitlements:"))
    #expect(finding.message.contains("\"production\""))
  }

  /// A development-signed build pairs with the sandbox, and only with it.
  @Test func aDevelopmentSignedBuildPairsWithTheSandbox() throws {
    var build = try Self.build(.prod, .ios)
    let location = build.push.apsEnvironment?.location
    build.push.apsEnvironment = Sourced("development", at: location)
    #expect(Self.findings(build).count == 1)
    build.backend?.env.set("PUSH_APNS_USE_SANDBOX", "True")
    #expect(Self.findings(build).isEmpty)
  }

  @Test func aTopicOtherThanTheAppIdIsNamed() throws {
    var build = try Self.build(.prod, .ios)
    build.backend?.env.set("PUSH_APNS_BUNDLE_ID", "org.example.other")
    let finding = try #require(Self.findings(build).first)
    #expect(finding.value == "org.example.other")
    #expect(finding.message.contains(build.appId.value))
  }

  @Test func androidProjectClientAndPermissionAreEachNamed() throws {
    let paired = try Self.build(.prod, .android)
    var project = paired
    project.backend?.env.set("PUSH_FCM_PROJECT_ID", "messages-staging")
    let mismatch = try #require(Self.findings(project).first)
    #expect(mismatch.message.contains("google-services.json:"))
    #expect(mismatch.value == "messages-staging")

    var client = paired
    client.push.firebasePackages = []
    #expect(Self.findings(client).first?.message.contains("no client for the app id") == true)

    var permission = paired
    permission.push.postNotificationsPermission = Sourced(false, at: nil)
    #expect(Self.findings(permission).first?.value == "POST_NOTIFICATIONS")

    var missing = paired
    missing.push.firebaseProjectId = nil
    #expect(Self.findings(missing).first?.message.contains("no google-services.json") == true)
  }

  /// Push off in an app that does not declare it used: nothing to pair, nothing reported.
  /// Declared used, a release build is still checked (the feature is meant to be on).
  @Test func aBuildWithoutPushIsCheckedOnlyWhenTheAppDeclaresItUsed() throws {
    var build = try Self.build(.prod, .ios)
    build.backend?.env.set("PUSH_APNS_USE_SANDBOX", "True")
    build.features.push.enabled = false
    #expect(build.features.push.use == .used)
    #expect(Self.findings(build).count == 1)
    build.features.push.use = .auto
    #expect(Self.findings(build).isEmpty)
  }

  @Test func partlySetAPNsSecretsAndAForeignServiceAccountAreNamed() throws {
    var ios = try Self.build(.prod, .ios)
    ios.backend?.env.set("PUSH_APNS_KEY_ID", "ABC123DEFG")
    let partial = try #require(Self.findings(ios).first)
    #expect(
      partial.message.contains("PUSH_APNS_KEY_ID is set but not PUSH_APNS_KEY, PUSH_APNS_TEAM_ID"))

    var android = try Self.build(.prod, .android)
    android.backend?.env.set(
      "PUSH_FCM_CREDENTIALS",
      #"{"type":"service_account","client_email":"push@messages-staging.iam.gserviceaccount.com"}"#)
    let foreign = try #require(Self.findings(android).first)
    #expect(foreign.value == "messages-staging")
    #expect(foreign.message.contains("PERMISSION_DENIED"))
  }
}
