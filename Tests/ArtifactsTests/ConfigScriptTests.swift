import Artifacts
import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

/// `capacitor.config.ts` evaluated as `cap sync` runs it (issue 26: the real Messages
/// repository gitignores the synced file, so what a release ships is what its script computes
/// with the release env).
@Suite struct ConfigScriptTests {
  let script: String
  let file = "src/frontend/capacitor.config.ts"

  init() throws {
    script = try String(
      contentsOfFile: Fixtures.file("capacitor-script/capacitor.config.ts"), encoding: .utf8)
  }

  private func evaluate(_ env: [String: String]) throws -> ConfigScript.Result {
    try evaluate(script, env)
  }

  private func evaluate(_ text: String, _ env: [String: String]) throws -> ConfigScript.Result {
    try ConfigScript.evaluate(text: text, file: file) { env[$0] }
  }

  private func line(of marker: String, in text: String? = nil) -> Int {
    let lines = (text ?? script).components(separatedBy: "\n")
    return (lines.firstIndex { $0.contains(marker) } ?? -1) + 1
  }

  @Test func aReleaseEnvBakesNoDevServerAndTheDecodedKey() throws {
    let pem = "-----BEGIN RSA PUBLIC KEY-----\nMIIBCgKCAQEAx\n-----END RSA PUBLIC KEY-----\n"
    let result = try evaluate([
      "MOBILE_APP_ID": "fr.gouv.messages", "MOBILE_DEV_SERVER_URL": "",
      "MOBILE_ALLOW_CLEARTEXT_FOR_DEV": "", "MOBILE_OTA_BUILD_ID": "3f9c2a1b",
      "MOBILE_OTA_SIGNING_PUBLIC_KEY_B64": Data(pem.utf8).base64EncodedString(),
    ])
    #expect(result.failure == nil)
    #expect(result.config.at("appId")?.string == "fr.gouv.messages")
    #expect(result.config.at("server.url") == nil)
    #expect(result.config.at("server.cleartext")?.bool == false)
    #expect(result.config.at("plugins.CapacitorUpdater.publicKey")?.string == pem)
    #expect(result.config.at("plugins.CapacitorUpdater.version")?.string == "3f9c2a1b")
    #expect(result.config.at("plugins.CapacitorUpdater.autoUpdate")?.bool == false)
    #expect(result.config.at("appVersion")?.string == "2.4.0")
    #expect(
      result.config.at("plugins.PushNotifications.presentationOptions")?.array?.first?.string
        == "badge")
    // Each key at the line that writes it, as in the synced file a finding points into.
    #expect(
      result.config.line(at: "plugins.CapacitorUpdater.autoUpdate") == line(of: "autoUpdate: false")
    )
    #expect(result.reads["appId"] == ["MOBILE_APP_ID"])
  }

  /// A release env that inherits the dev defaults bakes the dev server, and the derivation
  /// says which variable did it.
  @Test func theDevDefaultsBakeTheDevServerAndCleartext() throws {
    let result = try evaluate(["MOBILE_DEV_SERVER_URL": "http://localhost:8900"])
    #expect(result.config.at("server.url")?.string == "http://localhost:8900")
    #expect(result.config.at("server.cleartext")?.bool == true)
    #expect(result.reads["server.url"] == ["MOBILE_DEV_SERVER_URL"])
    #expect(result.reads["server.cleartext"]?.first == "MOBILE_DEV_SERVER_URL")
    let cleartextOnly = try evaluate(["MOBILE_ALLOW_CLEARTEXT_FOR_DEV": "1"])
    #expect(cleartextOnly.config.at("server.url") == nil)
    #expect(cleartextOnly.config.at("server.cleartext")?.bool == true)
    #expect(
      cleartextOnly.reads["server.cleartext"] == [
        "MOBILE_DEV_SERVER_URL", "MOBILE_ALLOW_CLEARTEXT_FOR_DEV",
      ])
  }

  /// `||` falls back on an empty value as on an unset one (the env files ship keys empty);
  /// `??` only on an unset one.
  @Test func emptyValuesFallBackUnderOrButNotUnderNullish() throws {
    let or = try evaluate(["MOBILE_APP_ID": ""])
    #expect(or.config.at("appId")?.string == "local.suitenumerique.messages")
    let nullish = try evaluate(
      script.replacingOccurrences(
        of: "process.env.MOBILE_APP_ID ||", with: "process.env.MOBILE_APP_ID ??"),
      ["MOBILE_APP_ID": ""])
    #expect(nullish.config.at("appId")?.string == "")
  }

  /// The sync-time guard: with the manifest URL and no key, `cap sync` throws, and the
  /// evaluation says so at the throw's line. With the key, it does not.
  @Test func aGuardThatThrowsIsTheSyncFailureAtItsLine() throws {
    let refused = try evaluate(["NEXT_PUBLIC_MOBILE_OTA_MANIFEST_URL": "https://ota.example/m.json"]
    )
    let failure = try #require(refused.failure)
    #expect(failure.line == line(of: "throw new Error("))
    #expect(
      failure.message
        == "NEXT_PUBLIC_MOBILE_OTA_MANIFEST_URL is set but MOBILE_OTA_SIGNING_PUBLIC_KEY_B64 is not: refusing to sync"
    )
    let keyed = try evaluate([
      "NEXT_PUBLIC_MOBILE_OTA_MANIFEST_URL": "https://ota.example/m.json",
      "MOBILE_OTA_SIGNING_PUBLIC_KEY_B64": Data("k".utf8).base64EncodedString(),
    ])
    #expect(keyed.failure == nil)
  }

  /// What the subset cannot evaluate is an error at its line where the build reaches it, and
  /// nothing in a branch the env does not take.
  @Test func whatCannotBeEvaluatedIsAnErrorOnlyWhereTheBuildReachesIt() throws {
    let computed = """
      const config = {
        appId: process.env.MOBILE_APP_ID || readFileSync("id.txt", "utf8"),
      };
      export default config;
      """
    #expect(throws: Diagnostic.self) { try evaluate(computed, [:]) }
    do {
      _ = try evaluate(computed, [:])
    } catch let diagnostic as Diagnostic {
      #expect(diagnostic.location?.line == 2)
      #expect(diagnostic.message.contains("readFileSync"))
    }
    let taken = try evaluate(computed, ["MOBILE_APP_ID": "fr.gouv.messages"])
    #expect(taken.config.at("appId")?.string == "fr.gouv.messages")
    #expect(throws: Diagnostic.self) { try evaluate("const x = { a: 1 };", [:]) }
  }

  @Test func templatesExportFormsAndTypeScriptSyntax() throws {
    let text = """
      // a comment with export default { wrong: true }
      type Extra = { flavour: string };
      const host = process.env.HOST ?? "messages.example";
      module.exports = {
        appId: `fr.${process.env.ORG}.messages`,
        server: { url: `https://${host}/` } as const,
        'quoted-key': [1, 2, "three",],
        flag: !process.env.OFF && process.env.ON === "yes",
        list: ["a", "b"].includes(process.env.PICK),
      } satisfies CapacitorConfig;
      """
    let result = try evaluate(text, ["ORG": "gouv", "ON": "yes", "PICK": "b"])
    #expect(result.config.at("appId")?.string == "fr.gouv.messages")
    #expect(result.config.at("server.url")?.string == "https://messages.example/")
    #expect(result.config.at("quoted-key")?.array?.count == 3)
    #expect(result.config.at("flag")?.bool == true)
    #expect(result.config.at("list")?.bool == true)
    #expect(result.config.at("wrong") == nil)
    #expect(result.reads["appId"] == ["ORG"])
  }

  /// A property read of `undefined` throws in Node: the sync fails, named at that line.
  @Test func readingAMemberOfUndefinedFailsTheSync() throws {
    let text = """
      const settings = undefined;
      export default { appId: settings.appId };
      """
    let result = try evaluate(text, [:])
    #expect(result.failure?.line == 2)
    #expect(result.failure?.message.contains("reading 'appId'") == true)
  }

  /// A pull request can change the script: nesting deeper than any config, or a string or
  /// comment left open, is a diagnostic, never a crash.
  @Test func hostileScriptsAreDiagnosticsNotCrashes() {
    let deep = 5_000
    for text in [
      "export default " + String(repeating: "(", count: deep) + "1"
        + String(repeating: ")", count: deep),
      "export default " + String(repeating: "!", count: deep) + "true",
      "export default { a: " + String(repeating: "{ a: ", count: deep) + "1",
      String(repeating: "{", count: deep),
      "export default `" + String(repeating: "${`", count: 300) + "x",
      "export default { a: 'open",
      "/* open comment",
      "export default { a: `${process.env.X`",
    ] {
      #expect(throws: Diagnostic.self) { try evaluate(text, [:]) }
    }
  }
}
