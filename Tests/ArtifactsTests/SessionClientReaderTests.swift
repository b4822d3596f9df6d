import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

@testable import Artifacts

/// Seed 002's client rules read from the app's own client code: the sample keeps each, and a
/// one-line change to each turns that rule, and only it, false.
@Suite struct SessionClientReaderTests {
  static let app = Fixtures.root + "/Scenarios/apps/heymoov"

  func client(_ files: [String: String] = [:]) throws -> SessionClientCode? {
    let directory = try Fixtures.overlayApp("qualify-session-client", base: Self.app, files: files)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try AppRepository(directory: directory.path).builds(for: .prod)[.ios]?.sessionClient
  }

  func sample(_ path: String) throws -> String {
    try String(contentsOfFile: Self.app + "/" + path, encoding: .utf8)
  }

  @Test func theSampleKeepsEveryRule() throws {
    let read = try #require(try client())
    #expect(read.unread == nil)
    for rule in read.rules { #expect(rule.fact?.value == true, "\(rule.name)") }
  }

  @Test func eachBrokenRuleIsNamedAlone() throws {
    let api = "mobile/src/session/apiClient.ts"
    let store = "mobile/src/session/sessionStore.ts"
    let login = "mobile/src/session/login.ts"
    let edits: [(rule: String, path: String, old: String, new: String)] = [
      (
        "bearer", api, "Authorization: `Bearer ${token}`", "\"X-Access-Token\": token"
      ),
      (
        "single-flight", api, "  if (refreshing) return refreshing;\n", ""
      ),
      (
        "wipe", api, "      await wipeSession();\n", ""
      ),
      (
        "refresh-body", api, "body: JSON.stringify({ refreshToken }),",
        "body: JSON.stringify({ refreshToken, deviceId: \"this-phone\" }),"
      ),
      (
        "refresh-before-expiry", api,
        "if (!access || access.expiresAt - EXPIRY_MARGIN_MS <= Date.now()) {", "if (!access) {"
      ),
      (
        "secure-storage", store,
        "await SecureStore.setItemAsync(KEYS.refreshToken, envelope.refreshToken);",
        "await AsyncStorage.setItem(KEYS.refreshToken, envelope.refreshToken);"
      ),
      (
        "opaque-token", store, "accessExpiresAt = Date.parse(envelope.accessExpiresAt);",
        "accessExpiresAt = JSON.parse(atob(envelope.accessToken.split(\".\")[1])).exp * 1000;"
      ),
      (
        "invalid-credentials", login, "body.error === \"invalid_credentials\"",
        "response.status === 401"
      ),
      (
        "first-party-login", login, "export async function passwordLogin(",
        "export const browserLogin = () => WebBrowser.openAuthSessionAsync(`${API}/oauth2/auth`);\nexport async function passwordLogin("
      ),
      (
        "legacy-state", store,
        "  for (const key of LEGACY_KEYS) await SecureStore.deleteItemAsync(key);\n",
        "  void LEGACY_KEYS;\n"
      ),
      // The accessor's expiry test inverted: no access is ever answered once one is held.
      (
        "access", store, "return accessToken && accessExpiresAt !== null",
        "return accessToken && accessExpiresAt === null"
      ),
      (
        "access", store, "return accessToken && accessExpiresAt !== null",
        "return !accessToken && accessExpiresAt !== null"
      ),
    ]
    for edit in edits {
      let text = try sample(edit.path)
      #expect(text.contains(edit.old), "\(edit.rule): the sample's text")
      let read = try #require(
        try client([edit.path: text.replacingOccurrences(of: edit.old, with: edit.new)]))
      let broken = read.rules.filter { $0.fact?.value != true }.map(\.name)
      #expect(broken == [edit.rule], "\(edit.rule): \(broken)")
    }
  }

  /// The accessor is evaluated on what a stored envelope leaves in the module's state; a test
  /// of something qualify does not evaluate leaves it unjudged, not failed.
  @Test func theAccessorIsEvaluatedOnTheStoredState() throws {
    let store = "mobile/src/session/sessionStore.ts"
    let text = try sample(store)
    #expect(
      SessionClientReader.storedState(text) == [
        "accessToken": .string("stored"), "accessExpiresAt": .number(1_700_000_000_000),
      ])
    let held = try #require(try client()?.answersStoredAccess)
    #expect(held.value)
    #expect(held.location?.file.hasSuffix(store) == true)
    let helper = text.replacingOccurrences(
      of: "return accessToken && accessExpiresAt !== null",
      with: "return accessToken && isFresh(accessExpiresAt)")
    #expect(helper != text)
    let unjudged = try #require(try client([store: helper]))
    #expect(unjudged.answersStoredAccess == nil)
    #expect(unjudged.sendsBearer?.value == true)
    // A value qualify cannot type is left out: a test of its type is not judged either.
    let untyped = text.replacingOccurrences(
      of: "let accessExpiresAt: number | null = null;", with: "let accessExpiresAt = null;"
    )
    .replacingOccurrences(
      of: "accessExpiresAt = Date.parse(envelope.accessExpiresAt);",
      with: "accessExpiresAt = expiryOf(envelope);")
    #expect(untyped != text)
    #expect(try #require(try client([store: untyped])).answersStoredAccess == nil)
  }

  @Test func noClientCodeIsUnverifiedNamingWhereQualifyLooked() throws {
    let directory = try Fixtures.temporaryDirectory("qualify-session-no-client")
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.copyItem(
      atPath: Self.app + "/qualify.json",
      toPath: directory.appendingPathComponent("qualify.json").path)
    let build = try #require(try AppRepository(directory: directory.path).builds(for: .prod)[.ios])
    #expect(build.sessionClient?.unread?.contains("parts.client") == true)
    let hit = BuildGuards.findings(for: build).first { $0.rule == "client-code" }
    #expect(hit?.severity == .unverified)
  }
}
