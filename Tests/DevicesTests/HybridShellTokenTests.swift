import Artifacts
import Foundation
import HTTP
import QualifyCore
import QualifyTestSupport
import Testing

@testable import Devices

/// The hybrid containers take a push token by the platform's own rules, the same
/// `PushRegistrationStateMachine` every shell has: Apple signs no APNs token for a build
/// without aps-environment, FCM on Android has none without Google Play services. Both end
/// before any request, so no server is needed.
@Suite struct HybridShellTokenTests {
  static func shell(
    _ platform: Platform, playServices: Bool = true, edit: (inout AppBuild) -> Void = { _ in }
  )
    throws -> HybridShell
  {
    var build = try #require(
      try AppRepository(directory: Fixtures.hybridApp).builds(for: .prod)[platform])
    edit(&build)
    let environment = DeviceEnvironment(
      clock: VirtualClock(), random: RandomSource(seed: 1, label: "t"), evidence: EvidenceLog(),
      redactor: Redactor(), trustedCertificatesPEM: "", origins: [:])
    let device = Device(
      name: "phone", platform: platform, hasPlayServices: playServices, environment: environment)
    return try device.installHybridShell(build, name: "appplatform")
  }

  @Test func anIOSBuildSignedWithoutEntitlementsGetsNoToken() throws {
    let shell = try Self.shell(.ios) {
      $0.hybrid?.entitlementsFile = nil
      $0.hybrid?.apsEnvironment = nil
    }
    shell.obtainToken()
    #expect(shell.fcmToken == nil)
    #expect(shell.tokenProblem?.contains("sets no CODE_SIGN_ENTITLEMENTS") == true)
  }

  @Test func anIOSEntitlementsFileWithoutApsEnvironmentGetsNoToken() throws {
    let shell = try Self.shell(.ios) { $0.hybrid?.apsEnvironment = nil }
    shell.obtainToken()
    #expect(shell.fcmToken == nil)
    #expect(shell.tokenProblem?.contains("have no aps-environment") == true)
  }

  @Test func anAndroidPhoneWithoutPlayServicesGetsNoToken() throws {
    let shell = try Self.shell(.android, playServices: false)
    shell.obtainToken()
    #expect(shell.fcmToken == nil)
    #expect(shell.tokenProblem?.contains("SERVICE_NOT_AVAILABLE") == true)
  }

  @Test func anAndroidConfigOfAnotherPackageNamesTheFileAndThePackages() throws {
    let shell = try Self.shell(.android) {
      $0.hybrid?.firebaseApps = [Sourced("org.example.other", at: nil)]
    }
    shell.obtainToken()
    #expect(shell.fcmToken == nil)
    #expect(shell.tokenProblem?.contains("registers org.example.other, not") == true)
  }
}
