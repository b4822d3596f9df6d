import Foundation
import HTTP
import QualifyCore

/// A hybrid app's site reached over HTTP, through the operator hooks the embedded site
/// serves (`/_qualify/accounts/…`, `/_qualify/notify`, `/_qualify/tokens`).
public struct HTTPHybridSite: HybridSitePort {
  public let origin: Origin
  let client: HTTPClient

  public init(origin: Origin, client: HTTPClient) {
    self.origin = origin
    self.client = client
  }

  public func account(login: String) throws -> SiteAccount? {
    let response = try hook(
      ClientRequest(url: origin.url("/_qualify/accounts/" + Query.escape(login))))
    guard response.status == 200, let json = response.jsonObject as? [String: Any],
      let id = json["id"] as? String, let salt = json["salt"] as? String
    else { return nil }
    return SiteAccount(id: id, salt: salt)
  }

  public func notify(userId: String, title: String, body: String, targetUrl: String) throws
    -> HTTPResponse
  {
    let json = try JSONSerialization.data(withJSONObject: [
      "userId": userId, "title": title, "body": body, "targetUrl": targetUrl,
    ])
    return try hook(
      ClientRequest(
        method: "POST", url: origin.url("/_qualify/notify"),
        headers: ["Content-Type": "application/json"], body: Array(json)))
  }

  public func setNotifications(token: String, activated: Bool) throws {
    let json = try JSONSerialization.data(withJSONObject: [
      "token": token, "activated": activated,
    ])
    let response = try hook(
      ClientRequest(
        method: "POST", url: origin.url("/_qualify/device-notifications"),
        headers: ["Content-Type": "application/json"], body: Array(json)))
    guard response.status == 200 else {
      throw HTTPClientError(
        .transport, "\(origin)'s device notifications answered \(response.status)")
    }
  }

  public func tokenCount(userId: String) throws -> Int {
    let response = try hook(
      ClientRequest(url: origin.url("/_qualify/tokens?user=" + Query.escape(userId))))
    guard response.status == 200,
      let count = (response.jsonObject as? [String: Any])?["count"] as? Int
    else {
      throw HTTPClientError(.transport, "\(origin)'s token count answered \(response.status)")
    }
    return count
  }

  private func hook(_ request: ClientRequest) throws -> HTTPResponse {
    try client.operatorHook(request, of: origin, servedBy: "the embedded site")
  }
}

/// A bridge shell's web app reached over HTTP, through the operator hooks the embedded one
/// serves under `/_qualify/handoff/`.
public struct HTTPHandoffServer: HandoffPort {
  public let origin: Origin
  public let login: String
  public let password: String
  let client: HTTPClient

  public init(origin: Origin, login: String, password: String, client: HTTPClient) {
    self.origin = origin
    self.login = login
    self.password = password
    self.client = client
  }

  public func redeemTogether(_ attempts: [(code: String, verifier: String, state: String)])
    throws -> [HTTPResponse]
  {
    let json = try JSONSerialization.data(withJSONObject: [
      "attempts": attempts.map { ["code": $0.code, "verifier": $0.verifier, "state": $0.state] }
    ])
    let response = try hook(
      ClientRequest(
        method: "POST", url: origin.url("/_qualify/handoff/redeem-together"),
        headers: ["Content-Type": "application/json"], body: Array(json)))
    guard let answers = (response.jsonObject as? [String: Any])?["answers"] as? [[String: Any]]
    else {
      throw HTTPClientError(
        .transport, "\(origin)'s racing redemptions answered \(response.status)")
    }
    return answers.map { answer in
      HTTPResponse(
        status: answer["status"] as? Int ?? 0,
        headers: ["Content-Type": "application/json"],
        body: Array((answer["body"] as? String ?? "").utf8))
    }
  }

  public func storedKeys() throws -> [String] {
    try list("/_qualify/handoff/table", "keys")
  }

  public func refusals() throws -> [String] {
    try list("/_qualify/handoff/refusals", "refusals")
  }

  private func list(_ path: String, _ key: String) throws -> [String] {
    let response = try hook(ClientRequest(url: origin.url(path)))
    guard let list = (response.jsonObject as? [String: Any])?[key] as? [String] else {
      throw HTTPClientError(.transport, "\(origin)\(path) answered \(response.status)")
    }
    return list
  }

  private func hook(_ request: ClientRequest) throws -> HTTPResponse {
    try client.operatorHook(request, of: origin, servedBy: "the embedded web app")
  }
}

extension HTTPClient {
  /// The answer of an operator hook only the embedded servers have: a server without it
  /// (404, 405) cannot be asked, which is `PortUnsupported`, not a failure of the app.
  func operatorHook(_ request: ClientRequest, of origin: Origin, servedBy: String) throws
    -> HTTPResponse
  {
    let response = try send(request).throwingResponse()
    if response.status == 404 || response.status == 405 {
      throw PortUnsupported(
        "\(origin) has no operator hook at \(request.url): only \(servedBy) answers it")
    }
    return response
  }
}
