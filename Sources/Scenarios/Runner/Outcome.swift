import Artifacts
import Devices
import HTTP

/// What an action produced, for the expectations that follow it.
public struct Outcome: Sendable {
  /// Why an action did not get to a normal result.
  public struct Problem: Sendable {
    public enum Kind: String, Sendable {
      /// The shell refused (transport policy, an unregistered scheme): nothing was sent.
      case refused
      /// The request was sent but got no response (TLS verification, connection).
      case transport
      /// A flow could not complete (a login stuck on a page).
      case failed
    }

    public var kind: Kind
    public var message: String
    /// A finer reason expectations can recognise (`login-form`, `blocked`, `exchange`).
    public var reason: String?

    public init(kind: Kind, message: String, reason: String? = nil) {
      self.kind = kind
      self.message = message
      self.reason = reason
    }
  }

  /// One line describing what happened (`GET https://… → 200`).
  public var description: String
  public var response: HTTPResponse?
  public var problem: Problem?
  /// Named facts for expectations (`login-form`: `shown`).
  public var facts: [String: String] = [:]
  /// Static findings, for `is inspected`.
  public var findings: [Finding] = []

  public init(_ description: String, response: HTTPResponse? = nil, problem: Problem? = nil) {
    self.description = description
    self.response = response
    self.problem = problem
  }

  /// The outcome of a native-stack request.
  static func from(_ result: NativeHTTPStackResult, label: String) -> Outcome {
    switch result {
    case .refused(let reason):
      return Outcome("\(label): refused", problem: Problem(kind: .refused, message: reason))
    case .sent(let exchange):
      if let response = exchange.response {
        return Outcome("\(label) → \(response.status)", response: response)
      }
      return Outcome(
        "\(label): no response",
        problem: Problem(kind: .transport, message: exchange.error?.message ?? "no response"))
    }
  }
}

typealias NativeHTTPStackResult = NativeHTTPStack.Result
