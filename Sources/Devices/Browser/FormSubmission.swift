import Foundation

/// What submitting a form sends, by HTML's form-submission algorithm (WHATWG HTML
/// §4.10.21.3): the action resolved (an empty or missing one is the page's own URL, a relative
/// one is resolved against `<base href>`, a submit button's `formaction` wins), the method
/// (`get` and `post`; `dialog` navigates nowhere), the entry list (§4.10.21.4: only the button
/// pressed, only checked boxes, never disabled or unnamed controls) and the encoding the
/// `enctype` names.
public struct FormSubmission: Sendable, Equatable {
  /// `GET` or `POST`.
  public var method: String
  /// The URL navigated to, without a fragment (a browser never sends it).
  public var url: String
  public var body: [UInt8]
  public var contentType: String?

  /// The submission of `form` on the page at `document` when the user presses `submitter`
  /// (an index into `form.controls`; nil: the form is submitted without a button). Nil when
  /// the submission navigates nowhere over the network (`method="dialog"`, a `javascript:`
  /// or `mailto:` action).
  public init?(
    _ form: HTMLPage.Form, submitter: Int?, document: String, base: String?
  ) {
    let pressed = submitter.map { form.controls[$0] }
    // The URL parser strips leading and trailing spaces and controls, and tabs and newlines
    // anywhere.
    let written = (pressed?.formAction ?? form.action).map {
      $0.trimmingCharacters(in: .whitespacesAndNewlines).filter { !"\t\n\r".contains($0) }
    }
    let action: String
    if let written, !written.isEmpty {
      // The document's base URL: `<base href>` resolved against the document's URL.
      let baseURL = base.map { NavigationStateMachine.resolve($0, against: document) } ?? document
      action = NavigationStateMachine.resolve(written, against: baseURL)
    } else {
      action = document
    }
    let method = pressed?.formMethod ?? form.method
    guard method != "dialog", var target = URLComponents(string: action),
      let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https"
    else { return nil }
    target.fragment = nil
    let entries = FormSubmission.entries(form, submitter: submitter)
    let enctype = pressed?.formEnctype ?? form.enctype
    if method == "get" {
      // "Mutate action URL": the query is replaced by the entries, whatever the action had.
      target.percentEncodedQuery = FormSubmission.urlencoded(entries)
      self.method = "GET"
      self.url = target.string ?? action
      self.body = []
      self.contentType = nil
      return
    }
    self.method = "POST"
    self.url = target.string ?? action
    switch enctype {
    case "multipart/form-data":
      let boundary = FormSubmission.boundary(for: entries)
      self.body = Array(FormSubmission.multipart(entries, boundary: boundary).utf8)
      self.contentType = "multipart/form-data; boundary=\(boundary)"
    case "text/plain":
      self.body = Array(entries.map { "\($0.0)=\($0.1)\r\n" }.joined().utf8)
      self.contentType = "text/plain"
    default:
      self.body = Array(FormSubmission.urlencoded(entries).utf8)
      self.contentType = "application/x-www-form-urlencoded"
    }
  }

  /// The form's entry list, line breaks normalised to CRLF as every encoding wants them.
  static func entries(_ form: HTMLPage.Form, submitter: Int?) -> [(String, String)] {
    var out: [(String, String)] = []
    for (index, control) in form.controls.enumerated() {
      guard !control.disabled else { continue }
      if control.element == .button
        || ["submit", "image", "reset", "button"].contains(control.type)
      {
        // Of the buttons, only the one pressed is submitted (and a reset or plain button
        // never submits).
        guard index == submitter, control.isSubmitButton else { continue }
        if control.type == "image" && control.element == .input {
          let prefix = control.name.flatMap { $0.isEmpty ? nil : $0 + "." } ?? ""
          out += [(prefix + "x", "0"), (prefix + "y", "0")]
          continue
        }
      }
      guard let name = control.name, !name.isEmpty else { continue }
      if control.element == .input && (control.type == "checkbox" || control.type == "radio")
        && !control.checked
      {
        continue
      }
      var value = control.value
      if control.element == .input && control.type == "hidden" && name.lowercased() == "_charset_" {
        value = "UTF-8"
      }
      out.append((normalised(name), normalised(value)))
    }
    return out
  }

  private static func normalised(_ text: String) -> String {
    guard text.contains("\r") || text.contains("\n") else { return text }
    return text.replacingOccurrences(of: "\r\n", with: "\n")
      .replacingOccurrences(of: "\r", with: "\n")
      .replacingOccurrences(of: "\n", with: "\r\n")
  }

  /// The URL standard's application/x-www-form-urlencoded serializer: a space is `+`, and
  /// only ASCII alphanumerics and `*-._` stay as they are.
  static func urlencoded(_ entries: [(String, String)]) -> String {
    func encode(_ text: String) -> String {
      var out = ""
      for byte in Array(text.utf8) {
        switch byte {
        case 0x20: out += "+"
        case 0x2A, 0x2D, 0x2E, 0x5F, 0x30...0x39, 0x41...0x5A, 0x61...0x7A:
          out.unicodeScalars.append(Unicode.Scalar(byte))
        default: out += String(format: "%%%02X", byte)
        }
      }
      return out
    }
    return entries.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
  }

  /// A boundary that occurs in no entry (browsers pick a random one; this one is the same on
  /// every run of a seed).
  static func boundary(for entries: [(String, String)]) -> String {
    var boundary = "----qualifyFormBoundary7MA4YWxkTrZu0gW"
    while entries.contains(where: { $0.0.contains(boundary) || $0.1.contains(boundary) }) {
      boundary += "x"
    }
    return boundary
  }

  /// multipart/form-data (RFC 7578) as HTML writes it: names with `"`, CR and LF
  /// percent-encoded.
  static func multipart(_ entries: [(String, String)], boundary: String) -> String {
    func escape(_ name: String) -> String {
      name.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "%0D")
        .replacingOccurrences(of: "\n", with: "%0A")
    }
    var out = ""
    for (name, value) in entries {
      out += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(escape(name))\"\r\n\r\n"
      out += value + "\r\n"
    }
    return out + "--\(boundary)--\r\n"
  }
}
