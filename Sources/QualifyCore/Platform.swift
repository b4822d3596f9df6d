// The platforms and channels every layer speaks of: the app readers, the world, the store and
// the reports.

/// The two shells a Capacitor app ships.
public enum Platform: String, CaseIterable, Sendable, Codable, Comparable {
  case ios, android

  public static func < (a: Platform, b: Platform) -> Bool {
    allCases.firstIndex(of: a) ?? 0 < allCases.firstIndex(of: b) ?? 0
  }

  /// How the report writes it.
  public var displayName: String { self == .ios ? "iOS" : "Android" }
}

/// A release channel (seed 000, *Release channels*): `dev` locally, `staging` and `prod` from
/// the deploy pipeline.
public enum Channel: String, CaseIterable, Sendable, Codable {
  case dev, staging, prod

  /// Staging and prod builds are store-like: release configuration, no dev settings.
  public var isRelease: Bool { self != .dev }
}
