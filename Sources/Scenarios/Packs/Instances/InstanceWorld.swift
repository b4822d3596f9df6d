import Artifacts
import Devices
import MockStack
import QualifyCore

/// Seed 004's world: no backend of its own, the user's instance sites instead, and the
/// multi-instance shells beside the apps.
final class InstanceWorld: ShellWorld {
  static let kind = ShellKind.multiInstance
  let servers: InstanceServers
  /// The multi-instance shells, by app name.
  private(set) var shells: [String: InstanceShell] = [:]

  static func secureHosts(_ builds: [Platform: AppBuild]) -> Set<String> {
    InstanceServers.secureHosts
  }

  /// A decision of the local page qualify found and could not evaluate: said, with where.
  static func caveats(_ builds: [Platform: AppBuild]) -> [String] {
    let unread = Set(
      builds.values.compactMap { $0.instanceShell?.code.bootRedirectUnread }.map {
        "boot()'s redirect if (\($0.value)) at \($0.origin) is unverified: qualify does not evaluate it, and the checks that rest on it are not applicable"
      })
    let handler = Set(
      builds.values.compactMap { build -> String? in
        guard build.instanceShell?.deepLinkScheme != nil,
          let code = build.instanceShell?.code, code.deepLinkHandlerNavigates == nil,
          let unread = code.deepLinkHandlerUnread
        else { return nil }
        return
          "the deep link's handler is unverified\(unread.location.map { " at \($0)" } ?? ""), so the deep-link checks are not applicable: \(unread.value)"
      })
    let unfound = Set(
      builds.values.compactMap { $0.instanceShell?.code.bootUnfound }.map {
        "the local page's boot() is unverified, so what a load does is not known: \($0.value)"
      })
    return unread.sorted() + unfound.sorted() + handler.sorted()
      + (builds.values.first.map(ShellWorlds.pushCaveats) ?? [])
  }

  init(_ setup: ShellWorldSetup) throws {
    servers = try InstanceServers(material: setup.material, sharing: try setup.listeners())
  }

  var origins: [String: UInt16] { servers.origins }

  func install(_ build: AppBuild, name: String, on device: Device, behaviours: ShellBehaviours)
    throws
  {
    shells[name] = try device.installInstanceShell(build, name: name, behaviours: behaviours)
  }

  func markStep() {
    for shell in shells.values { shell.markStep() }
  }

  func stop() { servers.stop() }
}

extension World {
  var instances: InstanceWorld? { shellWorld(as: InstanceWorld.self) }
}
