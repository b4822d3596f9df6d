import Foundation

/// What a simulated browser needs of an HTML page: its forms (with hidden inputs), a
/// `<meta http-equiv="refresh">` target, and its links. Not a full HTML parser: enough to
/// follow a hand-off page and to find and submit a login form, as a user would.
public struct HTMLPage: Sendable {
  public struct Input: Sendable, Equatable {
    public var name: String
    public var type: String
    public var value: String
  }

  public struct Form: Sendable {
    public var action: String?
    public var method: String
    public var inputs: [Input]

    /// A form with a password field: a login form.
    public var isLogin: Bool { inputs.contains { $0.type == "password" } }
  }

  public private(set) var forms: [Form] = []
  public private(set) var refresh: String?
  public private(set) var links: [String] = []

  public init(html: String) {
    var current: Form?
    for tag in HTMLPage.tags(in: html) {
      switch tag.name {
      case "form":
        current = Form(
          action: tag.attributes["action"],
          method: (tag.attributes["method"] ?? "get").lowercased(), inputs: [])
      case "/form":
        if let form = current { forms.append(form) }
        current = nil
      case "input":
        guard let name = tag.attributes["name"] else { continue }
        current?.inputs.append(
          Input(
            name: name, type: (tag.attributes["type"] ?? "text").lowercased(),
            value: tag.attributes["value"] ?? ""))
      case "meta":
        if tag.attributes["http-equiv"]?.lowercased() == "refresh",
          let content = tag.attributes["content"],
          let range = content.range(of: "url=", options: .caseInsensitive)
        {
          refresh = String(content[range.upperBound...]).trimmingCharacters(
            in: CharacterSet(charactersIn: "'\" "))
        }
      case "a":
        if let href = tag.attributes["href"] { links.append(href) }
      default:
        break
      }
    }
    if let form = current { forms.append(form) }
  }

  /// The page's login form, if it has one.
  public var loginForm: Form? { forms.first(where: \.isLogin) }

  struct Tag {
    var name: String
    var attributes: [String: String]
  }

  /// Start and end tags with their attributes (names lowercased, values entity-decoded);
  /// comments and the content of `<script>` / `<style>` are skipped.
  static func tags(in html: String) -> [Tag] {
    var out: [Tag] = []
    let chars = Array(html.unicodeScalars)
    var i = 0
    while i < chars.count {
      guard chars[i] == "<" else {
        i += 1
        continue
      }
      if i + 3 < chars.count, chars[i + 1] == "!", chars[i + 2] == "-", chars[i + 3] == "-" {
        i = find("-->", in: chars, from: i + 4).map { $0 + 3 } ?? chars.count
        continue
      }
      var j = i + 1
      var name = ""
      while j < chars.count, !CharacterSet.whitespacesAndNewlines.contains(chars[j]),
        chars[j] != ">"
      {
        if chars[j] == "/" && !name.isEmpty { break }
        name.unicodeScalars.append(chars[j])
        j += 1
      }
      name = name.lowercased()
      var attributes: [String: String] = [:]
      while j < chars.count && chars[j] != ">" {
        while j < chars.count,
          CharacterSet.whitespacesAndNewlines.contains(chars[j]) || chars[j] == "/"
        { j += 1 }
        var key = ""
        while j < chars.count, !CharacterSet.whitespacesAndNewlines.contains(chars[j]),
          chars[j] != "=", chars[j] != ">",
          chars[j] != "/"
        {
          key.unicodeScalars.append(chars[j])
          j += 1
        }
        var value = ""
        if j < chars.count && chars[j] == "=" {
          j += 1
          if j < chars.count, chars[j] == "\"" || chars[j] == "'" {
            let quote = chars[j]
            j += 1
            while j < chars.count && chars[j] != quote {
              value.unicodeScalars.append(chars[j])
              j += 1
            }
            j += 1
          } else {
            while j < chars.count, !CharacterSet.whitespacesAndNewlines.contains(chars[j]),
              chars[j] != ">"
            {
              value.unicodeScalars.append(chars[j])
              j += 1
            }
          }
        }
        if !key.isEmpty { attributes[key.lowercased()] = decodeEntities(value) }
      }
      out.append(Tag(name: name, attributes: attributes))
      i = j + 1
      if name == "script" || name == "style" {
        i = find("</\(name)", in: chars, from: i) ?? chars.count
      }
    }
    return out
  }

  private static func find(_ needle: String, in chars: [Unicode.Scalar], from start: Int) -> Int? {
    let target = needle.lowercased().unicodeScalars.map { $0 }
    guard !target.isEmpty, target.count <= chars.count else { return nil }
    var i = start
    while i + target.count <= chars.count {
      var matched = true
      for (offset, scalar) in target.enumerated() {
        let c = chars[i + offset]
        let lowered = (c.value >= 65 && c.value <= 90) ? Unicode.Scalar(c.value + 32) ?? c : c
        if lowered != scalar {
          matched = false
          break
        }
      }
      if matched { return i }
      i += 1
    }
    return nil
  }

  /// Decodes the entities attribute values use.
  static func decodeEntities(_ text: String) -> String {
    guard text.contains("&") else { return text }
    var out = ""
    var rest = Substring(text)
    while let amp = rest.firstIndex(of: "&") {
      out += rest[..<amp]
      rest = rest[amp...]
      guard let semi = rest.firstIndex(of: ";"), rest.distance(from: amp, to: semi) <= 10 else {
        out.append("&")
        rest = rest.dropFirst()
        continue
      }
      let entity = String(rest[rest.index(after: amp)..<semi])
      let named = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "#39": "'"]
      if let value = named[entity] {
        out += value
      } else if entity.hasPrefix("#x"), let code = UInt32(entity.dropFirst(2), radix: 16),
        let scalar = Unicode.Scalar(code)
      {
        out.unicodeScalars.append(scalar)
      } else if entity.hasPrefix("#"), let code = UInt32(entity.dropFirst()),
        let scalar = Unicode.Scalar(code)
      {
        out.unicodeScalars.append(scalar)
      } else {
        out += "&" + entity + ";"
      }
      rest = rest[rest.index(after: semi)...]
    }
    return out + rest
  }
}
