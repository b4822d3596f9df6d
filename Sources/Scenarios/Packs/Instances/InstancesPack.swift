/// The instances pack: seed 004's multi-instance shell — its build's guards, and (with the
/// shell model) onboarding, the instance list, the navigation policy, back to the manager and
/// deep links.
///
/// Everything the pack adds to the language is declared here, beside the code it drives;
/// Packs/Packs.swift lists the packs.
enum InstancesPack: ScenarioPack {
  static let name = "instances"
  static let actions: [ActionSpec] = []
  static let expectations: [ExpectationSpec] = []
  static let mutations: [MutationSpec] = InstanceShellMutations.all
  static let failureReasons: [FailureReason] = []
}
