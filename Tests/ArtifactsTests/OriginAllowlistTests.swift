import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

@testable import Artifacts

/// The handoff routes' Origin allowlist, built by the code from the server's env and evaluated
/// on the env the pipeline deploys: the web app's own page must be in it, or no handoff is
/// ever redeemed.
@Suite struct OriginAllowlistTests {
  let path = "apps/api/src/routes/mobileAuthRoutes.ts"

  /// A check in the real repository's shape: a function returns the list, from a comma-
  /// separated variable, else a single web origin, else a development default.
  static let realShape = """
    function allowedOrigins(): string[] {
      const configured = envString("MOBILE_AUTH_ALLOWED_ORIGINS", "");
      if (configured)
        return configured
          .split(",")
          .map((origin) => origin.trim())
          .filter(Boolean);
      const web = envString("WEB_ORIGIN", "http://localhost:3000");
      return [web];
    }

    function fromOwnPage(request: FastifyRequest): boolean {
      const origin = request.headers.origin;
      if (typeof origin !== "string" || origin === "") return false;
      return allowedOrigins().includes(origin);
    }
    """

  static func list(_ text: String, check: String = "fromOwnPage") throws -> OriginAllowlist {
    let function = try #require(
      ScriptStatements.functions(in: text).first { $0.name == check })
    let read = try #require(
      OriginAllowlistReader.read(
        check: function.body, local: "origin", in: text, file: "mobileAuthRoutes.ts"))
    return try read.get()
  }

  @Test func theRealShapeIsEvaluatedOnTheEnvInOrder() throws {
    let list = try Self.list(Self.realShape)
    #expect(list.variables == ["MOBILE_AUTH_ALLOWED_ORIGINS", "WEB_ORIGIN"])
    #expect(list.location.line == 1)
    // Nothing given: the development default alone.
    #expect(list.origins(env: nil) == ["http://localhost:3000"])
    #expect(list.origins(env: ["WEB_ORIGIN": "https://openmapx.com"]) == ["https://openmapx.com"])
    #expect(
      list.origins(env: [
        "MOBILE_AUTH_ALLOWED_ORIGINS": " https://openmapx.com, https://beta.openmapx.com ",
        "WEB_ORIGIN": "https://elsewhere.example",
      ]) == ["https://openmapx.com", "https://beta.openmapx.com"])
    // An empty list variable falls through to the next (`if (configured)`).
    #expect(
      list.origins(env: ["MOBILE_AUTH_ALLOWED_ORIGINS": "", "WEB_ORIGIN": "https://openmapx.com"])
        == ["https://openmapx.com"])
  }

  @Test func aConstantWithNullishFallbackKeepsAnEmptyValue() throws {
    let text = """
      const WEB_ORIGINS = (process.env.OPENMAPX_WEB_ORIGINS ?? "https://openmapx.com")
        .split(",")
        .map((entry) => entry.trim())
        .filter(Boolean);

      function fromOwnPage(request: FastifyRequest): boolean {
        const origin = request.headers.origin;
        return typeof origin === "string" && WEB_ORIGINS.includes(origin);
      }
      """
    let list = try Self.list(text)
    #expect(list.variables == ["OPENMAPX_WEB_ORIGINS"])
    #expect(list.origins(env: nil) == ["https://openmapx.com"])
    // `??` takes "" as given: the list is empty, not the fallback.
    #expect(list.origins(env: ["OPENMAPX_WEB_ORIGINS": ""]) == [])
    let loose = try Self.list(text.replacingOccurrences(of: "??", with: "||"))
    #expect(loose.origins(env: ["OPENMAPX_WEB_ORIGINS": ""]) == ["https://openmapx.com"])
    let written = try Self.list(
      text.replacingOccurrences(
        of: #"(process.env.OPENMAPX_WEB_ORIGINS ?? "https://openmapx.com")"#,
        with: #"["https://openmapx.com", "https://www.openmapx.com"].join(",")"#))
    #expect(written.variables.isEmpty)
    #expect(written.origins(env: nil) == ["https://openmapx.com", "https://www.openmapx.com"])
  }

  @Test func aListBuiltSomeOtherWayIsNamedNotGuessed() throws {
    let text = """
      function fromOwnPage(request: FastifyRequest): boolean {
        const origin = request.headers.origin;
        return typeof origin === "string" && settings.origins().includes(origin);
      }
      """
    let function = try #require(ScriptStatements.functions(in: text).first)
    let read = OriginAllowlistReader.read(
      check: function.body, local: "origin", in: text, file: "routes.ts")
    guard case .failure(let unread)? = read else {
      Issue.record("a list qualify cannot build was read: \(String(describing: read))")
      return
    }
    #expect(unread.name == "origins()")
  }

  private func build(routes: String, serverEnv: String?) throws -> AppBuild {
    let directory = try Fixtures.overlayApp(
      "qualify-allowlist", base: Fixtures.bridgeApp, files: [path: routes])
    defer { try? FileManager.default.removeItem(at: directory) }
    var extra = AppRepository.ExtraEnv()
    if let serverEnv {
      let file = directory.appendingPathComponent("api-prod.env")
      try Data(serverEnv.utf8).write(to: file)
      extra.backend = [file.path]
    }
    return try #require(
      try AppRepository(directory: directory.path).builds(for: .prod, extraEnv: extra)[.ios])
  }

  @Test func theDeployedListMustHoldThePagesOrigin() throws {
    let sample = try String(contentsOfFile: Fixtures.bridgeApp + "/" + path, encoding: .utf8)
    let start = try #require(sample.range(of: "const WEB_ORIGINS"))
    let end = try #require(sample.range(of: "export async function mobileAuthRoutes"))
    let real = sample.replacingCharacters(
      in: start.lowerBound..<end.lowerBound, with: Self.realShape + "\n")
    func findings(_ build: AppBuild) -> [Finding] {
      BuildGuards.findings(for: build).filter { $0.rule == "handoff-server" }
    }
    // Nothing given: the development default does not hold the page, and that is the
    // pipeline's env to supply, not the app's failure.
    let notGiven = try build(routes: real, serverEnv: nil)
    #expect(notGiven.bridge?.handoffServer.routes?.allowlistRefusesPage == nil)
    let unsupplied = findings(notGiven)
    #expect(unsupplied.map(\.value) == ["allowlist"])
    #expect(unsupplied.first?.isInputNotSupplied == true)
    // The deployed env lists the page: nothing to say.
    let listed = try build(
      routes: real, serverEnv: "MOBILE_AUTH_ALLOWED_ORIGINS=https://openmapx.com\n")
    #expect(findings(listed).isEmpty)
    #expect(listed.bridge?.handoffServer.routes?.allowlistHoldsPage?.value == true)
    // A trailing slash no Origin header carries: every redemption is refused.
    let slashed = try build(
      routes: real, serverEnv: "MOBILE_AUTH_ALLOWED_ORIGINS=https://openmapx.com/\n")
    let refused = findings(slashed)
    #expect(refused.map(\.value) == ["allowlist"])
    #expect(refused.first?.severity == .error)
    #expect(refused.first?.location?.file.hasSuffix("api-prod.env") == true)
    #expect(refused.first?.message.contains("https://openmapx.com/") == true)
    // WEB_ORIGIN alone, as a smaller deployment sets it, is read too.
    let web = try build(routes: real, serverEnv: "WEB_ORIGIN=https://openmapx.com\n")
    #expect(findings(web).isEmpty)
    // The bundled sample's fallback is the release origin: it qualifies with nothing given.
    let bundled = try build(routes: sample, serverEnv: nil)
    #expect(bundled.bridge?.handoffServer.routes?.allowlistHoldsPage?.value == true)
    #expect(findings(bundled).isEmpty)
  }
}
