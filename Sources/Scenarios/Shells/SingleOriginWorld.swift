import Artifacts
import Devices
import HTTP
import MockStack
import QualifyCore
import StackPorts

/// Seed 000's world: the embedded stack (backend, IdP, bucket, push gateways) at the
/// build's origins.
final class SingleOriginWorld: ShellWorld {
  static let kind = ShellKind.singleOrigin
  let stack: Stack

  static func secureHosts(_ builds: [Platform: AppBuild]) -> Set<String> {
    builds.values.compactMap { try? StackTopology(build: $0) }.reduce(Set<String>()) {
      $0.union($1.secureHosts)
    }
  }

  static func caveats(_ builds: [Platform: AppBuild]) -> [String] {
    (builds.values.first.map(ShellWorlds.pushCaveats) ?? [])
      + (builds[.ios]?.features.push.enabled == true ? [apnsTransport] : [])
  }

  /// Apple's gateway speaks HTTP/2 only; the simulated one speaks HTTP/1.1 (libmicrohttpd has
  /// no HTTP/2), so a backend whose client cannot do HTTP/2 would pass here and fail at Apple.
  static let apnsTransport =
    "the simulated APNs gateway speaks HTTP/1.1, and Apple's accepts HTTP/2 only: the backend's requests were checked header by header, its HTTP/2 client was not"

  init(_ setup: ShellWorldSetup) throws {
    stack = try Stack(
      build: setup.configuration.build, material: setup.material, context: setup.context,
      identityProvider: setup.configuration.identityProvider, sharing: try setup.listeners())
  }

  var origins: [String: UInt16] { stack.origins }
  func ports(observer: HTTPClient) -> StackPorts { stack.ports(client: observer) }
  func stop() { stack.stop() }
}
