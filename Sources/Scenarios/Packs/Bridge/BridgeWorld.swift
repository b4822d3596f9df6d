import Artifacts
import Devices
import HTTP
import MockStack
import QualifyCore
import StackPorts

/// Seed 001's world: the web app with its handoff server, and the React Native bridge shells
/// beside the apps.
final class BridgeWorld: ShellWorld {
  static let kind = ShellKind.reactNativeBridge
  let servers: BridgeServers
  /// The React Native bridge shells, by app name.
  private(set) var shells: [String: BridgeShell] = [:]
  /// The answers of the last racing handoff redemptions.
  var race: [HTTPResponse] = []

  static func secureHosts(_ builds: [Platform: AppBuild]) -> Set<String> {
    builds.values.reduce(Set<String>()) { $0.union(BridgeServers.secureHosts($1)) }
  }

  static func caveats(_ builds: [Platform: AppBuild]) -> [String] {
    guard let build = builds.values.first else { return [] }
    guard let bridge = build.bridge else { return ShellWorlds.pushCaveats(of: build) }
    let unavailable = bridge.unavailableCapabilities
    // A refusal qualify could not evaluate is neither passed nor failed: said, with where.
    let unjudged = bridge.receiverUnjudgedRefusals.map {
      "receive()'s refusal if (\($0.value)) at \($0.origin) is unverified: qualify does not evaluate it, and the simulated receiver lets a well-formed message past it"
    }
    return unjudged + [
      bridge.dispatcherComposed?.value == true
        ? "the shell composes a dispatcher (\(bridge.dispatcherComposed?.origin ?? "App.tsx")); capabilities reported unavailable: \(unavailable.isEmpty ? "none" : unavailable.joined(separator: ", "))"
        : "the shell reports \(unavailable.isEmpty ? "no capability" : unavailable.joined(separator: ", ")) unavailable: App.tsx composes no dispatcher (\(bridge.dispatcherComposed?.origin ?? "App.tsx")), so every command but event.ack is answered unsupported-capability — the sign-in handoff is qualified as components (SystemAuthSession and the server), not as an installed sign-in; this is not a working navigation release"
    ]
  }

  init(_ setup: ShellWorldSetup) throws {
    servers = try BridgeServers(
      build: setup.configuration.build, material: setup.material, context: setup.context,
      sharing: try setup.listeners())
  }

  var origins: [String: UInt16] { servers.origins }

  func ports(observer: HTTPClient) -> StackPorts {
    let server = servers.server
    return StackPorts(
      handoff: HTTPHandoffServer(
        origin: server.origin, login: server.login, password: server.password, client: observer))
  }

  func install(_ build: AppBuild, name: String, on device: Device, behaviours: ShellBehaviours)
    throws
  {
    shells[name] = try device.installBridgeShell(build, name: name, behaviours: behaviours)
  }

  func stop() { servers.stop() }
}

extension World {
  var bridge: BridgeWorld? { shellWorld(as: BridgeWorld.self) }
}
