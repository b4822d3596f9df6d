import Foundation
import QualifyCore

/// An app repository on disk: its profile and its real files, read once, from which one
/// `AppBuild` per platform and channel is derived.
///
/// Malformed files are bad input: every diagnostic of every file is collected and thrown
/// together as an `InputError` (exit code 2).
public final class AppRepository: @unchecked Sendable {
  public let root: URL
  public let profile: AppProfile
  /// The directories searched for a file, the app's own first (overlays see their base).
  public let searchPath: [URL]
  private var textCache: [String: String?] = [:]
  private let lock = NSLock()

  /// Opens the app at `directory`, reading `qualify.json` when present.
  public init(directory: String) throws {
    let root = URL(fileURLWithPath: directory).standardizedFileURL
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      throw InputError(
        "app directory not found: \(directory)",
        hint: "pass --app DIR pointing at the app repository")
    }
    self.root = root
    let profileURL = root.appendingPathComponent("qualify.json")
    var profile = AppProfile.conventional(name: root.lastPathComponent)
    if let data = FileManager.default.contents(atPath: profileURL.path) {
      profile = try AppProfile.parse(
        text: String(decoding: data, as: UTF8.self), file: AppRepository.display(profileURL),
        directoryName: root.lastPathComponent)
    }
    var search = [root]
    var baseName = profile.base
    var hops = 0
    var current = root
    while let base = baseName, hops < 4 {
      let baseURL =
        (base.hasPrefix("/") ? URL(fileURLWithPath: base) : current.appendingPathComponent(base))
        .standardizedFileURL
      guard FileManager.default.fileExists(atPath: baseURL.path) else {
        throw InputError(
          "the base app \(base) named in \(AppRepository.display(profileURL)) does not exist")
      }
      search.append(baseURL)
      let baseProfile = baseURL.appendingPathComponent("qualify.json")
      baseName = nil
      if let data = FileManager.default.contents(atPath: baseProfile.path) {
        let parsed = try AppProfile.parse(
          text: String(decoding: data, as: UTF8.self), file: AppRepository.display(baseProfile),
          directoryName: baseURL.lastPathComponent)
        baseName = parsed.base
        // An overlay inherits what it does not say itself.
        if profile.appId == nil { profile.appId = parsed.appId }
        if profile.callbackScheme == nil { profile.callbackScheme = parsed.callbackScheme }
        for (key, path) in parsed.paths
        where profile.paths[key] == AppProfile.conventionalPaths[key] {
          profile.paths[key] = path
        }
        if profile.channels.allSatisfy({
          $0.value.backendEnv.first == "deploy/env/backend.defaults"
        }) {
          profile.channels = parsed.channels
        }
      }
      current = baseURL
      hops += 1
    }
    self.profile = profile
    self.searchPath = search
  }

  /// A path as messages show it: relative to the working directory when below it.
  static func display(_ url: URL) -> String {
    let cwd = FileManager.default.currentDirectoryPath + "/"
    return url.path.hasPrefix(cwd) ? String(url.path.dropFirst(cwd.count)) : url.path
  }

  /// The on-disk location of `relative`, searching the overlay chain.
  public func locate(_ relative: String) -> URL? {
    for directory in searchPath {
      let url = directory.appendingPathComponent(relative)
      if FileManager.default.fileExists(atPath: url.path) { return url }
    }
    return nil
  }

  /// The text of artifact `relative`, nil when absent.
  func text(_ relative: String) -> (text: String, display: String)? {
    guard let url = locate(relative) else { return nil }
    guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
    return (String(decoding: data, as: UTF8.self), AppRepository.display(url))
  }

  func data(_ relative: String) -> (data: Data, display: String)? {
    guard let url = locate(relative), let data = FileManager.default.contents(atPath: url.path)
    else {
      return nil
    }
    return (data, AppRepository.display(url))
  }

  /// A short description of the app's version for the run record: `git describe` when the
  /// app is a git checkout.
  public func describeVersion() -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["git", "-C", root.path, "describe", "--always", "--dirty", "--tags"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    do {
      try process.run()
      process.waitUntilExit()
    } catch {
      return nil
    }
    guard process.terminationStatus == 0 else { return nil }
    let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    return out.isEmpty ? nil : out
  }

  /// The builds of every platform for `channel`.
  /// - Throws: `InputError` carrying every diagnostic when a file is malformed or missing.
  public func builds(for channel: Channel) throws -> [Platform: AppBuild] {
    var reader = BuildReader(repository: self, channel: channel)
    let builds = try reader.read()
    if !reader.diagnostics.isEmpty {
      throw InputError(
        "the app at \(AppRepository.display(root)) has \(reader.diagnostics.count) problem\(reader.diagnostics.count == 1 ? "" : "s")",
        diagnostics: reader.diagnostics)
    }
    return builds
  }

  /// The realm export, when the app has one.
  public func realm() throws -> RealmSettings? {
    guard let path = profile.paths["realm"], let (text, display) = text(path) else { return nil }
    return try RealmReader.read(text: text, file: display)
  }
}
