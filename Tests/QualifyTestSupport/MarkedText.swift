/// Source text with position markers (`1️⃣`, `2️⃣`, …) where diagnostics are expected, as
/// swift-format's tests write them: the markers are removed and their line and column kept.
public struct MarkedText {
  public let text: String
  /// Marker → (line, column), both 1-based.
  public let markers: [String: (line: Int, column: Int)]

  public init(_ marked: String) {
    let symbols = ["1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣"]
    var text = ""
    var markers: [String: (line: Int, column: Int)] = [:]
    var line = 1
    var column = 1
    var rest = Substring(marked)
    outer: while let c = rest.first {
      for symbol in symbols where rest.hasPrefix(symbol) {
        markers[symbol] = (line, column)
        rest = rest.dropFirst(symbol.count)
        continue outer
      }
      text.append(c)
      rest = rest.dropFirst()
      if c == "\n" {
        line += 1
        column = 1
      } else {
        column += 1
      }
    }
    self.text = text
    self.markers = markers
  }
}
