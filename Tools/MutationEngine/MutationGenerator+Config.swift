import Foundation

extension MutationGenerator {
  static let settingName = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_\"[]=*")

  /// Xcode build settings, `KEY = value;`: the value changed by a character, `YES` ↔ `NO`.
  mutating func buildSettings() {
    for index in lineStarts.indices {
      let range = lineRange(index)
      let line = string(range)
      let trimmed = line.trimmingSpaces
      guard let equals = trimmed.range(of: " = "), trimmed.hasSuffix(";"),
        trimmed[..<equals.lowerBound].allSatisfy({ Self.settingName.contains($0) }),
        let valueStart = line.range(of: " = ")?.upperBound
      else { continue }
      let prefixBytes = line[..<valueStart].utf8.count
      let value = String(line[valueStart...].dropLast())
      let start = range.lowerBound + prefixBytes
      let end = start + value.utf8.count
      guard !value.hasPrefix("("), !value.hasPrefix("{"), value.utf8.count >= 2 else { continue }
      if value == "YES" {
        add(.booleanFlipped, start..<end, "NO")
      } else if value == "NO" {
        add(.booleanFlipped, start..<end, "YES")
      } else {
        let quoted = value.hasSuffix("\"") && value.utf8.count >= 3
        let last = quoted ? end - 2 : end - 1
        add(.literalChanged, last..<(last + 1), "")
      }
    }
  }

  /// Every JSON string (keys and values: a key renamed is a setting that no longer applies),
  /// boolean and integer.
  mutating func jsonValues() {
    for span in text.strings where span.contentEnd - span.contentStart >= 2 {
      add(.literalChanged, (span.contentEnd - 1)..<span.contentEnd, "")
    }
    codeOperators()
  }

  /// XML and property lists: attribute values (not namespaces), element text, `<true/>` ↔
  /// `<false/>`; comments left alone.
  mutating func xmlValues() {
    var comment = false
    var index = 0
    while index < bytes.count {
      defer { index += 1 }
      if !comment, matchesRaw("<!--", at: index) {
        comment = true
        continue
      }
      if comment {
        if matchesRaw("-->", at: index) { comment = false }
        continue
      }
      if matchesRaw("<true/>", at: index) {
        add(.booleanFlipped, index..<(index + 7), "<false/>")
      } else if matchesRaw("<false/>", at: index) {
        add(.booleanFlipped, index..<(index + 8), "<true/>")
      } else if bytes[index] == UInt8(ascii: "="), index + 1 < bytes.count,
        bytes[index + 1] == UInt8(ascii: "\"")
      {
        var nameStart = index
        while nameStart > 0, bytes[nameStart - 1] != UInt8(ascii: " "),
          bytes[nameStart - 1] != UInt8(ascii: "\n"), bytes[nameStart - 1] != UInt8(ascii: "\t")
        {
          nameStart -= 1
        }
        let name = string(nameStart..<index)
        var end = index + 2
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") { end += 1 }
        let content = (index + 2)..<end
        index = end
        guard !name.hasPrefix("xmlns"), name != "version", name != "encoding",
          content.count >= 2
        else { continue }
        let value = string(content)
        if value == "true" {
          add(.booleanFlipped, content, "false")
        } else if value == "false" {
          add(.booleanFlipped, content, "true")
        } else {
          add(.literalChanged, (content.upperBound - 1)..<content.upperBound, "")
        }
      } else if bytes[index] == UInt8(ascii: ">") {
        var end = index + 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "<") { end += 1 }
        let content = (index + 1)..<end
        let value = string(content)
        let trimmed = value.trimmingSpaces.trimmingCharacters(in: "\n")
        guard trimmed.utf8.count >= 2, !trimmed.contains("\n") else { continue }
        // The text's last byte: trailing whitespace is not part of the value.
        var last = end - 1
        while last > index, [" ", "\n", "\t", "\r"].contains(Character(UnicodeScalar(bytes[last])))
        {
          last -= 1
        }
        add(.literalChanged, last..<(last + 1), "")
        index = end - 1
      }
    }
  }

  func matchesRaw(_ literal: String, at index: Int) -> Bool {
    let pattern = Array(literal.utf8)
    guard index + pattern.count <= bytes.count else { return false }
    return bytes[index..<(index + pattern.count)].elementsEqual(pattern)
  }

  /// `KEY=value` lines: the value changed by a character, a boolean flipped, the line removed
  /// (the variable no longer set).
  mutating func envLines() {
    for index in lineStarts.indices {
      let range = lineRange(index)
      let line = string(range)
      let trimmed = line.trimmingSpaces
      guard !trimmed.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
      let valueStart = range.lowerBound + line[...equals].utf8.count
      var value = String(line[line.index(after: equals)...])
      var end = range.upperBound
      if let hash = value.range(of: " #") {
        value = String(value[..<hash.lowerBound])
        end = valueStart + value.utf8.count
      }
      add(.statementRemoved, range, "")
      let flips = [
        "True": "False", "False": "True", "true": "false", "false": "true", "1": "0",
        "0": "1",
      ]
      if let flipped = flips[value] {
        add(.booleanFlipped, valueStart..<end, flipped)
      } else if value.utf8.count >= 2 {
        let unquoted = value.hasSuffix("\"") || value.hasSuffix("'")
        let last = unquoted && value.utf8.count >= 3 ? end - 2 : end - 1
        add(.literalChanged, last..<(last + 1), "")
      }
    }
  }
}

extension String {
  func trimmingCharacters(in set: Character) -> String {
    var slice = Substring(self)
    while slice.first == set || slice.first == " " { slice = slice.dropFirst() }
    while slice.last == set || slice.last == " " { slice = slice.dropLast() }
    return String(slice)
  }
}
