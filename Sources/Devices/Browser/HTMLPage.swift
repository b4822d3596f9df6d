import Foundation

/// What a simulated browser needs of an HTML page: its forms (with their controls, in tree
/// order), the `<base href>`, a `<meta http-equiv="refresh">` target, and its links. Not a
/// full HTML parser: enough to follow a hand-off page and to fill in and submit the forms
/// providers write, by the HTML form-submission rules (FormSubmission.swift).
public struct HTMLPage: Sendable {
  /// A form-associated control: `<input>`, `<button>`, `<select>` or `<textarea>`.
  public struct Control: Sendable, Equatable {
    public enum Element: String, Sendable { case input, button, select, textarea }
    public var element: Element
    /// The control's name; nil when it has none (it is then never submitted).
    public var name: String?
    /// `type`, lowercased, with HTML's defaults: `text` for an input, `submit` for a button.
    public var type: String
    /// Its value: the `value` attribute, a textarea's text, a select's chosen option.
    public var value: String
    /// The text a user reads on a button (its `value` for an input button).
    public var label: String = ""
    public var checked = false
    public var disabled = false
    /// A submit button's own `formaction`, `formmethod` and `formenctype`.
    public var formAction: String?
    public var formMethod: String?
    public var formEnctype: String?

    /// A button that submits its form when pressed.
    public var isSubmitButton: Bool {
      (element == .input && (type == "submit" || type == "image"))
        || (element == .button && type == "submit")
    }
  }

  public struct Form: Sendable {
    /// The `action` attribute as written; nil when absent (an empty one is kept empty).
    public var action: String?
    /// `get`, `post` or `dialog`: an invalid or missing method is `get` (HTML's default).
    public var method: String
    /// The `enctype` attribute, lowercased; nil when absent.
    public var enctype: String?
    public var id: String?
    public var controls: [Control]

    /// A form with a password field: a login form.
    public var isLogin: Bool {
      controls.contains { $0.element == .input && $0.type == "password" }
    }
    /// Its submit buttons, in tree order (the first enabled one is the default button).
    public var submitButtons: [Control] { controls.filter(\.isSubmitButton) }
  }

  public private(set) var forms: [Form] = []
  /// The first `<base href>`, as written.
  public private(set) var base: String?
  public private(set) var refresh: String?
  public private(set) var links: [String] = []

  public init(html: String) {
    var current: Form?
    // Controls outside their form, associated by `form="id"`.
    var owned: [(String, Control)] = []
    var select: (control: Control, options: [(value: String, selected: Bool)])?
    func add(_ control: Control, _ attributes: [String: String]) {
      if let owner = attributes["form"] {
        owned.append((owner, control))
      } else {
        current?.controls.append(control)
      }
    }
    func closeSelect() {
      guard var open = select else { return }
      // A single select submits its selected option, else its first (the selectedness
      // setting algorithm).
      open.control.value =
        (open.options.last(where: \.selected) ?? open.options.first)?.value ?? ""
      open.control.disabled = open.control.disabled || open.options.isEmpty
      current?.controls.append(open.control)
      select = nil
    }
    for tag in HTMLPage.tags(in: html) {
      let attributes = tag.attributes
      switch tag.name {
      case "form":
        // Nested forms are ignored by the parser: the outer one stays open.
        guard current == nil else { continue }
        current = Form(
          action: attributes["action"], method: HTMLPage.method(attributes["method"]) ?? "get",
          enctype: attributes["enctype"]?.lowercased(), id: attributes["id"], controls: [])
      case "/form":
        closeSelect()
        if let form = current { forms.append(form) }
        current = nil
      case "input", "button":
        add(HTMLPage.control(tag), attributes)
      case "select":
        closeSelect()
        var control = Control(
          element: .select, name: attributes["name"], type: "select-one", value: "")
        control.disabled = attributes["disabled"] != nil
        select = (control, [])
      case "option":
        let text = tag.text.trimmingCharacters(in: .whitespacesAndNewlines)
        if attributes["disabled"] == nil {
          select?.options.append((attributes["value"] ?? text, attributes["selected"] != nil))
        }
      case "/select":
        closeSelect()
      case "textarea":
        add(HTMLPage.control(tag), attributes)
      case "base":
        if base == nil, let href = attributes["href"] { base = href }
      case "meta":
        if attributes["http-equiv"]?.lowercased() == "refresh",
          let content = attributes["content"],
          let range = content.range(of: "url=", options: .caseInsensitive)
        {
          refresh = String(content[range.upperBound...]).trimmingCharacters(
            in: CharacterSet(charactersIn: "'\" "))
        }
      case "a":
        if let href = attributes["href"] { links.append(href) }
      default:
        break
      }
    }
    closeSelect()
    if let form = current { forms.append(form) }
    for (owner, control) in owned {
      if let index = forms.firstIndex(where: { $0.id == owner }) {
        forms[index].controls.append(control)
      }
    }
  }

  /// The control an `input`, `button` or `textarea` tag makes, with the value it submits.
  static func control(_ tag: Tag) -> Control {
    let attributes = tag.attributes
    var control: Control
    switch tag.name {
    case "input":
      let type = (attributes["type"] ?? "text").lowercased()
      control = Control(
        element: .input, name: attributes["name"], type: type,
        value: attributes["value"] ?? (type == "checkbox" || type == "radio" ? "on" : ""))
      control.label = attributes["value"] ?? (type == "submit" ? "Submit" : "")
      HTMLPage.fill(&control, attributes)
    case "button":
      control = Control(
        element: .button, name: attributes["name"],
        type: ["submit", "reset", "button"].first { $0 == attributes["type"]?.lowercased() }
          ?? "submit", value: attributes["value"] ?? "")
      control.label = tag.text.trimmingCharacters(in: .whitespacesAndNewlines)
      HTMLPage.fill(&control, attributes)
    default:
      control = Control(
        element: .textarea, name: attributes["name"], type: "textarea",
        value: HTMLPage.decodeEntities(
          tag.text.hasPrefix("\n") ? String(tag.text.dropFirst()) : tag.text))
      control.disabled = attributes["disabled"] != nil
    }
    return control
  }

  /// A `method` or `formmethod` attribute's state: nil when absent, `get` when invalid.
  static func method(_ attribute: String?) -> String? {
    guard let attribute else { return nil }
    let lowered = attribute.lowercased()
    return ["get", "post", "dialog"].contains(lowered) ? lowered : "get"
  }

  private static func fill(_ control: inout Control, _ attributes: [String: String]) {
    control.checked = attributes["checked"] != nil
    control.disabled = attributes["disabled"] != nil
    control.formAction = attributes["formaction"]
    control.formMethod = method(attributes["formmethod"])
    control.formEnctype = attributes["formenctype"]?.lowercased()
  }

  /// The page's login form, if it has one.
  public var loginForm: Form? { forms.first(where: \.isLogin) }

  struct Tag {
    var name: String
    var attributes: [String: String]
    /// The text after the tag up to the next tag (a button's or an option's label); a
    /// textarea's whole raw content.
    var text = ""
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
      let attributes = attributeList(chars, from: &j)
      var tag = Tag(name: name, attributes: attributes)
      i = j + 1
      if name == "script" || name == "style" || name == "textarea" {
        let end = find("</\(name)", in: chars, from: i) ?? chars.count
        if name == "textarea" { tag.text = String(String.UnicodeScalarView(chars[i..<end])) }
        i = end
      } else if name == "button" || name == "option" {
        // The label a user reads: a button's content without its markup (`<span>`, icons),
        // an option's text up to the next tag.
        let end =
          name == "button"
          ? find("</button", in: chars, from: i) ?? chars.count
          : chars[i...].firstIndex(of: "<") ?? chars.count
        var text = ""
        var inTag = false
        for c in chars[i..<end] {
          if c == "<" {
            inTag = true
          } else if c == ">" {
            inTag = false
          } else if !inTag {
            text.unicodeScalars.append(c)
          }
        }
        tag.text = decodeEntities(text)
      }
      out.append(tag)
    }
    return out
  }

  /// A tag's attributes from `j` (just after its name) to its `>`, where `j` is left.
  private static func attributeList(_ chars: [Unicode.Scalar], from j: inout Int) -> [String:
    String]
  {
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
    return attributes
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
