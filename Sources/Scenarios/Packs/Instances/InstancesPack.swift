import QualifyCore

/// The instances pack: seed 004's multi-instance shell — its build's guards, and (with the
/// shell model) onboarding, the instance list, the navigation policy, back to the manager and
/// deep links.
///
/// Everything the pack adds to the language is declared here, beside the code it drives;
/// Packs/Packs.swift lists the packs.
enum InstancesPack: ScenarioPack {
  static let name = "instances"
  static let shells: Set<ShellKind> = [.multiInstance]
  static let actions: [ActionSpec] = InstancesVocabulary.actions
  static let expectations: [ExpectationSpec] = InstancesVocabulary.expectations
  static let mutations: [MutationSpec] = InstanceShellMutations.all
  static let failureReasons: [FailureReason] = [
    .instanceScreen, .onboardingPrefill, .instanceList, .systemBrowser, .addRefused, .addAccepted,
    .nativeAccess,
  ]
}

extension FailureReason {
  static let instanceScreen = FailureReason(
    "instance-screen", detail: "what it shows: onboarding, remote, placeholder, closed",
    "The shell's primary WebView shows something else than the step says.")
  static let onboardingPrefill = FailureReason(
    "onboarding-prefill", detail: "the field's text",
    "Onboarding is shown with another address in its field.")
  static let instanceList = FailureReason(
    "instance-list",
    "The stored instances, or the ones the manager shows, are not those the step lists, in its order."
  )
  static let systemBrowser = FailureReason(
    "system-browser", detail: "opened or none",
    "The system browser was (or was not) handed a URL this step.")
  static let addRefused = FailureReason("add-refused", "The instance was refused.")
  static let nativeAccess = FailureReason(
    "native-access", detail: "answered or refused",
    "Native code answered (or did not answer) the instance page's call.")
  static let addAccepted = FailureReason(
    "add-accepted", "The instance was expected to be refused; it was added.")
}
