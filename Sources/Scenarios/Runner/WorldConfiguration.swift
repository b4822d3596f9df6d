import Artifacts
import Devices
import MockStack
import QualifyCore

/// The world a scenario execution runs in, before it starts: the app's build for the
/// platform and channel, and the behaviours of the mocks and shells. Controls mutate a copy.
public struct WorldConfiguration: Sendable {
  public var channel: Channel
  public var platform: Platform
  public var build: AppBuild
  public var stack = StackBehaviours()
  public var shell = ShellBehaviours()
  /// The scenario's identity-provider profile, overriding the channel's.
  public var identityProvider: String?
  /// A browser kind a control imposes on every device.
  public var forcedBrowser: BrowserKind?
  /// Devices lose Google Play services (Android).
  public var withoutPlayServices = false
  /// Every device has Google Play services, whatever the scenario declares.
  public var withPlayServices = false
  /// The pipeline publishes as if `--force` were always given (no downgrade guard).
  public var publishForces = false
  /// `ci.sequence-not-bumped`: the pipeline writes the channel's current sequence again.
  public var publishKeepsSequence = false
  /// A file of the app's web bundle the pipeline leaves out of the zip it publishes.
  public var publishDropsFile: String?
  /// The build bakes the public half of a key pair the pipeline does not sign with.
  public var bakesForeignOTAKey = false
  /// `app.ota-public-key-spki`: the build bakes the signing key's public half as an SPKI PEM.
  public var bakesSPKIOTAKey = false
  /// The builtin bundle version the app under test is stamped with, before any mutation:
  /// version expressions (`builtin+1`) resolve against it.
  public var stampedBuiltin: String

  public init(build: AppBuild) {
    self.build = build
    stampedBuiltin = build.capacitor?.updaterVersion?.value ?? "builtin"
    channel = build.channel
    platform = build.platform
  }
}
