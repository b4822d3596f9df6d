import Foundation
import QualifyCore

/// What a field of the handoff's exchange carries, told by its name or, on the page's side, by
/// the value put in it (`code: handoff.callbackCode` carries the code whatever its key).
public enum HandoffField: String, Sendable {
  case code, verifier, state, challenge, purpose, other

  /// `callbackCode`, `handoffCode`, `code` carry the code; `codeVerifier`, `verifier` the
  /// verifier; `codeChallenge` the challenge (a `code_challenge_method` is none of them).
  public static func carried(by text: String) -> HandoffField {
    let name = text.lowercased()
    if name.contains("method") { return .other }
    if name.contains("challenge") { return .challenge }
    if name.contains("purpose") { return .purpose }
    if name.contains("verifier") { return .verifier }
    if name.contains("state") { return .state }
    if name.contains("code") { return .code }
    return .other
  }
}

/// What a route's schema allows of one field: its length, its values.
public struct HandoffFieldBounds: Sendable, Equatable {
  public var minLength: Int?
  public var maxLength: Int?
  /// `enum: [...]`: the only values taken.
  public var values: [String]?

  public init(minLength: Int? = nil, maxLength: Int? = nil, values: [String]? = nil) {
    self.minLength = minLength
    self.maxLength = maxLength
    self.values = values
  }

  /// Why `value` is refused, nil when it is taken.
  public func refusal(of value: String) -> String? {
    if let values, !values.contains(value) {
      return "\"\(value)\" is not one of \(values.joined(separator: ", "))"
    }
    return refusal(length: value.count)
  }

  /// Why a value of `length` characters is refused, nil when it is taken.
  public func refusal(length: Int) -> String? {
    if let minLength, length < minLength {
      return "\(length) characters, under minLength \(minLength)"
    }
    if let maxLength, length > maxLength {
      return "\(length) characters, over maxLength \(maxLength)"
    }
    return nil
  }
}

/// A route of the handoff as the server registers it: the exchange (the callback code and its
/// verifier for a one-time token, OpenMapX's `POST /mobile-auth/exchange` under `/api`) or the
/// issue (the purpose, the challenge and the state for a callback code, `POST
/// /mobile-auth/issue`).
public struct HandoffRoute: Sendable {
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
  /// Each field's length and values as the schema's `properties` write them (literals, or
  /// constants of the route files).
  public var bounds: [String: HandoffFieldBounds]
  /// Why the route's fields were not read (a schema that is not an object literal of the
  /// module): nothing is said of the body then.
  public var unread: String?

  public init(
    path: String, prefix: String = "", required: [String], accepted: [String]? = nil,
    fieldsFrom: String, bounds: [String: HandoffFieldBounds] = [:]
  ) {
    self.path = path
    self.prefix = prefix
    self.required = required
    self.accepted = accepted
    self.fieldsFrom = fieldsFrom
    self.bounds = bounds
  }

  /// The bounds of the field that carries `role`.
  public func bounds(_ role: HandoffField) -> HandoffFieldBounds? {
    field(role).flatMap { bounds[$0] }
  }

  /// Where the server answers it.
  public var served: String { prefix + path }

  /// The route's field that carries `role`.
  public func field(_ role: HandoffField) -> String? {
    (required + (accepted ?? [])).first { HandoffField.carried(by: $0) == role }
  }

  /// The path the route's own client would post to: the route's own when the call's literal
  /// end names it, else the call's under the same prefix (an API base it shares).
  public func path(of call: HandoffCall) -> String {
    reaches(call) ? served : prefix + call.path
  }

  /// The call's literal end and the route's path name the same endpoint: the call's base URL
  /// may hold the prefix (`${apiBaseUrl}/mobile-auth/exchange`), or the call may write part of
  /// it — what it writes before the route's path must then end the prefix read (any, when
  /// none was read).
  public func reaches(_ call: HandoffCall) -> Bool {
    if served.hasSuffix(call.path) { return true }
    guard call.path.hasSuffix(path) else { return false }
    let before = String(call.path.dropLast(path.count))
    return prefix.isEmpty || prefix.hasSuffix(before)
  }

  /// Why the route refuses what the call sends, with the answer a client gets; nil when it
  /// takes it.
  public func refusal(of call: HandoffCall) -> (status: Int, why: String)? {
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

extension HandoffRoute {
  /// Why the route refuses a body of these values (a field it requires missing, one it does
  /// not take, a value its schema's bounds refuse — of the fields that carry `boundsOf`, the
  /// values the app makes; every field when nil), nil when it takes it.
  public func refusal(body: [String: String], boundsOf roles: Set<HandoffField>? = nil)
    -> String?
  {
    let missing = required.filter { body[$0] == nil }
    if !missing.isEmpty {
      return "\(missing.joined(separator: ", ")) missing (\(fieldsFrom))"
    }
    if let accepted {
      let refused = body.keys.sorted().filter { !accepted.contains($0) }
      if !refused.isEmpty {
        return "\(refused.joined(separator: ", ")) not taken (\(fieldsFrom))"
      }
    }
    for key in body.keys.sorted()
    where roles.map({ $0.contains(HandoffField.carried(by: key)) }) ?? true {
      if let value = body[key], let why = bounds[key]?.refusal(of: value) {
        return "\(key): \(why) (\(fieldsFrom))"
      }
    }
    return nil
  }

  /// The call the route's own client would make: its path, and its fields for `roles` (a
  /// role the route names no field for sent under the role's name).
  public func ownCall(roles: [HandoffField]) -> HandoffCall {
    HandoffCall(
      path: path, fields: roles.map { .init(key: field($0) ?? $0.rawValue, role: $0) })
  }

  /// The body's keys the route's own client sends, each with what it carries: `call`'s, else
  /// the route's fields for `roles`.
  public func keys(of call: HandoffCall?, roles: [HandoffField]) -> [(String, HandoffField)] {
    if let call { return call.fields.map { ($0.key, $0.role) } }
    return roles.compactMap { role in field(role).map { ($0, role) } }
  }
}

/// The web page's call to a route of the handoff: where it posts, and the JSON body it sends.
public struct HandoffCall: Sendable {
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
