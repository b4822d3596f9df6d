import Foundation

/// Durations as scenario files and terminal output write them: `500ms`, `61s`, `10m`, `12h`,
/// `2d`.
public enum Durations {
  /// The longest duration a scenario or a flag may name: ten years, beyond any TTL or session
  /// the world models, and far inside what a clock or an integer can hold.
  public static let maximum: TimeInterval = 10 * 365 * 86_400

  /// Parses `61s`, `10m`, `1h30m`, `500ms`; nil when malformed, not finite, or longer than
  /// `maximum`.
  public static func parse(_ text: String) -> TimeInterval? {
    var total: TimeInterval = 0
    var digits = ""
    var index = text.startIndex
    var sawUnit = false
    while index < text.endIndex {
      let c = text[index]
      if c.isNumber || c == "." {
        digits.append(c)
        index = text.index(after: index)
        continue
      }
      guard digits.count <= 12, let value = Double(digits), value.isFinite else { return nil }
      let rest = text[index...]
      let unit: (String, Double)
      if rest.hasPrefix("ms") {
        unit = ("ms", 0.001)
      } else if let first = rest.first,
        let factor = ["s": 1.0, "m": 60, "h": 3600, "d": 86400][
          String(first)]
      {
        unit = (String(first), factor)
      } else {
        return nil
      }
      total += value * unit.1
      index = text.index(index, offsetBy: unit.0.count)
      digits = ""
      sawUnit = true
    }
    guard digits.isEmpty, sawUnit, total.isFinite, total <= maximum else { return nil }
    return total
  }

  /// A short human form: `850µs`, `12.3ms`, `1.42s`, `2m05s`.
  public static func format(_ seconds: TimeInterval) -> String {
    if seconds < 0.001 { return String(format: "%.0fµs", seconds * 1_000_000) }
    if seconds < 1 { return String(format: "%.1fms", seconds * 1000) }
    if seconds < 60 { return String(format: "%.2fs", seconds) }
    let minutes = Int(seconds) / 60
    return String(format: "%dm%02ds", minutes, Int(seconds) % 60)
  }
}
