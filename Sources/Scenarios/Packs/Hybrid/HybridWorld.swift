import Artifacts
import Devices
import HTTP
import MockStack
import QualifyCore
import StackPorts

/// Seed 003's world: the site and Firebase, and the hybrid WebView containers beside the apps.
final class HybridWorld: ShellWorld {
  static let kind = ShellKind.hybridWebView
  let servers: HybridServers
  /// The hybrid WebView containers, by app name.
  private(set) var shells: [String: HybridShell] = [:]

  static func secureHosts(_ builds: [Platform: AppBuild]) -> Set<String> {
    builds.values.reduce(Set<String>()) { $0.union(HybridServers.secureHosts($1)) }
  }

  static func caveats(_ builds: [Platform: AppBuild]) -> [String] {
    [
      "the site's service account is the harness's own, in the project FIREBASE_PROJECT_ID names: the pairing of the app's Firebase config with that project was checked, whether Google knows the account's key was not"
    ]
  }

  init(_ setup: ShellWorldSetup) throws {
    servers = try HybridServers(
      build: setup.configuration.build, material: setup.material, context: setup.context,
      sharing: try setup.listeners())
  }

  var origins: [String: UInt16] { servers.origins }
  var testUsers: [RealmSettings.User]? { servers.backend.testUsers }

  func ports(observer: HTTPClient) -> StackPorts {
    StackPorts(hybridSite: HTTPHybridSite(origin: servers.backend.origin, client: observer))
  }

  func install(_ build: AppBuild, name: String, on device: Device, behaviours: ShellBehaviours)
    throws
  {
    shells[name] = try device.installHybridShell(build, name: name)
  }

  func stop() { servers.stop() }
}

extension World {
  var hybrid: HybridWorld? { shellWorld(as: HybridWorld.self) }
}
