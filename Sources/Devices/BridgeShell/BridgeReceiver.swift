import Artifacts
import Foundation

/// The shell's receiver of bridge messages (seed 001, "What crosses"): every check before
/// dispatch, in the protocol module's order — the sender's origin, the byte ceiling before
/// any parsing, JSON, the document nonce, a strict schema, duplicates, the negotiated
/// protocol, the aggregate route bounds — then the handshake, acknowledgements, or the
/// command's dispatch when the app composes one. No I/O: the shell feeds it what the WebView
/// delivered and sends what it answers.
public struct BridgeReceiver: Sendable {
  public struct Limits: Sendable, Equatable {
    public var messageBytes: Int
    public var coordinates: Int
    public var steps: Int
    public var legs: Int

    /// Seed 001's bounds.
    public static let seed = Limits(
      messageBytes: 8 * 1024 * 1024, coordinates: 100_000, steps: 10_000, legs: 512)

    public init(messageBytes: Int, coordinates: Int, steps: Int, legs: Int) {
      self.messageBytes = messageBytes
      self.coordinates = coordinates
      self.steps = steps
      self.legs = legs
    }
  }

  /// A check a control turns off.
  public enum Check: String, Sendable, CaseIterable {
    case origin, nonce, size, schema, duplicates, `protocol`, bounds
    /// A key that pollutes a prototype (`__proto__`, `constructor`, `prototype`) anywhere.
    case pollution
    /// A `sentAtMs` further than the allowed skew from the receiver's clock.
    case clock
  }

  /// Why a message was refused. Origin and nonce failures are silent (an answer to an
  /// unauthenticated sender is an oracle); the others answer `native.error` with the code.
  public enum Rejection: String, Sendable {
    case origin, nonce
    case tooLarge = "too-large"
    case invalidJSON = "invalid-json"
    case schema, duplicate
    case `protocol`
    case bounds
    case unsupportedCapability = "unsupported-capability"
    case pollution = "prototype-pollution"
    case clock = "timestamp-out-of-range"
    /// A refusal of the app's receive() that a well-formed message meets.
    case refusedWellFormed = "refused-well-formed"

    public var isSilent: Bool { self == .origin || self == .nonce }
  }

  public enum Decision: Sendable, Equatable {
    case rejected(Rejection)
    /// `web.hello`: the version both speak, nil when the ranges do not overlap.
    case handshake(selected: Int?)
    case acknowledged
    /// A command handed to the app's dispatcher.
    case dispatched(type: String)
  }

  public static let webToNativeTypes: Set<String> = [
    "web.hello", "session.prepare", "session.start", "session.replace", "settings.update",
    "snapshot.request", "session.stop", "session.complete", "event.ack", "location.request",
    "settings.open", "auth.open",
  ]

  public let webOrigin: String
  public let limits: Limits
  public let shellRange: ClosedRange<Int>
  /// Whether the app composes a dispatcher for commands.
  public let dispatches: Bool
  public var skipped: Set<Check> = []
  /// The app's receive() refuses a message that passes every check (a refusal read as
  /// written, `BridgeShellSettings.receiverRefusesWellFormed`): nothing is handled.
  public var refusesWellFormed = false
  /// The app's own message schema (`webToNativeSchema`, read as written); nil: the seed's
  /// (`seedSchema`).
  public var schema: SchemaShape?
  /// Why the schema refused the last message it refused (`payload.startPackage: not in the
  /// schema`): the evidence names what the app's schema holds against it.
  public private(set) var schemaRefusal: String?
  /// The nonce the current document was given.
  public var nonce: String?
  public private(set) var negotiated: Int?
  private var seen: Set<String> = []
  /// How many messages got as far as the JSON parser (a too-large one must not).
  public private(set) var parsed = 0

  public init(webOrigin: String, limits: Limits, shellRange: ClosedRange<Int>, dispatches: Bool) {
    self.webOrigin = webOrigin
    self.limits = limits
    self.shellRange = shellRange
    self.dispatches = dispatches
  }

  /// A new document: its nonce, a fresh handshake, no message seen.
  public mutating func adoptDocument(nonce: String) {
    self.nonce = nonce
    negotiated = nil
    seen = []
  }

  /// How far a message's `sentAtMs` may be from the receiver's clock (seed 001's bound as
  /// OpenMapX writes it, `MAX_CLOCK_SKEW_MS`).
  public var clockSkewMs = 5 * 60_000
  static let pollutingKeys: Set<String> = ["__proto__", "constructor", "prototype"]

  public mutating func receive(from url: String, data: [UInt8], nowMs: Int? = nil) -> Decision {
    if !skipped.contains(.origin), Self.origin(of: url) != webOrigin { return .rejected(.origin) }
    if !skipped.contains(.size), data.count > limits.messageBytes { return .rejected(.tooLarge) }
    parsed += 1
    guard let message = try? JSONSerialization.jsonObject(with: Data(data)) as? [String: Any]
    else { return .rejected(.invalidJSON) }
    if !skipped.contains(.pollution), Self.pollutes(message) { return .rejected(.pollution) }
    if !skipped.contains(.nonce), message["channelNonce"] as? String != nonce || nonce == nil {
      return .rejected(.nonce)
    }
    if !skipped.contains(.clock), let nowMs, let sent = message["sentAtMs"] as? Int,
      abs(nowMs - sent) > clockSkewMs
    {
      return .rejected(.clock)
    }
    if !skipped.contains(.schema) {
      let holding = schema ?? Self.seedSchema
      if !holding.accepts(message) {
        schemaRefusal = holding.reason(message, at: "")
        return .rejected(.schema)
      }
    }
    if refusesWellFormed { return .rejected(.refusedWellFormed) }
    let type = message["type"] as? String ?? ""
    let id = message["messageId"] as? String ?? ""
    if !skipped.contains(.duplicates) {
      if seen.contains(id) { return .rejected(.duplicate) }
      seen.insert(id)
    }
    if type == "web.hello" {
      let payload = message["payload"] as? [String: Any] ?? [:]
      let low = Swift.max(payload["minProtocolVersion"] as? Int ?? 0, shellRange.lowerBound)
      let high = Swift.min(payload["maxProtocolVersion"] as? Int ?? 0, shellRange.upperBound)
      negotiated = low <= high ? high : nil
      if skipped.contains(.protocol), negotiated == nil {
        negotiated = payload["maxProtocolVersion"] as? Int
      }
      return .handshake(selected: negotiated)
    }
    if !skipped.contains(.protocol) {
      guard let negotiated, message["protocolVersion"] as? Int == negotiated else {
        return .rejected(.protocol)
      }
    }
    if !skipped.contains(.bounds),
      !Self.withinBounds(message["payload"], limits, counting: counting)
    {
      return .rejected(.bounds)
    }
    if type == "event.ack" { return .acknowledged }
    return dispatches ? .dispatched(type: type) : .rejected(.unsupportedCapability)
  }

  /// Whether a key that pollutes a prototype is anywhere in the decoded value.
  static func pollutes(_ value: Any?, depth: Int = 0) -> Bool {
    guard depth <= 64 else { return false }
    if let array = value as? [Any] { return array.contains { pollutes($0, depth: depth + 1) } }
    guard let object = value as? [String: Any] else { return false }
    return object.contains {
      pollutingKeys.contains($0.key) || pollutes($0.value, depth: depth + 1)
    }
  }

  static func origin(of url: String) -> String {
    guard let components = URLComponents(string: url), let scheme = components.scheme,
      let host = components.host
    else { return "" }
    let port = components.port.map { ":\($0)" } ?? ""
    return "\(scheme)://\(host)\(port)"
  }

  /// The schema the seed describes, for an app whose own is not read (which is itself a
  /// finding): a strict envelope with bounded ids, one of the vocabulary's types, a strict
  /// payload where the seed gives its fields (`web.hello`, `event.ack`), an object elsewhere.
  public static let seedSchema: SchemaShape = {
    let id = SchemaShape.string(length: .init(min: 1, max: 128))
    let counter = SchemaShape.number(integer: true, range: .init(min: 0))
    let version = SchemaShape.number(integer: true, range: .init(min: 1, max: 64))
    var options: [String: SchemaShape] = [:]
    for type in webToNativeTypes {
      let payload: SchemaShape
      switch type {
      case "web.hello":
        payload = .object(
          [
            "webBuildId": .init(id), "minProtocolVersion": .init(version),
            "maxProtocolVersion": .init(version),
          ], strict: true)
      case "event.ack":
        payload = .object(
          ["eventIds": .init(.array(id, count: .init(max: 256)))], strict: true)
      default:
        payload = .object([:], strict: false)
      }
      options[type] = .object(
        [
          "protocolVersion": .init(version), "type": .init(.literal("\"\(type)\"")),
          "messageId": .init(id), "channelNonce": .init(id),
          "sessionId": .init(id, optional: true), "revision": .init(counter, optional: true),
          "sentAtMs": .init(counter), "payload": .init(payload),
        ], strict: true)
    }
    return .tagged(key: "type", options: options)
  }()

  /// Which list's length adds to which total (seed 001 as OpenMapX counts it): a
  /// destination's point is not a route's coordinate.
  public static let seedCounting = ["geometry": "coordinates", "steps": "steps", "legs": "legs"]
  /// The app's parser's counting, read as written (`BridgeShellSettings.boundsCounted`): a
  /// total it never adds to, or never compares, bounds nothing.
  public var counting = seedCounting

  /// Coordinates, steps and legs across the whole payload: the length of every list that
  /// `counting` names, at any depth.
  static func withinBounds(
    _ payload: Any?, _ limits: Limits, counting: [String: String] = seedCounting
  ) -> Bool {
    var coordinates = 0
    var steps = 0
    var legs = 0
    func walk(_ value: Any?, depth: Int) {
      guard depth <= 64 else { return }
      if let array = value as? [Any] {
        for item in array { walk(item, depth: depth + 1) }
      } else if let object = value as? [String: Any] {
        for (name, item) in object {
          if let list = item as? [Any] {
            switch counting[name] {
            case "coordinates": coordinates += list.count
            case "steps": steps += list.count
            case "legs": legs += list.count
            default: break
            }
          }
          walk(item, depth: depth + 1)
        }
      }
    }
    walk(payload, depth: 0)
    return coordinates <= limits.coordinates && steps <= limits.steps && legs <= limits.legs
  }
}

/// The page's snapshot state (seed 001): a full snapshot rehydrates it at its revision; a delta
/// applies only to its own session and route on the revision it was made from; a gap asks for
/// a full snapshot.
public struct SnapshotReducer: Sendable, Equatable {
  public enum Result: String, Sendable {
    case applied
    /// A delta of another session or route, or from an older revision.
    case ignored
    /// A delta from a revision the page has not seen: it asks for a full snapshot.
    case gap
  }

  public private(set) var session: String?
  public private(set) var route: String?
  public private(set) var revision: Int?
  /// A control: every delta is applied as it comes.
  public var appliesAnyDelta = false

  public init() {}

  public mutating func full(session: String, route: String, revision: Int) {
    self.session = session
    self.route = route
    self.revision = revision
  }

  public mutating func delta(session: String, route: String, base: Int, revision: Int) -> Result {
    if appliesAnyDelta {
      self.session = session
      self.route = route
      self.revision = revision
      return .applied
    }
    guard session == self.session, route == self.route, let current = self.revision else {
      return .ignored
    }
    if base < current { return .ignored }
    if base > current { return .gap }
    self.revision = revision
    return .applied
  }
}
