/// The guards pack: static inspection of the build and the artifact edits controls make (rules 16
/// and 17).
///
/// Everything the pack adds to the language is declared here, beside the code it drives;
/// Packs/Packs.swift lists the packs.
enum GuardsPack: ScenarioPack {
  static let name = "guards"
  static let actions: [ActionSpec] = GuardVocabulary.actions
  static let expectations: [ExpectationSpec] = GuardVocabulary.expectations
  static let mutations: [MutationSpec] = GuardVocabulary.mutations
  static let failureReasons: [FailureReason] = [
    .finding, .noFinding, .blockingFindings, .noBlockingFindings, .noInspection, .webView,
  ]
}

extension FailureReason {

  static let finding = FailureReason(
    "finding", detail: "the rule", "The inspection reported an error finding of the rule.")
  static let noFinding = FailureReason(
    "no-finding", detail: "the rule", "The inspection was expected to report the rule; it did not.")
  static let blockingFindings = FailureReason(
    "blocking-findings", "The inspection reported findings that block a release.")
  static let noBlockingFindings = FailureReason(
    "no-blocking-findings", "Blocking findings were expected; there are none.")
  static let noInspection = FailureReason(
    "no-inspection", "The expectation needs an inspection (APP is inspected) before it.")
  static let webView = FailureReason(
    "webview", detail: "what it loaded: blank, embedded, dev-server",
    "The WebView loaded something else than the step says.")
}
