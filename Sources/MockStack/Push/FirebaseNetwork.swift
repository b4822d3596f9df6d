import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

/// What Google knows of a Firebase project: its id, the Android packages registered in it,
/// and its service accounts (by `client_email`, the public half of each key, by key id).
public struct FirebaseProject: Sendable {
  public var projectId: String
  public var packages: Set<String>
  public var serviceAccounts: [String: (keyId: String, key: Key)]

  public init(
    projectId: String, packages: Set<String>,
    serviceAccounts: [String: (keyId: String, key: Key)]
  ) {
    self.projectId = projectId
    self.packages = packages
    self.serviceAccounts = serviceAccounts
  }
}

/// What FCM keeps between Play services on the phone and the HTTP v1 API: the state of
/// `FCMStateMachine` and what was delivered to each token.
final class FirebaseNetwork: Sendable {
  private struct State: Sendable {
    var machine: FCMStateMachine
    var inbox: [String: [String]] = [:]
  }

  private let state: Locked<State>
  let projects: [String: FirebaseProject]

  init(projects: [FirebaseProject], behaviours: FCMStateMachine.Behaviours) {
    let machine = FCMStateMachine(projects: projects, behaviours: behaviours)
    self.projects = machine.projects
    state = Locked(State(machine: machine))
  }

  /// A registration token for `package` in `project`; nil when the project has no client
  /// for the package.
  func mint(project: String, package: String, random: RandomSource) -> String? {
    let value = random.token(byteCount: 24) + ":APA91b" + random.token(byteCount: 60)
    return state.withLock { $0.machine.register(project: project, package: package, value: value) }
  }

  func unregister(_ value: String) { state.withLock { $0.machine.unregister(value) } }

  func grant(_ assertion: FCMStateMachine.Assertion, accessToken: String, now: Date)
    -> FCMStateMachine.Grant
  {
    state.withLock { $0.machine.grant(assertion, accessToken: accessToken, now: now) }
  }

  /// FCM answers `error` to the next `times` sends.
  func fail(_ error: FCMStateMachine.ServiceError, times: Int) {
    state.withLock { $0.machine.fail(error, times: times) }
  }

  /// Decides `send`; an accepted message lands in the device's inbox.
  func send(_ send: FCMStateMachine.Send, message: String, now: Date) -> FCMStateMachine.Answer {
    state.withLock { state in
      let answer = state.machine.answer(send, now: now)
      if case .accepted = answer, let token = send.token {
        state.inbox[token, default: []].append(message)
      }
      return answer
    }
  }

  func drain(_ token: String) -> [String] {
    state.withLock { state in
      defer { state.inbox[token] = [] }
      return state.inbox[token] ?? []
    }
  }
}
