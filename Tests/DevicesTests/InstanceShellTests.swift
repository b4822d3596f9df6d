import Artifacts
import Foundation
import HTTP
import MockStack
import QualifyCore
import QualifyTestSupport
import Testing

@testable import Devices

/// The multi-instance shell (seed 004) against the world's instance sites, one decision at a
/// time.
@Suite(.serialized) struct InstanceShellTests {
  static let material = try? StackMaterial(hosts: InstanceServers.secureHosts, seed: 3)

  /// A shell of the sample on `platform`, its sites, and a cleanup.
  static func shell(
    _ platform: Platform, _ behaviours: ShellBehaviours = ShellBehaviours()
  ) throws -> (InstanceShell, InstanceServers) {
    let material = try #require(material)
    let build = try #require(
      try AppRepository(directory: Fixtures.instanceShellApp).builds(for: .prod)[platform])
    let servers = try InstanceServers(material: material)
    let environment = DeviceEnvironment(
      clock: VirtualClock(), random: RandomSource(seed: 1, label: "t"), evidence: EvidenceLog(),
      redactor: Redactor(), trustedCertificatesPEM: material.authority.certificatePEM,
      origins: servers.origins)
    let device = Device(name: "phone", platform: platform, environment: environment)
    return (
      try device.installInstanceShell(build, name: "sovereign", behaviours: behaviours), servers
    )
  }

  @Test(arguments: Platform.allCases)
  func deepLinksAreParsedFromTheStringWhateverTheCase(platform: Platform) throws {
    let (shell, servers) = try Self.shell(platform)
    defer { servers.stop() }
    #expect(
      shell.resolve("SOVEREIGN://Work.Example/plugins/console")! == (
        "work.example", "/plugins/console"
      ))
    #expect(shell.resolve("sovereign://home.example")! == ("home.example", "/"))
    #expect(shell.resolve("sovereign://home.example:8443/a?b#c")! == ("home.example:8443", "/a"))
    #expect(shell.resolve("https://work.example/") == nil)
    #expect(shell.resolve("sovereign:///path") == nil)
  }

  /// Chromium WebView leaves `URL.hostname` empty for `sovereign:`; WebKit does not.
  @Test func theURLAuthorityBugIsAndroidOnly() throws {
    var behaviours = ShellBehaviours()
    behaviours.deepLinkViaURLAuthority = true
    let (ios, iosServers) = try Self.shell(.ios, behaviours)
    defer { iosServers.stop() }
    #expect(ios.resolve("sovereign://work.example/x")?.host == "work.example")
    let (android, androidServers) = try Self.shell(.android, behaviours)
    defer { androidServers.stop() }
    #expect(android.resolve("sovereign://work.example/x") == nil)
  }

  @Test func onboardingAddsOnlyAnInstanceOverHTTPSAndStoresItInPreferences() throws {
    let (shell, servers) = try Self.shell(.android)
    defer { servers.stop() }
    shell.start()
    #expect(shell.screen == .onboarding(prefill: ""))
    shell.add("blog.example")
    #expect(shell.addRefusal?.contains("Could not reach a Sovereign instance") == true)
    // Onboarding respects an explicit http:// (the sample, like the real normaliser); the
    // release build's transport policy blocks the cleartext check.
    shell.add("http://plain.example")
    #expect(
      shell.addRefusal?.contains("Could not reach a Sovereign instance at http://plain.example")
        == true)
    #expect(shell.instances.isEmpty)
    shell.add("work.example")
    #expect(shell.addRefusal == nil)
    #expect(shell.currentRemote == "https://work.example")
    #expect(shell.preferences[InstanceShell.activeKey] == "https://work.example")
    #expect(shell.instances.map(\.label) == ["Work"])
    shell.evictWebViewData()
    shell.restartCold()
    #expect(shell.currentRemote == "https://work.example")
  }

  @Test func thePolicyKeepsTheActiveOriginAndSendsOthersOut() throws {
    let (shell, servers) = try Self.shell(.ios)
    defer { servers.stop() }
    shell.start()
    shell.add("work.example")
    shell.markStep()
    shell.followLink("/plugins/console")
    #expect(shell.currentRemote == "https://work.example/plugins/console")
    shell.followLink("https://docs.example/guide")
    #expect(shell.systemBrowserThisStep == ["https://docs.example/guide"])
    #expect(shell.currentRemote == "https://work.example/plugins/console")
    shell.followLink("https://home.example/")
    #expect(shell.systemBrowserThisStep.last == "https://home.example/")
  }

  @Test func backAfterAColdRelaunchReachesTheManagerOnBothPlatforms() throws {
    for platform in Platform.allCases {
      let (shell, servers) = try Self.shell(platform)
      defer { servers.stop() }
      shell.start()
      shell.add("work.example")
      shell.restartCold()
      #expect(shell.currentRemote == "https://work.example")
      shell.back()
      #expect(shell.screen == .onboarding(prefill: ""), "\(platform)")
    }
    var trusting = ShellBehaviours()
    trusting.trustsCanGoBack = true
    let (android, servers) = try Self.shell(.android, trusting)
    defer { servers.stop() }
    android.start()
    android.add("work.example")
    android.restartCold()
    android.back()
    #expect(android.screen == .closed)
  }
}
