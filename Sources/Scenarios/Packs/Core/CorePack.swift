/// The core pack: requests through the native stack and their responses, the clock, the shell's
/// transport policy.
///
/// Everything the pack adds to the language is declared here, beside the code it drives;
/// Packs/Packs.swift lists the packs.
enum CorePack: ScenarioPack {
  static let name = "core"
  static let actions: [ActionSpec] = CoreActions.all
  static let expectations: [ExpectationSpec] = CoreExpectations.all
  static let mutations: [MutationSpec] = CoreMutations.all
  static let failureReasons: [FailureReason] = [
    .status, .wentOut, .refusedOtherwise, .noTransportError, .transportOtherwise, .json, .header,
    .body, .noResponse, .refused, .transportError,
  ]
}

extension FailureReason {

  static let status = FailureReason(
    "status", detail: "the status received", "The response had another HTTP status.")
  static let wentOut = FailureReason(
    "went-out", detail: "the status received",
    "The shell was expected to refuse the request, and sent it.")
  static let refusedOtherwise = FailureReason(
    "refused-otherwise", "The shell refused, but not for the reason the step names.")
  static let noTransportError = FailureReason(
    "no-transport-error", "A transport error was expected; the request got an HTTP response.")
  static let transportOtherwise = FailureReason(
    "transport-otherwise", "The transport error was not the one the step names.")
  static let json = FailureReason("json", "A JSON field did not hold what the step says.")
  static let header = FailureReason("header", "A response header did not hold what the step says.")
  static let body = FailureReason("body", "The response body did not hold what the step says.")
  static let noResponse = FailureReason(
    "no-response", "There was no HTTP response to examine (no action, or it got none).")
  /// An action's problem no expectation examined.
  static let refused = FailureReason(
    "refused",
    "The shell refused the action before sending anything (transport policy, an unregistered scheme)."
  )
  static let transportError = FailureReason(
    "transport-error", "The request got no HTTP response (TLS verification, connection).")
}
