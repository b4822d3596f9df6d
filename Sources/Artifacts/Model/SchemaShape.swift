import Foundation

/// A message schema as the app's protocol module writes it in Zod (seed 001: "a strict
/// schema"), read into the checks qualify can apply to a decoded JSON value: which keys an
/// object allows and needs, and what kind each value is. The simulated receiver holds each
/// message to it, so a payload the app's own schema refuses is refused in the run too.
///
/// A refinement qualify does not know (`.regex(…)`, `.refine(…)`, `.email()`) leaves its
/// shape as read, without the refinement: what the read part refuses is refused, nothing more
/// is claimed.
public indirect enum SchemaShape: Sendable, Equatable {
  /// `z.object({…})`: `strict` refuses keys it does not list (`.strict()`); otherwise they
  /// are dropped or passed through, and never refused.
  case object([String: Field], strict: Bool)
  case string(length: Bounds)
  case number(integer: Bool, range: Bounds)
  case boolean
  /// `z.literal(…)`: the value as JSON text (`"ground"`, `3`, `true`).
  case literal(String)
  /// `z.enum([...])`.
  case oneOf([String])
  case array(SchemaShape, count: Bounds)
  /// `z.tuple([...])`: exactly these, in order.
  case tuple([SchemaShape])
  /// `z.record(key, value)`: any keys, each value of the shape.
  case record(SchemaShape)
  /// `z.discriminatedUnion(key, [...])`: the option whose `key` literal the value carries.
  case tagged(key: String, options: [String: SchemaShape])
  /// `z.union([...])`: any one of them.
  case anyOf([SchemaShape])
  case nullable(SchemaShape)
  case null
  /// `z.unknown()`, `z.any()`: anything.
  case anything

  /// An object's field: its shape, and whether it may be absent (`.optional()`,
  /// `.default(…)`).
  public struct Field: Sendable, Equatable {
    public var shape: SchemaShape
    public var optional: Bool

    public init(_ shape: SchemaShape, optional: Bool = false) {
      self.shape = shape
      self.optional = optional
    }
  }

  /// `.min(…)`/`.max(…)` (a length, a count or a value); `.nonnegative()` is a min of 0.
  public struct Bounds: Sendable, Equatable {
    public var min: Double?
    public var max: Double?

    public init(min: Double? = nil, max: Double? = nil) {
      self.min = min
      self.max = max
    }

    func holds(_ value: Double) -> Bool {
      (min.map { value >= $0 } ?? true) && (max.map { value <= $0 } ?? true)
    }
  }

  /// Whether Zod's `safeParse` would accept `value`, a `JSONSerialization` result.
  /// Whether Zod's `safeParse` would accept `value`. No path is built: a route of a hundred
  /// thousand points is checked without a string per point.
  public func accepts(_ value: Any) -> Bool {
    switch self {
    case .array(let element, let count):
      guard let items = value as? [Any], count.holds(Double(items.count)) else { return false }
      return items.allSatisfy { element.accepts($0) }
    case .tuple(let elements):
      guard let items = value as? [Any], items.count == elements.count else { return false }
      return zip(items, elements).allSatisfy { $1.accepts($0) }
    case .record(let element):
      guard let object = value as? [String: Any] else { return false }
      return object.values.allSatisfy { element.accepts($0) }
    case .object(let fields, let strict):
      guard let object = value as? [String: Any] else { return false }
      if strict, object.keys.contains(where: { fields[$0] == nil }) { return false }
      return fields.allSatisfy { key, field in
        guard let item = object[key] else { return field.optional || field.shape == .anything }
        return field.shape.accepts(item)
      }
    case .tagged(let key, let options):
      guard let object = value as? [String: Any], let tag = object[key] as? String,
        let option = options[tag]
      else { return false }
      return option.accepts(value)
    case .anyOf(let options): return options.contains { $0.accepts(value) }
    case .nullable(let inner): return value is NSNull || inner.accepts(value)
    default: return reason(value, at: "") == nil
    }
  }

  /// Where and why `value` is refused (`payload.startPackage: unknown key`), nil when it is
  /// accepted: the run's evidence names what the app's schema refused.
  public func reason(_ value: Any, at path: String) -> String? {
    func here(_ why: String) -> String { path.isEmpty ? why : "\(path): \(why)" }
    func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
    switch self {
    case .anything:
      return nil
    case .null:
      return value is NSNull ? nil : here("not null")
    case .nullable(let inner):
      return value is NSNull ? nil : inner.reason(value, at: path)
    case .boolean:
      return Self.isBoolean(value) ? nil : here("not a boolean")
    case .string(let length):
      guard let text = value as? String else { return here("not a string") }
      // Zod counts a string's length in UTF-16 units, as JavaScript does.
      return length.holds(Double(text.utf16.count)) ? nil : here("length out of bounds")
    case .number(let integer, let range):
      guard let number = value as? NSNumber, !Self.isBoolean(value) else {
        return here("not a number")
      }
      let double = number.doubleValue
      if integer, double.rounded() != double { return here("not an integer") }
      return range.holds(double) ? nil : here("out of bounds")
    case .literal(let text):
      return Self.jsonText(value) == text ? nil : here("not \(text)")
    case .oneOf(let values):
      guard let text = value as? String, values.contains(text) else {
        return here("not one of \(values.joined(separator: ", "))")
      }
      return nil
    case .array(let element, let count):
      guard let items = value as? [Any] else { return here("not an array") }
      guard count.holds(Double(items.count)) else { return here("\(items.count) items") }
      for (index, item) in items.enumerated() where !element.accepts(item) {
        if let why = element.reason(item, at: "\(path)[\(index)]") { return why }
      }
      return nil
    case .tuple(let elements):
      guard let items = value as? [Any], items.count == elements.count else {
        return here("not a tuple of \(elements.count)")
      }
      for (index, (item, element)) in zip(items, elements).enumerated() {
        if let why = element.reason(item, at: "\(path)[\(index)]") { return why }
      }
      return nil
    case .record(let element):
      guard let object = value as? [String: Any] else { return here("not an object") }
      for key in object.keys.sorted() where !element.accepts(object[key] as Any) {
        if let why = element.reason(object[key] as Any, at: child(key)) { return why }
      }
      return nil
    case .object(let fields, let strict):
      guard let object = value as? [String: Any] else { return here("not an object") }
      if strict, let extra = object.keys.sorted().first(where: { fields[$0] == nil }) {
        return child(extra) + ": not in the schema"
      }
      for key in fields.keys.sorted() {
        guard let field = fields[key] else { continue }
        guard let item = object[key] else {
          // `z.unknown()` and `z.any()` accept undefined: their key may be absent.
          if field.optional || field.shape == .anything { continue }
          return child(key) + ": missing"
        }
        if !field.shape.accepts(item), let why = field.shape.reason(item, at: child(key)) {
          return why
        }
      }
      return nil
    case .tagged(let key, let options):
      guard let object = value as? [String: Any], let tag = object[key] as? String else {
        return here("no \"\(key)\" field")
      }
      guard let option = options[tag] else {
        return child(key) + ": \"\(tag)\" is not one the schema lists"
      }
      return option.reason(value, at: path)
    case .anyOf(let options):
      var first: String?
      for option in options {
        guard let why = option.reason(value, at: path) else { return nil }
        first = first ?? why
      }
      return first ?? here("no option")
    }
  }

  /// The least value the schema accepts (required fields only, the first of each choice, the
  /// shortest string and list allowed): what a page written against the same module sends
  /// when a scenario names only a message's type.
  public func example() -> Any {
    switch self {
    case .anything, .null, .nullable(.null): return NSNull()
    case .nullable(let inner): return inner.example()
    case .boolean: return false
    case .string(let length):
      let count = Swift.max(Int(length.min ?? 1), 1)
      return String(repeating: "x", count: Swift.min(count, Int(length.max ?? Double(count))))
    case .number(let integer, let range):
      let least = Swift.max(range.min ?? 0, Swift.min(range.max ?? 0, 0))
      return integer ? least.rounded(.up) : least
    case .literal(let text):
      if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 {
        return String(text.dropFirst().dropLast())
      }
      if text == "true" || text == "false" { return text == "true" }
      return Double(text) ?? NSNull()
    case .oneOf(let values): return values.first ?? ""
    case .array(let element, let count):
      return Array(repeating: element.example(), count: Int(count.min ?? 0))
    case .tuple(let elements): return elements.map { $0.example() }
    case .record: return [String: Any]()
    case .object(let fields, _):
      var object: [String: Any] = [:]
      for (key, field) in fields where !field.optional { object[key] = field.shape.example() }
      return object
    case .tagged(_, let options):
      return options.keys.sorted().first.flatMap { options[$0]?.example() } ?? NSNull()
    case .anyOf(let options): return options.first?.example() ?? NSNull()
    }
  }

  /// The schema of `key` in the option of a tagged union that `tag` selects (the payload of
  /// one message type); nil where there is no such option or field.
  public func field(_ key: String, whereTagIs tag: String) -> SchemaShape? {
    switch self {
    case .tagged(_, let options):
      guard case .object(let fields, _)? = options[tag] else { return nil }
      return fields[key]?.shape
    case .anyOf(let options):
      // A plain union: the option whose tag field is that literal.
      for case .object(let fields, _) in options {
        for field in fields.values where field.shape == .literal("\"\(tag)\"") {
          return fields[key]?.shape
        }
      }
      return nil
    default:
      return nil
    }
  }

  static func isBoolean(_ value: Any) -> Bool {
    // JSONSerialization gives `true` as a boolean NSNumber (objCType "c"): `is Bool` would
    // take 1 for true too.
    guard let number = value as? NSNumber else { return false }
    return number.objCType.pointee == CChar(UInt8(ascii: "c"))
  }

  static func jsonText(_ value: Any) -> String? {
    if let text = value as? String { return "\"\(text)\"" }
    if isBoolean(value), let flag = value as? Bool { return flag ? "true" : "false" }
    if let number = value as? NSNumber { return numberText(number.doubleValue) }
    return nil
  }

  /// A number as a `z.literal(…)` of it is compared: an integral value without a fraction.
  static func numberText(_ number: Double) -> String {
    number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
  }
}
