import Foundation
import HTTP
import QualifyCore

/// A first-party flow that ends in a session without a login: onboarding (an invitation
/// resolved, then a passkey or a password set) and account recovery (a mailed link resolved,
/// then a new passkey or password). Seed 002 lists their endpoints among those that open a
/// session, and wants recovery "sans login direct par lien": the link alone never signs in.
public struct Enrolment: Sendable {
  public enum Purpose: String, Sendable {
    case onboarding
    case recovery
  }

  /// An invitation or a mailed recovery link: who it is for, when it was made, whether it
  /// was used up.
  struct Link {
    var email: String
    var issued: Date
    var used = false
  }

  var purpose: Purpose
  var email: String
  /// The invitation or recovery code it came from (used up when the flow completes).
  var code: String
  var issued: Date
  var completed = false

  /// How long an invitation, a recovery link and the flow each opens may be used.
  public static let invitationTTL: TimeInterval = 7 * 24 * 3600
  public static let recoveryLinkTTL: TimeInterval = 30 * 60
  public static let flowTTL: TimeInterval = 30 * 60
}

extension SessionBackend {
  /// The public onboarding and account-recovery endpoints, and the mock-only hooks standing
  /// for what happens elsewhere (an organisation inviting someone, the mail a user reads).
  func routeEnrolment(_ router: inout Router) {
    router.post("/v1/public/onboarding/resolve") { [unowned self] request in
      self.resolve(request, purpose: .onboarding, codeField: "invitationCode")
    }
    router.post("/v1/public/account-recovery/resolve") { [unowned self] request in
      self.resolve(request, purpose: .recovery, codeField: "recoveryCode")
    }
    router.post("/v1/public/account-recovery/request") { [unowned self] in
      self.requestRecovery($0)
    }
    for (purpose, prefix) in [
      (Enrolment.Purpose.onboarding, "/v1/public/onboarding"),
      (.recovery, "/v1/public/account-recovery"),
    ] {
      router.post(prefix + "/passkey/options") { [unowned self] request in
        self.enrolment(request, purpose) { flow, state in
          self.passkeyOptions(purpose: "webauthn.create", user: flow.email, state: &state)
        }
      }
      router.post(prefix + "/passkey/verify") { [unowned self] request in
        self.enrolment(request, purpose) { flow, state in
          // The device is checked before the ceremony, which uses up its challenge.
          if let refusal = self.deviceRefusal(
            self.fields(request), user: flow.email, how: purpose.rawValue, state: state)
          {
            return refusal
          }
          switch self.registerCredential(self.fields(request), user: flow.email, state: &state) {
          case .failure(let refusal): return refusal.response
          case .success: return self.complete(flow, request: request, how: "passkey", &state)
          }
        }
      }
      router.post(prefix + "/password/complete") { [unowned self] request in
        self.enrolment(request, purpose) { flow, state in
          guard let password = self.fields(request)["password"] as? String, password.count >= 12
          else {
            return self.error(
              400, "invalid_request", "A password of at least 12 characters is required.")
          }
          if let refusal = self.deviceRefusal(
            self.fields(request), user: flow.email, how: purpose.rawValue, state: state)
          {
            return refusal
          }
          if let former = state.passwords[flow.email] ?? nil,
            self.behaviours.sessionRecoveryKeepsPassword
          {
            state.formerPasswords[flow.email] = former
          }
          state.passwords[flow.email] = password
          return self.complete(flow, request: request, how: "password", &state)
        }
      }
    }
    routeEnrolmentHooks(&router)
  }

  /// Mock-only: an invitation for an address (what an organisation's admin does), and the
  /// recovery codes mailed to one (what the user reads in their mail).
  private func routeEnrolmentHooks(_ router: inout Router) {
    router.post("/_qualify/invite") { [unowned self] request in
      let email = request.form.first { $0.name == "email" }?.value ?? ""
      let code = self.context.secret(byteCount: 16)
      self.state.withLock {
        $0.invitations[code] = Enrolment.Link(email: email, issued: self.context.clock.now)
      }
      self.event("invitation sent to \(email)")
      return .json(["invitationCode": code])
    }
    router.post("/_qualify/outbox") { [unowned self] request in
      let email = request.form.first { $0.name == "email" }?.value ?? ""
      return .json(["recoveryCodes": self.state.withLock { $0.outbox[email] ?? [] }])
    }
  }

  /// `account-recovery/request {email}`: a link mailed when the account exists, and the same
  /// answer either way (the endpoint does not tell who has an account).
  private func requestRecovery(_ request: HTTPRequest) -> HTTPResponse {
    let email = fields(request)["email"] as? String ?? ""
    let known = state.withLock { state -> Bool in
      guard state.passwords[email] != nil else { return false }
      let code = context.secret(byteCount: 16)
      state.recoveryLinks[code] = Enrolment.Link(email: email, issued: context.clock.now)
      state.outbox[email, default: []].append(code)
      return true
    }
    event(known ? "recovery link mailed to \(email)" : "recovery asked for an unknown address")
    if !known, behaviours.sessionRecoveryTellsUnknown {
      return error(404, "unknown_account", "No account uses this address.")
    }
    return noStore(.json(["status": "sent"], status: 202))
  }

  /// `onboarding/resolve {invitationCode}` or `account-recovery/resolve {recoveryCode}`: the
  /// token of a flow that a passkey or a password completes; never a session.
  private func resolve(_ request: HTTPRequest, purpose: Enrolment.Purpose, codeField: String)
    -> HTTPResponse
  {
    let code = fields(request)[codeField] as? String ?? ""
    return state.withLock { state -> HTTPResponse in
      let link = purpose == .onboarding ? state.invitations[code] : state.recoveryLinks[code]
      guard let link, !link.used else {
        return error(401, "invalid_credentials", "Unknown or used \(codeField).")
      }
      let ttl = purpose == .onboarding ? Enrolment.invitationTTL : Enrolment.recoveryLinkTTL
      guard
        behaviours.sessionEnrolmentNeverExpires
          || context.clock.now.timeIntervalSince(link.issued) < ttl
      else {
        return error(401, "challenge_expired", "The \(codeField) has expired.")
      }
      if purpose == .recovery, behaviours.sessionRecoveryLinkSignsIn {
        // The link alone signs in: what the contract rules out.
        state.recoveryLinks[code]?.used = true
        return openSession(for: link.email, body: [:], how: "recovery link", state: &state)
      }
      let token = context.secret(byteCount: 24)
      state.enrolments[token] = Enrolment(
        purpose: purpose, email: link.email, code: code, issued: context.clock.now)
      let field = purpose == .onboarding ? "onboardingToken" : "recoveryToken"
      return noStore(
        .json([field: token, "email": link.email, "methods": ["passkey", "password"]]))
    }
  }

  /// A step of an open flow: its token (`onboardingToken` or `recoveryToken`) checked.
  private func enrolment(
    _ request: HTTPRequest, _ purpose: Enrolment.Purpose,
    _ body: (Enrolment, inout State) -> HTTPResponse
  ) -> HTTPResponse {
    let field = purpose == .onboarding ? "onboardingToken" : "recoveryToken"
    let token = fields(request)[field] as? String ?? ""
    return state.withLock { state -> HTTPResponse in
      guard let flow = state.enrolments[token], flow.purpose == purpose, !flow.completed else {
        return error(401, "invalid_credentials", "Unknown or used \(field).")
      }
      guard context.clock.now.timeIntervalSince(flow.issued) < Enrolment.flowTTL else {
        return error(401, "challenge_expired", "The \(field) has expired.")
      }
      return body(flow, &state)
    }
  }

  /// The flow done: its token and its invitation or link used up (unless a control keeps
  /// them), the account made at onboarding, and a session opened like any login's.
  private func complete(
    _ flow: Enrolment, request: HTTPRequest, how: String, _ state: inout State
  ) -> HTTPResponse {
    if flow.purpose == .onboarding, state.passwords[flow.email] == nil {
      state.passwords[flow.email] = .some(nil)
      event("account \(flow.email) made at onboarding")
    }
    if !behaviours.sessionEnrolmentReusable {
      for (token, other) in state.enrolments where other.code == flow.code {
        state.enrolments[token]?.completed = true
      }
      if flow.purpose == .onboarding {
        state.invitations[flow.code]?.used = true
      } else {
        state.recoveryLinks[flow.code]?.used = true
      }
    }
    return openSession(
      for: flow.email, body: fields(request), how: "\(flow.purpose.rawValue) by \(how)",
      state: &state)
  }
}
