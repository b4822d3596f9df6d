import Artifacts
import Devices
import Foundation
import HTTP
import MockStack
import OTA
import QualifyCore
import QualifyCrypto
import ResultModel
import StackPorts

/// What an action's implementation gets.
public struct ActionContext {
  public let world: World
  /// The acting app, for app actions.
  public let app: App?
  public let arguments: Arguments

  /// The acting app; app actions always have one (the parser checks it).
  func requireApp() throws -> App {
    guard let app else { throw ScenarioRuntimeError("this action needs an app") }
    return app
  }

  /// The declared app named by parameter `name`.
  func app(_ name: String) throws -> App {
    guard let value = arguments[name], let app = world.apps[value] else {
      throw ScenarioRuntimeError("no app \(arguments[name] ?? name) in this world")
    }
    return app
  }

  /// The credentials of the user named by parameter `name`, if given.
  func credentials(_ name: String = "user") -> Credentials? {
    guard let user = arguments[name].flatMap({ world.users[$0] }) else { return nil }
    return Credentials(
      username: user.username, password: user.password ?? "",
      rememberMe: arguments.has("remember-me"))
  }
}

/// What an expectation's check gets.
public struct ExpectationContext {
  public let world: World
  public let outcome: Outcome?
  public let arguments: Arguments
  public let negated: Bool
}

extension ExpectationContext {
  /// A failure with `reason`.
  func fail(
    _ reason: FailureReason, _ detail: String? = nil, _ message: String, fix: String? = nil
  ) -> Failure {
    Failure(reason, detail, message, fix: fix)
  }

  /// The failure of an expectation that needed a response and got none: the action's own
  /// problem when it had one (a refusal, a transport error), else `no-response`.
  func noResponse(_ message: String) -> Failure {
    Failure(outcome?.problem?.reason ?? .noResponse, nil, message)
  }

  /// The failure of an expectation that found no outcome of the kind it examines.
  func missing(_ reason: FailureReason, _ message: String) -> Failure {
    Failure(reason, nil, message)
  }

  /// The username the role in parameter `name` is bound to.
  func username(_ name: String = "user") -> String? {
    arguments[name].map { world.users[$0]?.username ?? $0 }
  }

  /// The name the backend knows the user by: the IdP's subject when the stack file maps one
  /// (a real IdP's opaque `sub`), else the username.
  func backendIdentity(_ name: String = "user") -> String? {
    arguments[name].map { world.users[$0].map { $0.subject ?? $0.username } ?? $0 }
  }

  /// Every name the backend may know the user as: the username, the IdP's subject, the email.
  func identities(_ name: String = "user") -> Set<String> {
    guard let role = arguments[name] else { return [] }
    guard let user = world.users[role] else { return [role] }
    return Set([user.username, user.subject, user.email].compactMap { $0 })
  }

  /// `first (user1@example.local)` for messages.
  func userLabel(_ name: String = "user") -> String? {
    guard let role = arguments[name] else { return nil }
    guard let username = world.users[role]?.username else { return role }
    return "\(role) (\(username))"
  }
}

/// What a step checks does not apply to this build (a guard over an env the channel did not
/// supply): the scenario is not applicable rather than passed or failed.
public struct ScenarioNotApplicable: Error, Sendable {
  public var reason: String
  /// Why, when the step knows (the app's own build makes it inapplicable: `declared`); nil
  /// leaves the runner to decide (a real system, or the channel's env).
  public var cause: NotApplicableCause?
  public init(_ reason: String, cause: NotApplicableCause? = nil) {
    self.reason = reason
    self.cause = cause
  }
}

/// An action could not be carried out for a reason that is the harness's or the scenario's,
/// not the app's: the execution ends in `error`.
public struct ScenarioRuntimeError: Error, CustomStringConvertible, Sendable {
  public var description: String
  public init(_ description: String) { self.description = description }
}
