import Foundation
import QualifyCore
import QualifyCrypto
import Testing

@testable import MockStack

/// The gateways' rules driven without a socket or a signature: one row per rule, each citing
/// where it comes from.
@Suite struct APNsStateMachineTests {
  static let now = Date(timeIntervalSince1970: 1_800_000_000)
  static let app = "org.example.mail"
  static let other = "org.example.other"

  /// A team with push on two App IDs, one production and one development token of `app`,
  /// and a dead production token.
  static func machine(_ behaviours: APNsStateMachine.Behaviours = .init()) -> APNsStateMachine {
    var machine = APNsStateMachine(
      teamId: "TEAM", pushBundleIds: [app, other], behaviours: behaviours)
    _ = machine.register(bundleId: app, in: .production, value: "prod")
    _ = machine.register(bundleId: app, in: .development, value: "dev")
    _ = machine.register(bundleId: app, in: .production, value: "gone")
    machine.unregister("gone", at: now)
    return machine
  }

  static func push(
    _ token: String = "prod", on environment: APNsEnvironment = .production,
    signed: Bool = true, team: String = "TEAM", age: TimeInterval = 60,
    topic: String? = app, pushType: String? = "alert", bytes: Int = 100, object: Bool = true,
    provider: Bool = true, id: String? = nil, priority: String? = nil, expiration: String? = nil,
    collapse: String? = nil
  ) -> APNsStateMachine.Push {
    APNsStateMachine.Push(
      environment: environment, token: token,
      provider: provider
        ? .init(
          signatureVerifies: signed, team: team, issuedAt: now.timeIntervalSince1970 - age,
          keyID: "KEY")
        : nil,
      topic: topic, pushType: pushType, payloadBytes: bytes, payloadIsObject: object,
      apnsID: id, priority: priority, expiration: expiration, collapseID: collapse)
  }

  static func reason(_ answer: APNsStateMachine.Answer) -> String {
    switch answer {
    case .accepted: "accepted"
    case .rejected(let status, let reason, _): "\(status) \(reason)"
    }
  }

  // Each row: (the push, the answer, the source of the rule).
  static let rows: [(APNsStateMachine.Push, String, String)] = [
    (push(), "accepted", "Sending notification requests to APNs"),
    (push(provider: false), "403 MissingProviderToken", "Handling responses: no provider token"),
    (
      push(signed: false), "403 InvalidProviderToken",
      "Establishing a token-based connection: signed with the team's key"
    ),
    (push(team: "OTHER"), "403 InvalidProviderToken", "token-based connection: iss is the team id"),
    (push(age: 3601), "403 ExpiredProviderToken", "token-based connection: refresh within an hour"),
    (
      push(topic: nil), "400 MissingTopic",
      "Handling responses: apns-topic required with token auth"
    ),
    (
      push(topic: "org.example.stranger"), "400 TopicDisallowed",
      "Handling responses: topic not allowed"
    ),
    (push(pushType: "banner"), "400 InvalidPushType", "apns-push-type: the documented values"),
    (push(pushType: nil), "accepted", "apns-push-type is required on watchOS only"),
    (push(bytes: 4097), "413 PayloadTooLarge", "Generating a remote notification: 4 KB"),
    (
      push(object: false), "400 PayloadEmpty",
      "Handling responses: the payload is a JSON dictionary"
    ),
    (push("unknown"), "400 BadDeviceToken", "Handling responses: an invalid device token"),
    (
      push("prod", on: .development), "400 BadDeviceToken",
      "seed 000 / rule 14: a production token on the sandbox"
    ),
    (
      push("dev", on: .production), "400 BadDeviceToken",
      "rule 14: a development token on the production gateway"
    ),
    (
      push("dev", on: .development), "accepted",
      "rule 14: a development-signed build with the sandbox"
    ),
    (push("gone"), "410 Unregistered", "Handling responses: the token is no longer active"),
    (
      push(topic: other), "400 DeviceTokenNotForTopic",
      "Handling responses: the token is for another topic"
    ),
    (push(""), "400 MissingDeviceToken", "Handling responses: no device token in the :path"),
    (
      push(id: "123e4567-e89b-12d3-a456-4266554400a0"), "accepted",
      "Sending requests: apns-id is a canonical UUID"
    ),
    (push(id: "not-a-uuid"), "400 BadMessageId", "Handling responses: the apns-id value is bad"),
    (push(priority: "5"), "accepted", "Sending requests: apns-priority 10, 5 or 1"),
    (push(priority: "7"), "400 BadPriority", "Handling responses: the apns-priority value is bad"),
    (push(expiration: "0"), "accepted", "Sending requests: apns-expiration 0 is now or never"),
    (
      push(expiration: "tomorrow"), "400 BadExpirationDate",
      "Handling responses: the apns-expiration value is bad"
    ),
    (
      push(collapse: String(repeating: "c", count: 64)), "accepted",
      "Sending requests: apns-collapse-id up to 64 bytes"
    ),
    (
      push(collapse: String(repeating: "c", count: 65)), "400 BadCollapseId",
      "Handling responses: the collapse identifier exceeds the maximum allowed size"
    ),
  ]

  /// "Refresh your token no more than once every 20 minutes and no less than once every 60
  /// minutes" (Establishing a token-based connection to APNs): a sender that signs a new
  /// provider token sooner gets 429 TooManyProviderTokenUpdates; the same token again, or a new
  /// one after 20 minutes, is taken.
  @Test func aProviderTokenRenewedWithinTwentyMinutesIsTooManyUpdates() {
    var machine = Self.machine()
    #expect(Self.reason(machine.receive(Self.push(age: 0), now: Self.now)) == "accepted")
    #expect(Self.reason(machine.receive(Self.push(age: 0), now: Self.now + 60)) == "accepted")
    let renewed = Self.push(age: -300)
    #expect(
      Self.reason(machine.receive(renewed, now: Self.now + 300))
        == "429 TooManyProviderTokenUpdates")
    // Refused, the renewed token did not replace the first: that one still works.
    #expect(Self.reason(machine.receive(Self.push(age: 0), now: Self.now + 600)) == "accepted")
    #expect(
      Self.reason(machine.receive(Self.push(age: -1201), now: Self.now + 1201)) == "accepted")
  }

  @Test(arguments: rows)
  func eachRuleAnswersAsAppleDocuments(push: APNsStateMachine.Push, answer: String, source: String)
  {
    #expect(Self.reason(Self.machine().decide(push, now: Self.now)) == answer, "\(source)")
  }

  @Test func aTokenIsIssuedOnlyToAnAppIdWithPush() {
    var machine = Self.machine()
    #expect(machine.register(bundleId: Self.app, in: .production, value: "t") == "t")
    #expect(machine.register(bundleId: "org.example.nopush", in: .production, value: "u") == nil)
    #expect(machine.tokens["t"]?.environment == .production)
  }

  @Test func theNegativeControlsSwitchOffOneRuleEach() {
    let any = Self.machine(.init(acceptsAnyEnvironment: true))
    #expect(
      Self.reason(any.decide(Self.push("prod", on: .development), now: Self.now)) == "accepted")
    let topic = Self.machine(.init(ignoresTopic: true))
    #expect(Self.reason(topic.decide(Self.push(topic: Self.other), now: Self.now)) == "accepted")
    // Neither lets a dead token through.
    #expect(Self.reason(any.decide(Self.push("gone"), now: Self.now)) == "410 Unregistered")
  }
}

@Suite struct FCMStateMachineTests {
  static let now = Date(timeIntervalSince1970: 1_800_000_000)

  /// Two projects: prod (the app's client, the backend's account) and staging (its own
  /// account); a token of each, and a dead one.
  static func machine(_ behaviours: FCMStateMachine.Behaviours = .init()) throws
    -> FCMStateMachine
  {
    let key = try Key.generateRSA(bits: 1024)
    var machine = FCMStateMachine(
      projects: [
        FirebaseProject(
          projectId: "prod", packages: ["org.example.mail"],
          serviceAccounts: ["push@prod.iam.gserviceaccount.com": ("k", key)]),
        FirebaseProject(
          projectId: "staging", packages: ["org.example.mail"],
          serviceAccounts: ["push@staging.iam.gserviceaccount.com": ("k", key)]),
      ], behaviours: behaviours)
    _ = machine.register(project: "prod", package: "org.example.mail", value: "p")
    _ = machine.register(project: "staging", package: "org.example.mail", value: "s")
    _ = machine.register(project: "prod", package: "org.example.mail", value: "gone")
    machine.unregister("gone")
    _ = machine.grant(assertion(), accessToken: "ya29.prod", now: now)
    return machine
  }

  static func assertion(
    _ email: String = "push@prod.iam.gserviceaccount.com", signed: Bool = true,
    scope: String = FCMStateMachine.scope, audience: String = FCMStateMachine.audience,
    expiresIn: TimeInterval = 3600
  ) -> FCMStateMachine.Assertion {
    .init(
      email: email, signatureVerifies: signed, scopes: [scope], audience: audience,
      expires: now.timeIntervalSince1970 + expiresIn, issuedAt: now.timeIntervalSince1970)
  }

  static func answer(_ answer: FCMStateMachine.Answer) -> String {
    switch answer {
    case .accepted: "accepted"
    case .rejected(let code, let status, let errorCode, _, _): "\(code) \(errorCode ?? status)"
    }
  }

  static let sends: [(FCMStateMachine.Send, String, String)] = [
    (.init(project: "prod", bearer: "ya29.prod", token: "p"), "accepted", "HTTP v1 send"),
    (
      .init(project: "prod", bearer: nil, token: "p"), "401 UNAUTHENTICATED",
      "FCM error codes: no OAuth 2 token"
    ),
    (
      .init(project: "staging", bearer: "ya29.prod", token: "s"), "403 PERMISSION_DENIED",
      "IAM: the account has no role in that project"
    ),
    (
      .init(project: "prod", bearer: "ya29.prod", token: nil), "400 INVALID_ARGUMENT",
      "FCM error codes: a missing field"
    ),
    (
      .init(project: "prod", bearer: "ya29.prod", token: "nonsense"), "400 INVALID_ARGUMENT",
      "FCM error codes: not a registration token"
    ),
    (
      .init(project: "prod", bearer: "ya29.prod", token: "gone"), "404 UNREGISTERED",
      "FCM error codes: the app instance is gone"
    ),
    (
      .init(project: "prod", bearer: "ya29.prod", token: "s"), "403 SENDER_ID_MISMATCH",
      "FCM error codes / rule 14: a token of another project"
    ),
    (
      .init(project: "prod", bearer: "ya29.prod", token: "p", nonStringData: ["unread_count"]),
      "400 INVALID_ARGUMENT", "HTTP v1 Message: data is a map<string, string>"
    ),
    (
      .init(project: "prod", bearer: "ya29.prod", token: "p", androidPriority: "urgent"),
      "400 INVALID_ARGUMENT", "AndroidConfig.priority: NORMAL or HIGH"
    ),
    (
      .init(project: "prod", bearer: "ya29.prod", token: "p", androidPriority: "high"),
      "accepted", "AndroidConfig.priority: the lowercase JSON form"
    ),
  ]

  /// FCM error codes: QUOTA_EXCEEDED, UNAVAILABLE and INTERNAL are FCM's trouble, answered
  /// whatever the send (the first two with Retry-After), THIRD_PARTY_AUTH_ERROR the project's
  /// APNs credential; once the outage is over a send is decided as before.
  @Test func aStagedServiceErrorIsAnsweredBeforeAnyDecision() throws {
    var machine = try Self.machine()
    let send = FCMStateMachine.Send(project: "prod", bearer: "ya29.prod", token: "p")
    machine.fail(.unavailable, times: 2)
    machine.fail(.quotaExceeded, times: 1)
    machine.fail(.internalError, times: 1)
    machine.fail(.thirdPartyAuthError, times: 1)
    let answers = (0..<6).map { _ in machine.answer(send, now: Self.now) }
    #expect(
      answers.map(Self.answer) == [
        "503 UNAVAILABLE", "503 UNAVAILABLE", "429 QUOTA_EXCEEDED", "500 INTERNAL",
        "401 THIRD_PARTY_AUTH_ERROR", "accepted",
      ])
    let waits = answers.map { answer -> Int? in
      if case .rejected(_, _, _, _, let retryAfter) = answer { return retryAfter }
      return nil
    }
    #expect(waits == [5, 5, 10, nil, nil, nil])
  }

  @Test(arguments: sends)
  func eachSendIsAnsweredAsGoogleDocuments(
    send: FCMStateMachine.Send, answer: String, source: String
  )
    throws
  {
    #expect(Self.answer(try Self.machine().decide(send, now: Self.now)) == answer, "\(source)")
  }

  static let grants: [(FCMStateMachine.Assertion, String, String)] = [
    (assertion(), "granted prod", "RFC 7523: a valid assertion"),
    (
      assertion("push@staging.iam.gserviceaccount.com"), "granted staging",
      "an account gets a token of its own project"
    ),
    (assertion(signed: false), "invalid_grant", "RFC 7523 §3: the signature must verify"),
    (assertion("stranger@x.iam.gserviceaccount.com"), "invalid_grant", "an unknown account"),
    (
      assertion(audience: "https://example.org"), "invalid_grant",
      "RFC 7523 §3: aud is the token endpoint"
    ),
    (assertion(scope: "email"), "invalid_scope", "the firebase.messaging scope"),
    (assertion(expiresIn: -1), "invalid_grant", "RFC 7523 §3: exp in the future"),
    (
      assertion(expiresIn: 3601), "invalid_grant",
      "Google's server-to-server OAuth: exp at most 1 hour after iat"
    ),
  ]

  @Test(arguments: grants)
  func eachGrantFollowsTheJWTBearerProfile(
    assertion: FCMStateMachine.Assertion, answer: String, source: String
  ) throws {
    var machine = try Self.machine()
    let result: String
    switch machine.grant(assertion, accessToken: "ya29.new", now: Self.now) {
    case .granted(let project): result = "granted \(project)"
    case .refused(let error, _): result = error
    }
    #expect(result == answer, "\(source)")
  }

  @Test func anAccessTokenLastsAnHour() throws {
    let machine = try Self.machine()
    let send = FCMStateMachine.Send(project: "prod", bearer: "ya29.prod", token: "p")
    #expect(Self.answer(machine.decide(send, now: Self.now.addingTimeInterval(3599))) == "accepted")
    #expect(
      Self.answer(machine.decide(send, now: Self.now.addingTimeInterval(3601)))
        == "401 UNAUTHENTICATED")
  }

  @Test func aTokenIsIssuedOnlyForAPackageTheProjectHasAClientFor() throws {
    var machine = try Self.machine()
    #expect(machine.register(project: "prod", package: "org.example.other", value: "x") == nil)
    #expect(machine.register(project: "nowhere", package: "org.example.mail", value: "y") == nil)
  }

  @Test func theNegativeControlLetsATokenOfAnotherProjectThrough() throws {
    let machine = try Self.machine(.init(ignoresProject: true))
    let send = FCMStateMachine.Send(project: "prod", bearer: "ya29.prod", token: "s")
    #expect(Self.answer(machine.decide(send, now: Self.now)) == "accepted")
  }
}
