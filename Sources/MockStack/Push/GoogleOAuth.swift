import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

/// Google's OAuth 2.0 token endpoint for service accounts (RFC 7523 JWT bearer grant): the
/// I/O around `FCMStateMachine.grant`. Here: reading the form and the assertion, verifying its
/// RS256 signature with the key of the account it names.
final class GoogleOAuth: HTTPHandler, Sendable {
  static let scope = FCMStateMachine.scope

  let network: FirebaseNetwork
  let context: StackContext

  init(network: FirebaseNetwork, context: StackContext) {
    self.network = network
    self.context = context
  }

  func handle(_ request: HTTPRequest) -> HTTPResponse {
    guard request.method == "POST", request.path == "/token" else { return .notFound }
    func fail(_ error: String, _ description: String) -> HTTPResponse {
      context.event("google-oauth", "refused: \(error): \(description)")
      return .json(["error": error, "error_description": description], status: 400)
    }
    guard request.formValue("grant_type") == "urn:ietf:params:oauth:grant-type:jwt-bearer",
      let assertion = request.formValue("assertion"),
      let (header, claims, _, _) = JWT.parse(assertion),
      let email = claims["iss"] as? String
    else { return fail("invalid_grant", "Invalid JWT Signature.") }
    let key = network.projects.values.lazy.compactMap { $0.serviceAccounts[email] }.first
    let verifies =
      key.map { account in
        header["kid"] as? String == account.keyId
          && JWT.verify(assertion, keys: [account.keyId: account.key]) != nil
      } ?? false
    let read = FCMStateMachine.Assertion(
      email: email, signatureVerifies: verifies,
      scopes: (claims["scope"] as? String ?? "").split(separator: " ").map(String.init),
      audience: claims["aud"] as? String,
      expires: (claims["exp"] as? NSNumber)?.doubleValue ?? 0,
      issuedAt: (claims["iat"] as? NSNumber)?.doubleValue)
    let token = "ya29." + context.secret(byteCount: 32)
    switch network.grant(read, accessToken: token, now: context.clock.now) {
    case .refused(let error, let description):
      return fail(error, description)
    case .granted(let project):
      context.event("google-oauth", "issued an access token to \(email) (\(project))")
      return .json(["access_token": token, "expires_in": 3599, "token_type": "Bearer"])
    }
  }
}
