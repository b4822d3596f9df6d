import Testing

@testable import Scenarios
@testable import StackPorts

/// How the answers of a real system (`--stack`) are read: what the credentials check makes of
/// the token endpoint's answer, and which recorded answers are the system's own failure.
@Suite struct RealSystemAnswersTests {
  /// Each row: the status, the OAuth error, and what it says of the client's credentials.
  @Test(
    arguments: [
      (400, "invalid_grant", ClientProbe.Reading.accepted),
      (400, "invalid_request", .undecided("invalid_request")),
      (401, "invalid_client", .refused("invalid_client")),
      (400, "invalid_client", .refused("invalid_client")),
      (401, nil, .refused("HTTP 401")),
      (400, "unsupported_grant_type", .undecided("unsupported_grant_type")),
      (400, "unauthorized_client", .accepted),
      (400, "the secret s3cret is wrong", .undecided("an error that is not an OAuth code")),
      (403, nil, .undecided("HTTP 403 without an OAuth error")),
    ] as [(Int, String?, ClientProbe.Reading)])
  func theCredentialsCheckReadsTheTokenEndpoint(
    status: Int, error: String?, reading: ClientProbe.Reading
  ) {
    #expect(ClientProbe.read(status: status, error: error) == reading)
  }

  /// Basic when offered or when discovery names nothing (its default), else the secret in the
  /// body: ProConnect's discovery offers no Basic.
  @Test func theCredentialsCheckAuthenticatesAsTheProviderOffers() {
    #expect(ClientProbe.method(offered: nil) == "client_secret_basic")
    #expect(
      ClientProbe.method(offered: ["client_secret_post", "client_secret_basic"])
        == "client_secret_basic")
    #expect(
      ClientProbe.method(offered: ["client_secret_post", "private_key_jwt"]) == "client_secret_post"
    )
    #expect(ClientProbe.method(offered: ["private_key_jwt"]) == "client_secret_basic")
  }

  @Test func onlyA5xxIsTheSystemsOwnFailure() {
    #expect(Runner.serverError("POST https://idp.test/token → 503 (2ms)") == 503)
    #expect(Runner.serverError("GET https://idp.test/a → 500 → https://idp.test/b (1ms)") == 500)
    #expect(Runner.serverError("POST https://idp.test/token → 400 (2ms)") == nil)
    #expect(Runner.serverError("GET https://idp.test/a → 302 → https://x.test/?s=503 (1ms)") == nil)
    #expect(Runner.serverError("GET https://idp.test/a ✗ connection refused") == nil)
  }
}
