import Foundation

/// Paths of the repository's fixtures, found from this source file.
public enum Fixtures {
  /// The package root.
  public static let root: String = {
    var url = URL(fileURLWithPath: #filePath)
    while url.path != "/" {
      url.deleteLastPathComponent()
      if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
        return url.path
      }
    }
    return FileManager.default.currentDirectoryPath
  }()

  /// The bundled sample app.
  public static var sampleApp: String { root + "/Scenarios/apps/messages" }

  /// The bundled sample of a multi-instance shell (seed 004).
  public static var instanceShellApp: String { root + "/Scenarios/apps/sovereign" }

  /// The bundled sample of a hybrid WebView app (seed 003).
  public static var hybridApp: String { root + "/Scenarios/apps/appplatform" }

  /// The bundled sample of a React Native bridge shell (seed 001).
  public static var bridgeApp: String { root + "/Scenarios/apps/openmapx" }

  /// The regression fixtures, by name.
  public static var regressionsDirectory: String { root + "/Scenarios/apps/regressions" }

  /// A file under `Tests/Fixtures`.
  public static func file(_ name: String) -> String { root + "/Tests/Fixtures/" + name }

  /// A fresh directory for an app overlay, inside this repository's work tree (under `.build`):
  /// an app's `base` must stay inside its repository, so an overlay written by a test and
  /// based on a bundled app lives here rather than in the system's temporary folder.
  public static func temporaryApp(_ label: String = "qualify-app") throws -> URL {
    let url = URL(fileURLWithPath: root + "/.build/test-apps")
      .appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// An app whose `qualify.json` takes `base` as its base, with `files` (path: text) written
  /// over it; removed by the caller.
  public static func overlayApp(
    _ label: String, base: String, files: [String: String]
  ) throws -> URL {
    let directory = try temporaryApp(label)
    try Data(#"{"base": "\#(base)"}"#.utf8).write(
      to: directory.appendingPathComponent("qualify.json"))
    for (path, text) in files {
      let url = directory.appendingPathComponent(path)
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text.utf8).write(to: url)
    }
    return directory
  }

  /// A fresh temporary directory, removed by the caller.
  public static func temporaryDirectory(_ label: String = "qualify") throws -> URL {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }
}
