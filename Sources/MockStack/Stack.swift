import Artifacts
import Foundation
import HTTP
import QualifyCore
import QualifyCrypto
import StackPorts

/// The embedded mock stack of one scenario run: fresh state, started in-process on loopback.
///
/// One HTTPS and one HTTP listener serve every origin of the topology as virtual hosts;
/// clients reach them through `origins` (each public `host:port` → its loopback port), so
/// URLs, `Host`, SNI, certificates and cookie domains all carry the app's real names.
public final class Stack: Sendable {
  public let topology: StackTopology
  public let context: StackContext
  public let backend: Backend
  /// The second La Suite app's backend (cross-app SSO proofs).
  public let companionBackend: Backend
  public let identityProvider: IdentityProvider?
  /// The OTA bucket, when the backend names a manifest URL.
  public let bucket: OTABucket?
  /// The push credentials the backend sends with (the env's, or the harness's).
  public let pushCredentials: PushCredentials?
  /// Firebase's side of the world (FCM and Google's token endpoint).
  private let firebase: FirebaseNetwork
  /// Its hosts on loopback listeners, shared or its own.
  private let mounted: MountedHosts
  private let channel: BackChannel
  /// Public authority (`host:port`) → loopback port.
  public var origins: [String: UInt16] { mounted.origins }

  /// Starts a fresh stack for `build`; `identityProvider` overrides the build's IdP profile;
  /// `requested` fixes the loopback ports (HTTPS, HTTP) instead of ephemeral ones.
  public init(
    build: AppBuild, material: StackMaterial, context: StackContext,
    identityProvider profileName: String? = nil,
    listeningOn requested: (https: UInt16, http: UInt16) = (0, 0),
    sharing listeners: StackListeners? = nil
  ) throws {
    topology = try StackTopology(build: build)
    let settings = try StackTopology.settings(of: build)
    self.context = context
    let secureHosts = VirtualHosts()
    let cleartextHosts = VirtualHosts()
    let real = material.real
    let channel = BackChannel(
      secure: secureHosts, cleartext: cleartextHosts, context: context,
      outside: try real.map { try $0.client() }, real: real)
    self.channel = channel

    // The identity provider, configured like the real one of the channel.
    let profile =
      (profileName ?? build.identityProvider).flatMap(IdentityProviderProfile.named) ?? .keycloakDev
    let users = Stack.identityProviderUsers(build, context)
    let companionSecret = context.secret(byteCount: 24)
    // A real IdP (`--stack`) replaces the mock: nothing is served at its origin.
    let idp =
      real?.identityProvider == nil
      ? try Stack.identityProvider(
        build, profile: profile, topology: topology, users: users,
        companionSecret: companionSecret, material: material, context: context) : nil
    identityProvider = idp

    // Push: the backend's credentials, Apple's and Google's view of the app's accounts, and
    // the gateways (seed 000 checklist item 8; DESIGN.md rules 14 and 15).
    let push = try material.pushCredentials(settings)
    pushCredentials = push
    backend = Backend(
      origin: topology.backend, settings: settings, push: push,
      pushLocKeys: build.push.requiredBannerKeys, context: context,
      backChannel: channel.send("backend"))
    companionBackend = Stack.companionBackend(
      settings, topology: topology, secret: companionSecret, real: real, context: context,
      backChannel: channel.send("companion-backend"))
    if real?.identityProvider != nil {
      backend.idTokensFromRealTime = true
      companionBackend.idTokensFromRealTime = true
    }

    func serve(_ origin: Origin, _ handler: HTTPHandler) {
      Stack.mount(handler, at: origin, secure: secureHosts, cleartext: cleartextHosts)
    }
    // A real OTA channel (`--stack`) is read over the network; nothing is mocked in its place.
    bucket =
      real?.ota == nil
      ? topology.bucket.flatMap { origin in
        settings.otaManifestURL.map {
          OTABucket(origin: origin, basePath: OTABucket.basePath(of: $0), context: context)
        }
      } : nil
    if let bucket { serve(bucket.origin, bucket) }
    serve(topology.backend, backend)
    serve(topology.companionBackend, companionBackend)
    if let idp {
      for origin in topology.identityProviderOrigins { serve(origin, idp) }
    }
    if let devServer = topology.devServer { serve(devServer, DevServer()) }
    let gateways = Stack.pushGateways(build, push: push, context: context)
    firebase = gateways.firebase
    for (origin, handler) in gateways.servers { serve(origin, handler) }

    // A world whose servers must present another certificate cannot share listeners; a real
    // system is reached over the network, never mapped onto the listeners.
    mounted = try MountedHosts(
      secure: secureHosts, cleartext: cleartextHosts,
      origins: topology.origins.filter { !(real?.authorities.contains($0.authority) ?? false) },
      material: material, sharing: listeners,
      credentials: context.behaviours.untrustedCertificate ? material.untrustedCredentials : nil,
      ports: requested)
  }

  /// Mounts `handler` at `origin`. Port 80 of an HTTPS site redirects, as real deployments
  /// do: a cleartext request that leaves the device is then visible in the evidence rather
  /// than unanswered.
  static func mount(
    _ handler: HTTPHandler, at origin: Origin, secure: VirtualHosts, cleartext: VirtualHosts
  ) {
    if origin.isSecure {
      secure.add(origin.hostHeader, handler)
      cleartext.add(origin.host, RedirectToHTTPS(origin: origin))
    } else {
      cleartext.add(origin.hostHeader, handler)
    }
  }

  /// The companion app's backend (seed 000's cross-app SSO): the app's backend settings, with
  /// the companion's client at the IdP and its own callback scheme.
  static func companionBackend(
    _ settings: BackendSettings, topology: StackTopology, secret companionSecret: String,
    real: RealSystems?, context: StackContext,
    backChannel: @escaping @Sendable (ClientRequest) -> HTTPResponse?
  ) -> Backend {
    var companionSettings = settings
    companionSettings.env.set(
      "OIDC_RP_CLIENT_ID", real?.identityProvider?.companion.id ?? Companion.clientID)
    companionSettings.env.set(
      "OIDC_RP_CLIENT_SECRET", real?.identityProvider?.companion.secret ?? companionSecret)
    companionSettings.env.set("MOBILE_AUTH_CALLBACK_SCHEMES", "[\"\(Companion.scheme)\"]")
    return Backend(
      origin: topology.companionBackend, settings: companionSettings, name: "companion-backend",
      sessionCookie: Companion.sessionCookie, context: context,
      backChannel: backChannel)
  }

  /// Apple's two gateways and Google's FCM and OAuth endpoints, over the networks that know
  /// the app's accounts (seed 000 checklist item 8; DESIGN.md rules 14 and 15).
  static func pushGateways(_ build: AppBuild, push: PushCredentials, context: StackContext) -> (
    servers: [(Origin, HTTPHandler)], firebase: FirebaseNetwork
  ) {
    // Apple's side of the team is modelled from what the backend names (its team, its key,
    // the bundle id it pushes to): which keys Apple really holds is not knowable here.
    let apple = ApplePushNetwork(
      account: AppleDeveloperAccount(
        teamId: push.apnsTeamId, keys: [push.apnsKeyId: push.apnsPublicKey],
        pushBundleIds: Set([build.appId.value] + [build.backend?.apnsBundleId].compactMap { $0 })),
      behaviours: APNsStateMachine.Behaviours(
        acceptsAnyEnvironment: context.behaviours.apnsAcceptsAnyEnvironment,
        ignoresTopic: context.behaviours.apnsIgnoresTopic))
    var servers: [(Origin, HTTPHandler)] = APNsEnvironment.allCases.map { environment in
      (environment.origin, APNsGateway(environment: environment, network: apple, context: context))
    }
    let firebase = FirebaseNetwork(
      projects: Stack.firebaseProjects(build, push: push),
      behaviours: FCMStateMachine.Behaviours(ignoresProject: context.behaviours.fcmIgnoresProject))
    servers.append((StackTopology.fcm, FCMGateway(network: firebase, context: context)))
    servers.append((StackTopology.googleOAuth, GoogleOAuth(network: firebase, context: context)))
    return (servers, firebase)
  }

  /// The users the mock IdP signs in: the realm export's, else test users of its own. A realm
  /// export holds hashed passwords that cannot be reversed: the mock IdP gives those users
  /// test passwords of its own (from the run's seed).
  static func identityProviderUsers(_ build: AppBuild, _ context: StackContext)
    -> [RealmSettings.User]
  {
    (build.realm?.users.isEmpty == false ? build.realm?.users ?? [] : Stack.testUsers(context))
      .map { user -> RealmSettings.User in
        var user = user
        if user.password == nil { user.password = context.secret(byteCount: 12) }
        return user
      }
  }

  /// The mock identity provider at the topology's IdP origin, configured like the channel's
  /// real one: the realm export's clients (Keycloak) or the partner registration the
  /// backend's env describes (ProConnect), and the companion app's client beside the app's.
  static func identityProvider(
    _ build: AppBuild, profile: IdentityProviderProfile, topology: StackTopology,
    users: [RealmSettings.User], companionSecret: String, material: StackMaterial,
    context: StackContext
  ) throws -> IdentityProvider? {
    guard let origin = topology.identityProvider else { return nil }
    let appClientID = build.backend?.oidcClientId ?? build.name
    let appCallback = topology.backend.url("/api/v1.0/callback/")
    var clients: [IdentityProvider.Client] = []
    var appACR: [String: Int] = ["eidas1": 1]
    if profile.clientsFromRealmExport, let realm = build.realm {
      for client in realm.clients {
        clients.append(
          IdentityProvider.Client(
            id: client.clientId, secret: client.secret ?? "", redirectURIs: client.redirectURIs,
            postLogoutRedirectURIs: client.postLogoutRedirectURIs, acrLevels: client.acrLevels))
      }
      appACR = realm.client(appClientID)?.acrLevels ?? [:]
    } else {
      // ProConnect: the partner registration the backend's env describes.
      clients.append(
        IdentityProvider.Client(
          id: appClientID, secret: build.backend?.oidcClientSecret ?? "",
          redirectURIs: [appCallback],
          postLogoutRedirectURIs: [topology.backend.url("/api/v1.0/logout-callback/")],
          acrLevels: appACR))
    }
    // The companion app is registered in the same realm, configured like the app's client.
    clients.append(
      IdentityProvider.Client(
        id: Companion.clientID, secret: companionSecret,
        redirectURIs: [topology.companionBackend.url("/*")],
        postLogoutRedirectURIs: [topology.companionBackend.url("/*")], acrLevels: appACR))
    let signing = try material.idpSigningKey()
    return IdentityProvider(
      origin: origin, profile: profile, realm: build.realm, clients: clients, users: users,
      context: context,
      signingKey: signing.key, keyID: signing.id)
  }

  /// FCM answers `error` (`QUOTA_EXCEEDED`, `UNAVAILABLE`, `INTERNAL`,
  /// `THIRD_PARTY_AUTH_ERROR`) to the next `times` sends; false for another name.
  public func failNextFCMSends(_ error: String, times: Int) -> Bool {
    guard let service = FCMStateMachine.ServiceError(rawValue: error.uppercased()) else {
      return false
    }
    firebase.fail(service, times: times)
    return true
  }

  /// The Firebase projects of the world: the one the app's `google-services.json` registers
  /// the device with (its Android clients), and the one the backend's service account belongs
  /// to — the project `PUSH_FCM_PROJECT_ID` must name, and the same project when the pairing
  /// is right.
  static func firebaseProjects(_ build: AppBuild, push: PushCredentials) -> [FirebaseProject] {
    var projects: [String: FirebaseProject] = [:]
    func project(_ id: String) -> FirebaseProject {
      projects[id] ?? FirebaseProject(projectId: id, packages: [], serviceAccounts: [:])
    }
    if let id = build.push.firebaseProjectId?.value {
      var devices = project(id)
      devices.packages.formUnion(build.push.firebasePackages.map(\.value))
      projects[id] = devices
    }
    if let id = push.fcmAccountProject {
      var sender = project(id)
      sender.serviceAccounts[push.fcmClientEmail] = (push.fcmKeyId, push.fcmPublicKey)
      projects[id] = sender
    }
    return Array(projects.values)
  }

  /// The real OTA channel the stack file names, when there is one.
  public var realOTAChannel: RealSystems.OTAChannel? { channel.real?.ota }

  /// The real IdP the stack file names, when there is one.
  public var realIdentityProvider: RealSystems.IdentityProvider? {
    channel.real?.identityProvider
  }

  /// Test users for an identity provider without a realm export (seeded passwords).
  static func testUsers(_ context: StackContext) -> [RealmSettings.User] {
    (1...3).map { index in
      RealmSettings.User(
        username: "test-user-\(index)@example.org", password: context.secret(byteCount: 12),
        email: "test-user-\(index)@example.org", firstName: "Test", lastName: "User \(index)")
    }
  }

  /// The ports a world observes this stack through: the IdP's event feed and the backend's
  /// answers over HTTP with `client`, the bucket in-process (the pipeline's upload path).
  public func ports(client: HTTPClient) -> StackPorts {
    let real = realIdentityProvider.map { idp in
      RealIdentityProvider(
        issuer: idp.issuer, testUsers: idp.testUsers, admin: idp.admin,
        client: idp.admin == nil ? nil : try? channel.real?.client())
        as IdentityProviderPort
    }
    return StackPorts(
      identityProvider: real
        ?? identityProvider.map { idp in
          HTTPIdentityProvider(
            issuer: idp.issuer, eventsURL: idp.origin.url(idp.paths.events),
            testUsers: idp.testUsers, client: client)
        },
      backend: HTTPBackend(
        origin: backend.origin,
        sessionCookie: channel.real?.backend?.sessionCookie ?? backend.sessionCookie,
        client: client),
      bucket: bucket)
  }

  /// The loopback ports of the HTTPS and HTTP listeners.
  public var ports: (https: UInt16, http: UInt16) { mounted.ports }

  /// Stops its own listeners, or unmounts from shared ones.
  public func stop() { mounted.stop() }

  deinit {
    stop()
  }
}

/// Answers every cleartext request for an HTTPS site with a permanent redirect to it.
struct RedirectToHTTPS: HTTPHandler {
  let origin: Origin

  func handle(_ request: HTTPRequest) -> HTTPResponse {
    .redirect(to: origin.url(request.target), status: 301)
  }
}

/// Server-to-server requests between mocks (the backend redeeming a code at the IdP),
/// dispatched in-process to the same virtual hosts — the same endpoint code, no socket, so a
/// handler never waits on its own server's thread. Recorded as evidence like any exchange.
final class BackChannel: Sendable {
  private weak let secure: VirtualHosts?
  private weak let cleartext: VirtualHosts?
  private let context: StackContext
  /// Requests to a real system (`--stack`) leave over the network through this client.
  private let outside: HTTPClient?
  let real: RealSystems?

  init(
    secure: VirtualHosts, cleartext: VirtualHosts, context: StackContext,
    outside: HTTPClient? = nil, real: RealSystems? = nil
  ) {
    self.secure = secure
    self.cleartext = cleartext
    self.context = context
    self.outside = outside
    self.real = real
  }

  func send(_ source: String) -> @Sendable (ClientRequest) -> HTTPResponse? {
    { [weak self] request in self?.dispatch(request, source: source) }
  }

  private func dispatch(_ request: ClientRequest, source: String) -> HTTPResponse? {
    if let outside, real?.isReal(request.url) == true {
      let exchange = outside.send(request)
      context.evidence.append(
        exchange.evidence(
          source: "\(source) → real system", redactor: context.redactor, time: context.clock.now))
      return exchange.response
    }
    guard let origin = Origin(url: request.url),
      let components = URLComponents(string: request.url),
      let hosts = origin.isSecure ? secure : cleartext
    else { return nil }
    var headers = request.headers
    headers.set("Host", origin.hostHeader)
    let target =
      (components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath)
      + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    let incoming = HTTPRequest(
      method: request.method, target: target, headers: headers, body: request.body,
      scheme: origin.scheme)
    let response = hosts.handle(incoming)
    let exchange = HTTPExchange(request: request, response: response, error: nil, duration: 0)
    context.evidence.append(
      exchange.evidence(
        source: "\(source) → back channel", redactor: context.redactor, time: context.clock.now))
    return response.status == 421 ? nil : response
  }
}
