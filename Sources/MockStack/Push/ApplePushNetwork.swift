import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

/// An APNs environment: development-signed builds get sandbox tokens, distribution builds
/// production ones (seed 000, checklist item 8; DESIGN.md rule 14).
public enum APNsEnvironment: String, Sendable, CaseIterable {
  case development, production

  /// The gateway that accepts tokens of this environment.
  public var origin: Origin {
    self == .development ? StackTopology.apnsSandbox : StackTopology.apnsProduction
  }
}

/// What Apple knows of the app's developer account: the team, its APNs auth keys (by key
/// id, the public half of each `.p8`) and the App IDs with the Push capability.
public struct AppleDeveloperAccount: Sendable {
  public var teamId: String
  public var keys: [String: Key]
  public var pushBundleIds: Set<String>

  public init(teamId: String, keys: [String: Key], pushBundleIds: Set<String>) {
    self.teamId = teamId
    self.keys = keys
    self.pushBundleIds = pushBundleIds
  }
}

/// The device tokens of both APNs environments and what was delivered to them: the state
/// Apple keeps between the device's OS and the provider API, shared by both gateways.
final class ApplePushNetwork: Sendable {
  let account: AppleDeveloperAccount
  private struct State: Sendable {
    var machine: APNsStateMachine
    var inbox: [String: [String]] = [:]
  }

  private let state: Locked<State>

  init(account: AppleDeveloperAccount, behaviours: APNsStateMachine.Behaviours) {
    self.account = account
    state = Locked(
      State(
        machine: APNsStateMachine(
          teamId: account.teamId, pushBundleIds: account.pushBundleIds, behaviours: behaviours)))
  }

  /// A new device token (64 hex characters) for an app of `bundleId` in `environment`; nil
  /// when its App ID has no Push capability.
  func mint(_ environment: APNsEnvironment, bundleId: String, random: RandomSource) -> String? {
    let value = random.hex(byteCount: 32)
    return state.withLock { $0.machine.register(bundleId: bundleId, in: environment, value: value) }
  }

  func token(_ value: String) -> APNsStateMachine.Token? {
    state.withLock { $0.machine.tokens[value] }
  }

  func unregister(_ value: String, at time: Date) {
    state.withLock { $0.machine.unregister(value, at: time) }
  }

  /// Decides `push`; an accepted one lands in the device's inbox.
  func send(_ push: APNsStateMachine.Push, payload: String, now: Date) -> APNsStateMachine.Answer {
    state.withLock { state in
      let answer = state.machine.receive(push, now: now)
      if answer == .accepted { state.inbox[push.token, default: []].append(payload) }
      return answer
    }
  }

  /// What arrived for `token` since the last call.
  func drain(_ token: String) -> [String] {
    state.withLock { state in
      defer { state.inbox[token] = [] }
      return state.inbox[token] ?? []
    }
  }
}
