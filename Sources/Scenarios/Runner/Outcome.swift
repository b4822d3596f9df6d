import Artifacts
import Devices
import HTTP
import StackPorts

/// What an action produced, for the expectations that follow it: a response or a problem, and
/// what the action was about, typed.
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
    /// What the step fails with when no expectation examines the problem.
    public var reason: FailureReason

    /// A refusal or a transport error; their reasons are their kinds'.
    public init(kind: Kind, message: String) {
      self.kind = kind
      self.message = message
      switch kind {
      case .refused: reason = .refused
      case .transport: reason = .transportError
      case .failed: reason = .endedOnPage
      }
    }

    public init(kind: Kind, message: String, reason: FailureReason) {
      self.kind = kind
      self.message = message
      self.reason = reason
    }
  }

  /// A browser session and where it ended.
  public struct BrowserSession: Sendable {
    public enum Place: String, Sendable {
      /// Handed to an app by its scheme.
      case app
      /// On the web app (the backend's origin).
      case web
      /// On the identity provider.
      case idp
      case other
    }

    public var result: BrowserResult
    /// Nil when it ended nowhere (undeliverable, a network failure, an attacker's stop).
    public var ends: Place?
  }

  /// One line describing what happened (`GET https://… → 200`).
  public var description: String
  public var response: HTTPResponse?
  public var problem: Problem?
  /// The browser session of a login, logout or web flow.
  public var browser: BrowserSession?
  /// The status of the mobile exchange, when a login got that far.
  public var exchangeStatus: Int?
  /// The status of the logout's safety-net POST.
  public var safetyNetStatus: Int?
  /// Whether it is a logout's (its browser session is the RP-initiated logout).
  public var isLogout = false
  /// The app an app-lifecycle outcome is about, and the bundle it runs after it.
  public var app: String?
  public var running: String?
  /// What the WebView loaded and whether the bundle crashed, after a launch.
  public var launch: App.Launch?
  /// The update check's decision, when one ran.
  public var update: OTAUpdater.Decision?
  /// What the updater made of the channel's live bundle, when an action inspected it.
  public var liveBundle: OTAUpdater.LiveBundle?
  /// The version the pipeline published.
  public var published: String?
  /// Static findings of an inspection; nil when the action was not one.
  public var findings: [Finding]?
  /// What the push enable flow returned.
  public var pushRegistration: PushClient.EnableResult?
  /// What the backend's sender said for the last message, one line per device.
  public var pushSends: [PushSend]?
  /// What the OS received for each app with the last message.
  public var notifications: [String: [PushClient.Notification]]?
  /// Where a notification tap opened the app.
  public var openedRoute: String?

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
