import Artifacts
import Devices
import Foundation
import MockStack
import QualifyCore
import ResultModel
import StackPorts

extension Runner {
  /// Why the scenario does not run on this build, nil when it does: a feature it needs that
  /// the build does not enable (a failure when the profile says the app uses it), or a
  /// simulation over a release env the channel did not supply.
  func applicability(_ scenario: Scenario, build: AppBuild) -> (
    Verdict, String, NotApplicableCause?
  )? {
    // Over dev defaults, neither a simulation nor a feature's state says anything about a
    // release channel.
    if build.channel.isRelease && (!scenario.isStatic || !scenario.requires.isEmpty),
      let warning = build.environment.fallbackWarning(channel: build.channel)
    {
      return (.notApplicable, "not run: \(warning)", .envNotSupplied)
    }
    // Against a real IdP (`--stack`), what only a mock can be made to do does not run: a
    // scenario that sets the IdP's profile or breaks the IdP on purpose.
    if let real = material.real?.identityProvider {
      // A scenario about one IdP's behaviour runs against a real IdP of that kind only.
      if let profile = scenario.identityProvider,
        !(profile == real.profile || profile == real.profile + "-dev")
      {
        return (
          .notApplicable,
          "not run against the real identity provider at \(real.issuer): the scenario sets the mock IdP's profile (idp \(profile))",
          .realSystem
        )
      }
    }
    if let power = Runner.forbidden(scenario.needs, by: material.real).first {
      return (
        .notApplicable,
        "not run: it needs a mock-only power over the \(power.part) (\(power.rawValue)), and the \(power.part) is a real system here",
        .realSystem
      )
    }
    // A feature the release does not ship decides before how its releases are ordered.
    if let feature = featureApplicability(scenario, build: build) { return feature }
    if let ordering = scenario.otaOrdering, ordering != build.otaOrdering {
      return (
        .notApplicable,
        "it checks OTA releases ordered by \(ordering), and this app orders them by \(build.otaOrdering) (qualify.json ota.ordering)",
        .declared
      )
    }
    return nil
  }

  /// Why a feature the scenario needs keeps it from running on this build, nil when none does.
  func featureApplicability(_ scenario: Scenario, build: AppBuild) -> (
    Verdict, String, NotApplicableCause?
  )? {
    for feature in scenario.requires {
      let state = build.features[feature]
      guard !state.enabled else { continue }
      let name = feature.title
      switch (state.use, build.channel.isRelease) {
      case (.used, true):
        return (
          .failed,
          "qualify.json declares features.\(feature.rawValue) = true, but this \(build.channel.rawValue) build does not enable \(name): \(state.decidedBy)",
          nil
        )
      case (.used, false):
        return (
          .notApplicable,
          "\(name) is off in this dev build (\(state.decidedBy)); the app uses it on release channels (qualify.json features.\(feature.rawValue) = true)",
          .declared
        )
      case (.unused, _) where state.declaredByProfile:
        return (
          .notApplicable,
          "not in this release: qualify.json declares features.\(feature.rawValue) = false (\(name)): \(state.decidedBy)",
          .notInRelease
        )
      case (.unused, _):
        // The kind of shell has no such feature: nothing a release could ship.
        return (.notApplicable, "no \(name) in this kind of app: \(state.decidedBy)", .declared)
      case (.auto, _):
        return (
          .notApplicable, "\(name) is not enabled in this build: \(state.decidedBy)", .featureOff
        )
      }
    }
    return nil
  }
}
