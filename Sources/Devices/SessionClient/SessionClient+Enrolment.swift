import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

/// Onboarding and account recovery, as seed 002's client goes through them: an invitation or
/// a mailed link is resolved into a flow, which a passkey made on the device or a password
/// completes; the envelope it answers is taken like a login's. The link alone never signs
/// in: the client keeps nothing from its answer but the flow's token.
extension SessionClient {
  public static let onboarding = "/v1/public/onboarding"
  public static let recovery = "/v1/public/account-recovery"

  /// `onboarding/resolve {invitationCode}`: the onboarding flow opened.
  public func acceptInvitation(_ code: String) {
    open(Self.onboarding, body: ["invitationCode": code], tokenField: "onboardingToken")
  }

  /// `account-recovery/request {email}`: the backend mails a link (or says nothing).
  public func requestRecovery(email: String) {
    _ = send("POST", Self.recovery + "/request", json: ["email": email], bearer: false)
  }

  /// `account-recovery/resolve {recoveryCode}`: the code of a mailed link, opened.
  public func openRecoveryLink(_ code: String) {
    open(Self.recovery, body: ["recoveryCode": code], tokenField: "recoveryToken")
  }

  private func open(_ prefix: String, body: [String: Any], tokenField: String) {
    openFlow = nil
    let response = send("POST", prefix + "/resolve", json: body, bearer: false)
    guard response?.status == 200,
      let token = (response?.jsonObject as? [String: Any])?[tokenField] as? String
    else {
      note("\(prefix.split(separator: "/").last ?? "") refused: \(lastError ?? "no answer")")
      return
    }
    let email = (response?.jsonObject as? [String: Any])?["email"] as? String ?? ""
    openFlow = (prefix, token, email)
    note("\(tokenField) received: a passkey or a password completes it")
  }

  /// The open flow completed with a new password (remembered for the next login).
  public func finishWithPassword() {
    guard let flow = openFlow else { return note("no onboarding or recovery flow is open") }
    let password = environment.random.token(byteCount: 12)
    environment.redactor.register(password)
    var body = deviceFields(flow)
    body[flow.prefix == Self.onboarding ? "onboardingToken" : "recoveryToken"] = flow.token
    body["password"] = password
    var response = send("POST", flow.prefix + "/password/complete", json: body, bearer: false)
    if forgetsRefusedDevice(response) {
      body["deviceId"] = nil
      response = send("POST", flow.prefix + "/password/complete", json: body, bearer: false)
    }
    if take(response) { chosenPassword = (flow.email, password) }
  }

  /// The open flow completed with a passkey the device's authenticator makes.
  public func finishWithPasskey(retry: Bool = false) {
    guard let flow = openFlow else { return note("no onboarding or recovery flow is open") }
    let field = flow.prefix == Self.onboarding ? "onboardingToken" : "recoveryToken"
    guard
      let options = send(
        "POST", flow.prefix + "/passkey/options", json: [field: flow.token], bearer: false)?
        .jsonObject as? [String: Any], let challenge = options["challenge"] as? String,
      let key = try? Key.generateP256(), let pem = try? key.spkiPublicPEM()
    else { return note("no passkey challenge for the \(field)") }
    let id = Base64URL.encode(environment.random.bytes(16))
    let rp = rpId(options)
    machine.storage["rpId"] = rp
    var body = deviceFields(flow)
    body[field] = flow.token
    body["id"] = id
    body["response"] = [
      "clientDataJSON": Base64URL.encode(
        clientData(type: "webauthn.create", challenge: challenge, rpId: rp)),
      "authenticatorData": Base64URL.encode(authenticatorData(rpId: rp, flags: 0x45, count: 0)),
      "publicKey": Base64URL.encode(Array(pem.utf8)),
    ]
    let response = send("POST", flow.prefix + "/passkey/verify", json: body, bearer: false)
    if !retry, forgetsRefusedDevice(response) { return finishWithPasskey(retry: true) }
    if take(response) {
      passkeys = [id: key]
      note("passkey \(id) made at \(field == "onboardingToken" ? "onboarding" : "recovery")")
    }
  }

  /// What a session-opening request says of the device: its description, and the backend's
  /// deviceId when the client holds one (never one of its own) — not at onboarding, the new
  /// account's first login.
  private func deviceFields(_ flow: (prefix: String, token: String, email: String))
    -> [String: Any]
  {
    deviceIdBeforeLogin = secureStorage["deviceId"]
    let sent = flow.prefix == Self.onboarding ? nil : secureStorage["deviceId"]
    loginSentDeviceId = sent
    var fields: [String: Any] = [
      "platform": build.platform.rawValue, "appVersion": "1.0.0",
      "deviceName": "qualify \(build.platform.rawValue)",
    ]
    if let sent { fields["deviceId"] = sent }
    return fields
  }

  /// A stored deviceId the backend no longer knows for this account (deleted, another
  /// account's): forgotten, so the flow is sent again without it, as a login does.
  private func forgetsRefusedDevice(_ response: HTTPResponse?) -> Bool {
    guard response?.status == 400, lastError == "invalid_device", loginSentDeviceId != nil
    else { return false }
    note("the stored deviceId is not this account's: sending the flow without it")
    machine.storage["deviceId"] = nil
    loginSentDeviceId = nil
    return true
  }

  /// An envelope taken like a login's (the flow closed, the bootstrap loaded); false when the
  /// answer was a refusal.
  private func take(_ response: HTTPResponse?) -> Bool {
    guard let response, response.status == 200,
      let envelope = response.jsonObject as? [String: Any], envelope["refreshToken"] != nil
    else {
      note("the flow was refused: \(lastError ?? "no answer")")
      return false
    }
    openFlow = nil
    machine.signIn(.init(json: envelope))
    loadBootstrap(because: "after onboarding or recovery")
    return true
  }

  /// A password login with the password this client set at onboarding or recovery.
  public func logInWithChosenPassword() {
    guard let chosen = chosenPassword else { return note("this client set no password") }
    logIn(login: chosen.login, password: chosen.password)
  }
}
