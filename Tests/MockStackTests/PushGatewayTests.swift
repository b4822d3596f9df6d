import Artifacts
import Foundation
import HTTP
import MockStack
import QualifyCore
import QualifyCrypto
import QualifyTestSupport
import Testing

/// The push gateways driven directly, as a provider and a phone would: APNs' provider API
/// (environments, topics, provider tokens, payload limit, dead tokens) and FCM HTTP v1
/// (OAuth, projects, dead tokens), then the backend's device rows and sender on top.
@Suite struct PushGatewayTests {
  /// A stack of the sample app's `platform` prod build, with `env` over its backend env.
  static func start(
    _ platform: Platform = .ios, env: [String: String] = [:], clock: VirtualClock = VirtualClock(),
    evidence: EvidenceLog = EvidenceLog()
  ) throws -> (Stack, HTTPClient, AppBuild) {
    var build = try #require(
      try AppRepository(directory: Fixtures.sampleApp).builds(for: .prod)[platform])
    for (key, value) in env { build.backend?.env.set(key, value) }
    let context = StackContext(
      clock: clock, random: RandomSource(seed: 11), evidence: evidence, redactor: Redactor(),
      channel: .prod, behaviours: StackBehaviours())
    let stack = try Stack(build: build, material: StackFixture.material, context: context)
    let client = try HTTPClient(
      configuration: .init(
        trustedCertificatesPEM: StackFixture.material.authority.certificatePEM,
        origins: stack.origins))
    return (stack, client, build)
  }

  static func post(
    _ client: HTTPClient, _ url: String, json: [String: Any], headers: HTTPHeaders = [:]
  )
    throws -> HTTPResponse
  {
    var headers = headers
    headers.set("Content-Type", "application/json")
    return try client.response(
      to: ClientRequest(
        method: "POST", url: url, headers: headers,
        body: Array(try JSONSerialization.data(withJSONObject: json))))
  }

  /// A device token the phone's OS got for `bundleId` on `gateway` (`https://api…`).
  static func deviceToken(_ client: HTTPClient, _ gateway: String, bundleId: String) throws
    -> String
  {
    let response = try post(client, gateway + "/_device/register", json: ["bundleId": bundleId])
    #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
    return try #require((response.jsonObject as? [String: Any])?["token"] as? String)
  }

  static func reason(_ response: HTTPResponse) -> String? {
    (response.jsonObject as? [String: Any])?["reason"] as? String
  }

  static let production = "https://api.push.apple.com"
  static let sandbox = "https://api.sandbox.push.apple.com"

  /// A push as a provider sends it, with a provider token signed by `key`.
  static func apnsPush(
    _ client: HTTPClient, _ gateway: String, token: String, topic: String?, key: Key,
    keyID: String, team: String, issuedAt: Date, pushType: String? = "alert",
    payload: [String: Any] = ["aps": ["alert": ["loc-key": "NEW_MESSAGE"]]]
  ) throws -> HTTPResponse {
    let jwt = try JWT.sign(
      ["iss": team, "iat": Int(issuedAt.timeIntervalSince1970)], key: key, keyID: keyID,
      algorithm: .es256)
    var headers: HTTPHeaders = ["authorization": "bearer \(jwt)"]
    if let topic { headers.set("apns-topic", topic) }
    if let pushType { headers.set("apns-push-type", pushType) }
    return try post(client, gateway + "/3/device/\(token)", json: payload, headers: headers)
  }

  @Test func apnsDeliversATokenOnlyOnItsOwnEnvironmentsGateway() throws {
    let clock = VirtualClock()
    let (stack, client, build) = try PushGatewayTests.start(clock: clock)
    defer { stack.stop() }
    let credentials = try #require(stack.pushCredentials)
    let appId = build.appId.value
    let productionToken = try PushGatewayTests.deviceToken(
      client, PushGatewayTests.production, bundleId: appId)
    let sandboxToken = try PushGatewayTests.deviceToken(
      client, PushGatewayTests.sandbox, bundleId: appId)
    func send(_ gateway: String, _ token: String) throws -> HTTPResponse {
      try PushGatewayTests.apnsPush(
        client, gateway, token: token, topic: appId, key: credentials.apnsKey,
        keyID: credentials.apnsKeyId, team: credentials.apnsTeamId, issuedAt: clock.now)
    }
    let delivered = try send(PushGatewayTests.production, productionToken)
    #expect(delivered.status == 200)
    #expect(delivered.headers["apns-id"] != nil)
    let crossed = try send(PushGatewayTests.sandbox, productionToken)
    #expect(crossed.status == 400)
    #expect(PushGatewayTests.reason(crossed) == "BadDeviceToken")
    #expect(try send(PushGatewayTests.sandbox, sandboxToken).status == 200)
    #expect(
      PushGatewayTests.reason(try send(PushGatewayTests.production, sandboxToken))
        == "BadDeviceToken")
    // Only the accepted pushes reached the phone.
    let inbox = try client.response(
      to: ClientRequest(
        url: PushGatewayTests.production + "/_device/notifications?token=\(productionToken)"))
    let notifications = try #require(
      (inbox.jsonObject as? [String: Any])?["notifications"] as? [String])
    #expect(notifications.count == 1)
    #expect(notifications.first?.contains("NEW_MESSAGE") == true)
  }

  @Test func apnsChecksTheTopicAgainstTheBundleTheTokenWasIssuedTo() throws {
    let clock = VirtualClock()
    // The team has a second app with push (the backend's PUSH_APNS_BUNDLE_ID names it).
    let (stack, client, build) = try PushGatewayTests.start(
      env: ["PUSH_APNS_BUNDLE_ID": "local.suitenumerique.other"], clock: clock)
    defer { stack.stop() }
    let credentials = try #require(stack.pushCredentials)
    let token = try PushGatewayTests.deviceToken(
      client, PushGatewayTests.production, bundleId: build.appId.value)
    func send(topic: String?, pushType: String? = "alert") throws -> HTTPResponse {
      try PushGatewayTests.apnsPush(
        client, PushGatewayTests.production, token: token, topic: topic,
        key: credentials.apnsKey, keyID: credentials.apnsKeyId, team: credentials.apnsTeamId,
        issuedAt: clock.now, pushType: pushType)
    }
    #expect(
      PushGatewayTests.reason(try send(topic: "local.suitenumerique.other"))
        == "DeviceTokenNotForTopic")
    #expect(PushGatewayTests.reason(try send(topic: "org.example.stranger")) == "TopicDisallowed")
    #expect(PushGatewayTests.reason(try send(topic: nil)) == "MissingTopic")
    #expect(
      PushGatewayTests.reason(try send(topic: build.appId.value, pushType: "banner"))
        == "InvalidPushType")
    // Required on watchOS only: an iOS push without it goes through.
    #expect(try send(topic: build.appId.value, pushType: nil).status == 200)
    #expect(try send(topic: build.appId.value).status == 200)
  }

  @Test func apnsVerifiesTheProviderTokenAndItsAge() throws {
    let clock = VirtualClock()
    let (stack, client, build) = try PushGatewayTests.start(clock: clock)
    defer { stack.stop() }
    let credentials = try #require(stack.pushCredentials)
    let appId = build.appId.value
    let token = try PushGatewayTests.deviceToken(
      client, PushGatewayTests.production, bundleId: appId)
    func send(key: Key, keyID: String, team: String, issuedAt: Date) throws -> HTTPResponse {
      try PushGatewayTests.apnsPush(
        client, PushGatewayTests.production, token: token, topic: appId, key: key, keyID: keyID,
        team: team, issuedAt: issuedAt)
    }
    let key = credentials.apnsKey
    let id = credentials.apnsKeyId
    let team = credentials.apnsTeamId
    let issued = clock.now
    #expect(try send(key: key, keyID: id, team: team, issuedAt: issued).status == 200)
    let stranger = try Key.generateP256()
    let forged = try send(key: stranger, keyID: id, team: team, issuedAt: issued)
    #expect(forged.status == 403)
    #expect(PushGatewayTests.reason(forged) == "InvalidProviderToken")
    #expect(
      PushGatewayTests.reason(try send(key: key, keyID: id, team: "OTHERTEAM", issuedAt: issued))
        == "InvalidProviderToken")
    clock.advance(by: 3601)
    let expired = try send(key: key, keyID: id, team: team, issuedAt: issued)
    #expect(expired.status == 403)
    #expect(PushGatewayTests.reason(expired) == "ExpiredProviderToken")
    #expect(try send(key: key, keyID: id, team: team, issuedAt: clock.now).status == 200)
  }

  @Test func apnsRefusesLargePayloadsAndAnswersUnregisteredAfterTheAppIsGone() throws {
    let clock = VirtualClock()
    let (stack, client, build) = try PushGatewayTests.start(clock: clock)
    defer { stack.stop() }
    let credentials = try #require(stack.pushCredentials)
    let appId = build.appId.value
    let token = try PushGatewayTests.deviceToken(
      client, PushGatewayTests.production, bundleId: appId)
    func send(_ payload: [String: Any]) throws -> HTTPResponse {
      try PushGatewayTests.apnsPush(
        client, PushGatewayTests.production, token: token, topic: appId,
        key: credentials.apnsKey, keyID: credentials.apnsKeyId, team: credentials.apnsTeamId,
        issuedAt: clock.now, payload: payload)
    }
    let large = try send(["aps": ["alert": String(repeating: "x", count: 4100)]])
    #expect(large.status == 413)
    #expect(PushGatewayTests.reason(large) == "PayloadTooLarge")
    _ = try PushGatewayTests.post(
      client, PushGatewayTests.production + "/_device/unregister", json: ["token": token])
    let gone = try send(["aps": ["alert": ["loc-key": "NEW_MESSAGE"]]])
    #expect(gone.status == 410)
    #expect(PushGatewayTests.reason(gone) == "Unregistered")
    #expect((gone.jsonObject as? [String: Any])?["timestamp"] is NSNumber)
  }

  /// An FCM access token for the backend's service account, as Google's token endpoint
  /// grants it.
  static func fcmAccessToken(_ client: HTTPClient, _ credentials: PushCredentials, at now: Date)
    throws -> HTTPResponse
  {
    let assertion = try JWT.sign(
      [
        "iss": credentials.fcmClientEmail,
        "scope": "https://www.googleapis.com/auth/firebase.messaging",
        "aud": "https://oauth2.googleapis.com/token", "iat": Int(now.timeIntervalSince1970),
        "exp": Int(now.timeIntervalSince1970) + 3600,
      ], key: credentials.fcmKey, keyID: credentials.fcmKeyId)
    let form = Query.encode([
      ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", assertion),
    ])
    return try client.response(
      to: ClientRequest(
        method: "POST", url: "https://oauth2.googleapis.com/token",
        headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array(form.utf8)))
  }

  static func fcmError(_ response: HTTPResponse) -> (status: String?, code: String?) {
    let error = (response.jsonObject as? [String: Any])?["error"] as? [String: Any]
    let code = (error?["details"] as? [[String: Any]])?.first?["errorCode"] as? String
    return (error?["status"] as? String, code)
  }

  @Test func fcmBindsATokenToItsProjectAndAnswersAsGoogleDocuments() throws {
    let clock = VirtualClock()
    // The build's google-services.json is project messages-prod; the backend's service
    // account belongs to messages-staging.
    let (stack, client, build) = try PushGatewayTests.start(
      .android, env: ["PUSH_FCM_PROJECT_ID": "messages-staging"], clock: clock)
    defer { stack.stop() }
    let credentials = try #require(stack.pushCredentials)
    let register = try PushGatewayTests.post(
      client, "https://fcm.googleapis.com/_device/register",
      json: ["projectId": "messages-prod", "package": build.appId.value])
    let token = try #require((register.jsonObject as? [String: Any])?["token"] as? String)
    let unknownPackage = try PushGatewayTests.post(
      client, "https://fcm.googleapis.com/_device/register",
      json: ["projectId": "messages-prod", "package": "org.example.stranger"])
    #expect(unknownPackage.status == 403)

    let granted = try PushGatewayTests.fcmAccessToken(client, credentials, at: clock.now)
    #expect(granted.status == 200)
    let access = try #require((granted.jsonObject as? [String: Any])?["access_token"] as? String)
    func send(_ project: String, _ to: String, bearer: String?) throws -> HTTPResponse {
      var headers: HTTPHeaders = [:]
      if let bearer { headers.set("Authorization", "Bearer \(bearer)") }
      return try PushGatewayTests.post(
        client, "https://fcm.googleapis.com/v1/projects/\(project)/messages:send",
        json: ["message": ["token": to, "data": ["type": "new_message"]]], headers: headers)
    }
    let mismatch = try send("messages-staging", token, bearer: access)
    #expect(mismatch.status == 403)
    #expect(PushGatewayTests.fcmError(mismatch).code == "SENDER_ID_MISMATCH")
    let otherProject = try send("messages-prod", token, bearer: access)
    #expect(otherProject.status == 403)
    #expect(PushGatewayTests.fcmError(otherProject).status == "PERMISSION_DENIED")
    let anonymous = try send("messages-staging", token, bearer: nil)
    #expect(anonymous.status == 401)
    #expect(PushGatewayTests.fcmError(anonymous).status == "UNAUTHENTICATED")
    let invalid = try send("messages-staging", "not-a-token", bearer: access)
    #expect(invalid.status == 400)
    #expect(PushGatewayTests.fcmError(invalid).code == "INVALID_ARGUMENT")
    clock.advance(by: 3700)
    #expect(try send("messages-staging", token, bearer: access).status == 401)
  }

  @Test func fcmDeliversOnItsProjectAndAnswersUnregisteredAfterDelete() throws {
    let clock = VirtualClock()
    let (stack, client, build) = try PushGatewayTests.start(.android, clock: clock)
    defer { stack.stop() }
    let credentials = try #require(stack.pushCredentials)
    let register = try PushGatewayTests.post(
      client, "https://fcm.googleapis.com/_device/register",
      json: ["projectId": "messages-prod", "package": build.appId.value])
    let token = try #require((register.jsonObject as? [String: Any])?["token"] as? String)
    let granted = try PushGatewayTests.fcmAccessToken(client, credentials, at: clock.now)
    let access = try #require((granted.jsonObject as? [String: Any])?["access_token"] as? String)
    func send() throws -> HTTPResponse {
      try PushGatewayTests.post(
        client, "https://fcm.googleapis.com/v1/projects/messages-prod/messages:send",
        json: ["message": ["token": token, "data": ["type": "new_message"]]],
        headers: ["Authorization": "Bearer \(access)"])
    }
    let sent = try send()
    #expect(sent.status == 200)
    #expect(
      ((sent.jsonObject as? [String: Any])?["name"] as? String)?.hasPrefix(
        "projects/messages-prod/messages/") == true)
    _ = try PushGatewayTests.post(
      client, "https://fcm.googleapis.com/_device/unregister", json: ["token": token])
    let gone = try send()
    #expect(gone.status == 404)
    #expect(PushGatewayTests.fcmError(gone).code == "UNREGISTERED")
  }

  @Test func googleRefusesAnAssertionNotSignedByTheServiceAccount() throws {
    let (stack, client, _) = try PushGatewayTests.start(.android)
    defer { stack.stop() }
    var credentials = try #require(stack.pushCredentials)
    credentials.fcmKey = try Key.generateRSA()
    let refused = try PushGatewayTests.fcmAccessToken(client, credentials, at: VirtualClock().now)
    #expect(refused.status == 400)
    #expect((refused.jsonObject as? [String: Any])?["error"] as? String == "invalid_grant")
  }

  /// The backend's side: one row per token (201, then 200), the session's rows deleted at
  /// logout, a content-free push per device and the dead token pruned.
  @Test func theBackendRegistersDevicesSendsAndPrunes() throws {
    let evidence = EvidenceLog()
    let (stack, client, build) = try PushGatewayTests.start(evidence: evidence)
    defer { stack.stop() }
    let appId = build.appId.value
    let token = try PushGatewayTests.deviceToken(
      client, PushGatewayTests.production, bundleId: appId)
    // Nobody signed in: the channels endpoint wants a session.
    let anonymous = try PushGatewayTests.post(
      client, "https://messages.example/api/v1.0/users/me/channels/",
      json: ["type": "push", "platform": "apns", "token": token])
    #expect(anonymous.status == 401 || anonymous.status == 403)
    // Nothing registered: a message is pushed nowhere.
    let none = try PushGatewayTests.post(
      client, "https://messages.example/api/v1.0/_qualify/messages/", json: ["to": "user1"])
    #expect(((none.jsonObject as? [String: Any])?["sent"] as? [Any])?.isEmpty == true)
    let lines = evidence.all.filter { $0.source == "push-sender" }
    #expect(lines.isEmpty)
  }
}
