import QualifyCore

/// Reads iOS `Localizable.strings` (`"key" = "value";`) and Android `strings.xml`.
public enum LocalizedStrings {
  /// A localized string and the line it is written on.
  public struct Entry: Sendable, Equatable {
    public var value: String
    public var line: Int
  }

  /// Keys and values of a `.strings` file.
  public static func parseStrings(text: String, file: String) throws -> [String: Entry] {
    var out: [String: Entry] = [:]
    var diagnostics: [Diagnostic] = []
    var inComment = false
    for (index, raw) in TextLines.split(text).enumerated() {
      var line = raw.trimmingCharacters(in: .whitespaces)
      if inComment {
        guard let end = line.range(of: "*/") else { continue }
        line = String(line[end.upperBound...]).trimmingCharacters(in: .whitespaces)
        inComment = false
      }
      if line.hasPrefix("/*") {
        if let end = line.range(of: "*/") {
          line = String(line[end.upperBound...]).trimmingCharacters(in: .whitespaces)
        } else {
          inComment = true
          continue
        }
      }
      if line.isEmpty || line.hasPrefix("//") { continue }
      guard let pair = parsePair(line) else {
        diagnostics.append(
          .error(
            at: FileLocation(file: file, line: index + 1, column: 1),
            "expected \"key\" = \"value\";", sourceLine: String(raw), length: raw.count))
        continue
      }
      out[pair.0] = Entry(value: pair.1, line: index + 1)
    }
    if !diagnostics.isEmpty {
      throw InputError("\(file) is malformed", diagnostics: diagnostics)
    }
    return out
  }

  private static func parsePair(_ line: String) -> (String, String)? {
    var chars = Substring(line)
    func quoted() -> String? {
      guard chars.first == "\"" else { return nil }
      chars = chars.dropFirst()
      var out = ""
      while let c = chars.first {
        chars = chars.dropFirst()
        if c == "\\", let next = chars.first {
          chars = chars.dropFirst()
          out.append(next == "n" ? "\n" : next)
        } else if c == "\"" {
          return out
        } else {
          out.append(c)
        }
      }
      return nil
    }
    guard let key = quoted() else { return nil }
    chars = chars.drop { $0 == " " }
    guard chars.first == "=" else { return nil }
    chars = chars.dropFirst().drop { $0 == " " }
    guard let value = quoted() else { return nil }
    chars = chars.drop { $0 == " " }
    guard chars.first == ";" else { return nil }
    return (key, value)
  }

  /// `<string name="k">v</string>` entries of an Android resource file.
  public static func parseAndroid(text: String, file: String) throws -> [String: Entry] {
    let root = try XMLReader.parse(text: text, file: file)
    guard root.name == "resources" else {
      throw Diagnostic.error(
        at: FileLocation(file: file, line: root.line, column: 1),
        "expected <resources> as the root element, found <\(root.name)>")
    }
    var out: [String: Entry] = [:]
    for node in root.children("string") {
      if let name = node.attributes["name"] { out[name] = Entry(value: node.text, line: node.line) }
    }
    return out
  }
}
