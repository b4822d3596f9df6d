import Artifacts
import Foundation
import HTTP
import QualifyCore
import Testing

@testable import Scenarios

@Suite struct RunPlanTests {
  /// Issue 26: Apple's gateway takes HTTP/2 only, and the simulated one speaks HTTP/1.1; a run
  /// that sends iOS pushes says so rather than let the verdict imply the transport was proven.
  @Test func aRunThatSendsIOSPushesSaysTheGatewaySpokeHTTP1() throws {
    let builds = SampleRun.builds
    #expect(try #require(builds[.ios]).features.push.enabled)
    #expect(RunPlan.caveats(builds: builds, real: nil).contains(SingleOriginWorld.apnsTransport))
  }

  @Test func noIOSPushNoTransportCaveat() throws {
    var withoutPush = SampleRun.builds
    withoutPush[.ios]?.features.push.enabled = false
    #expect(
      !RunPlan.caveats(builds: withoutPush, real: nil).contains(SingleOriginWorld.apnsTransport))
    let androidOnly = SampleRun.builds.filter { $0.key == .android }
    #expect(
      !RunPlan.caveats(builds: androidOnly, real: nil).contains(SingleOriginWorld.apnsTransport))
  }

  @Test func theCertificateNamesTheHostsTheBuildsCall() throws {
    let build = try #require(SampleRun.builds[.ios])
    let hosts = RunPlan.secureHosts(shell: build.shell, builds: SampleRun.builds)
    let api = try #require(Origin(url: build.frontend.apiOrigin.value)?.host)
    #expect(hosts.contains(api))
  }
}
