import Artifacts
import Devices
import Foundation
import HTTP
import MockStack
import OTA
import QualifyCore
import QualifyCrypto

/// The app's lifecycle and OTA (DESIGN.md fidelity rules 10–13): launches with the startup
/// check, the CI pipeline that publishes bundles, an attacker with write access to the
/// bucket, and the updater's decisions.
enum OTAVocabulary {
  static let actions: [ActionSpec] = [
    ActionSpec(
      .app, "launches",
      summary:
        "Launches the app: an unconfirmed bundle is rolled back, the WebView loads the dev server (`server.url`) or the current bundle, which calls `notifyAppReady()` then runs the startup OTA check — unless it crashes on boot.",
      example: "mail launches"
    ) { context in
      let app = try context.requireApp()
      return launchOutcome(app.launch(), app: app)
    },
    ActionSpec(
      .app, "checks for updates",
      summary:
        "`checkAndApplyOtaUpdate()` alone: /config, the manifest, the ordering rules, download, verification, `set()`.",
      example: "mail checks for updates"
    ) { context in
      let app = try context.requireApp()
      return updateOutcome(app.updater.check(), app: app)
    },
    ActionSpec(
      .app, "inspects the live bundle",
      summary:
        "Fetches the bundle the app's channel serves now as an update check would (/config, the manifest, the download) and verifies it with the baked key, whatever the ordering rules would decide; never applies it. Against a real OTA channel (`--stack`), the question a store release asks: would this build's devices take what is live?",
      example: "mail inspects the live bundle"
    ) { context in
      let app = try context.requireApp()
      let live = app.updater.inspectLiveBundle()
      var outcome = Outcome("\(app.name) inspected the live bundle: \(live.label): \(live.reason)")
      outcome.liveBundle = live
      outcome.app = app.name
      return outcome
    },
    ActionSpec(
      .world, "the channel serves its live bundle",
      summary:
        "The app's channel as released: against a real OTA channel (`--stack`), what it serves now, untouched; in the embedded stack the pipeline publishes `builtin+1` as its stand-in.",
      example: "the channel serves its live bundle"
    ) { context in
      try context.world.liveBundle()
    },
    ActionSpec(
      .app, "resets its bundle",
      summary:
        "`CapacitorUpdater.reset()`: back to the builtin bundle (the per-device safety net).",
      example: "mail resets its bundle"
    ) { context in
      let app = try context.requireApp()
      app.updater.reset()
      var outcome = Outcome("\(app.name) reset to its builtin bundle")
      outcome.running = app.updater.current
      outcome.app = app.name
      return outcome
    },
    ActionSpec(
      .world, "ci publishes",
      [
        .value("version", .text), .keyword("to", "channel", .text),
        .keyword("content", "content", .text),
        .flag("force"), .flag("crashing"), .flag("without-checksum"), .flag("bare-checksum"),
        .flag("escaping"),
      ],
      summary:
        "The deploy pipeline's `ota-publish`: zip, encrypt (Capgo v2) and upload VERSION (`builtin`, `builtin+2`, `builtin-1`, `builtin+2'` — the count of `builtin+2` on another commit —, `builtin+digit` and `builtin-digit` — the smallest count with one digit more than the builtin's, the largest with one digit fewer —, `builtin+digit-1` — the count just under `builtin+digit`, all nines — or literal; under `ota-ordering sequence` `builtin+N` is a fresh bare commit and `builtin-N` a count-prefixed id below a count-stamped builtin, not applicable on a bare-stamped one) to CHANNEL (the app's by default), refusing a downgrade unless `force`. `crashing` ships a bundle that dies before `notifyAppReady()`; `content` labels its index.html (a revert republishes old content); `without-checksum` leaves the manifest's checksum out, `bare-checksum` writes the zip's plain SHA-256 instead of the signed one, and `escaping` adds an entry named `../escape.js` that would land outside the bundle's folder (zip-slip), signed like the rest.",
      example: "ci publishes builtin+1",
      powers: [.writesBucket]
    ) { context in
      let version = context.arguments["version"] ?? "builtin+1"
      // Under sequence ordering an older build can only be named when the builtin carries a
      // count: a bare commit id has nothing below it.
      if version.hasPrefix("builtin-"), context.world.ordering == .sequence,
        BundleVersion(context.world.configuration.stampedBuiltin).count == nil
      {
        throw ScenarioNotApplicable(
          "the builtin is stamped with a bare commit id (\(context.world.configuration.stampedBuiltin)): no release is ordered below it, so there is no native floor to test",
          cause: .declared)
      }
      return try context.world.publish(
        version: version, channel: context.arguments["channel"],
        content: context.arguments["content"], force: context.arguments.has("force"),
        crashing: context.arguments.has("crashing"),
        withoutChecksum: context.arguments.has("without-checksum"),
        bareChecksum: context.arguments.has("bare-checksum"),
        escaping: context.arguments.has("escaping"))
    },
    ActionSpec(
      .world, "attacker substitutes the bundle",
      [.value("version", .text), .keyword("on", "channel", .text)],
      summary:
        "Someone with write access to the bucket replaces VERSION's zip with their own, encrypted with the session key recovered through the app's public key (the checksum stays the publisher's).",
      example: "attacker substitutes the bundle builtin+1",
      powers: [.writesBucket]
    ) { context in
      try context.world.substitute(
        version: context.arguments["version"] ?? "builtin+1", channel: context.arguments["channel"])
    },
    ActionSpec(
      .world, "the manifest points at",
      [.value("version", .text), .keyword("on", "channel", .text), .flag("keeping-sequence")],
      summary:
        "The channel's manifest is rewritten to advertise an earlier published VERSION (a replayed old bundle); with `keeping-sequence`, under the latest sequence the pipeline published on the channel, as a pipeline that does not bump it writes it.",
      example: "the manifest points at builtin+1 keeping-sequence",
      powers: [.writesBucket]
    ) { context in
      try context.world.pointManifest(
        at: context.arguments["version"] ?? "builtin", channel: context.arguments["channel"],
        keepingSequence: context.arguments.has("keeping-sequence"))
    },
    ActionSpec(
      .world, "the bucket fails the next download",
      summary: "The bucket answers the next bundle download with 503 (a transient failure).",
      example: "the bucket fails the next download",
      powers: [.writesBucket]
    ) { context in
      // A fault only an in-process bucket can be made to have: the one place a scenario
      // reaches into a mock, to stage what the world must survive, never to observe it.
      guard let bucket = try context.world.embeddedStack().bucket else {
        throw ScenarioRuntimeError("the app configures no OTA bucket")
      }
      bucket.failNextDownloads(1)
      return Outcome("the next bundle download will fail")
    },
    ActionSpec(
      .world, "the bucket fails the next download at random",
      summary:
        "A transient fault that may or may not happen: by a draw of the run's seed, the bucket answers the next bundle download with 503, or does not. A scenario must hold whichever way the draw goes; one that does not is flaky, which `--repeat N` shows.",
      example: "the bucket fails the next download at random",
      powers: [.writesBucket]
    ) { context in
      guard let bucket = try context.world.embeddedStack().bucket else {
        throw ScenarioRuntimeError("the app configures no OTA bucket")
      }
      let fails = context.world.chance.bytes(1)[0] & 1 == 1
      if fails { bucket.failNextDownloads(1) }
      return Outcome(
        fails
          ? "the draw says the next bundle download will fail"
          : "the draw says the next bundle download will not fail")
    },
  ]

  static func launchOutcome(_ launch: App.Launch, app: App) -> Outcome {
    var outcome =
      launch.update.map { updateOutcome($0, app: app) } ?? Outcome("\(app.name) launched")
    outcome.description =
      "\(app.name) launched on \(launch.running)"
      + (launch.update.map { ": update \($0.label)" } ?? "")
    outcome.launch = launch
    outcome.running = launch.running
    outcome.app = app.name
    return outcome
  }

  static func updateOutcome(_ decision: OTAUpdater.Decision, app: App) -> Outcome {
    var outcome = Outcome("\(app.name) update check: \(decision.label): \(decision.reason)")
    outcome.update = decision
    outcome.running = app.updater.current
    outcome.app = app.name
    return outcome
  }

  static let expectations: [ExpectationSpec] = [
    ExpectationSpec(
      "update",
      [
        .value("decision", .choice(["applied", "skipped", "refused", "failed", "disabled"])),
        .value("reason", .text, optional: true),
      ],
      summary: "The last update check's decision, and a word of its reason.",
      example: "expect update refused \"not greater\""
    ) { context in
      guard let decision = context.outcome?.update else {
        return context.outcome?.launch?.crashed == true
          ? context.missing(.noUpdateCheck, "the bundle crashed on boot: no update check ran")
          : context.missing(
            .noUpdateCheck,
            "expected an update check (launches, checks for updates) before this expectation")
      }
      let wanted = context.arguments["decision"] ?? ""
      guard decision.label == wanted else {
        return context.fail(
          .update, decision.label,
          "expected the update to be \(wanted), it was \(decision.label): \(decision.reason)")
      }
      if let word = context.arguments["reason"],
        !decision.reason.lowercased().contains(word.lowercased())
      {
        return context.fail(
          .updateOtherwise, nil,
          "the update was \(decision.label), but not for \"\(word)\": \(decision.reason)")
      }
      return nil
    },
    ExpectationSpec(
      "live bundle",
      [
        .value("result", .choice(["verified", "refused", "unavailable"])),
        .value("reason", .text, optional: true),
      ],
      summary:
        "What the last inspection made of the channel's live bundle: verified with the baked key, refused (and why), or unavailable (nothing published, a failed download).",
      example: "expect live bundle verified"
    ) { context in
      guard let live = context.outcome?.liveBundle else {
        return context.missing(
          .noLiveBundleCheck, "expected an inspection (APP inspects the live bundle) first")
      }
      let wanted = context.arguments["result"] ?? ""
      guard live.label == wanted else {
        return context.fail(
          .liveBundle, live.label,
          "expected the live bundle to be \(wanted), it was \(live.label): \(live.reason)")
      }
      if let word = context.arguments["reason"],
        !live.reason.lowercased().contains(word.lowercased())
      {
        return context.fail(
          .liveBundleOtherwise, nil,
          "the live bundle was \(live.label), but not for \"\(word)\": \(live.reason)")
      }
      return nil
    },
    ExpectationSpec(
      "running bundle", [.value("version", .text)],
      summary: "The app runs this bundle (`builtin` is the build's own, stamped or not).",
      example: "expect running bundle builtin+1"
    ) { context in
      guard let running = context.outcome?.running else {
        return context.missing(.noLaunch, "expected a launch or an update check first")
      }
      let wanted = context.world.version(context.arguments["version"] ?? "builtin")
      return running == wanted
        ? nil
        : context.fail(.runningBundle, nil, "expected the app to run \(wanted), it runs \(running)")
    },
    ExpectationSpec(
      "boot crashed", negatable: true,
      summary: "The last launch's bundle died before `notifyAppReady()`.",
      example: "expect boot crashed"
    ) { context in
      guard let launch = context.outcome?.launch else {
        return context.missing(.noLaunch, "expected a launch first")
      }
      if launch.crashed != context.negated { return nil }
      return context.negated
        ? context.fail(.bootCrashed, nil, "the bundle crashed on boot")
        : context.fail(.bootDidNotCrash, nil, "the bundle booted")
    },
    ExpectationSpec(
      "bundle downloaded", negatable: true,
      summary: "An app downloaded a bundle zip during this step.",
      example: "expect no bundle downloaded"
    ) { context in
      let downloads = context.world.evidence.since(context.world.stepEvidenceStart).filter {
        $0.kind == .http && $0.summary.hasPrefix("GET ") && $0.summary.contains("/bundles/")
          && $0.summary.contains(".zip")
      }
      if downloads.isEmpty != context.negated {
        return context.negated
          ? context.fail(.bundleDownloaded, nil, "a bundle was downloaded: \(downloads[0].summary)")
          : context.fail(.noBundleDownloaded, nil, "no bundle was downloaded this step")
      }
      return nil
    },
    ExpectationSpec(
      "published", [.value("version", .text)],
      summary: "The pipeline's last publish put VERSION on the channel.",
      example: "expect published builtin+1"
    ) { context in
      let wanted = context.world.version(context.arguments["version"] ?? "builtin+1")
      if let problem = context.outcome?.problem {
        return context.fail(
          problem.reason, nil, "the publish of \(wanted) failed: \(problem.message)")
      }
      guard let published = context.outcome?.published else {
        return context.missing(.notPublished, "expected a publish before this expectation")
      }
      return published == wanted
        ? nil
        : context.fail(
          .notPublished, nil,
          "expected \(wanted) to be published, the pipeline published \(published)")
    },
    ExpectationSpec(
      "publish refused", [.value("reason", .text, optional: true)],
      examines: .reasons(.publishRefused),
      summary: "The pipeline's publish was refused by the downgrade guard.",
      example: "expect publish refused \"does not order above\""
    ) { context in
      guard let problem = context.outcome?.problem, problem.reason == .publishRefused else {
        return context.fail(
          .publishNotRefused, nil,
          "expected the publish to be refused, \(context.outcome?.description ?? "nothing was published")"
        )
      }
      if let word = context.arguments["reason"], !problem.message.contains(word) {
        return context.fail(
          .refusedOtherwise, nil, "refused, but not for \"\(word)\": \(problem.message)")
      }
      return nil
    },
    ExpectationSpec(
      "running content", [.value("label", .text)],
      summary: "The running bundle's index.html carries LABEL (what a revert restores).",
      example: "expect running content good"
    ) { context in
      guard let name = context.outcome?.app ?? context.world.apps.keys.sorted().first,
        let app = context.world.apps[name]
      else {
        return context.missing(.noLaunch, "no app")
      }
      let label = context.arguments["label"] ?? ""
      let index = app.updater.runningIndex ?? "<title>builtin</title>"
      return index.contains("<title>\(label)</title>")
        ? nil
        : context.fail(
          .runningContent, nil, "the running bundle is not \"\(label)\": \(index.prefix(120))")
    },
  ]
}
