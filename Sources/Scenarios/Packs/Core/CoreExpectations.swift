import Foundation
import HTTP

/// Expectations about the last action's outcome.
enum CoreExpectations {
  static let all: [ExpectationSpec] = [
    ExpectationSpec(
      "status", [.value("code", .integer)],
      summary: "The last request got this HTTP status.",
      example: "expect status 200"
    ) { context in
      let wanted = context.arguments.integer("code") ?? 0
      guard let response = context.outcome?.response else {
        return context.noResponse(
          "expected status \(wanted), but \(describeMissingResponse(context.outcome))")
      }
      return response.status == wanted
        ? nil
        : context.fail(
          .status, "\(response.status)",
          "expected status \(wanted), got \(response.status)\(excerpt(response))")
    },
    ExpectationSpec(
      "refused", [.value("reason", .text, optional: true)], examines: .kind(.refused),
      summary:
        "The shell refused the last action before anything was sent (transport policy, unregistered scheme); REASON must appear in the refusal.",
      example: "expect refused \"cleartext\""
    ) { context in
      guard let problem = context.outcome?.problem, problem.kind == .refused else {
        if let response = context.outcome?.response {
          return context.fail(
            .wentOut, "\(response.status)",
            "expected the shell to refuse, but the request went out and got \(response.status)")
        }
        return context.noResponse(
          "expected the shell to refuse, but \(describeMissingResponse(context.outcome))")
      }
      if let reason = context.arguments["reason"],
        !problem.message.lowercased().contains(reason.lowercased())
      {
        return context.fail(
          .refusedOtherwise, nil, "refused, but not for \"\(reason)\": \(problem.message)")
      }
      return nil
    },
    ExpectationSpec(
      "transport error", [.value("reason", .text, optional: true)],
      examines: .kind(.transport),
      summary:
        "The last request was sent but got no HTTP response (TLS verification, connection); REASON must appear in the error.",
      example: "expect transport error \"certificate\""
    ) { context in
      guard let problem = context.outcome?.problem, problem.kind == .transport else {
        if let response = context.outcome?.response {
          return context.fail(
            .noTransportError, nil, "expected a transport error, but got HTTP \(response.status)")
        }
        return context.noResponse(
          "expected a transport error, but \(describeMissingResponse(context.outcome))")
      }
      if let reason = context.arguments["reason"],
        !problem.message.lowercased().contains(reason.lowercased())
      {
        return context.fail(
          .transportOtherwise, nil, "transport error, but not \"\(reason)\": \(problem.message)")
      }
      return nil
    },
    ExpectationSpec(
      "json",
      [
        .value("field", .text),
        .value("test", .choice(["is", "starts-with", "contains", "present"])),
        .value("value", .text, optional: true),
      ], negatable: true,
      summary:
        "A field of the last JSON response (`auth.deviceId` for a nested one): `is` VALUE, `starts-with` VALUE, `contains` VALUE, or `present` (non-null).",
      example: "expect json MOBILE_OTA_MANIFEST_URL starts-with \"https://\""
    ) { context in
      let field = context.arguments["field"] ?? ""
      let test = context.arguments["test"] ?? "present"
      let value = context.arguments["value"] ?? ""
      guard let response = context.outcome?.response else {
        return context.noResponse(
          "expected a JSON response, but \(describeMissingResponse(context.outcome))")
      }
      guard let object = response.jsonObject as? [String: Any] else {
        return context.fail(.json, nil, "expected a JSON object, got \(excerpt(response))")
      }
      // `auth.deviceId`: a field of a nested object.
      var current: Any? = object
      for key in field.split(separator: ".") {
        current = (current as? [String: Any])?[String(key)]
      }
      let actual: String? = current.flatMap { $0 is NSNull ? nil : "\($0)" }
      let holds: Bool
      switch test {
      case "is": holds = actual == value
      case "starts-with": holds = actual?.hasPrefix(value) ?? false
      case "contains": holds = actual?.contains(value) ?? false
      default: holds = actual != nil
      }
      if holds != context.negated { return nil }
      let shown = actual.map { "\"\($0)\"" } ?? "absent"
      return context.fail(
        .json, nil,
        "\(context.negated ? "did not expect" : "expected") \(field) \(test)\(value.isEmpty ? "" : " \"\(value)\""), it is \(shown)"
      )
    },
    ExpectationSpec(
      "header",
      [
        .value("name", .text), .value("test", .choice(["contains", "present"])),
        .value("value", .text, optional: true),
      ],
      negatable: true,
      summary: "A header of the last response contains VALUE (or is present).",
      example: "expect header Location contains \"stmessages://\""
    ) { context in
      let name = context.arguments["name"] ?? ""
      guard let response = context.outcome?.response else {
        return context.noResponse(
          "expected a response, but \(describeMissingResponse(context.outcome))")
      }
      let actual = response.headers[name]
      let holds =
        context.arguments["test"] == "present"
        ? actual != nil : actual?.contains(context.arguments["value"] ?? "") ?? false
      if holds != context.negated { return nil }
      return context.fail(
        .header, nil,
        "\(context.negated ? "did not expect" : "expected") header \(name) \(context.arguments["test"] ?? "") \(context.arguments["value"] ?? ""), it is \(actual.map { "\"\($0)\"" } ?? "absent")"
      )
    },
    ExpectationSpec(
      "body contains", [.value("text", .text)], negatable: true,
      summary: "The last response's body contains TEXT.",
      example: "expect body contains \"ok\""
    ) { context in
      let text = context.arguments["text"] ?? ""
      guard let response = context.outcome?.response else {
        return context.noResponse(
          "expected a response body, but \(describeMissingResponse(context.outcome))")
      }
      let holds = response.bodyText.contains(text)
      if holds != context.negated { return nil }
      return context.fail(
        .body, nil,
        "\(context.negated ? "did not expect" : "expected") the body to contain \"\(text)\"\(excerpt(response))"
      )
    },
  ]

  /// Why an outcome has no response, for messages.
  static func describeMissingResponse(_ outcome: Outcome?) -> String {
    guard let outcome else { return "no action ran before this expectation" }
    if let problem = outcome.problem {
      switch problem.kind {
      case .refused: return "the shell refused the request: \(problem.message)"
      case .transport: return "the request failed: \(problem.message)"
      case .failed: return "the action failed: \(problem.message)"
      }
    }
    return "\(outcome.description) has no HTTP response"
  }

  static func excerpt(_ response: HTTPResponse) -> String {
    let text = response.bodyText.replacingOccurrences(of: "\n", with: " ")
    guard !text.isEmpty else { return "" }
    return " (body: \(text.prefix(160))\(text.count > 160 ? "…" : ""))"
  }
}

/// Shortcuts used by later vocabularies.
func describeMissingResponse(_ outcome: Outcome?) -> String {
  CoreExpectations.describeMissingResponse(outcome)
}

func excerpt(_ response: HTTPResponse) -> String { CoreExpectations.excerpt(response) }
