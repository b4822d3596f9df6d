import QualifyCore

/// What the built iOS Info.plist says about the bundle itself, as the Release build expands
/// it: the keys App Store Connect requires of an upload (identifier, executable, versions,
/// package type, a name, a launch storyboard). A typo in one of them passes every flow on a
/// simulator and fails the store upload or ships a nameless app (issue 23: read what the build
/// ships).
public struct BundleInfo: Sendable {
  /// The Info.plist read.
  public var file: String
  /// Each key the store requires, as written and as expanded; a key absent from the file has
  /// no entry.
  public var values: [String: Entry] = [:]
  /// `UILaunchStoryboardName`'s storyboard, when the name is set: whether a file
  /// `<name>.storyboard` is in the app's folder.
  public var launchStoryboardFound: Bool?
  /// A `UILaunchScreen` dictionary (or its generated build setting) stands in for the
  /// storyboard.
  public var hasLaunchScreenDictionary = false

  public struct Entry: Sendable {
    public var raw: String
    public var expanded: Sourced<String>

    public init(raw: String, expanded: Sourced<String>) {
      self.raw = raw
      self.expanded = expanded
    }
  }

  /// The keys read, in the order findings are reported.
  public static let requiredKeys = [
    "CFBundleIdentifier", "CFBundleExecutable", "CFBundleShortVersionString", "CFBundleVersion",
    "CFBundlePackageType", "UILaunchStoryboardName",
  ]
  /// One of them names the app under its icon.
  public static let nameKeys = ["CFBundleDisplayName", "CFBundleName"]

  public init(file: String) {
    self.file = file
  }
}
