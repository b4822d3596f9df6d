import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

@testable import Artifacts

/// The handoff routes' Origin check, evaluated both ways: a request without an Origin must be
/// refused, and the web app's own page (an Origin its list holds) let through.
@Suite struct HandoffOriginCheckTests {
  let path = "/apps/api/src/routes/mobileAuthRoutes.ts"

  func body(_ returned: String) -> String {
    "const origin = request.headers.origin;\n  return \(returned);"
  }

  @Test func theSamplesCheckAdmitsItsOwnPage() throws {
    let build = try #require(
      try AppRepository(directory: Fixtures.bridgeApp).builds(for: .prod)[.ios])
    let admits = try #require(build.bridge?.handoffServer.routes?.admitsOwnPage)
    #expect(admits.value == true)
    #expect(admits.location?.file.hasSuffix("mobileAuthRoutes.ts") == true)
  }

  @Test func eachWayIsEvaluatedAsWritten() {
    let written = body("typeof origin === \"string\" && WEB_ORIGINS.includes(origin)")
    #expect(HandoffRoutesReader.admitsOwnPage(written) == true)
    #expect(HandoffRoutesReader.refusesMissingOrigin(written) == true)
    // A type misspelt: the test is false for every Origin, the page's own included.
    let misspelt = body("typeof origin === \"strin\" && WEB_ORIGINS.includes(origin)")
    #expect(HandoffRoutesReader.admitsOwnPage(misspelt) == false)
    #expect(HandoffRoutesReader.refusesMissingOrigin(misspelt) == true)
    #expect(HandoffRoutesReader.refusesUnlistedOrigin(written) == true)
    // The lookup's negation lost: the page refused, every other site let through.
    let negated = body("typeof origin === \"string\" && !WEB_ORIGINS.includes(origin)")
    #expect(HandoffRoutesReader.admitsOwnPage(negated) == false)
    #expect(HandoffRoutesReader.refusesUnlistedOrigin(negated) == false)
    // A denylist beside the allowlist: which list holds an Origin is not known.
    let twoLists =
      "const origin = request.headers.origin;\n  if (BLOCKED.has(origin)) return false;\n  return ALLOWED.has(origin);"
    #expect(HandoffRoutesReader.admitsOwnPage(twoLists) == nil)
    #expect(HandoffRoutesReader.refusesMissingOrigin(twoLists) == true)
    // An early return of the same decision.
    let early =
      "const origin = request.headers.origin;\n  if (!origin) return false;\n  return ALLOWED.has(origin);"
    #expect(HandoffRoutesReader.admitsOwnPage(early) == true)
    #expect(HandoffRoutesReader.refusesMissingOrigin(early) == true)
    // The list a function returns, refusing a missing or empty Origin first.
    let computed = """
      const origin = request.headers.origin;
        if (typeof origin !== "string" || origin === "") return false;
        return configuredOrigins().includes(origin);
      """
    #expect(HandoffRoutesReader.admitsOwnPage(computed) == true)
    #expect(HandoffRoutesReader.refusesMissingOrigin(computed) == true)
    #expect(HandoffRoutesReader.refusesUnlistedOrigin(computed) == true)
    let computedMisspelt = computed.replacingOccurrences(of: "\"string\"", with: "\"strin\"")
    #expect(HandoffRoutesReader.admitsOwnPage(computedMisspelt) == false)
    // A comparison with a value qualify does not know is not judged.
    #expect(HandoffRoutesReader.admitsOwnPage(body("origin === webOrigin()")) == nil)
  }

  @Test func aCheckThatRefusesItsOwnPageIsAFinding() throws {
    let routes = try String(contentsOfFile: Fixtures.bridgeApp + path, encoding: .utf8)
    let broken = routes.replacingOccurrences(
      of: "typeof origin === \"string\"", with: "typeof origin === \"strin\"")
    #expect(broken != routes)
    let directory = try Fixtures.overlayApp(
      "qualify-handoff-origin", base: Fixtures.bridgeApp, files: [String(path.dropFirst()): broken])
    defer { try? FileManager.default.removeItem(at: directory) }
    let build = try #require(try AppRepository(directory: directory.path).builds(for: .prod)[.ios])
    #expect(build.bridge?.handoffServer.routes?.admitsOwnPage?.value == false)
    let hits = BuildGuards.findings(for: build).filter { $0.rule == "handoff-server" }
    #expect(hits.map(\.value) == ["own page"])
    #expect(hits.first?.location?.file.hasSuffix(path) == true)
  }

  @Test func aCheckOverTwoListsIsUnverifiedNotPassed() throws {
    let routes = try String(contentsOfFile: Fixtures.bridgeApp + path, encoding: .utf8)
    let twoLists = routes.replacingOccurrences(
      of: "return typeof origin === \"string\" && WEB_ORIGINS.includes(origin);",
      with:
        "if (BLOCKED_ORIGINS.has(origin)) return false;\n  return typeof origin === \"string\" && WEB_ORIGINS.includes(origin);"
    )
    #expect(twoLists != routes)
    let directory = try Fixtures.overlayApp(
      "qualify-handoff-two-lists", base: Fixtures.bridgeApp,
      files: [String(path.dropFirst()): twoLists])
    defer { try? FileManager.default.removeItem(at: directory) }
    let build = try #require(try AppRepository(directory: directory.path).builds(for: .prod)[.ios])
    let routesCode = try #require(build.bridge?.handoffServer.routes)
    #expect(routesCode.checksOrigin?.value == true)
    #expect(routesCode.admitsOwnPage == nil)
    let hits = BuildGuards.findings(for: build).filter { $0.rule == "handoff-server" }
    #expect(hits.map(\.value) == ["Origin check"])
    #expect(hits.first?.severity == .unverified)
    #expect(hits.first?.message.contains("more than one list") == true)
    #expect(hits.first?.location?.file.hasSuffix(path) == true)
    // The sample's own check, over one list, is evaluated in full.
    let sample = try #require(
      try AppRepository(directory: Fixtures.bridgeApp).builds(for: .prod)[.ios])
    #expect(sample.bridge?.handoffServer.routes?.originCheckUnread == nil)
  }
}
