import Artifacts
import Foundation
import QualifyCore
import QualifyCrypto

/// The authorization endpoint's checks of the request's own parameters, and what it notes
/// when a session must authenticate again.
extension AuthorizationStateMachine {
  /// Why a live session must authenticate again, for the evidence.
  func reauthentication(
    _ client: IdentityProvider.Client, acr: String?, forceLogin: Bool, tooOld: Bool, maxAge: Int?
  ) -> String {
    let map = client.acrLevels.isEmpty ? "empty" : client.acrLevels.description
    return forceLogin
      ? "prompt=login"
      : tooOld
        ? "max_age \(maxAge ?? 0) is shorter than the session's age"
        : "the session does not satisfy acr \(acr ?? "-") (acr.loa.map of client \(client.id)\(realmFile.map { " in \($0)" } ?? ""): \(map))"
  }

  /// What `checkParameters` makes of the request's own parameters.
  enum ParameterCheck {
    case accepted((method: String, acr: String?, maxAge: Int?))
    case refused(Decision)
  }

  /// The authorization request's own parameters: the response type, state and nonce, the
  /// scopes, acr, PKCE and max_age, each as the profile requires; `refuse` answers a wrong one.
  func checkParameters(
    _ request: AuthorizeRequest, refuse refusal: (String, String, Bool) -> Decision
  ) -> ParameterCheck {
    func refuse(_ error: String, _ description: String, fragment: Bool = false) -> Decision {
      refusal(error, description, fragment)
    }
    guard let responseType = request.responseType else {
      return .refused(refuse("invalid_request", "Missing parameter: response_type"))
    }
    guard responseType == "code" else {
      return .refused(
        refuse(
          "unsupported_response_type", "only the authorization code flow is supported",
          fragment: responseType.split(separator: " ").contains { $0.hasSuffix("token") }))
    }
    if let length = profile.minimumStateAndNonceLength {
      for (name, value) in [("state", request.state), ("nonce", request.nonce)]
      where (value ?? "").count < length {
        return .refused(
          Decision(
            action: .errorPage(
              "Y000400 : Bad Request Exception (\(name) is required, at least \(length) characters)"
            )))
      }
    }
    let scopes = Set((request.scope ?? "").split(separator: " ").map(String.init))
    if let missing = profile.requiredScopes.sorted().first(where: { !scopes.contains($0) }) {
      return .refused(refuse("invalid_scope", "the scope must include \(missing)"))
    }
    let acr = request.acr.flatMap { $0.isEmpty ? nil : $0 }
    if let required = profile.requiredACR, acr != required {
      return .refused(refuse("invalid_request", "acr_values=\(required) is required"))
    }
    let method = request.codeChallengeMethod ?? "plain"
    if request.codeChallenge != nil || request.codeChallengeMethod != nil {
      guard ["S256", "plain"].contains(method) else {
        return .refused(refuse("invalid_request", "code_challenge_method must be S256 or plain"))
      }
      guard let challenge = request.codeChallenge,
        AuthorizationStateMachine.isPKCEValue(challenge)
      else {
        return .refused(
          refuse(
            "invalid_request", "code_challenge must be 43 to 128 unreserved characters"))
      }
    }
    var maxAge: Int?
    if let text = request.maxAge, profile.honoursMaxAge {
      guard let seconds = Int(text), seconds >= 0 else {
        return .refused(
          refuse("invalid_request", "max_age must be a non-negative number of seconds"))
      }
      maxAge = seconds
    }
    return .accepted((method, acr, maxAge))
  }
}
