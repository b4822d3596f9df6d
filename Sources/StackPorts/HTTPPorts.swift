import Artifacts
import Foundation
import HTTP
import QualifyCore

/// An identity provider reached over HTTP: its event feed read from its events endpoint, as
/// a client of Keycloak's admin events API would.
public struct HTTPIdentityProvider: IdentityProviderPort {
  public let issuer: String
  public let testUsers: [RealmSettings.User]
  /// The events endpoint (newest first, as Keycloak serves them).
  let eventsURL: String
  let client: HTTPClient

  public init(
    issuer: String, eventsURL: String, testUsers: [RealmSettings.User], client: HTTPClient
  ) {
    self.issuer = issuer
    self.eventsURL = eventsURL
    self.testUsers = testUsers
    self.client = client
  }

  public func events() throws -> [IdentityEvent] {
    let separator = eventsURL.contains("?") ? "&" : "?"
    let response = try client.following(ClientRequest(url: eventsURL + separator + "max=10000"))
    guard response.status == 200, let list = response.jsonObject as? [[String: Any]] else {
      throw HTTPClientError(
        .transport, "the identity provider's events endpoint answered \(response.status)")
    }
    return list.reversed().map { entry in
      IdentityEvent(
        type: entry["type"] as? String ?? "", clientId: entry["clientId"] as? String,
        userId: entry["userId"] as? String, sessionId: entry["sessionId"] as? String,
        username: (entry["details"] as? [String: Any])?["username"] as? String)
    }
  }
}

/// A backend reached over HTTP: a session cookie's owner is whom `/api/v1.0/users/me/` says.
public struct HTTPBackend: BackendPort {
  public let origin: Origin
  public let sessionCookie: String
  let client: HTTPClient

  public init(origin: Origin, sessionCookie: String, client: HTTPClient) {
    self.origin = origin
    self.sessionCookie = sessionCookie
    self.client = client
  }

  public func user(ofSession value: String) throws -> Set<String> {
    let response = try client.following(
      ClientRequest(
        url: origin.url("/api/v1.0/users/me/"), headers: ["Cookie": "\(sessionCookie)=\(value)"]))
    guard response.status == 200 else { return [] }
    return HTTPBackend.names(ofMe: response)
  }

  /// The names a `users/me` answer gives its user by: a deployment names users by its own
  /// database id, so the email (and a subject, when shown) is what the harness can match.
  public static func names(ofMe response: HTTPResponse) -> Set<String> {
    guard let me = response.jsonObject as? [String: Any] else { return [] }
    return Set(["id", "email", "sub"].compactMap { me[$0] as? String }.filter { !$0.isEmpty })
  }

  public func deliverMessage(to user: String, thread: String) throws -> [PushSend] {
    let body = try JSONSerialization.data(withJSONObject: ["to": user, "thread": thread])
    let response = try client.send(
      ClientRequest(
        method: "POST", url: origin.url("/api/v1.0/_qualify/messages/"),
        headers: ["Content-Type": "application/json"], body: Array(body))
    ).throwingResponse()
    if response.status == 404 || response.status == 405 {
      throw PortUnsupported(
        "\(origin) has no message hook (/api/v1.0/_qualify/messages/): a message can only be made to arrive in the embedded stack"
      )
    }
    guard response.status == 200,
      let sent = (response.jsonObject as? [String: Any])?["sent"] as? [[String: Any]]
    else {
      throw HTTPClientError(
        .transport, "the backend did not take the message: HTTP \(response.status)")
    }
    return sent.map {
      PushSend(
        transport: $0["platform"] as? String ?? "", device: $0["device"] as? String ?? "",
        status: $0["status"] as? Int ?? 0, reason: $0["reason"] as? String ?? "",
        detail: $0["detail"] as? String ?? "")
    }
  }
}

extension HTTPClient {
  /// The response to `request` after up to three redirects (an http origin that answers 301
  /// to its https twin), as an operator's client would follow them.
  func following(_ request: ClientRequest) throws -> HTTPResponse {
    var request = request
    var response = try send(request).throwingResponse()
    for _ in 0..<3 where response.isRedirect {
      guard let location = response.headers["Location"] else { break }
      request.url =
        location.contains("://")
        ? location
        : URL(string: location, relativeTo: URL(string: request.url))?.absoluteString
          ?? location
      response = try send(request).throwingResponse()
    }
    return response
  }
}

extension HTTPExchange {
  /// The response, or the error that stopped the exchange.
  func throwingResponse() throws -> HTTPResponse {
    if let error { throw error }
    guard let response else { throw HTTPClientError(.transport, "no response") }
    return response
  }
}
