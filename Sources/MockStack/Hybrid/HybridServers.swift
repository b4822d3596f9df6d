import Artifacts
import Foundation
import HTTP
import QualifyCore

/// The world of a hybrid WebView app (seed 003): its site at the origin the containers load,
/// and Firebase — Google's OAuth token endpoint and FCM HTTP v1, holding the project of the
/// app's Firebase config (its registered apps) and the service account of the project the
/// backend sends with.
public final class HybridServers: Sendable {
  public let backend: HybridBackend
  private let mounted: MountedHosts
  /// The back channel is held weakly by its users and reaches the hosts through weak
  /// references: all of them live as long as this.
  private let hosts: (secure: VirtualHosts, cleartext: VirtualHosts)
  private let channel: BackChannel

  /// Host names that need a certificate for `build`'s world.
  public static func secureHosts(_ build: AppBuild) -> Set<String> {
    var hosts: Set<String> = [StackTopology.fcm.host, StackTopology.googleOAuth.host]
    if let host = build.hybrid?.host, !host.isEmpty { hosts.insert(host) }
    return hosts
  }

  public init(
    build: AppBuild, material: StackMaterial, context: StackContext,
    sharing listeners: StackListeners? = nil, ports: (https: UInt16, http: UInt16) = (0, 0)
  ) throws {
    guard let hybrid = build.hybrid, let origin = Origin(url: hybrid.webOrigin.value) else {
      throw StackError("the app names no site (hybrid.webOrigin)")
    }
    let secure = VirtualHosts()
    let cleartext = VirtualHosts()
    hosts = (secure, cleartext)
    let channel = BackChannel(secure: secure, cleartext: cleartext, context: context)
    self.channel = channel
    // The backend's service account belongs to the project it sends with.
    var credentials = try material.harnessPushCredentials()
    let senderProject = hybrid.backendFirebaseProject?.value ?? "appplatform"
    credentials.fcmAccountProject = senderProject
    credentials.fcmClientEmail = "qualify-harness@\(senderProject).iam.gserviceaccount.com"
    backend = HybridBackend(
      origin: origin, build: build, context: context,
      sender: FCMSender(
        credentials: credentials, context: context, backChannel: channel.send("site")))
    secure.add(origin.hostHeader, backend)
    cleartext.add(origin.host, RedirectToHTTPS(origin: origin))

    var projects: [String: FirebaseProject] = [:]
    if let app = hybrid.firebaseProject?.value {
      projects[app] = FirebaseProject(
        projectId: app, packages: Set(hybrid.firebaseApps.map(\.value)), serviceAccounts: [:])
    }
    var sender =
      projects[senderProject]
      ?? FirebaseProject(projectId: senderProject, packages: [], serviceAccounts: [:])
    sender.serviceAccounts[credentials.fcmClientEmail] = (
      credentials.fcmKeyId, credentials.fcmPublicKey
    )
    projects[senderProject] = sender
    let firebase = FirebaseNetwork(
      projects: Array(projects.values),
      behaviours: FCMStateMachine.Behaviours(ignoresProject: context.behaviours.fcmIgnoresProject))
    secure.add(StackTopology.fcm.hostHeader, FCMGateway(network: firebase, context: context))
    secure.add(
      StackTopology.googleOAuth.hostHeader, GoogleOAuth(network: firebase, context: context))
    mounted = try MountedHosts(
      secure: secure, cleartext: cleartext,
      origins: [origin, StackTopology.fcm, StackTopology.googleOAuth], material: material,
      sharing: listeners,
      credentials: context.behaviours.untrustedCertificate ? material.untrustedCredentials : nil,
      ports: ports)
  }

  /// Public authority (`host:port`) → loopback port.
  public var origins: [String: UInt16] { mounted.origins }
  /// The loopback ports of the HTTPS and HTTP listeners.
  public var ports: (https: UInt16, http: UInt16) { mounted.ports }

  public func stop() { mounted.stop() }

  deinit {
    stop()
  }
}
