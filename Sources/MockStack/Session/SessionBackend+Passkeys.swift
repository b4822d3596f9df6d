import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

/// Passkeys of the contract backend: WebAuthn registration and login (ES256 assertions over
/// `authenticatorData ‖ SHA-256(clientDataJSON)`), the challenge single use and timed, the
/// origin, the rpId hash, user presence and the sign count checked.
extension SessionBackend {
  // MARK: Passkeys

  /// A fresh single-use challenge for `purpose` (`webauthn.create` or `webauthn.get`).
  func passkeyOptions(purpose: String, user: String?, state: inout State) -> HTTPResponse {
    let challenge = context.random.token(byteCount: 32)
    state.challenges[challenge] = Challenge(
      purpose: purpose, user: user, issued: context.clock.now)
    var options: [String: Any] = [
      "challenge": challenge, "rpId": rpId, "timeout": Int(SessionBackend.challengeTTL * 1000),
    ]
    if purpose == "webauthn.create" {
      options["rp"] = ["id": rpId, "name": "HeyMoov"]
      options["user"] = ["id": Base64URL.encode(Array((user ?? "").utf8)), "name": user ?? ""]
      options["pubKeyCredParams"] = [["type": "public-key", "alg": -7]]
    }
    return noStore(.json(options))
  }

  /// What a ceremony's checks gave: the contract error, or what was signed and the count.
  enum Ceremony {
    case refused(HTTPResponse)
    case success((clientData: [UInt8], authData: [UInt8], signCount: UInt32))
  }

  /// The checks both ceremonies make on `clientDataJSON` and `authenticatorData`; the
  /// challenge is consumed. Returns the contract error, or the sign count and the challenge.
  func checkCeremony(
    _ response: [String: Any], purpose: String, state: inout State
  ) -> Ceremony {
    guard let clientB64 = response["clientDataJSON"] as? String,
      let clientData = Base64URL.decode(clientB64).map(Array.init),
      let client = try? JSONSerialization.jsonObject(with: Data(clientData)) as? [String: Any],
      let authB64 = response["authenticatorData"] as? String,
      let authData = Base64URL.decode(authB64).map(Array.init), authData.count >= 37
    else {
      return .refused(
        error(400, "invalid_request", "clientDataJSON and authenticatorData are required."))
    }
    guard client["type"] as? String == purpose, let challenge = client["challenge"] as? String,
      let issued = state.challenges[challenge], issued.purpose == purpose
    else {
      return .refused(error(401, "invalid_credentials", "Unknown or used challenge."))
    }
    if !behaviours.sessionChallengesReusable { state.challenges[challenge] = nil }
    guard
      behaviours.sessionChallengesNeverExpire
        || context.clock.now.timeIntervalSince(issued.issued) <= SessionBackend.challengeTTL
    else {
      event("passkey refused: the challenge is older than \(Int(SessionBackend.challengeTTL))s")
      return .refused(error(401, "challenge_expired", "The challenge has expired."))
    }
    guard client["origin"] as? String == expectedOrigin else {
      return .refused(error(401, "invalid_credentials", "Unexpected origin."))
    }
    guard Array(authData[0..<32]) == Digest.sha256(Array(rpId.utf8)), authData[32] & 0x01 != 0
    else {
      return .refused(error(401, "invalid_credentials", "Wrong rpId hash or no user presence."))
    }
    let count = authData[33..<37].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    return .success((clientData, authData, count))
  }

  /// `register/verify {id, response: {clientDataJSON, authenticatorData, publicKey}}`.
  func passkeyRegister(_ request: HTTPRequest, user: String, state: inout State)
    -> HTTPResponse
  {
    switch registerCredential(fields(request), user: user, state: &state) {
    case .failure(let refusal): return refusal.response
    case .success(let id): return noStore(.json(["credentialId": id]))
    }
  }

  /// A refusal as a value, for the flows that register a credential and then do more.
  struct Refusal: Error {
    let response: HTTPResponse
  }

  /// A new credential for `user` from a `webauthn.create` ceremony: its id, or the refusal.
  func registerCredential(_ body: [String: Any], user: String, state: inout State)
    -> Result<String, Refusal>
  {
    guard let id = body["id"] as? String, let response = body["response"] as? [String: Any],
      let keyB64 = response["publicKey"] as? String,
      let pem = Base64URL.decode(keyB64).map({ String(decoding: $0, as: UTF8.self) }),
      (try? Key.publicKey(pem: pem))?.isEC == true
    else {
      return .failure(
        Refusal(response: error(400, "invalid_request", "id and an ES256 publicKey are required.")))
    }
    switch checkCeremony(response, purpose: "webauthn.create", state: &state) {
    case .refused(let refusal): return .failure(Refusal(response: refusal))
    case .success(let ceremony):
      state.credentials[id] = Credential(
        user: user, publicKeyPEM: pem, signCount: ceremony.signCount)
      event("passkey \(id) registered for \(user)")
      return .success(id)
    }
  }

  /// `login/verify {id, response: {clientDataJSON, authenticatorData, signature}, deviceId?}`.
  func passkeyLogin(_ request: HTTPRequest) -> HTTPResponse {
    let body = fields(request)
    return state.withLock { state -> HTTPResponse in
      guard let id = body["id"] as? String, let credential = state.credentials[id],
        let response = body["response"] as? [String: Any],
        let signature = (response["signature"] as? String).flatMap(Base64URL.decode)
      else { return error(401, "invalid_credentials", "Unknown passkey.") }
      let ceremony: (clientData: [UInt8], authData: [UInt8], signCount: UInt32)
      switch checkCeremony(response, purpose: "webauthn.get", state: &state) {
      case .refused(let refusal): return refusal
      case .success(let value): ceremony = value
      }
      let signed = ceremony.authData + Digest.sha256(ceremony.clientData)
      guard
        behaviours.sessionSkipsPasskeySignature
          || ((try? Key.publicKey(pem: credential.publicKeyPEM))?.verifySHA256(
            signed, signature: Array(signature)) ?? false)
      else {
        event("passkey refused: the assertion's signature does not verify")
        return error(401, "invalid_credentials", "The assertion does not verify.")
      }
      // A counter that does not move forward is a cloned authenticator.
      guard
        behaviours.sessionIgnoresSignCount
          || ceremony.signCount == 0 && credential.signCount == 0
          || ceremony.signCount > credential.signCount
      else { return error(401, "invalid_credentials", "The sign count went backwards.") }
      state.credentials[id]?.signCount = ceremony.signCount
      return openSession(for: credential.user, body: body, how: "passkey \(id)", state: &state)
    }
  }
}
