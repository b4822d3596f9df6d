import Foundation
import QualifyCore
import QualifyCrypto

/// An app repository on disk: its profile and its real files, read once, from which one
/// `AppBuild` per platform and channel is derived.
///
/// Malformed files are bad input: every diagnostic of every file is collected and thrown
/// together as an `InputError` (exit code 2). Paths the profile names are confined to the app
/// (a pull request to the app must not make qualify read a file elsewhere).
public final class AppRepository: Sendable {
  public let root: URL
  public let profile: AppProfile
  /// The directories searched for a file, the app's own first (overlays see their base).
  public let searchPath: [URL]

  /// Every app file read so far, by its path relative to the app directory, with the SHA-256
  /// of the bytes read: what an attestation of the run names as its subjects.
  private let ledger = Locked<[String: String]>([:])

  /// The largest app file qualify reads; a bigger one is not a configuration file.
  public static let maximumFileSize = 16 << 20

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
    var search = [root]
    let profile = try AppRepository.loadProfile(at: root, chain: &search, hops: 0)
    self.profile = profile
    self.searchPath = search
    try AppRepository.confine(profile)
    for directory in search {
      let url = directory.appendingPathComponent("qualify.json")
      if let data = FileManager.default.contents(atPath: url.path) { note(url, data) }
    }
  }

  /// Reads the profile at `directory`, resolving its `base` chain first so that an overlay
  /// inherits everything it does not say itself.
  private static func loadProfile(at directory: URL, chain: inout [URL], hops: Int) throws
    -> AppProfile
  {
    let profileURL = directory.appendingPathComponent("qualify.json")
    // A profile's Capacitor root is found in its own directory first, then in its bases.
    func detected() -> String {
      let own = chain.firstIndex(of: directory) ?? 0
      return detectCapacitorRoot(in: Array(chain[own...]))
    }
    guard let data = FileManager.default.contents(atPath: profileURL.path) else {
      return AppProfile.conventional(
        name: directory.lastPathComponent, capacitorRoot: detected())
    }
    let display = AppRepository.display(profileURL)
    let text = TextDecoding.decode(data).text
    var inherited: AppProfile?
    // The base is read before the overlay's own keys apply on top of it.
    if let base = try? JSONDocument(text: text, file: display).value["base"]?.string {
      guard hops < 4 else {
        throw InputError("\(display): the chain of \"base\" apps is longer than 4")
      }
      let baseURL =
        (base.hasPrefix("/")
        ? URL(fileURLWithPath: base) : directory.appendingPathComponent(base)).standardizedFileURL
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: baseURL.path, isDirectory: &isDirectory),
        isDirectory.boolValue
      else {
        throw InputError("the base app \(base) named in \(display) does not exist")
      }
      chain.append(baseURL)
      inherited = try loadProfile(at: baseURL, chain: &chain, hops: hops + 1)
    }
    return try AppProfile.parse(
      text: text, file: display, directoryName: directory.lastPathComponent,
      inheriting: inherited, capacitorRoot: detected())
  }

  /// The first conventional folder holding a Capacitor project.
  static func detectCapacitorRoot(in directories: [URL]) -> String {
    for candidate in AppProfile.conventionalCapacitorRoots {
      for directory in directories {
        let folder = directory.appendingPathComponent(candidate)
        let markers = [
          "capacitor.config.ts", "capacitor.config.json", "capacitor.config.js", "ios/App",
          "android/app",
        ]
        if markers.contains(where: {
          FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path)
        }) {
          return candidate
        }
      }
    }
    return "."
  }

  /// Refuses profile paths that leave the app (absolute, or climbing above its root).
  private static func confine(_ profile: AppProfile) throws {
    var diagnostics: [Diagnostic] = []
    func check(_ path: String, key: String) {
      let escapes =
        path.hasPrefix("/") || path.hasPrefix("~")
        || XcodeProject.join("", path).split(separator: "/").first == ".."
      if escapes, let file = profile.file {
        diagnostics.append(
          .error(
            at: FileLocation(
              file: file, line: profile.keyLines[key] ?? profile.keyLines["paths"] ?? 1, column: 1),
            "the path \"\(path)\" of \(key) leaves the app directory",
            hint:
              "paths in qualify.json are relative to the app and stay inside it; pass files from elsewhere on the command line (--backend-env, --frontend-env)"
          ))
      }
    }
    for (key, path) in profile.paths { check(path, key: "paths.\(key)") }
    for (channel, files) in profile.channels {
      for path in files.backendEnv + files.frontendEnv { check(path, key: "channels") }
      _ = channel
    }
    check(profile.capacitorRoot, key: "capacitorRoot")
    if let generated = profile.generatedXcconfig { check(generated.path, key: "ios") }
    if !diagnostics.isEmpty {
      throw InputError("qualify.json names paths outside the app", diagnostics: diagnostics)
    }
  }

  /// A path as messages show it: relative to the working directory when below it.
  public static func display(_ url: URL) -> String {
    let cwd = FileManager.default.currentDirectoryPath + "/"
    return url.path.hasPrefix(cwd) ? String(url.path.dropFirst(cwd.count)) : url.path
  }

  /// The on-disk location of `relative`, searching the overlay chain.
  public func locate(_ relative: String) -> URL? {
    for directory in searchPath {
      let url = directory.appendingPathComponent(relative).standardizedFileURL
      if FileManager.default.fileExists(atPath: url.path) { return url }
    }
    return nil
  }

  /// The files below `relative` whose names end with `suffix`, relative to the app, across the
  /// overlay chain (an overlay's own files first), sorted; symbolic links are not followed.
  public func files(under relative: String, suffix: String) -> [String] {
    var found: Set<String> = []
    for directory in searchPath {
      let base = directory.appendingPathComponent(relative).standardizedFileURL
      guard let walker = FileManager.default.enumerator(atPath: base.path) else { continue }
      var seen = 0
      while let entry = walker.nextObject() as? String, seen < 10_000 {
        seen += 1
        guard entry.hasSuffix(suffix) else { continue }
        let attributes = try? FileManager.default.attributesOfItem(
          atPath: base.appendingPathComponent(entry).path)
        guard attributes?[.type] as? FileAttributeType == .typeRegular else { continue }
        found.insert(XcodeProject.join(relative, entry))
      }
    }
    return found.sorted()
  }

  /// The bytes of artifact `relative`, nil when absent.
  /// - Throws: a `Diagnostic` when the file resolves outside the app (a symbolic link) or is
  ///   too large to be a configuration file.
  func data(_ relative: String) throws -> (data: Data, display: String)? {
    guard let url = locate(relative) else { return nil }
    let display = AppRepository.display(url)
    let resolved = url.resolvingSymlinksInPath().path
    let inside = searchPath.contains { directory in
      let base = directory.resolvingSymlinksInPath().path
      return resolved == base || resolved.hasPrefix(base + "/")
    }
    guard inside else {
      throw Diagnostic.error(
        at: FileLocation(file: display, line: 1, column: 1),
        "\(display) is a link to \(resolved), outside the app: qualify does not follow it")
    }
    let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    guard size <= AppRepository.maximumFileSize else {
      throw Diagnostic.error(
        at: FileLocation(file: display, line: 1, column: 1),
        "\(display) is \(size) bytes: larger than any app configuration file (limit \(AppRepository.maximumFileSize))"
      )
    }
    guard let data = FileManager.default.contents(atPath: url.path) else {
      throw Diagnostic.error(
        at: FileLocation(file: display, line: 1, column: 1), "\(display) cannot be read")
    }
    note(url, data)
    return (data, display)
  }

  private func note(_ url: URL, _ data: Data) {
    let digest = Digest.sha256Hex(data)
    ledger.withLock { $0[AppRepository.relativePath(of: url, from: root)] = digest }
  }

  /// The app files read so far (the profiles included), sorted by path.
  public var filesRead: [(path: String, sha256: String)] {
    ledger.withLock { $0 }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
  }

  /// `url` relative to `base` (`../messages/qualify.json` for an overlay's base).
  public static func relativePath(of url: URL, from base: URL) -> String {
    let target = url.standardizedFileURL.pathComponents
    let origin = base.standardizedFileURL.pathComponents
    var common = 0
    while common < min(target.count, origin.count) && target[common] == origin[common] {
      common += 1
    }
    return (Array(repeating: "..", count: origin.count - common) + target[common...])
      .joined(separator: "/")
  }

  /// The text of artifact `relative` (UTF-8 or UTF-16, with or without a BOM), nil when absent.
  func text(_ relative: String) throws -> (text: String, display: String)? {
    guard let (data, display) = try data(relative) else { return nil }
    return (TextDecoding.decode(data).text, display)
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

  /// Env files given on the command line, layered over the profile's for every channel.
  public struct ExtraEnv: Sendable {
    public var backend: [String]
    public var frontend: [String]
    /// qualify's own environment: a pipeline gives the real OTA signing key as
    /// `MOBILE_OTA_SIGNING_PRIVATE_KEY_B64` there (a CI secret never sits in the repository).
    public var process: [String: String]

    public init(
      backend: [String] = [], frontend: [String] = [],
      process: [String: String] = ProcessInfo.processInfo.environment
    ) {
      self.backend = backend
      self.frontend = frontend
      self.process = process
    }
  }

  /// The builds of every platform for `channel`.
  /// - Throws: `InputError` carrying every diagnostic when a file is malformed or missing.
  public func builds(for channel: Channel, extraEnv: ExtraEnv = ExtraEnv()) throws -> [Platform:
    AppBuild]
  {
    var reader = BuildReader(repository: self, channel: channel, extraEnv: extraEnv)
    let builds = try reader.read()
    if !reader.diagnostics.isEmpty {
      throw InputError(
        "the app at \(AppRepository.display(root)) has \(reader.diagnostics.count) problem\(reader.diagnostics.count == 1 ? "" : "s")",
        diagnostics: reader.diagnostics)
    }
    return builds
  }

  /// The realm export, when the app has one.
  public func realm(clientID: String? = nil) throws -> RealmSettings? {
    // A realm path the profile names is the only one; otherwise the conventional places.
    let declared = profile.paths["realm"].flatMap {
      AppProfile.conventionalRealmPaths.contains($0) ? nil : $0
    }
    let candidates = declared.map { [$0] } ?? AppProfile.conventionalRealmPaths
    for path in candidates {
      if let (text, display) = try text(path) {
        return try RealmReader.read(text: text, file: display, clientID: clientID)
      }
    }
    return nil
  }
}
