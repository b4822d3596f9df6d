import Artifacts
import Devices
import HTTP
import MockStack
import QualifyCore
import StackPorts

/// Seed 002's world: the session-contract backend at the app's API origin (none when the
/// backend is the real one, `--stack`), and the session clients beside the apps.
final class SessionWorld: ShellWorld {
  static let kind = ShellKind.sessionContract
  /// The embedded backend; nil against a real one, which is reached over the network.
  let stack: SessionStack?
  /// The session-contract clients, by app name.
  private(set) var clients: [String: SessionClient] = [:]
  /// The codes of the invitations the backend made, oldest first.
  var invitations: [String] = []

  static func secureHosts(_ builds: [Platform: AppBuild]) -> Set<String> {
    Set(builds.values.compactMap { Origin(url: $0.frontend.apiOrigin.value)?.host })
  }

  init(_ setup: ShellWorldSetup) throws {
    let build = setup.configuration.build
    stack =
      setup.material.real?.backend == nil
      ? try Origin(url: build.frontend.apiOrigin.value).map {
        try SessionStack(
          apiOrigin: $0, material: setup.material, context: setup.context,
          accounts: build.testUsers, sharing: try setup.listeners())
      } : nil
  }

  var origins: [String: UInt16] { stack?.origins ?? [:] }
  var testUsers: [RealmSettings.User]? { stack?.backend.testUsers }

  func install(_ build: AppBuild, name: String, on device: Device, behaviours: ShellBehaviours)
    throws
  {
    clients[name] = try device.installSessionClient(build, name: name, behaviours: behaviours)
  }

  func markStep() {
    for client in clients.values { client.markStep() }
  }

  func stop() { stack?.stop() }
}

extension World {
  var session: SessionWorld? { shellWorld(as: SessionWorld.self) }
}

extension ActionContext {
  /// The acting app's session client.
  func sessionClient() throws -> SessionClient {
    let app = try requireApp()
    guard let client = world.session?.clients[app.name] else {
      throw ScenarioRuntimeError("\(app.name) is not a session-contract app")
    }
    return client
  }
}

extension ExpectationContext {
  func sessionClient(_ name: String) throws -> SessionClient {
    guard let value = arguments[name], let client = world.session?.clients[value] else {
      throw ScenarioRuntimeError("no session-contract app \(arguments[name] ?? name) in this world")
    }
    return client
  }
}

extension World {
  /// The session-contract client named `name`.
  func sessionClient(named name: String?) throws -> SessionClient {
    guard let name, let client = session?.clients[name] else {
      throw ScenarioRuntimeError("no session-contract app \(name ?? "?") in this world")
    }
    return client
  }

  /// A hook of the mock backend (what happens elsewhere in the product), and its answer.
  @discardableResult
  func sessionBackendHook(_ path: String, form: String) throws -> HTTPResponse {
    guard let backend = session?.stack?.backend else {
      throw PortUnsupported("the contract backend is a real system: it has no hook to \(path)")
    }
    return backend.handle(
      HTTPRequest(
        method: "POST", target: path,
        headers: [
          "Content-Type": "application/x-www-form-urlencoded", "Host": backend.origin.hostHeader,
        ],
        body: Array(form.utf8), scheme: backend.origin.scheme))
  }
}
