import Foundation
import QualifyCore
import Testing

@Suite struct SeededGeneratorTests {
  @Test func sameSeedAndLabelGiveTheSameStream() {
    var a = SeededGenerator(seed: 42, label: "sso/cross-app/ios")
    var b = SeededGenerator(seed: 42, label: "sso/cross-app/ios")
    #expect(a.bytes(64) == b.bytes(64))
  }

  @Test func otherSeedOrLabelGiveAnotherStream() {
    var a = SeededGenerator(seed: 42, label: "x")
    var b = SeededGenerator(seed: 43, label: "x")
    var c = SeededGenerator(seed: 42, label: "y")
    let first = a.bytes(32)
    #expect(first != b.bytes(32))
    #expect(first != c.bytes(32))
  }

  @Test func tokensAreURLSafe() {
    var generator = SeededGenerator(seed: 1)
    let token = generator.token(byteCount: 48)
    #expect(token.count == 64)
    #expect(token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
  }
}

@Suite struct RedactorTests {
  @Test func registeredSecretsAreReplacedWhereverTheyAppear() {
    let redactor = Redactor()
    redactor.register("s3cr3t-token-value")
    let text = redactor.redact(
      "Location: stmessages://auth?x=s3cr3t-token-value and <a>s3cr3t-token-value</a>")
    #expect(!text.contains("s3cr3t-token-value"))
    #expect(text.components(separatedBy: Redactor.marker(for: "s3cr3t-token-value")).count == 3)
  }

  /// A secret inside a URL nested in a parameter (`next=/authorize%3Fstate%3D<secret>`), and
  /// a chosen password in any encoding, are redacted too.
  @Test func secretsInNestedURLsAndChosenPasswordsAreRedacted() {
    let redactor = Redactor()
    let state = "AbCdEfGh0123456789_state-token"
    redactor.register(state)
    redactor.registerLiteral("Pa55!w#rd")
    let text = redactor.redact(
      "GET /accounts/login/?next=/o/authorize/%3Fresponse_type%3Dcode%26state%3D\(state)%26x%3D1 password=Pa55%21w%23rd raw Pa55!w#rd"
    )
    #expect(!text.contains(state))
    #expect(!text.contains("Pa55"))
    #expect(text.contains("%3D[REDACTED:"))
  }

  @Test func sensitiveNamedValuesAreRedactedWithoutRegistration() {
    let redactor = Redactor()
    let text = redactor.redact(
      """
      POST token=abcdefgh123&code_verifier=verifierverifier&state=visible
      Cookie: sessionid=sess1234567; other=keep
      {"csrf_token": "csrfcsrfcsrf", "detail": "keep me"}
      Authorization: Bearer abc.def.ghi
      """)
    #expect(!text.contains("abcdefgh123"))
    #expect(!text.contains("verifierverifier"))
    #expect(!text.contains("sess1234567"))
    #expect(!text.contains("csrfcsrfcsrf"))
    #expect(!text.contains("abc.def.ghi"))
    #expect(text.contains("state=visible"))
    #expect(text.contains("other=keep"))
    #expect(text.contains("keep me"))
  }

  @Test func shortValuesAreNotRegistered() {
    let redactor = Redactor()
    redactor.register("ok")
    #expect(redactor.redact("ok then") == "ok then")
  }

  @Test func equalSecretsGetEqualMarkers() {
    #expect(Redactor.marker(for: "aaaaaaaaaa") == Redactor.marker(for: "aaaaaaaaaa"))
    #expect(Redactor.marker(for: "aaaaaaaaaa") != Redactor.marker(for: "bbbbbbbbbb"))
  }
}

@Suite struct SecretShapeTests {
  @Test func privateKeyBlocksAreRedactedWhoeverMintedThem() {
    let key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7abc\n-----END RSA PRIVATE KEY-----"
    let cut = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkq"
    let certificate = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----"
    let text = Redactor().redact("a \(key) b \(certificate) c \(cut)")
    #expect(!text.contains("MIIEowIBAAKCAQEA7abc"))
    #expect(!text.contains("MIIEvQIBADANBgkq"))
    #expect(text.contains("MIIBszCCAVmgAwIBAgIU"), "a certificate is public")
    #expect(text.hasPrefix("a [REDACTED:"))
  }

  @Test(arguments: [
    ("OIDC_RP_CLIENT_SECRET", "x", false),
    ("PUSH_APNS_KEY", "short", false),
    ("MOBILE_OTA_SIGNING_PUBLIC_KEY_B64", "abc", true),
    ("PUSH_APNS_KEY_ID", "ABC123", true),
    ("DJANGO_DEBUG", "False", true),
    ("OIDC_OP_URL", "https://auth.example.gouv.fr/api/v2/authorize", false),
    ("SOME_ID", "aZ9kQ2xV7mP4wR8t", false),
    ("PUSH_ENABLED", "true", true),
    ("OIDC_OP_TOKEN_ENDPOINT", "https://idp/token", true),
    ("MOBILE_AUTH_TOKEN_TTL", "60", true),
  ])
  func whatADiagnosticMayQuote(key: String, value: String, quotable: Bool) {
    #expect(SecretShape.mayQuote(key: key, value: value) == quotable)
  }
}

@Suite struct DurationsTests {
  @Test(arguments: [
    ("61s", 61.0), ("10m", 600.0), ("12h", 43_200.0), ("500ms", 0.5), ("1h30m", 5400.0),
    ("2d", 172_800.0),
  ])
  func parses(text: String, seconds: Double) {
    #expect(Durations.parse(text) == seconds)
  }

  @Test(arguments: ["", "61", "s", "10x", "1.2.3s", "m10"])
  func rejects(text: String) {
    #expect(Durations.parse(text) == nil)
  }
}

@Suite struct DiagnosticsTests {
  @Test func printerShowsLocationLineCaretAndHint() {
    let diagnostic = Diagnostic.error(
      at: FileLocation(file: "a.scenario", line: 3, column: 5), "unknown statement 'expcet'",
      hint: "did you mean 'expect'?", sourceLine: "    expcet status 200", length: 6)
    let text = DiagnosticPrinter(colors: false).render(diagnostic)
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines[0] == "a.scenario:3:5: error: unknown statement 'expcet'")
    #expect(lines[1] == "3 |     expcet status 200")
    #expect(lines[2] == "  |     ^~~~~~")
    #expect(lines[3] == "  = hint: did you mean 'expect'?")
  }

  @Test func suggestionsFindCloseWordsOnly() {
    #expect(Suggestions.closest(to: "expcet", among: ["expect", "step"]) == "expect")
    #expect(Suggestions.closest(to: "banana", among: ["expect", "step"]) == nil)
  }
}
