import Foundation
import HTTP
import QualifyCore
import QualifyTestSupport
import Testing

/// An error path prints what it was given: a malformed env line, a real system's error body.
/// Neither may carry a secret to the terminal (docs/threat-model.md).
@Suite struct SecretsOnErrorPathsCLITests {
  let scratch: URL

  init() throws {
    scratch = try Fixtures.temporaryDirectory("qualify-secrets")
  }

  static let clientSecret = "s3cr3t-Value-XYZ-1234567890abcdef"
  static let keyLines = [
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKB",
    "wQNfZ2p0cNtXoKpU2CZ8c0Ep6AN9Z0KpD+xYb1c3R4f8l0KPq0g7EiVL5g4u3p==",
  ]

  @Test func malformedEnvLinesNameTheKeyAndNeverShowTheValue() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    // An unclosed quote on a secret, a PEM whose closing quote is missing, a stray key line, a
    // long value: each is reported at its line without its text.
    let env = """
      OIDC_RP_CLIENT_SECRET="\(Self.clientSecret)
      MOBILE_OTA_SIGNING_PRIVATE_KEY="-----BEGIN PRIVATE KEY-----
      \(Self.keyLines[0])
      \(Self.keyLines[1])
      -----END PRIVATE KEY-----
      DJANGO_SETTINGS="unclosed and harmless
      """
    let file = scratch.appendingPathComponent("backend.env")
    try Data(env.utf8).write(to: file)
    let result = try CLI.run(
      [
        "check-app", "--app", Fixtures.sampleApp, "--channel", "prod", "--backend-env", file.path,
      ], in: scratch)
    #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
    let output = result.stdout + result.stderr
    #expect(output.contains("backend.env:1:1: error: the quoted value of OIDC_RP_CLIENT_SECRET"))
    #expect(
      output.contains("backend.env:2:1: error: the quoted value of MOBILE_OTA_SIGNING_PRIVATE_KEY"))
    for secret in [Self.clientSecret, "BEGIN PRIVATE KEY", "1234567890abcdef"] + Self.keyLines {
      #expect(!output.contains(secret), "\(secret) printed: \(output)")
    }
    for fragment in Self.keyLines.map({ String($0.prefix(20)) }) {
      #expect(!output.contains(fragment), "\(fragment) printed: \(output)")
    }
    // A line with nothing secret in it is still shown, so the user can see the mistake.
    #expect(output.contains("6 | DJANGO_SETTINGS=\"unclosed and harmless"), "\(output)")
  }

  @Test func aMultiLinePEMInQuotesIsReadAsComposeReadsIt() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let env = """
      MOBILE_OTA_SIGNING_PRIVATE_KEY="-----BEGIN PRIVATE KEY-----
      \(Self.keyLines[0])
      -----END PRIVATE KEY-----"
      PUSH_ENABLED=true
      """
    let file = scratch.appendingPathComponent("backend.env")
    try Data(env.utf8).write(to: file)
    let result = try CLI.run(
      [
        "check-app", "--app", Fixtures.sampleApp, "--channel", "prod", "--backend-env", file.path,
        "--explain",
      ], in: scratch)
    #expect(!result.stderr.contains("malformed"), "\(result.stderr)")
    #expect(!(result.stdout + result.stderr).contains(Self.keyLines[0]))
  }

  /// A real provider whose error body echoes the credentials it was sent: the message names
  /// the refusal, never the secret (nor its Basic encoding).
  @Test func aRealProviderEchoingTheClientSecretDoesNotPrintIt() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let issuer = Locked("")
    let provider = try TestServer(tls: false) { request in
      let origin = issuer.withLock { $0 }
      switch request.path {
      case "/.well-known/openid-configuration":
        return .json([
          "issuer": origin, "authorization_endpoint": origin + "/authorize",
          "token_endpoint": origin + "/token", "jwks_uri": origin + "/jwks",
        ])
      case "/token":
        let basic = request.headers["Authorization"] ?? ""
        let decoded =
          Data(base64Encoded: String(basic.dropFirst("Basic ".count))).map {
            String(decoding: $0, as: UTF8.self)
          } ?? ""
        return .json(
          ["error": "invalid_client: \(decoded) (\(basic)) \(request.bodyText)"], status: 401)
      default:
        return .notFound
      }
    }
    defer { provider.stop() }
    issuer.withLock { $0 = "http://127.0.0.1:\(provider.port)" }
    let stack = scratch.appendingPathComponent("stack.json")
    try Data(
      """
      {
        "identityProvider": {
          "issuer": "http://127.0.0.1:\(provider.port)",
          "profile": "generic",
          "app": {"clientId": "messages-app", "clientSecretEnv": "QUALIFY_TEST_APP_SECRET"},
          "companion": {"clientId": "calendar-app", "clientSecretEnv": "QUALIFY_TEST_COMPANION_SECRET"},
          "testUsers": [
            {"username": "alice", "passwordEnv": "QUALIFY_TEST_PASSWORD", "subject": "1"},
            {"username": "bob", "passwordEnv": "QUALIFY_TEST_PASSWORD", "subject": "2"}
          ]
        },
        "timeout": "5s"
      }
      """.utf8
    ).write(to: stack)
    let result = try CLI.run(
      ["--channel", "prod", "--stack", stack.path, "--filter", "sso/*"], in: scratch,
      environment: [
        "QUALIFY_TEST_APP_SECRET": Self.clientSecret,
        "QUALIFY_TEST_COMPANION_SECRET": "companion-\(Self.clientSecret)",
        "QUALIFY_TEST_PASSWORD": "Pa55!w#rd-alice",
      ])
    #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
    #expect(
      result.stderr.contains("the real identity provider refuses the app client messages-app"),
      "\(result.stderr)")
    let basic = Data("messages-app:\(Self.clientSecret)".utf8).base64EncodedString()
    for secret in [Self.clientSecret, basic, "1234567890abcdef"] {
      #expect(!result.stderr.contains(secret), "\(secret) printed: \(result.stderr)")
    }
  }
}
