import Foundation
import QualifyCore

/// What a field of the handoff's exchange carries, told by its name or, on the page's side, by
/// the value put in it (`code: handoff.callbackCode` carries the code whatever its key).
public enum HandoffField: String, Sendable {
  case code, verifier, state, other

  /// `callbackCode`, `handoffCode`, `code` carry the code; `codeVerifier`, `verifier` the
  /// verifier; a challenge is none of the three.
  public static func carried(by text: String) -> HandoffField {
    let name = text.lowercased()
    if name.contains("challenge") { return .other }
    if name.contains("verifier") { return .verifier }
    if name.contains("state") { return .state }
    if name.contains("code") { return .code }
    return .other
  }
}

/// The route the server registers for the exchange: the callback code and its verifier for a
/// one-time token (OpenMapX's `POST /mobile-auth/exchange` under the `/api` prefix).
public struct HandoffExchangeRoute: Sendable {
  /// The path as the route registers it.
  public var path: String
  /// The prefix its plugin is registered under (`register(mobileAuthRoute, { prefix: "/api" })`),
  /// "" when none was read.
  public var prefix: String
  /// The body fields the route needs: its schema's `required`, else what its handler reads.
  public var required: [String]
  /// Every field the route takes, when it refuses any other (`additionalProperties: false`);
  /// nil when it takes any.
  public var accepted: [String]?
  /// Where the fields were read (`exchangeBodySchema`, the handler).
  public var fieldsFrom: String

  public init(
    path: String, prefix: String = "", required: [String], accepted: [String]? = nil,
    fieldsFrom: String
  ) {
    self.path = path
    self.prefix = prefix
    self.required = required
    self.accepted = accepted
    self.fieldsFrom = fieldsFrom
  }

  /// Where the server answers it.
  public var served: String { prefix + path }

  /// The route's field that carries `role`.
  public func field(_ role: HandoffField) -> String? {
    (required + (accepted ?? [])).first { HandoffField.carried(by: $0) == role }
  }

  /// The path the route's own client would post to: the route's own when the call's literal
  /// end names it, else the call's under the same prefix (an API base it shares).
  public func path(of call: HandoffExchangeCall) -> String {
    reaches(call) ? served : prefix + call.path
  }

  /// The call's literal end and the route's path name the same endpoint (the call's base URL
  /// may hold the prefix, or more of the path).
  public func reaches(_ call: HandoffExchangeCall) -> Bool {
    served.hasSuffix(call.path) || call.path.hasSuffix(path)
  }

  /// Why the route refuses what the call sends, with the answer a client gets; nil when it
  /// takes it.
  public func refusal(of call: HandoffExchangeCall) -> (status: Int, why: String)? {
    guard reaches(call) else {
      return (
        404,
        "the page posts to …\(call.path), and the server registers \(served): no route answers it"
      )
    }
    let sent = Set(call.fields.map(\.key))
    let missing = required.filter { !sent.contains($0) }
    if !missing.isEmpty {
      return (
        400,
        "the route needs \(missing.joined(separator: ", ")) (\(fieldsFrom)), which the page does not send"
      )
    }
    if let accepted {
      let refused = call.fields.map(\.key).filter { !accepted.contains($0) }
      if !refused.isEmpty {
        return (
          400,
          "the page sends \(refused.joined(separator: ", ")), which the route refuses (\(fieldsFrom) takes only \(accepted.joined(separator: ", ")))"
        )
      }
    }
    return nil
  }
}

/// The web page's call to the exchange: where it posts, and the JSON body it sends.
public struct HandoffExchangeCall: Sendable {
  public struct Field: Sendable {
    public var key: String
    public var role: HandoffField
    public init(key: String, role: HandoffField) {
      self.key = key
      self.role = role
    }
  }
  /// The literal end of the URL (`/mobile-auth/exchange` of
  /// `${apiBaseUrl}/mobile-auth/exchange`).
  public var path: String
  /// The body's keys in order, each with what it carries.
  public var fields: [Field]

  public init(path: String, fields: [Field]) {
    self.path = path
    self.fields = fields
  }

  /// The body's key that carries `role`.
  public func key(_ role: HandoffField) -> String? { fields.first { $0.role == role }?.key }

  /// Its keys, for a message (`{ callbackCode, codeVerifier, state }`).
  public var shape: String { "{ " + fields.map(\.key).joined(separator: ", ") + " }" }
}
