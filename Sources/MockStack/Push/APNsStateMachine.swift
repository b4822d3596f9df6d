import Foundation

/// APNs' decisions, with no I/O: the device tokens of both environments and whether a push
/// is accepted, in the order Apple's provider API documents its checks ("Sending notification
/// requests to APNs", "Handling notification responses from APNs"; seed 000 checklist item 8;
/// DESIGN.md rule 14).
///
/// `APNsGateway` is the I/O around it: it parses the request, verifies the provider token's
/// signature against the team's keys (cryptography, not a decision) and answers what the
/// machine decided.
struct APNsStateMachine: Sendable {
  /// The world's switches that turn one check off (the gateway's negative controls).
  struct Behaviours: Sendable {
    var acceptsAnyEnvironment = false
    var ignoresTopic = false
  }

  struct Token: Sendable, Equatable {
    var environment: APNsEnvironment
    var bundleId: String
    /// When the app was deleted or the token dropped: 410 Unregistered from then on.
    var unregistered: Date?
  }

  /// The provider token as the I/O found it: its signature checked against the key its
  /// `kid` names, its claims read.
  struct ProviderToken: Sendable, Equatable {
    var signatureVerifies: Bool
    var team: String?
    var issuedAt: TimeInterval
    /// The signing key its header names (`kid`).
    var keyID: String? = nil
  }

  /// A push as the gateway of `environment` receives it.
  struct Push: Sendable, Equatable {
    var environment: APNsEnvironment
    var token: String
    var provider: ProviderToken?
    var topic: String?
    var pushType: String?
    var payloadBytes: Int
    var payloadIsObject: Bool
    /// The optional headers Apple validates ("Sending notification requests to APNs").
    var apnsID: String? = nil
    var priority: String? = nil
    var expiration: String? = nil
    var collapseID: String? = nil
  }

  enum Answer: Sendable, Equatable {
    case accepted
    /// Apple's status and `reason`, and why in words (for the evidence).
    case rejected(status: Int, reason: String, why: String)
  }

  static let maximumPayload = 4096
  /// "The maximum size allowed for this header is 64 bytes" (apns-collapse-id).
  static let maximumCollapseID = 64
  /// "Refresh your token no more than once every 20 minutes and no less than once every 60
  /// minutes" ("Establishing a token-based connection to APNs"): a new token sooner is 429
  /// TooManyProviderTokenUpdates.
  static let minimumTokenInterval: TimeInterval = 20 * 60
  /// "10, 5, 1": immediately, power-considerate, and prioritise the device's power.
  static let priorities: Set<String> = ["10", "5", "1"]
  static let pushTypes: Set<String> = [
    "alert", "background", "location", "voip", "complication", "fileprovider", "mdm",
    "liveactivity", "pushtotalk",
  ]

  let teamId: String
  /// The App IDs of the team with the Push capability.
  let pushBundleIds: Set<String>
  let behaviours: Behaviours
  private(set) var tokens: [String: Token] = [:]
  /// The provider token last taken for each team and key: its `iat` and when it was first
  /// presented.
  private(set) var providerTokens: [String: (issuedAt: TimeInterval, since: Date)] = [:]

  init(teamId: String, pushBundleIds: Set<String>, behaviours: Behaviours) {
    self.teamId = teamId
    self.pushBundleIds = pushBundleIds
    self.behaviours = behaviours
  }

  /// The OS asks for a token for an app of `bundleId`: issued in the gateway's environment,
  /// refused when the App ID has no Push capability. `value` is the token's bytes.
  mutating func register(bundleId: String, in environment: APNsEnvironment, value: String)
    -> String?
  {
    guard pushBundleIds.contains(bundleId) else { return nil }
    tokens[value] = Token(environment: environment, bundleId: bundleId, unregistered: nil)
    return value
  }

  mutating func unregister(_ token: String, at time: Date) {
    tokens[token]?.unregistered = time
  }

  /// Whether `push` is accepted at `now`; a new provider token is remembered (Apple counts
  /// how often a team's token changes).
  mutating func receive(_ push: Push, now: Date) -> Answer {
    let answer = decide(push, now: now)
    if case .rejected(429, "TooManyProviderTokenUpdates", _) = answer { return answer }
    // Only a token Apple took counts as the team's current one: not a forged or expired one.
    if let provider = push.provider, provider.signatureVerifies, provider.team == teamId,
      now.timeIntervalSince1970 - provider.issuedAt <= 3600
    {
      let key = APNsStateMachine.signingKey(provider)
      if providerTokens[key]?.issuedAt != provider.issuedAt {
        providerTokens[key] = (provider.issuedAt, now)
      }
    }
    return answer
  }

  private func tokenUpdateWhy(_ push: Push, now: Date) -> String {
    let key = push.provider.map(APNsStateMachine.signingKey) ?? ""
    let since = providerTokens[key].map { Int(now.timeIntervalSince($0.since)) } ?? 0
    return "a new provider token \(since) s after the last one (20 minutes at least)"
  }

  /// Whether `push` is accepted at `now`.
  func decide(_ push: Push, now: Date) -> Answer {
    func reject(_ status: Int, _ reason: String, _ why: String) -> Answer {
      .rejected(status: status, reason: reason, why: why)
    }
    guard let provider = push.provider else {
      return reject(403, "MissingProviderToken", "no authorization: bearer header")
    }
    guard provider.signatureVerifies, provider.team == teamId else {
      return reject(
        403, "InvalidProviderToken",
        provider.signatureVerifies
          ? "iss \(provider.team ?? "(none)") is not the team \(teamId)"
          : "the signature does not verify with the team's key of that kid")
    }
    // "APNs rejects a token … more than one hour" old.
    guard now.timeIntervalSince1970 - provider.issuedAt <= 3600 else {
      return reject(403, "ExpiredProviderToken", "iat is more than an hour old")
    }
    let key = APNsStateMachine.signingKey(provider)
    if let last = providerTokens[key], last.issuedAt != provider.issuedAt,
      now.timeIntervalSince(last.since) < APNsStateMachine.minimumTokenInterval
    {
      return reject(429, "TooManyProviderTokenUpdates", tokenUpdateWhy(push, now: now))
    }
    guard !push.token.isEmpty else {
      return reject(400, "MissingDeviceToken", "no device token in the :path")
    }
    // "A canonical UUID that's the unique ID for the notification" (8-4-4-4-12 hex digits).
    if let id = push.apnsID, !APNsStateMachine.isCanonicalUUID(id) {
      return reject(400, "BadMessageId", "apns-id \(id) is not a canonical UUID")
    }
    if let priority = push.priority, !APNsStateMachine.priorities.contains(priority) {
      return reject(400, "BadPriority", "apns-priority \(priority) (10, 5 or 1)")
    }
    // "A UNIX epoch date expressed in seconds (UTC)", 0 meaning "deliver now or never".
    if let expiration = push.expiration,
      expiration.isEmpty || !expiration.allSatisfy({ $0.isASCII && $0.isNumber })
    {
      return reject(400, "BadExpirationDate", "apns-expiration \(expiration)")
    }
    if let collapse = push.collapseID, collapse.utf8.count > APNsStateMachine.maximumCollapseID {
      return reject(
        400, "BadCollapseId", "apns-collapse-id of \(collapse.utf8.count) bytes (64 at most)")
    }
    guard let topic = push.topic, !topic.isEmpty else {
      return reject(400, "MissingTopic", "no apns-topic")
    }
    guard pushBundleIds.contains(topic) else {
      return reject(400, "TopicDisallowed", "\(topic) is not an App ID of the team with push")
    }
    // Required on watchOS only, recommended elsewhere: absent, it is an alert.
    guard APNsStateMachine.pushTypes.contains(push.pushType ?? "alert") else {
      return reject(400, "InvalidPushType", "apns-push-type \(push.pushType ?? "")")
    }
    guard push.payloadBytes <= APNsStateMachine.maximumPayload else {
      return reject(413, "PayloadTooLarge", "\(push.payloadBytes) bytes (4096 at most)")
    }
    guard push.payloadIsObject else { return reject(400, "PayloadEmpty", "no JSON object") }
    guard let known = tokens[push.token] else {
      return reject(400, "BadDeviceToken", "no device has this token")
    }
    guard known.environment == push.environment || behaviours.acceptsAnyEnvironment else {
      return reject(
        400, "BadDeviceToken",
        "a \(known.environment.rawValue) token sent to the \(push.environment.rawValue) gateway (\(push.environment.origin.host))"
      )
    }
    if known.unregistered != nil {
      return reject(410, "Unregistered", "the app or the token is gone")
    }
    guard known.bundleId == topic || behaviours.ignoresTopic else {
      return reject(
        400, "DeviceTokenNotForTopic",
        "apns-topic \(topic), the token was issued to \(known.bundleId)")
    }
    return .accepted
  }

  /// The team and key a provider token is signed for: Apple counts token updates per key.
  static func signingKey(_ provider: ProviderToken) -> String {
    (provider.team ?? "") + "/" + (provider.keyID ?? "")
  }

  static func isCanonicalUUID(_ text: String) -> Bool {
    let groups = text.split(separator: "-", omittingEmptySubsequences: false)
    return groups.map(\.count) == [8, 4, 4, 4, 12]
      && groups.allSatisfy { $0.allSatisfy(\.isHexDigit) }
  }
}
