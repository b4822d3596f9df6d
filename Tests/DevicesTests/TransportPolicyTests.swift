import Artifacts
import Devices
import QualifyCore
import QualifyTestSupport
import Testing

@Suite struct TransportPolicyTests {
  let builds = try? AppRepository(directory: Fixtures.sampleApp).builds(for: .prod)

  @Test func releaseIOSRefusesCleartextButNotHTTPS() throws {
    let build = try #require(builds?[.ios])
    let policy = TransportPolicy(build: build, behaviours: ShellBehaviours())
    #expect(policy.refusal(for: "https://messages.example/") == nil)
    #expect(
      policy.refusal(for: "http://messages.example/")?.contains("App Transport Security") == true)
    // ATS never applies to IP literals.
    #expect(policy.refusal(for: "http://192.168.1.20:8900/") == nil)
  }

  @Test func releaseAndroidRefusesCleartext() throws {
    let build = try #require(builds?[.android])
    let policy = TransportPolicy(build: build, behaviours: ShellBehaviours())
    #expect(policy.refusal(for: "http://messages.example/")?.contains("CLEARTEXT") == true)
    #expect(policy.refusal(for: "http://192.168.1.20/") != nil)
  }

  @Test func devBuildsReachTheLocalStack() throws {
    let dev = try AppRepository(directory: Fixtures.sampleApp).builds(for: .dev)
    for platform in Platform.allCases {
      let build = try #require(dev[platform])
      let policy = TransportPolicy(build: build, behaviours: ShellBehaviours())
      #expect(policy.refusal(for: "http://localhost:8901/") == nil, "\(platform)")
    }
    // Local networking is not arbitrary loads.
    let ios = try #require(dev[.ios])
    #expect(
      TransportPolicy(build: ios, behaviours: ShellBehaviours()).refusal(
        for: "http://messages.example/") != nil)
  }

  @Test func ignoringThePolicyLetsEverythingThrough() throws {
    let build = try #require(builds?[.ios])
    var behaviours = ShellBehaviours()
    behaviours.ignoresTransportPolicy = true
    #expect(
      TransportPolicy(build: build, behaviours: behaviours).refusal(for: "http://messages.example/")
        == nil)
  }
}
