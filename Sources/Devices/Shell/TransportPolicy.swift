import Artifacts
import HTTP
import QualifyCore

/// What the platform's network security lets the native HTTP stack reach, derived from the
/// build as it ships (DESIGN.md fidelity rule 16): iOS App Transport Security from the
/// shipped Info.plist, Android's cleartext policy from the manifest, its network security
/// config and Capacitor's `server.cleartext`, host by host.
public struct TransportPolicy: Sendable {
  public let platform: Platform
  let transport: TransportSettings
  let ignored: Bool

  public init(build: AppBuild, behaviours: ShellBehaviours) {
    platform = build.platform
    transport = build.transport
    ignored = behaviours.ignoresTransportPolicy
  }

  /// Why a request to `url` is refused before it leaves the device, or nil when allowed.
  public func refusal(for url: String) -> String? {
    guard !ignored, let origin = Origin(url: url), !origin.isSecure else { return nil }
    switch platform {
    case .ios:
      if origin.isIPLiteral { return nil }  // ATS does not apply to IP literals.
      let ats = transport.atsShipped
      if ats?.allowsArbitraryLoads?.value == true { return nil }
      if origin.isLocal, ats?.allowsLocalNetworking?.value == true { return nil }
      if (ats?.insecureExceptionDomains ?? []).contains(where: {
        origin.host == $0.value || origin.host.hasSuffix("." + $0.value)
      }) {
        return nil
      }
      return
        "App Transport Security has blocked a cleartext HTTP (http://) resource load to \(origin.hostHeader): the shipped Info.plist has no NSAppTransportSecurity exception for it"
    case .android:
      let decision = transport.androidCleartext(host: origin.host)
      if decision.value { return nil }
      let source =
        transport.networkSecurityConfig.map { "\($0.file) permits none for it" }
        ?? "android:usesCleartextTraffic / server.cleartext not set"
      return
        "CLEARTEXT communication to \(origin.host) not permitted by network security policy (\(source))"
    }
  }
}
