import Artifacts
import Foundation
import HTTP
import QualifyCore
import QualifyTestSupport
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

  static let catalogue: [Scenario] = {
    do { return try ScenarioCatalogue.load(directory: Fixtures.root + "/Scenarios") } catch {
      fatalError("\(error)")
    }
  }()

  static func ids(_ selection: RunPlan.Selection, shell: ShellKind = .singleOrigin) throws
    -> [String]
  {
    try RunPlan.scenarios(selection, from: catalogue, shell: shell, appTitle: "Messages").map(
      \.id)
  }

  @Test func shardsAreDisjointAndTogetherTheWholeSelection() throws {
    let whole = try Self.ids(.init(filters: ["sso/*", "logout/*"]))
    #expect(whole.count > 4)
    let shards = try (1...3).map {
      try Self.ids(.init(filters: ["sso/*", "logout/*"], shard: "\($0)/3"))
    }
    #expect(shards.map(\.count).reduce(0, +) == whole.count)
    #expect(Set(shards.joined()) == Set(whole))
    #expect(shards.allSatisfy { !$0.isEmpty })
  }

  @Test(arguments: ["0/3", "4/3", "1/0", "1", "a/b"])
  func aMalformedShardIsBadInput(_ shard: String) {
    #expect(throws: InputError.self) { try Self.ids(.init(shard: shard)) }
  }

  @Test func oneScenarioByIdOrGlobAndTagsNarrowTheCatalogue() throws {
    #expect(try Self.ids(.init(single: "sso/cross-app")) == ["sso/cross-app"])
    #expect(try Self.ids(.init(single: "sso/*")).allSatisfy { $0.hasPrefix("sso/") })
    let error = #expect(throws: InputError.self) { try Self.ids(.init(single: "sso/cross-ap")) }
    #expect(error?.hint?.contains("sso/cross-app") == true)
  }

  @Test func oneScenarioOfAnotherKindNamesBothKinds() throws {
    let error = #expect(throws: InputError.self) {
      try Self.ids(.init(single: "instances/back-to-manager"))
    }
    #expect(error?.message.contains("multi-instance") == true)
    #expect(error?.message.contains("single-origin") == true)
    // The filters may name every kind's scenarios: the runs keep the app's kind only.
    let all = try RunPlan.scenarios(
      .init(filters: ["*"]), from: Self.catalogue, shell: .singleOrigin, appTitle: "Messages")
    let runs = RunPlan.runs(all, platforms: Platform.allCases, channel: .prod, shell: .singleOrigin)
    #expect(runs.allSatisfy { $0.0.shell == .singleOrigin })
    #expect(!runs.isEmpty)
  }

  @Test func aSharedRealSystemRunsOneScenarioAtATime() {
    #expect(RunPlan.parallelism(requested: 4, single: false, real: nil) == 4)
    #expect(RunPlan.parallelism(requested: 4, single: true, real: nil) == 1)
  }
}
