import Artifacts
import Foundation
import HTTP
import OTA
import QualifyCore

/// The outside systems a qualification talks to, as the harness may see them: only through
/// what a real deployment also gives — its HTTP endpoints, its event feed, its responses.
/// The in-process mocks are one implementation; a run against real systems (`--stack`) is
/// another. Nothing here reads a mock's memory.

/// An identity provider: the test users the harness signs in as, and its event feed.
public protocol IdentityProviderPort: Sendable {
  /// The issuer identifier.
  var issuer: String { get }
  /// The users the harness may sign in as, with the passwords it types.
  var testUsers: [RealmSettings.User] { get }
  /// Every event recorded so far, oldest first, as the IdP's event API serves them
  /// (Keycloak's admin events, the mock's `/_qualify/events`).
  func events() throws -> [IdentityEvent]
  /// Whether `events()` can answer: a real IdP without admin credentials cannot, and the
  /// proofs that read events then fall back to what the browser saw.
  var providesEvents: Bool { get }
}

extension IdentityProviderPort {
  public var providesEvents: Bool { true }

  /// The test user called `name` (username or email).
  public func user(named name: String) -> RealmSettings.User? {
    testUsers.first { $0.username == name || $0.email == name }
  }
}

/// An event of the identity provider, in the shape of Keycloak's admin events API.
public struct IdentityEvent: Sendable, Equatable {
  public var type: String
  public var clientId: String?
  public var userId: String?
  public var sessionId: String?
  public var username: String?

  public init(
    type: String, clientId: String? = nil, userId: String? = nil, sessionId: String? = nil,
    username: String? = nil
  ) {
    self.type = type
    self.clientId = clientId
    self.userId = userId
    self.sessionId = sessionId
    self.username = username
  }
}

/// The app's backend: whom a session cookie belongs to, asked of the backend itself.
public protocol BackendPort: Sendable {
  var origin: Origin { get }
  /// The name of the session cookie (`sessionid`).
  var sessionCookie: String { get }
  /// The names of the user a session cookie signs in as (`GET /api/v1.0/users/me/`: its id
  /// and email), empty when the backend does not know it (ended, expired, never issued).
  func user(ofSession value: String) throws -> Set<String>
  /// A new message arrives in `user`'s mailbox, in `thread` (what mail from another account
  /// causes): the backend pushes to each of the user's devices and answers what each gateway
  /// said — its sender's log. The mock takes it at `POST /api/v1.0/_qualify/messages/`, a
  /// hook a real deployment does not have (it would take mail from another account and a
  /// look at the worker's log): elsewhere this throws `PortUnsupported`.
  func deliverMessage(to user: String, thread: String) throws -> [PushSend]
}

/// What a port cannot do on this deployment: a hook only the embedded mocks have.
public struct PortUnsupported: Error, CustomStringConvertible, Sendable {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// One push the backend's sender tried, and the gateway's answer (a line of its log).
public struct PushSend: Sendable, Equatable {
  /// `apns` or `fcm`.
  public var transport: String
  /// The device row's name.
  public var device: String
  /// The gateway's HTTP status (0: unreachable, nothing was sent).
  public var status: Int
  /// `delivered`, or the gateway's reason (`BadDeviceToken`, `SENDER_ID_MISMATCH`, …).
  public var reason: String
  /// The gateway and the topic or project it was sent with.
  public var detail: String

  public init(transport: String, device: String, status: Int, reason: String, detail: String) {
    self.transport = transport
    self.device = device
    self.status = status
    self.reason = reason
    self.detail = detail
  }

  public var delivered: Bool { status == 200 }
}

/// A hybrid app's site (seed 003) as its operator sees it: who a user is to it, the pushes a
/// business event sends, the device tokens it keeps. A real site has none of these hooks
/// (`PortUnsupported`); the embedded site answers them at `/_qualify/…`.
public protocol HybridSitePort: Sendable {
  var origin: Origin { get }
  /// The site's id of the user signed in as `login`, and the salt its page hands the
  /// container as `userToken`; nil when the site has no such user.
  func account(login: String) throws -> SiteAccount?
  /// A business event for user `id` (a booking request, a message): the site sends its FCM
  /// pushes with `targetUrl`, and answers what it did.
  func notify(userId: String, title: String, body: String, targetUrl: String) throws
    -> HTTPResponse
  /// How many device tokens (`AppToken` rows) the site holds for user `id`.
  func tokenCount(userId: String) throws -> Int
  /// The user turns the site's notifications off (or on) for the device holding `token`:
  /// its `Device.notificationActivated`.
  func setNotifications(token: String, activated: Bool) throws
}

/// A user of a hybrid app's site, as its page names them to the container.
public struct SiteAccount: Sendable, Equatable {
  public var id: String
  public var salt: String

  public init(id: String, salt: String) {
    self.id = id
    self.salt = salt
  }
}

/// The server side of a React Native bridge shell's sign-in handoff (seed 001): its test
/// account, and what an operator can see of its code table. A real web app has none of the
/// hooks (`PortUnsupported`); the embedded one answers them at `/_qualify/handoff/…`.
public protocol HandoffPort: Sendable {
  var origin: Origin { get }
  /// The account the scenarios sign in with.
  var login: String { get }
  var password: String { get }
  /// Redemptions arriving at the same moment (a double tap, a replayed request), judged as
  /// the web app's statements would judge concurrent requests; the answers in order.
  func redeemTogether(_ attempts: [(code: String, verifier: String, state: String)]) throws
    -> [HTTPResponse]
  /// The keys the code table holds: what a read of its database would give away.
  func storedKeys() throws -> [String]
  /// Every refusal the server answered so far (status and body), in order: what an attacker
  /// comparing them would see.
  func refusals() throws -> [String]
}

/// The ports of one qualification: where each outside system is reached.
public struct StackPorts: Sendable {
  public var identityProvider: IdentityProviderPort?
  /// The app's backend; nil for a shell with none of its own (a multi-instance shell's
  /// servers are the user's instances).
  public var backend: BackendPort?
  /// The OTA bucket the pipeline publishes to and devices download from.
  public var bucket: BucketStore?
  /// A hybrid app's site (seed 003).
  public var hybridSite: HybridSitePort?
  /// A bridge shell's web app and its sign-in handoff (seed 001).
  public var handoff: HandoffPort?

  public init(
    identityProvider: IdentityProviderPort? = nil, backend: BackendPort? = nil,
    bucket: BucketStore? = nil, hybridSite: HybridSitePort? = nil, handoff: HandoffPort? = nil
  ) {
    self.identityProvider = identityProvider
    self.backend = backend
    self.bucket = bucket
    self.hybridSite = hybridSite
    self.handoff = handoff
  }
}
