import Foundation
import HTTP
import QualifyCore

/// The app's native HTTP stack (CapacitorHttp): its own cookie jar, the platform's transport
/// policy, every exchange recorded.
public final class NativeHTTPStack {
  /// What happened to a request.
  public enum Result: Sendable {
    /// The platform refused to send it (no packet left the device).
    case refused(String)
    /// It was sent; the exchange may still carry a transport error.
    case sent(HTTPExchange)
  }

  public let jar: CookieJar
  public let policy: TransportPolicy
  let client: HTTPClient
  let environment: DeviceEnvironment
  let source: String

  let keepsCookies: Bool
  /// The secrets a response carries (a session's tokens from a real backend), registered with
  /// the redactor before the exchange is recorded.
  var secretsIn: ((HTTPResponse) -> [String])?
  /// Whether the device has no network: requests then fail as a connection would.
  var isOffline: () -> Bool = { false }

  init(
    source: String, policy: TransportPolicy, environment: DeviceEnvironment,
    keepsCookies: Bool = true
  ) throws {
    self.keepsCookies = keepsCookies
    self.source = source
    self.policy = policy
    self.environment = environment
    jar = CookieJar(clock: environment.clock)
    client = try environment.client()
  }

  /// Sends `request` with the jar's cookies and stores the response's cookies.
  public func send(_ request: ClientRequest) -> Result {
    if let reason = policy.refusal(for: request.url) {
      environment.decision(source, "refused \(request.method) \(request.url): \(reason)")
      return .refused(reason)
    }
    var outgoing = request
    if keepsCookies, let cookie = jar.header(for: request.url) {
      outgoing.headers.set("Cookie", cookie)
    }
    let exchange =
      isOffline()
      ? HTTPExchange.offline(outgoing) : client.send(outgoing)
    if keepsCookies, let response = exchange.response {
      jar.store(response.headers.values("Set-Cookie"), from: request.url)
    }
    if let response = exchange.response, let secretsIn {
      for secret in secretsIn(response) { environment.redactor.register(secret) }
    }
    environment.evidence.append(
      exchange.evidence(source: source, redactor: environment.redactor, time: environment.clock.now)
    )
    return .sent(exchange)
  }
}

extension HTTPExchange {
  /// What a request made without a network fails with: the device's doing, never a server's
  /// (a run against real systems does not take it for their outage).
  public static let offlineMessage = "the device is offline: no network to reach the server"

  /// The exchange of a request made without a network: no server saw it.
  static func offline(_ request: ClientRequest) -> HTTPExchange {
    HTTPExchange(
      request: request, response: nil, error: HTTPClientError(.transport, offlineMessage),
      duration: 0)
  }
}
