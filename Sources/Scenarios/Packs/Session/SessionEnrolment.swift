import Devices
import Foundation
import HTTP
import MockStack
import QualifyCore
import StackPorts

/// Seed 002's onboarding and account recovery: an invitation (made by the mock backend's
/// hook, as an organisation's admin would) or a mailed link (read from the mock's outbox, as
/// the user reads their mail) opens a flow, which a passkey or a password completes.
extension SessionPack {
  static let enrolmentActions: [ActionSpec] = [
    ActionSpec(
      .world, "the backend invites a newcomer",
      summary:
        "An invitation to a new address (`newcomerN@` the API host): its code is what the app's onboarding screen is given.",
      example: "the backend invites a newcomer", powers: [.backendHook]
    ) { context in
      guard let world = context.world.session, let host = world.stack?.backend.origin.host else {
        throw PortUnsupported("invitations are made by the embedded backend's hook")
      }
      let email = "newcomer\(world.invitations.count + 1)@\(host)"
      let answer = try context.world.sessionBackendHook(
        "/_qualify/invite", form: "email=" + Query.escape(email))
      guard let code = (answer.jsonObject as? [String: Any])?["invitationCode"] as? String else {
        throw ScenarioRuntimeError("the backend made no invitation for \(email)")
      }
      world.invitations.append(code)
      return Outcome("\(email) is invited")
    },
    ActionSpec(
      .app, "accepts the invitation",
      summary:
        "`POST /v1/public/onboarding/resolve` with the last invitation's code: an onboarding token, never a session.",
      example: "heymoov accepts the invitation"
    ) { context in
      let client = try context.sessionClient()
      guard let code = context.world.session?.invitations.last else {
        throw ScenarioRuntimeError("no invitation was made: `the backend invites a newcomer` first")
      }
      client.acceptInvitation(code)
      return outcome(
        client, "accepted the invitation", path: SessionClient.onboarding + "/resolve")
    },
    ActionSpec(
      .app, "asks to recover the account of", [.value("user", .user)],
      summary:
        "`POST /v1/public/account-recovery/request` with the user's address: a link is mailed.",
      example: "heymoov asks to recover the account of first"
    ) { context in
      let client = try context.sessionClient()
      let email = try context.userAddress()
      client.requestRecovery(email: email)
      return outcome(
        client, "asked to recover \(email)", path: SessionClient.recovery + "/request")
    },
    ActionSpec(
      .app, "asks to recover an unknown account",
      summary:
        "The same request for an address no account uses: the answer must not tell it apart.",
      example: "heymoov asks to recover an unknown account"
    ) { context in
      let client = try context.sessionClient()
      client.requestRecovery(email: "nobody@unknown.example")
      return outcome(
        client, "asked to recover an unknown address", path: SessionClient.recovery + "/request")
    },
    ActionSpec(
      .app, "opens the recovery link of", [.value("user", .user)],
      summary:
        "The last recovery link mailed to the user, opened in the app (`account-recovery/resolve`): a recovery token, never a session.",
      example: "heymoov opens the recovery link of first", powers: [.backendHook]
    ) { context in
      let client = try context.sessionClient()
      let email = try context.userAddress()
      let mail = try context.world.sessionBackendHook(
        "/_qualify/outbox", form: "email=" + Query.escape(email))
      guard let code = ((mail.jsonObject as? [String: Any])?["recoveryCodes"] as? [String])?.last
      else { throw ScenarioRuntimeError("no recovery link was mailed to \(email)") }
      client.openRecoveryLink(code)
      return outcome(
        client, "opened the recovery link", path: SessionClient.recovery + "/resolve")
    },
    ActionSpec(
      .app, "finishes with a password",
      summary:
        "The open onboarding or recovery flow completed with a new password (`…/password/complete`): the envelope, like a login's.",
      example: "heymoov finishes with a password"
    ) { context in
      let client = try context.sessionClient()
      let path = (client.openFlow?.prefix ?? "") + "/password/complete"
      client.finishWithPassword()
      return outcome(client, "finished with a password", path: path)
    },
    ActionSpec(
      .app, "finishes with a passkey",
      summary:
        "The open onboarding or recovery flow completed with a passkey the device makes (`…/passkey/options` then `verify`).",
      example: "heymoov finishes with a passkey"
    ) { context in
      let client = try context.sessionClient()
      let path = (client.openFlow?.prefix ?? "") + "/passkey/verify"
      client.finishWithPasskey()
      return outcome(client, "finished with a passkey", path: path)
    },
    ActionSpec(
      .app, "signs in with its new password",
      summary: "Password login with the password this app set at onboarding or recovery.",
      example: "heymoov signs in with its new password"
    ) { context in
      let client = try context.sessionClient()
      client.logInWithChosenPassword()
      return outcome(
        client, "signed in with its new password", path: "/v1/mobile/auth/password/login")
    },
  ]
}

extension ActionContext {
  /// The address of the test user the step names.
  func userAddress() throws -> String {
    guard let role = arguments["user"], let user = world.users[role] else {
      throw ScenarioRuntimeError("no test user for \(arguments["user"] ?? "?")")
    }
    return user.email ?? user.username
  }
}
