import QualifyCore

/// The ota pack: the app's lifecycle, the OTA pipeline, the bucket and the updater (rules 10-13).
///
/// Everything the pack adds to the language is declared here, beside the code it drives;
/// Packs/Packs.swift lists the packs.
enum OTAPack: ScenarioPack {
  static let name = "ota"
  static let shells: Set<ShellKind> = [.singleOrigin]
  static let actions: [ActionSpec] = OTAVocabulary.actions
  static let expectations: [ExpectationSpec] = OTAVocabulary.expectations
  static let mutations: [MutationSpec] = OTAVocabulary.mutations
  static let failureReasons: [FailureReason] = [
    .update, .updateOtherwise, .noLaunch, .noUpdateCheck, .runningBundle, .bootCrashed,
    .bootDidNotCrash, .bundleDownloaded, .noBundleDownloaded, .notPublished, .publishRefused,
    .publishNotRefused, .runningContent, .liveBundle, .liveBundleOtherwise, .noLiveBundleCheck,
  ]
}

extension FailureReason {

  static let update = FailureReason(
    "update", detail: "the decision: applied, skipped, refused, failed, disabled",
    "The update check decided otherwise than the step says.")
  static let updateOtherwise = FailureReason(
    "update-otherwise", "The update check decided as said, but not for the reason the step names.")
  static let noLaunch = FailureReason(
    "no-launch", "The expectation needs a launch (APP launches) before it.")
  static let noUpdateCheck = FailureReason(
    "no-update-check", "No update check ran (a crash on boot, or no launch before).")
  static let runningBundle = FailureReason(
    "running-bundle", "The app runs another bundle than the step says.")
  static let bootCrashed = FailureReason("boot-crashed", "The bundle crashed on boot.")
  static let bootDidNotCrash = FailureReason("booted", "The bundle booted.")
  static let bundleDownloaded = FailureReason(
    "bundle-downloaded", "A bundle was downloaded this step.")
  static let noBundleDownloaded = FailureReason(
    "no-bundle-downloaded", "No bundle was downloaded this step.")
  static let notPublished = FailureReason(
    "not-published", "The pipeline did not publish the version the step says.")
  static let publishRefused = FailureReason(
    "publish-refused", "The pipeline's publish was refused by its guard.")
  static let publishNotRefused = FailureReason(
    "publish-not-refused", "The publish was expected to be refused; it went through.")
  static let liveBundle = FailureReason(
    "live-bundle", detail: "what the updater made of it: verified, refused, unavailable",
    "The channel's live bundle was not what the step says (a build that refuses it, nothing to verify)."
  )
  static let liveBundleOtherwise = FailureReason(
    "live-bundle-otherwise",
    "The live bundle's inspection gave the result said, not for the reason the step names.")
  static let noLiveBundleCheck = FailureReason(
    "no-live-bundle-check",
    "The expectation needs an inspection (APP inspects the live bundle) before it.")
  static let runningContent = FailureReason(
    "running-content", "The running bundle carries other content than the step says.")
}
