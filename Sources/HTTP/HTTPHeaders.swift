/// An ordered list of HTTP header fields with case-insensitive lookup; repeated fields (such
/// as `Set-Cookie`) are kept apart.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
  public private(set) var fields: [(name: String, value: String)]

  public init(_ fields: [(String, String)] = []) {
    self.fields = fields.map { (name: $0.0, value: $0.1) }
  }

  public init(dictionaryLiteral elements: (String, String)...) {
    self.init(elements)
  }

  /// The first value of `name`.
  public subscript(name: String) -> String? {
    let lowered = name.lowercased()
    return fields.first { $0.name.lowercased() == lowered }?.value
  }

  /// Every value of `name`, in order.
  public func values(_ name: String) -> [String] {
    let lowered = name.lowercased()
    return fields.filter { $0.name.lowercased() == lowered }.map(\.value)
  }

  public mutating func add(_ name: String, _ value: String) {
    fields.append((name: name, value: value))
  }

  /// Replaces every value of `name` with `value`.
  public mutating func set(_ name: String, _ value: String) {
    remove(name)
    add(name, value)
  }

  public mutating func remove(_ name: String) {
    let lowered = name.lowercased()
    fields.removeAll { $0.name.lowercased() == lowered }
  }

  public func contains(_ name: String) -> Bool { self[name] != nil }

  public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
    fields.makeIterator()
  }

  public static func == (a: HTTPHeaders, b: HTTPHeaders) -> Bool {
    a.fields.count == b.fields.count
      && zip(a.fields, b.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
  }

  public func hash(into hasher: inout Hasher) {
    for field in fields {
      hasher.combine(field.name)
      hasher.combine(field.value)
    }
  }

  /// `Name: value` lines, as they travel.
  public var text: String {
    fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
  }
}

extension Substring {
  /// Without leading and trailing optional whitespace (RFC 9110's OWS: spaces and tabs), and
  /// the CR and LF that end a raw header line: what surrounds a header field's value. Byte by
  /// byte, since every header of every exchange passes here.
  func trimmingOWS() -> String {
    func isOWS(_ byte: UInt8) -> Bool {
      byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
    }
    var start = utf8.startIndex
    var end = utf8.endIndex
    while start < end && isOWS(utf8[start]) { utf8.formIndex(after: &start) }
    while start < end, isOWS(utf8[utf8.index(before: end)]) { utf8.formIndex(before: &end) }
    return String(decoding: utf8[start..<end], as: UTF8.self)
  }
}

extension String {
  /// `Substring.trimmingOWS()` of the whole string.
  func trimmingOWS() -> String { self[...].trimmingOWS() }
}
