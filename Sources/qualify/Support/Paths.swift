import Foundation

/// Where the bundled material lives: the working directory's `Scenarios/` when present, else
/// the package the binary was built from.
enum Paths {
  /// The package root at build time (this file is `Sources/qualify/Support/Paths.swift`).
  static let packageRoot: String = {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().path
  }()

  static var scenariosDirectory: String {
    let local = FileManager.default.currentDirectoryPath + "/Scenarios"
    if FileManager.default.fileExists(atPath: local) { return "Scenarios" }
    return packageRoot + "/Scenarios"
  }

  static var sampleApp: String { scenariosDirectory + "/apps/messages" }

  /// The bundled hybrid WebView app (seed 003), `qualify links verify`'s default.
  static var hybridSampleApp: String { scenariosDirectory + "/apps/appplatform" }

  static let defaultDatabase = "Reports/qualify.sqlite"
  static let defaultReportDirectory = "Reports"
}

/// The harness version, recorded with every run.
let qualifyVersion = "0.1.0"
