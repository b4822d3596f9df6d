import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

@testable import Artifacts

/// The handoff routes' Origin check run as written on the server's env the pipeline deploys:
/// the web app's own page must get through, or no handoff is ever redeemed.
@Suite struct OriginAllowlistTests {
  let path = "apps/api/src/routes/mobileAuthRoutes.ts"
  static let page = "https://openmapx.com"

  /// A check in the real repository's shape: a function returns the list, from a comma-
  /// separated variable, else a single web origin, else a development default, through a
  /// helper of the workspace's core package.
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

  /// The workspace helper, written here in the shape such helpers take: a value that is only
  /// blanks falls back too.
  static let serverEnv = """
    export function envString(
      name: string,
      fallback: string,
      source: Record<string, string | undefined> = process.env,
    ): string {
      const raw = source[name];
      return raw != null && raw.trim() !== "" ? raw : fallback;
    }
    """

  static let corePackage = #"{ "name": "@openmapx/core", "private": true }"#

  static func admits(_ text: String, env: [String: String], origin: String = page) throws -> Bool? {
    let check = try ScriptFunction.read("fromOwnPage", in: text).get()
    return try? OriginAllowlistReader.admits(check, origin: origin, env: env).answer.get()
  }

  @Test func theSamplesConstantIsRunOnTheEnv() throws {
    let text = try String(contentsOfFile: Fixtures.bridgeApp + "/" + path, encoding: .utf8)
    #expect(try Self.admits(text, env: [:]) == true)
    #expect(
      try Self.admits(
        text, env: ["OPENMAPX_WEB_ORIGINS": " https://openmapx.com , https://b.example"]) == true)
    // Trimmed entries; a trailing slash no Origin header carries is another origin.
    #expect(try Self.admits(text, env: ["OPENMAPX_WEB_ORIGINS": "https://openmapx.com/"]) == false)
    // `??` takes "" as given: the list is empty.
    #expect(try Self.admits(text, env: ["OPENMAPX_WEB_ORIGINS": ""]) == false)
    let loose = text.replacingOccurrences(
      of: "OPENMAPX_WEB_ORIGINS ??", with: "OPENMAPX_WEB_ORIGINS ||")
    #expect(loose != text)
    #expect(try Self.admits(loose, env: ["OPENMAPX_WEB_ORIGINS": ""]) == true)
    // Without the trim, a blank after the comma is part of the origin, as in JavaScript.
    let untrimmed = text.replacingOccurrences(of: ".map((entry) => entry.trim())", with: "")
    #expect(untrimmed != text)
    #expect(
      try Self.admits(
        untrimmed, env: ["OPENMAPX_WEB_ORIGINS": "https://a.example, https://openmapx.com"])
        == false)
    // A list never split is one string: `includes` is then a substring test, and a prefix of
    // the page's origin gets through.
    let unsplit = text.replacingOccurrences(
      of: "\n  .split(\",\")\n  .map((entry) => entry.trim())\n  .filter(Boolean)", with: "")
    #expect(unsplit != text)
    #expect(try Self.admits(unsplit, env: [:]) == true)
    #expect(try Self.admits(unsplit, env: [:], origin: "https://openmapx.co") == true)
    #expect(try Self.admits(text, env: [:], origin: "https://openmapx.co") == false)
    let check = try ScriptFunction.read("fromOwnPage", in: text).get()
    #expect(
      OriginAllowlistReader.admits(check, origin: Self.page, env: [:]).read
        == ["OPENMAPX_WEB_ORIGINS"])
  }

  @Test func theRealShapeRunsThroughTheWorkspaceHelper() throws {
    let directory = try Fixtures.temporaryDirectory("qualify-allowlist-module")
    defer { try? FileManager.default.removeItem(at: directory) }
    let files = [
      "apps/api/src/routes/mobile-auth.ts":
        "import { envString } from \"@openmapx/core/server-env\";\n" + Self.realShape,
      "packages/core/src/server-env.ts": Self.serverEnv,
      "packages/core/package.json": Self.corePackage,
    ]
    for (name, text) in files {
      let url = directory.appendingPathComponent(name)
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text.utf8).write(to: url)
    }
    let root = directory.path
    let check = try ScriptFunction.read(
      name: "fromOwnPage", at: "apps/api/src/routes/mobile-auth.ts"
    ) {
      try? String(contentsOfFile: root + "/" + $0, encoding: .utf8)
    }.get()
    func admits(_ env: [String: String]) -> Bool? {
      try? OriginAllowlistReader.admits(check, origin: Self.page, env: env).answer.get()
    }
    // Nothing given: the development default alone.
    #expect(admits([:]) == false)
    #expect(admits(["WEB_ORIGIN": Self.page]) == true)
    #expect(admits(["MOBILE_AUTH_ALLOWED_ORIGINS": "https://a.example, \(Self.page)"]) == true)
    // An empty or blank list variable falls through to WEB_ORIGIN (`if (configured)`).
    #expect(admits(["MOBILE_AUTH_ALLOWED_ORIGINS": "  ", "WEB_ORIGIN": Self.page]) == true)
    #expect(
      admits(["MOBILE_AUTH_ALLOWED_ORIGINS": "\(Self.page)/", "WEB_ORIGIN": Self.page]) == false)
    // What the answer depended on, read through the helper's parameter default.
    #expect(
      OriginAllowlistReader.admits(check, origin: Self.page, env: [:]).read
        == ["MOBILE_AUTH_ALLOWED_ORIGINS", "WEB_ORIGIN"])
    #expect(OriginAllowlistReader.cutShort("http://10.0.2.2:3000") == "http://10.0.2.:3000")
    #expect(OriginAllowlistReader.cutShort(Self.page) == "https://openmapx.co")
    // The helper out of reach: not run, and said so.
    let alone = try ScriptFunction.read("fromOwnPage", in: Self.realShape).get()
    guard
      case .failure(let unread) = OriginAllowlistReader.admits(alone, origin: Self.page, env: [:])
        .answer
    else {
      Issue.record("a check whose helper is out of reach was run")
      return
    }
    #expect(unread.why.contains("envString"))
  }

  private func build(routes: String, extra: [String: String] = [:], serverEnv: String?) throws
    -> AppBuild
  {
    let directory = try Fixtures.overlayApp(
      "qualify-allowlist", base: Fixtures.bridgeApp, files: extra.merging([path: routes]) { $1 })
    defer { try? FileManager.default.removeItem(at: directory) }
    var env = AppRepository.ExtraEnv()
    if let serverEnv {
      let file = directory.appendingPathComponent("api-prod.env")
      try Data(serverEnv.utf8).write(to: file)
      env.backend = [file.path]
    }
    return try #require(
      try AppRepository(directory: directory.path).builds(for: .prod, extraEnv: env)[.ios])
  }

  @Test func theDeployedCheckMustLetThePageThrough() throws {
    let sample = try String(contentsOfFile: Fixtures.bridgeApp + "/" + path, encoding: .utf8)
    let start = try #require(sample.range(of: "const WEB_ORIGINS"))
    let end = try #require(sample.range(of: "export async function mobileAuthRoutes"))
    let real =
      "import { envString } from \"@openmapx/core/server-env\";\n"
      + sample.replacingCharacters(
        in: start.lowerBound..<end.lowerBound, with: Self.realShape + "\n")
    let helper = [
      "packages/core/src/server-env.ts": Self.serverEnv,
      "packages/core/package.json": Self.corePackage,
    ]
    func findings(_ build: AppBuild) -> [Finding] {
      BuildGuards.findings(for: build).filter { $0.rule == "handoff-server" }
    }
    // Nothing given: the development default refuses the page, and that is the pipeline's
    // env to supply, not the app's failure.
    let notGiven = try build(routes: real, extra: helper, serverEnv: nil)
    #expect(notGiven.bridge?.handoffServer.routes?.allowlistRefusesPage == nil)
    let unsupplied = findings(notGiven)
    #expect(unsupplied.map(\.value) == ["allowlist"])
    #expect(unsupplied.first?.isInputNotSupplied == true)
    // The deployed env lists the page: nothing to say.
    let listed = try build(
      routes: real, extra: helper, serverEnv: "MOBILE_AUTH_ALLOWED_ORIGINS=https://openmapx.com\n")
    #expect(findings(listed).isEmpty)
    #expect(listed.bridge?.handoffServer.routes?.allowlistHoldsPage?.value == true)
    // A trailing slash no Origin header carries: every redemption is refused, named at the
    // variable that set the list.
    let slashed = try build(
      routes: real, extra: helper,
      serverEnv: "PORT=3001\nMOBILE_AUTH_ALLOWED_ORIGINS=https://openmapx.com/\n")
    let refused = findings(slashed)
    #expect(refused.map(\.value) == ["allowlist"])
    #expect(refused.first?.severity == .error)
    #expect(refused.first?.location?.file.hasSuffix("api-prod.env") == true)
    #expect(refused.first?.location?.line == 2)
    #expect(refused.first?.message.contains("https://openmapx.com/") == true)
    // WEB_ORIGIN alone, as a smaller deployment sets it, is read too.
    let web = try build(routes: real, extra: helper, serverEnv: "WEB_ORIGIN=https://openmapx.com\n")
    #expect(findings(web).isEmpty)
    // The helper out of reach: the check is not run, and the finding says so.
    let unreachable = findings(
      try build(routes: real, serverEnv: "WEB_ORIGIN=https://openmapx.com\n"))
    #expect(unreachable.map(\.severity) == [.unverified])
    #expect(unreachable.first?.message.contains("envString") == true)
    // The bundled sample's fallback is the release origin: it qualifies with nothing given,
    // and on a development channel nothing is asked of an env no one gave.
    let bundled = try build(routes: sample, serverEnv: nil)
    #expect(bundled.bridge?.handoffServer.routes?.allowlistHoldsPage?.value == true)
    #expect(findings(bundled).isEmpty)
  }

  /// A request without an Origin is a script's, not the page's: the check run as written must
  /// refuse it whatever the list holds — a default that stands in for a missing header lets it
  /// through.
  @Test func aCheckThatLetsARequestWithoutAnOriginThroughIsAnError() throws {
    let sample = try String(contentsOfFile: Fixtures.bridgeApp + "/" + path, encoding: .utf8)
    let check = try ScriptFunction.read("fromOwnPage", in: sample).get()
    #expect(
      try OriginAllowlistReader.admits(check, origin: nil, env: [:]).answer.get() == false)
    #expect(
      try build(routes: sample, serverEnv: nil).bridge?.handoffServer.routes?
        .allowlistAdmitsMissing == nil)
    let defaulted = sample.replacingOccurrences(
      of: "const origin = request.headers.origin;",
      with: "const origin = request.headers.origin ?? WEB_ORIGINS[0];")
    #expect(defaulted != sample)
    let lenient = try ScriptFunction.read("fromOwnPage", in: defaulted).get()
    #expect(
      try OriginAllowlistReader.admits(lenient, origin: nil, env: [:]).answer.get() == true)
    // A request that sends no Origin still has the API's Host: a check that stands the Host
    // in for the Origin lets it through too.
    let hosted = sample.replacingOccurrences(
      of: "const origin = request.headers.origin;",
      with: "const origin = request.headers.origin ?? `https://${request.headers.host}`;")
    #expect(
      try build(routes: hosted, serverEnv: nil).bridge?.handoffServer.routes?
        .allowlistAdmitsMissing?.value == true)
    let build = try build(routes: defaulted, serverEnv: nil)
    let admitted = try #require(build.bridge?.handoffServer.routes?.allowlistAdmitsMissing)
    #expect(admitted.location?.file.hasSuffix(path) == true)
    let finding = try #require(
      BuildGuards.findings(for: build).first {
        $0.rule == "handoff-server" && $0.value == "no Origin"
      })
    #expect(finding.severity == .error)
    #expect(finding.message.contains("without an Origin"))
  }
}
