import Foundation

/// Headless Chromium, the real browser the HTML report is tested in (`make test` installs
/// Debian's `chromium`).
public enum Chromium {
  public static let executable = Programs.find([
    "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome",
  ])

  /// The DOM of `file` after its scripts and events had two seconds of virtual time to run,
  /// and the page's title at that point.
  public static func dumpDOM(_ file: URL) throws -> ProcessResult {
    try headless(["--virtual-time-budget=2000", "--dump-dom", file.absoluteString])
  }

  /// Headless Chromium with a throw-away profile and `arguments`.
  static func headless(_ arguments: [String]) throws -> ProcessResult {
    guard let executable else { throw MissingBrowser() }
    let profile = FileManager.default.temporaryDirectory
      .appendingPathComponent("qualify-chromium-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: profile) }
    return try Programs.run(
      executable,
      [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
        "--user-data-dir=\(profile.path)",
      ] + arguments)
  }

  /// A PNG of `file` as a person sees it, `width`×`height` CSS pixels, written to `output`.
  public static func screenshot(_ file: URL, to output: URL, width: Int = 1280, height: Int = 1600)
    throws -> ProcessResult
  {
    try headless([
      "--hide-scrollbars", "--window-size=\(width),\(height)", "--screenshot=\(output.path)",
      file.absoluteString,
    ])
  }

  public struct MissingBrowser: Error, CustomStringConvertible {
    public var description: String {
      "Chromium is a test dependency: `make test` installs Debian's chromium package"
    }
  }
}
