import Artifacts
import Foundation
import HTTP
import OTA
import QualifyCore

/// The real systems are asked before the run starts: one that is down or misconfigured stops
/// it now, naming the system, rather than failing the app's scenarios.
extension StackFile {
  /// The real backend answers its config endpoint (`GET /api/v1.0/config/`) before the run,
  /// or the run does not start.
  static func probe(backend: RealSystems.Backend, _ real: RealSystems) throws {
    let url = backend.origin.url("/api/v1.0/config/")
    let exchange = try real.client().send(ClientRequest(url: url))
    guard let response = exchange.response else {
      throw InputError(
        "the real backend is unreachable: \(url): \(exchange.error?.message ?? "no answer")",
        hint:
          "check backend.baseURL in the stack file and that the backend answers from this machine")
    }
    guard response.status == 200, response.jsonObject is [String: Any] else {
      throw InputError(
        "the real backend answered \(response.status) at \(url), not the app's config: is backend.baseURL the app's API origin?"
      )
    }
  }

  /// A session-contract backend answers its bootstrap without a token as the contract says:
  /// 401 with a JSON error, before the run, or the run does not start.
  static func probe(contractBackend backend: RealSystems.Backend, _ real: RealSystems) throws {
    let url = backend.origin.url("/v1/mobile/api/me")
    let exchange = try real.client().send(ClientRequest(url: url))
    guard let response = exchange.response else {
      throw InputError(
        "the real backend is unreachable: \(url): \(exchange.error?.message ?? "no answer")",
        hint: "check backend.baseURL in the stack file")
    }
    guard response.status == 401, (response.jsonObject as? [String: Any])?["error"] is String
    else {
      throw InputError(
        "the real backend answered \(response.status) at \(url) without a token, not the contract's 401 with an error: is backend.baseURL the contract's API origin?"
      )
    }
    // The test accounts sign in now, or the run would blame the app for a wrong password;
    // each session opened here is closed again.
    let client = try real.client()
    for user in real.contractTestUsers {
      let login = backend.origin.url("/v1/mobile/auth/password/login")
      let body = try JSONSerialization.data(
        withJSONObject: ["login": user.username, "password": user.password ?? ""])
      let answer = client.send(
        ClientRequest(
          method: "POST", url: login, headers: ["Content-Type": "application/json"],
          body: Array(body)))
      guard let response = answer.response, response.status == 200,
        let token = (response.jsonObject as? [String: Any])?["accessToken"] as? String
      else {
        throw InputError(
          "the real backend refuses the test account \(user.username) at \(login): \(answer.response.map { "HTTP \($0.status) \((($0.jsonObject as? [String: Any])?["error"] as? String) ?? "")" } ?? answer.error?.message ?? "no answer")",
          hint: "check testUsers and the variables their passwordEnv name")
      }
      _ = client.send(
        ClientRequest(
          method: "POST", url: backend.origin.url("/v1/mobile/session/logout"),
          headers: ["Authorization": "Bearer \(token)"]))
    }
  }

  /// A real instance answers `GET /api/instance` as a Sovereign instance (seed 004's
  /// contract) before the run, or the run does not start.
  static func probe(instance name: String, at origin: Origin, _ real: RealSystems) throws {
    let url = origin.url("/api/instance")
    let exchange = try real.client().send(ClientRequest(url: url))
    guard let response = exchange.response else {
      throw InputError(
        "the real instance \(name) is unreachable: \(url): \(exchange.error?.message ?? "no answer")",
        hint: "check instances.\(name) in the stack file")
    }
    let body = response.jsonObject as? [String: Any]
    guard response.status == 200, body?["status"] as? String == "ok",
      body?["product"] as? String == "sovereign", body?["instanceName"] is String,
      body?["platformVersion"] is String
    else {
      throw InputError(
        "the real instance \(name) at \(url) does not answer as a Sovereign instance (HTTP \(response.status); expected {status: \"ok\", product: \"sovereign\", instanceName, platformVersion})"
      )
    }
  }

  /// The real channel serves a manifest before the run, or the run does not start; its
  /// bundle's origin is reached over the network too.
  static func probe(manifestURL: String, _ real: RealSystems) throws -> RealSystems.OTAChannel {
    var origins = [Origin(url: manifestURL)].compactMap { $0 }
    var probing = real
    probing.ota = RealSystems.OTAChannel(manifestURL: manifestURL, origins: origins)
    let exchange = try probing.client().send(ClientRequest(url: manifestURL))
    guard let response = exchange.response else {
      throw InputError(
        "the real OTA channel is unreachable: \(manifestURL): \(exchange.error?.message ?? "no answer")",
        hint:
          "check ota.manifestURL in the stack file and that the bucket answers from this machine"
      )
    }
    guard response.status == 200 else {
      throw InputError(
        "the real OTA channel answered \(response.status) at \(manifestURL): no manifest is published there",
        hint: "publish to the channel first, or leave \"ota\" out to use the in-process bucket")
    }
    let manifest: Manifest
    do {
      manifest = try Manifest.parse(response.body, source: manifestURL)
    } catch {
      throw InputError("the real OTA channel's manifest at \(manifestURL) does not parse: \(error)")
    }
    let bundleURL = Manifest.resolve(manifest.url, against: manifestURL)
    if let bundle = Origin(url: bundleURL), !origins.contains(bundle) {
      origins.append(bundle)
    }
    // The bundle must be there too: a channel whose manifest names a missing bundle would
    // fail every device, and the run would blame the app.
    probing.ota = RealSystems.OTAChannel(manifestURL: manifestURL, origins: origins)
    let head = try probing.client().send(ClientRequest(method: "HEAD", url: bundleURL))
    guard let answer = head.response, answer.status == 200 else {
      throw InputError(
        "the real OTA channel's bundle \(manifest.version) cannot be downloaded: \(bundleURL): \(head.response.map { "HTTP \($0.status)" } ?? head.error?.message ?? "no answer")",
        hint: "the manifest at \(manifestURL) names it")
    }
    return RealSystems.OTAChannel(manifestURL: manifestURL, origins: origins)
  }

  /// Reads the IdP's discovery document: the endpoints the run uses, and the proof it answers.
  static func discover(
    _ issuer: String, profile: String, app: RealSystems.IdentityProvider.Client,
    companion: RealSystems.IdentityProvider.Client, users: [RealmSettings.User], trusted: String?,
    timeout: TimeInterval
  ) throws -> RealSystems.IdentityProvider {
    let url =
      (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer)
      + "/.well-known/openid-configuration"
    guard let origin = Origin(url: issuer) else {
      throw InputError("the identity provider's issuer is not an http(s) URL: \(issuer)")
    }
    var configuration = RealSystems.clientConfiguration(
      trusted: trusted, timeout: timeout, authorities: [origin.authority])
    configuration.maxResponseBytes = 1 << 20
    let exchange = try HTTPClient(configuration: configuration).send(ClientRequest(url: url))
    guard let response = exchange.response else {
      throw InputError(
        "the real identity provider is unreachable: \(url): \(exchange.error?.message ?? "no answer")",
        hint: "check the issuer in the stack file and that the IdP answers from this machine")
    }
    guard response.status == 200, let document = response.jsonObject as? [String: Any] else {
      throw InputError(
        "the real identity provider answered \(response.status) at \(url), not a discovery document"
      )
    }
    func endpoint(_ key: String) throws -> String {
      guard let value = document[key] as? String, Origin(url: value) != nil else {
        throw InputError("the discovery document at \(url) has no \(key)")
      }
      return value
    }
    guard document["issuer"] as? String == issuer else {
      throw InputError(
        "the discovery document at \(url) names the issuer \(document["issuer"] as? String ?? "none"), not \(issuer) (OIDC Discovery §4.3)"
      )
    }
    let tokenEndpoint = try endpoint("token_endpoint")
    let notes = try ClientProbe.check(
      [("app", app), ("companion", companion)], at: tokenEndpoint,
      offered: document["token_endpoint_auth_methods_supported"] as? [String],
      configuration: configuration)
    var provider = RealSystems.IdentityProvider(
      issuer: issuer, profile: profile,
      authorizationEndpoint: try endpoint("authorization_endpoint"),
      tokenEndpoint: try endpoint("token_endpoint"), jwksURI: try endpoint("jwks_uri"),
      userinfoEndpoint: document["userinfo_endpoint"] as? String,
      endSessionEndpoint: document["end_session_endpoint"] as? String, app: app,
      companion: companion, testUsers: users)
    provider.unchecked = notes
    return provider
  }
}
