import Foundation
import QualifyCore

/// The version a store shows and the build number it orders uploads by, as the build resolves
/// them: iOS's `CFBundleShortVersionString` and `CFBundleVersion`, Android's `versionName` and
/// `versionCode`. What names the release in the report and the attestation.
public struct StoreVersion: Sendable {
  /// The value, nil when qualify cannot evaluate it; `location` then says where it is written
  /// and `derivation` why it was not evaluated.
  public var marketing: Sourced<String?>
  public var build: Sourced<String?>

  public init(marketing: Sourced<String?>, build: Sourced<String?>) {
    self.marketing = marketing
    self.build = build
  }

  /// `1.4.0 (41)`, with `?` for a part qualify could not evaluate.
  public var text: String { "\(marketing.value ?? "?") (\(build.value ?? "?"))" }
}
