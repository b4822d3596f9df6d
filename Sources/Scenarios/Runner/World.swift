import Artifacts
import Devices
import Foundation
import HTTP
import MockStack
import QualifyCore

/// One execution's world: a fresh stack, fresh devices with the scenario's apps installed,
/// the virtual clock, and the evidence log everything writes to.
public final class World: @unchecked Sendable {
  public let configuration: WorldConfiguration
  public let clock: VirtualClock
  public let evidence: EvidenceLog
  public let redactor: Redactor
  public let stack: Stack
  public let environment: DeviceEnvironment
  public private(set) var devices: [String: Device] = [:]
  public private(set) var apps: [String: App] = [:]
  /// Declared users, by name.
  public private(set) var users: [String: String] = [:]
  /// The outcome of the last action.
  var lastOutcome: Outcome?
  /// Whether an expectation has examined the last outcome's problem.
  var problemExamined = false

  init(
    scenario: Scenario, configuration: WorldConfiguration, material: StackMaterial, seed: UInt64,
    label: String, redactor: Redactor
  ) throws {
    self.configuration = configuration
    self.redactor = redactor
    clock = VirtualClock()
    evidence = EvidenceLog()
    let random = RandomSource(seed: seed, label: label)
    let context = StackContext(
      clock: clock, random: random, evidence: evidence, redactor: redactor,
      channel: configuration.channel, behaviours: configuration.stack)
    stack = try Stack(build: configuration.build, material: material, context: context)
    environment = DeviceEnvironment(
      clock: clock, random: RandomSource(seed: seed, label: label + "/devices"), evidence: evidence,
      redactor: redactor, trustedCertificatesPEM: material.authority.certificatePEM,
      origins: stack.origins)
    do {
      for declaration in scenario.devices {
        devices[declaration.name] = Device(
          name: declaration.name, platform: configuration.platform,
          hasPlayServices: declaration.hasPlayServices, environment: environment)
      }
      for declaration in scenario.apps {
        guard let device = devices[declaration.device] else { continue }
        apps[declaration.name] = try device.install(
          configuration.build, name: declaration.name, behaviours: configuration.shell)
      }
      for user in scenario.users { users[user] = user }
    } catch {
      stack.stop()
      throw error
    }
  }

  /// Stops the stack's servers.
  func tearDown() {
    stack.stop()
  }

  /// Records a note in the evidence.
  func note(_ source: String, _ summary: String, detail: String = "") {
    evidence.append(
      Evidence(
        kind: .note, source: source, summary: redactor.redact(summary),
        detail: redactor.redact(detail), time: clock.now))
  }
}

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
}

/// What an expectation's check gets.
public struct ExpectationContext {
  public let world: World
  public let outcome: Outcome?
  public let arguments: Arguments
  public let negated: Bool
}

/// An action could not be carried out for a reason that is the harness's or the scenario's,
/// not the app's: the execution ends in `error`.
public struct ScenarioRuntimeError: Error, CustomStringConvertible, Sendable {
  public var description: String
  public init(_ description: String) { self.description = description }
}
