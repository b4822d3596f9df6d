import Foundation

/// JSON text of the values the mocks send (tokens' claims, API answers), byte for byte what
/// `JSONSerialization` writes with `.sortedKeys`: its writer is a tenth of a full run (it
/// boxes every value and sorts every dictionary through `AnyHashable`).
public enum JSONText {
  /// The JSON of `object` with sorted keys, `/` escaped or not; `JSONSerialization`'s own
  /// answer for what this writer does not write (numbers other than `Int`, `NSNumber`s,
  /// other types), and nil when that fails too.
  public static func data(_ object: Any, escapingSlashes: Bool) -> [UInt8]? {
    var out: [UInt8] = []
    out.reserveCapacity(256)
    if write(object, into: &out, escapingSlashes: escapingSlashes) { return out }
    var options: JSONSerialization.WritingOptions = [.sortedKeys]
    if !escapingSlashes { options.insert(.withoutEscapingSlashes) }
    return (try? JSONSerialization.data(withJSONObject: object, options: options)).map(Array.init)
  }

  /// false for a value this writer leaves to Foundation.
  private static func write(_ value: Any, into out: inout [UInt8], escapingSlashes: Bool) -> Bool {
    switch value {
    case let text as String:
      string(text, into: &out, escapingSlashes: escapingSlashes)
    case let flag as Bool where type(of: value) == Bool.self:
      out.append(contentsOf: flag ? Array("true".utf8) : Array("false".utf8))
    case let number as Int where type(of: value) == Int.self:
      out.append(contentsOf: String(number).utf8)
    case let object as [String: Any]:
      out.append(UInt8(ascii: "{"))
      for (index, key) in sortedKeys(object).enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        string(key, into: &out, escapingSlashes: escapingSlashes)
        out.append(UInt8(ascii: ":"))
        guard let element = object[key],
          write(element, into: &out, escapingSlashes: escapingSlashes)
        else {
          return false
        }
      }
      out.append(UInt8(ascii: "}"))
    case let array as [Any]:
      out.append(UInt8(ascii: "["))
      for (index, element) in array.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        guard write(element, into: &out, escapingSlashes: escapingSlashes) else { return false }
      }
      out.append(UInt8(ascii: "]"))
    case is NSNull:
      out.append(contentsOf: "null".utf8)
    default:
      return false
    }
    return true
  }

  private static let hex = Array("0123456789abcdef".utf8)

  /// The key orders already worked out, by key set: the mocks send the same few shapes
  /// (a token's claims, an API answer) thousands of times per run, and Foundation's
  /// comparison is the costly part of its writer.
  private static let orders = Locked<[String: [String]]>([:])

  /// `object`'s keys in `JSONSerialization`'s `.sortedKeys` order: numeric, case-insensitive,
  /// forced, in the system locale (so `9` before `10`, `_` before `-`, `b` before `B`).
  private static func sortedKeys(_ object: [String: Any]) -> [String] {
    let keys = object.keys.sorted()
    guard keys.count > 1 else { return keys }
    let set = keys.joined(separator: "\u{0}")
    if let known = orders.withLock({ $0[set] }) { return known }
    let ordered = keys.sorted { a, b in
      a.compare(
        b, options: [.numeric, .caseInsensitive, .forcedOrdering], range: a.startIndex..<a.endIndex,
        locale: NSLocale.system) == .orderedAscending
    }
    // Bounded: a run's shapes are few, and a hostile app's answers must not grow it.
    orders.withLock { if $0.count < 4_096 { $0[set] = ordered } }
    return ordered
  }

  private static func string(_ text: String, into out: inout [UInt8], escapingSlashes: Bool) {
    out.append(UInt8(ascii: "\""))
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
      case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
      case UInt8(ascii: "/") where escapingSlashes: out.append(contentsOf: [0x5C, 0x2F])
      case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
      case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
      case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
      case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
      case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
      case 0..<0x20:
        out.append(contentsOf: [
          0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)],
        ])
      default: out.append(byte)
      }
    }
    out.append(UInt8(ascii: "\""))
  }
}
