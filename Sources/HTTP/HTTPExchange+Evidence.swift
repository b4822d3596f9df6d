import Foundation
import QualifyCore

extension HTTPExchange {
  /// The exchange as redacted evidence: a one-line summary and the headers and body
  /// excerpts of both directions.
  public func evidence(source: String, redactor: Redactor, time: Date, bodyLimit: Int = 2048)
    -> Evidence
  {
    var summary = "\(request.method) \(request.url)"
    if let response {
      summary += " → \(response.status)"
      if let location = response.headers["Location"] { summary += " → \(location)" }
    } else if let error {
      summary += " ✗ \(error.message)"
    }
    summary += " (\(Durations.format(duration)))"
    var detail = "> \(request.method) \(request.url)\n"
    for field in request.headers.fields { detail += "> \(field.name): \(field.value)\n" }
    if !request.body.isEmpty {
      detail += ">\n" + HTTPExchange.excerpt(request.body, bodyLimit) + "\n"
    }
    if let response {
      detail += "< \(response.status)\n"
      for field in response.headers.fields { detail += "< \(field.name): \(field.value)\n" }
      if !response.body.isEmpty {
        detail += "<\n" + HTTPExchange.excerpt(response.body, bodyLimit) + "\n"
      }
    } else if let error {
      detail += "✗ \(error.message)\n"
    }
    return Evidence(
      kind: .http, source: source, summary: redactor.redact(summary),
      detail: redactor.redact(detail), time: time)
  }

  /// The start of a body as text, or a note for binary content.
  static func excerpt(_ body: [UInt8], _ limit: Int) -> String {
    let head = Array(body.prefix(limit))
    let text = String(decoding: head, as: UTF8.self)
    let printable = text.unicodeScalars.allSatisfy {
      $0.value >= 0x20 || $0 == "\n" || $0 == "\r" || $0 == "\t"
    }
    guard printable else { return "(\(body.count) bytes of binary data)" }
    return body.count > limit ? text + "\n… (\(body.count - limit) more bytes)" : text
  }
}
