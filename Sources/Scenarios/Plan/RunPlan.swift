import Artifacts
import Devices
import HTTP
import MockStack
import QualifyCore
import StackPorts

/// What a run covers, certifies and must say about itself, decided from the command line's
/// selection, the app's builds and the real parts of the stack before anything starts: the
/// scenarios and runs it selects and how many run at once (`RunPlan+Selection`), the hosts
/// the run's CA names, and the caveats the terminal, the report and the summary print, each
/// kind's from its own world type. `RunCommand` parses the options and dispatches.
public enum RunPlan {
  /// The hosts the world serves over TLS, so the run's certificate authority names them.
  public static func secureHosts(shell: ShellKind, builds: [Platform: AppBuild]) -> Set<String> {
    ShellWorlds.type(of: shell).secureHosts(builds)
  }

  /// What the verdict does not prove, in the order it is printed: the real systems first,
  /// then what the app's own configuration left to the harness.
  public static func caveats(builds: [Platform: AppBuild], real: RealSystems?) -> [String] {
    var caveats: [String] = []
    if let idp = real?.identityProvider {
      caveats.append(
        idp.admin == nil
          ? "the identity provider is the real one at \(idp.issuer) (\(idp.profile)); it gives no event feed, so single sign-on is proven browser-side (/authorize reached, no login form, a code delivered); scenarios and controls that would change the IdP are not applicable"
          : "the identity provider is the real one at \(idp.issuer) (\(idp.profile)); single sign-on is proven by its own events (Keycloak's admin API, realm \(idp.admin?.realm ?? "")); scenarios and controls that would change the IdP are not applicable"
      )
      caveats += idp.unchecked
    }
    if let backend = real?.backend {
      caveats.append(
        "the backend is the real one at \(backend.origin): the devices call it; the controls that change the backend run against the embedded backend at its address, and scenarios that move its clock (advance) are not applicable"
      )
    }
    if let instances = real?.instances, !instances.isEmpty {
      caveats.append(
        "real instances: \(instances.sorted { $0.key < $1.key }.map { "\($0.key) at \($0.value)" }.joined(separator: ", ")): onboarding checks them at /api/instance and the shell loads their pages; the other sites stay mocked"
      )
    }
    if let ota = real?.ota {
      caveats.append(
        "the OTA channel is the real one at \(ota.manifestURL): its live bundle is verified with the build's own key; scenarios that publish to the bucket are not applicable"
      )
    }
    if let build = builds.values.first, build.features.ota.enabled,
      build.frontend.otaPrivateKey == nil
    {
      caveats.append(
        "the OTA key pairing was not verified: the signing key (MOBILE_OTA_SIGNING_PRIVATE_KEY_B64) is in neither the app's env nor qualify's environment, so bundles were signed with a harness key whose public half the simulated build bakes in"
      )
    }
    if let shell = builds.values.first?.shell {
      caveats += ShellWorlds.type(of: shell).caveats(builds)
    }
    return caveats
  }
}
