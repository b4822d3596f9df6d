import Artifacts
import Devices
import HTTP
import MockStack
import QualifyCore
import StackPorts

/// One shell kind's part of a world: the servers the kind mounts for an execution, the shells
/// it installs beside each app, what it does when a step begins and how it stops. The world
/// holds one, made by the kind's type from the registry; nothing outside a kind's own type
/// asks which kind it is.
///
/// A new kind adds its type here (a file in its pack's folder) and a line in `ShellWorlds.all`.
protocol ShellWorld: AnyObject, SendableMetatype {
  /// The kind whose world this is.
  static var kind: ShellKind { get }
  /// The hosts this kind's servers answer over TLS, which the run's certificate names.
  static func secureHosts(_ builds: [Platform: AppBuild]) -> Set<String>
  /// What a run of this kind must say about what its verdict does not prove.
  static func caveats(_ builds: [Platform: AppBuild]) -> [String]
  /// Mounts the kind's servers for one execution.
  init(_ setup: ShellWorldSetup) throws
  /// Public authority (`host:port`) → loopback port, for the devices' resolver.
  var origins: [String: UInt16] { get }
  /// The accounts the kind's own backend knows, nil when it has none.
  var testUsers: [RealmSettings.User]? { get }
  /// The ports the harness observes this kind's systems through, asking them with `observer`
  /// (which trusts the deployment's certificates whatever the devices are shown).
  func ports(observer: HTTPClient) -> StackPorts
  /// Installs the kind's shell beside an app of this kind just installed on `device`.
  func install(_ build: AppBuild, name: String, on device: Device, behaviours: ShellBehaviours)
    throws
  /// A step begins: the shells forget what they did in the last one.
  func markStep()
  func stop()
}

extension ShellWorld {
  var testUsers: [RealmSettings.User]? { nil }
  func ports(observer: HTTPClient) -> StackPorts { StackPorts() }
  func install(_ build: AppBuild, name: String, on device: Device, behaviours: ShellBehaviours)
    throws
  {}
  func markStep() {}

  static func caveats(_ builds: [Platform: AppBuild]) -> [String] {
    builds.values.first.map(ShellWorlds.pushCaveats) ?? []
  }
}

extension ShellWorlds {
  /// What a run says of the push keys when the backend sends with the env's.
  static func pushCaveats(of build: AppBuild) -> [String] {
    guard build.features.push.enabled, let backend = build.backend else { return [] }
    let withheld = PushCredentials.withheld(backend)
    return [
      withheld.isEmpty
        ? "the push keys were used as the backend env gives them; whether Apple and Google know them (the key id in the team, the service account's messaging role) cannot be checked in simulation"
        : "the push credentials were not verified: \(withheld.joined(separator: ", ")) \(withheld.count == 1 ? "is" : "are") not in the backend env, so the backend sent with harness keys; the environment, topic and Firebase project pairing was checked, the keys' registration with Apple and Google was not"
    ]
  }
}

/// What a kind's world is made from.
struct ShellWorldSetup {
  var configuration: WorldConfiguration
  var material: StackMaterial
  var context: StackContext
  /// The worker's listeners, when the world shares them (nil: the world binds its own).
  var listeners: () throws -> StackListeners?
}

/// The registry of shell kinds' worlds.
enum ShellWorlds {
  static let all: [any ShellWorld.Type] = [
    SingleOriginWorld.self, InstanceWorld.self, SessionWorld.self, HybridWorld.self,
    BridgeWorld.self,
  ]

  static func type(of kind: ShellKind) -> any ShellWorld.Type {
    guard let type = all.first(where: { $0.kind == kind }) else {
      preconditionFailure("shell kind \(kind.id) has no world in ShellWorlds.all")
    }
    return type
  }
}

extension World {
  /// The world of the kind `T`, nil when the app is of another kind.
  func shellWorld<T: ShellWorld>(as type: T.Type) -> T? { shellWorld as? T }
}
