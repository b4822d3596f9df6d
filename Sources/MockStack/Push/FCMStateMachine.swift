import Foundation

/// FCM's and Google OAuth's decisions, with no I/O: the registration tokens bound to the
/// Firebase project and package they were minted for, the access tokens granted to service
/// accounts, and whether a send is accepted, as FCM HTTP v1 and Google's token endpoint
/// document them ("Send a message using FCM HTTP v1 API", "FCM error codes", RFC 7523; seed
/// 003 sections 3-5; DESIGN.md rule 14).
///
/// `FCMGateway` and `GoogleOAuth` are the I/O around it: parsing, verifying an assertion's
/// RS256 signature with the account's key, and Google's error shapes.
struct FCMStateMachine: Sendable {
  struct Behaviours: Sendable {
    var ignoresProject = false
  }

  struct Token: Sendable, Equatable {
    var projectId: String
    var package: String
    var unregistered = false
  }

  /// A service-account assertion as the I/O read it.
  struct Assertion: Sendable, Equatable {
    var email: String
    /// Whether its `kid` is the account's key id and its signature verifies with that key.
    var signatureVerifies: Bool
    var scopes: [String]
    var audience: String?
    var expires: TimeInterval
    /// Its `iat`; nil when it has none.
    var issuedAt: TimeInterval? = nil
  }

  enum Grant: Sendable, Equatable {
    case granted(project: String)
    /// OAuth's `error` and `error_description`.
    case refused(error: String, description: String)
  }

  /// A send as FCM receives it: the project of the URL, the bearer, the message's token.
  struct Send: Sendable, Equatable {
    var project: String
    var bearer: String?
    var token: String?
    /// What message validation reads: the `data` entries whose value is not a string, and
    /// `android.priority` as sent.
    var nonStringData: [String] = []
    var androidPriority: String? = nil
  }

  enum Answer: Sendable, Equatable {
    case accepted(package: String)
    /// The HTTP code, the canonical status, FCM's `errorCode` when it gives one, the message,
    /// and the seconds of `Retry-After` when FCM asks the sender to wait.
    case rejected(
      code: Int, status: String, errorCode: String?, message: String, retryAfter: Int? = nil)
  }

  /// The errors FCM answers for its own state, whatever the message ("FCM error codes",
  /// `ErrorCode` of the HTTP v1 reference): a sender retries the first three with exponential
  /// backoff, honouring `Retry-After`, and keeps the token; none of them says the token is
  /// dead.
  enum ServiceError: String, Sendable, CaseIterable {
    /// 429: the project's or the device's sending rate is exceeded.
    case quotaExceeded = "QUOTA_EXCEEDED"
    /// 503: the server is overloaded.
    case unavailable = "UNAVAILABLE"
    /// 500: an unknown internal error.
    case internalError = "INTERNAL"
    /// 401: the APNs certificate or auth key the Firebase project holds for iOS is invalid.
    case thirdPartyAuthError = "THIRD_PARTY_AUTH_ERROR"

    var answer: Answer {
      switch self {
      case .quotaExceeded:
        return .rejected(
          code: 429, status: "RESOURCE_EXHAUSTED", errorCode: rawValue,
          message: "Quota exceeded for quota metric 'Send requests'", retryAfter: 10)
      case .unavailable:
        return .rejected(
          code: 503, status: "UNAVAILABLE", errorCode: rawValue,
          message: "The service is currently unavailable.", retryAfter: 5)
      case .internalError:
        return .rejected(
          code: 500, status: "INTERNAL", errorCode: rawValue,
          message: "Internal error encountered.")
      case .thirdPartyAuthError:
        return .rejected(
          code: 401, status: "UNAUTHENTICATED", errorCode: rawValue,
          message: "Auth error from APNS or Web Push Service")
      }
    }
  }

  static let scope = "https://www.googleapis.com/auth/firebase.messaging"
  static let audience = "https://oauth2.googleapis.com/token"

  let projects: [String: FirebaseProject]
  let behaviours: Behaviours
  private(set) var tokens: [String: Token] = [:]
  private var grants: [String: (project: String, expires: Date)] = [:]
  /// Service errors staged for the next sends, answered in order before anything is decided.
  private var outage: [ServiceError] = []

  init(projects: [FirebaseProject], behaviours: Behaviours) {
    self.projects = Dictionary(projects.map { ($0.projectId, $0) }, uniquingKeysWith: { $1 })
    self.behaviours = behaviours
  }

  /// The project a service account belongs to, with its key id.
  func account(_ email: String) -> (project: String, keyId: String)? {
    for project in projects.values {
      if let account = project.serviceAccounts[email] { return (project.projectId, account.keyId) }
    }
    return nil
  }

  /// Play services register an app with the project of its `google-services.json`: a token
  /// only for a package that project has a client for. `value` is the token's text.
  mutating func register(project: String, package: String, value: String) -> String? {
    guard projects[project]?.packages.contains(package) == true else { return nil }
    tokens[value] = Token(projectId: project, package: package)
    return value
  }

  mutating func unregister(_ token: String) { tokens[token]?.unregistered = true }

  /// The JWT bearer grant: an access token of the account's own project for an hour.
  mutating func grant(_ assertion: Assertion, accessToken: String, now: Date) -> Grant {
    guard let account = account(assertion.email), assertion.signatureVerifies else {
      return .refused(error: "invalid_grant", description: "Invalid JWT Signature.")
    }
    guard assertion.audience == FCMStateMachine.audience else {
      return .refused(
        error: "invalid_grant", description: "Invalid JWT: aud must be the token endpoint")
    }
    guard assertion.scopes.contains(FCMStateMachine.scope) else {
      return .refused(error: "invalid_scope", description: "firebase.messaging scope required")
    }
    guard assertion.expires > now.timeIntervalSince1970 else {
      return .refused(
        error: "invalid_grant", description: "Invalid JWT: Token must be a short-lived token")
    }
    // "exp: The expiration time of the assertion … This value has a maximum of 1 hour after
    // the issued time" (Google's OAuth 2.0 for server to server applications).
    guard let issued = assertion.issuedAt, assertion.expires - issued <= 3600 else {
      return .refused(
        error: "invalid_grant",
        description:
          "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
      )
    }
    grants[accessToken] = (account.project, now.addingTimeInterval(3600))
    return .granted(project: account.project)
  }

  /// FCM stays in `error` for the next `times` sends.
  mutating func fail(_ error: ServiceError, times: Int) {
    outage += Array(repeating: error, count: times)
  }

  /// The answer to `send`: a staged service error first, else the decision.
  mutating func answer(_ send: Send, now: Date) -> Answer {
    if !outage.isEmpty { return outage.removeFirst().answer }
    return decide(send, now: now)
  }

  func decide(_ send: Send, now: Date) -> Answer {
    guard let bearer = send.bearer, let grant = grants[bearer], grant.expires > now else {
      return .rejected(
        code: 401, status: "UNAUTHENTICATED", errorCode: nil,
        message: "Request had invalid authentication credentials. Expected OAuth 2 access token.")
    }
    // An account may send only in its own project.
    guard grant.project == send.project else {
      return .rejected(
        code: 403, status: "PERMISSION_DENIED", errorCode: nil,
        message: "Permission 'cloudmessaging.messages.create' denied on resource")
    }
    // Message validation ("FCM error codes": INVALID_ARGUMENT): `data` is a map of strings,
    // and `android.priority` is NORMAL or HIGH.
    if let key = send.nonStringData.first {
      return .rejected(
        code: 400, status: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT",
        message: "Invalid value at 'message.data' (\(key)): a data value must be a string")
    }
    if let priority = send.androidPriority, !["normal", "high"].contains(priority.lowercased()) {
      return .rejected(
        code: 400, status: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT",
        message: "Invalid value at 'message.android.priority' (\(priority))")
    }
    guard let value = send.token, !value.isEmpty else {
      return .rejected(
        code: 400, status: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT",
        message: "Request contains an invalid argument.")
    }
    guard let token = tokens[value] else {
      return .rejected(
        code: 400, status: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT",
        message: "The registration token is not a valid FCM registration token")
    }
    if token.unregistered {
      return .rejected(
        code: 404, status: "NOT_FOUND", errorCode: "UNREGISTERED",
        message: "Requested entity was not found.")
    }
    // A token belongs to the sender (project) its app registered with.
    guard token.projectId == send.project || behaviours.ignoresProject else {
      return .rejected(
        code: 403, status: "PERMISSION_DENIED", errorCode: "SENDER_ID_MISMATCH",
        message: "SenderId mismatch")
    }
    return .accepted(package: token.package)
  }
}
