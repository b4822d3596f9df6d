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
  private let gitAnswers = Locked<[GitQuery: String?]>([:])
  private let gitPending = DispatchGroup()

  /// The largest app file qualify reads; a bigger one is not a configuration file.
  public static let maximumFileSize = 16 << 20

  /// The largest `qualify.json`: a profile is a few kilobytes.
  public static let maximumProfileSize = 1 << 20

  /// Opens the app at `directory`, reading `qualify.json` when present.
  /// - Throws: `InputError` (exit 2) for a missing directory, a profile that cannot be read or
  ///   lies outside the app, or a `base` outside the repository.
  public init(directory: String) throws {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory),
      isDirectory.boolValue,
      let real = ConfinedFile.resolved(URL(fileURLWithPath: directory).standardizedFileURL.path)
    else {
      throw InputError(
        "app directory not found: \(directory)",
        hint: "pass --app DIR pointing at the app repository")
    }
    // The directory the user named is trusted; what is inside it is not.
    let root = URL(fileURLWithPath: real)
    self.root = root
    // A `base` must stay inside the repository the app belongs to (docs/threat-model.md).
    let repository = ConfinedFile.repositoryRoot(of: real)
    var search = [root]
    var profiles: [(URL, Data)] = []
    let profile = try AppRepository.loadProfile(
      at: root, repository: repository, chain: &search, profiles: &profiles, hops: 0)
    self.profile = profile
    self.searchPath = search
    try AppRepository.confine(profile)
    for (url, data) in profiles { note(url, data) }
  }

  /// Reads the `qualify.json` of `directory` confined to that directory: nil when there is
  /// none; a link out of it, a non-regular or oversized file, or an unreadable one is bad
  /// input (never replaced by defaults, never quoted).
  private static func readProfile(in directory: URL) throws -> (data: Data, display: String)? {
    let url = directory.appendingPathComponent("qualify.json")
    let display = AppRepository.display(url)
    do {
      guard
        let data = try ConfinedFile.read(
          url.path, within: [directory.path], limit: maximumProfileSize)
      else { return nil }
      return (data, display)
    } catch {
      throw InputError(
        error.describe(display),
        hint: "qualify.json is a regular file of the app (at most \(maximumProfileSize) bytes)")
    }
  }

  /// Reads the profile at `directory`, resolving its `base` chain first so that an overlay
  /// inherits everything it does not say itself.
  private static func loadProfile(
    at directory: URL, repository: String, chain: inout [URL], profiles: inout [(URL, Data)],
    hops: Int
  ) throws -> AppProfile {
    // A profile's Capacitor root is found in its own directory first, then in its bases.
    func detected() -> String {
      let own = chain.firstIndex(of: directory) ?? 0
      return detectCapacitorRoot(in: Array(chain[own...]))
    }
    guard let (data, display) = try readProfile(in: directory) else {
      return AppProfile.conventional(
        name: directory.lastPathComponent, capacitorRoot: detected())
    }
    profiles.append((directory.appendingPathComponent("qualify.json"), data))
    let text = TextDecoding.decode(data).text
    var inherited: AppProfile?
    // The base is read before the overlay's own keys apply on top of it.
    if let base = try? JSONDocument(text: text, file: display).value["base"]?.string {
      guard hops < 4 else {
        throw InputError("\(display): the chain of \"base\" apps is longer than 4")
      }
      let named =
        base.hasPrefix("/")
        ? URL(fileURLWithPath: base) : directory.appendingPathComponent(base)
      let hint =
        "a base is a qualify app (a folder with qualify.json) inside the repository \(AppRepository.display(URL(fileURLWithPath: repository)))"
      guard let real = ConfinedFile.resolved(named.standardizedFileURL.path) else {
        throw InputError("the base app \(base) named in \(display) does not exist", hint: hint)
      }
      guard ConfinedFile.isInside(real, repository) else {
        throw InputError(
          "the base app \(base) named in \(display) resolves outside the app's repository: qualify does not read it",
          hint: hint)
      }
      let baseURL = URL(fileURLWithPath: real)
      var isDirectory: ObjCBool = false
      // Only whether it is there: the recursive load reads it, confined like any profile.
      var link = stat()
      guard FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory),
        isDirectory.boolValue, lstat(real + "/qualify.json", &link) == 0
      else {
        throw InputError(
          "the base app \(base) named in \(display) is not a qualify app (no qualify.json)",
          hint: hint)
      }
      chain.append(baseURL)
      inherited = try loadProfile(
        at: baseURL, repository: repository, chain: &chain, profiles: &profiles, hops: hops + 1)
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
    if let webDir = profile.render?.webDir {
      check(webDir, key: "render")
      // The bundle is served to a browser: no hidden folder of the app (.git, .env) may be it.
      if XcodeProject.join("", webDir).split(separator: "/").contains(where: {
        $0.hasPrefix(".")
      }), let file = profile.file {
        diagnostics.append(
          .error(
            at: FileLocation(file: file, line: profile.keyLines["render"] ?? 1, column: 1),
            "render.webDir \"\(webDir)\" names a hidden folder: qualify serves no hidden file of the app",
            hint: "point render.webDir at the built web bundle (dist)"))
      }
    }
    if !diagnostics.isEmpty {
      throw InputError("qualify.json names paths outside the app", diagnostics: diagnostics)
    }
  }

  /// A path as messages show it: relative to the working directory (`DisplayPath`).
  public static func display(_ url: URL) -> String { DisplayPath.of(url) }

  /// The on-disk location of `relative`, searching the overlay chain.
  public func locate(_ relative: String) -> URL? {
    for directory in searchPath {
      let url = directory.appendingPathComponent(relative).standardizedFileURL
      if FileManager.default.fileExists(atPath: url.path) { return url }
    }
    return nil
  }

  /// The files below `relative` whose names end with `suffix`, relative to the app, across the
  /// overlay chain (an overlay's own files first), sorted; nothing reached through a link out
  /// of the app is listed.
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
        guard attributes?[.type] as? FileAttributeType == .typeRegular,
          let real = ConfinedFile.resolved(base.appendingPathComponent(entry).path),
          ConfinedFile.isInside(real, directory.path)
        else { continue }
        found.insert(XcodeProject.join(relative, entry))
      }
    }
    return found.sorted()
  }

  /// A checkout made without Git LFS holds a three-line pointer where the file should be
  /// (a pbxproj or a google-services.json kept in LFS): reading it as the file would report a
  /// parse error that names no cause.
  static func refuseLFSPointer(_ data: Data, display: String) throws {
    guard data.starts(with: Data("version https://git-lfs.github.com/spec/".utf8)) else { return }
    throw Diagnostic.error(
      at: FileLocation(file: display, line: 1, column: 1),
      "\(display) is a Git LFS pointer, not the file: fetch the LFS objects (git lfs pull) before qualifying"
    )
  }

  /// The bytes of artifact `relative`, nil when absent.
  /// - Throws: a `Diagnostic` when the file resolves outside the app (a symbolic link, `..`),
  ///   is not a regular file, or is too large to be a configuration file; it names the file,
  ///   never quotes it.
  func data(_ relative: String) throws -> (data: Data, display: String)? {
    guard let url = locate(relative) else { return nil }
    let display = AppRepository.display(url)
    let bytes: Data
    do {
      guard
        let data = try ConfinedFile.read(
          url.path, within: searchPath.map(\.path), limit: AppRepository.maximumFileSize)
      else { return nil }
      note(url, data)
      bytes = data
    } catch {
      throw Diagnostic.error(
        at: FileLocation(file: display, line: 1, column: 1), error.describe(display))
    }
    try AppRepository.refuseLFSPointer(bytes, display: display)
    return (bytes, display)
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
  ///
  /// The checkout is hostile input: git reads only refs and objects here (no `--dirty`, which
  /// would refresh the index and so run the checkout's fsmonitor and clean filters), with
  /// fsmonitor and hooks off, no system or global config, no prompt and no optional locks.
  public func describeVersion() -> String? { ask(.describe) }

  /// The full commit id the checkout is at (`git rev-parse HEAD`), nil when the app is not a
  /// git checkout: what names the release's sources in the report and the attestation.
  public func commit() -> String? {
    ask(.commit).flatMap { $0.count == 40 || $0.count == 64 ? $0 : nil }
  }

  /// Starts both git queries in the background: each costs a process (tens of milliseconds),
  /// and a run needs their answers only when it records itself, after its set-up.
  public func askGitInBackground() {
    for query in GitQuery.allCases {
      DispatchQueue.global().async(group: gitPending) {
        let answer = self.git(query.arguments)
        self.gitAnswers.withLock { $0[query] = .some(answer) }
      }
    }
  }

  private enum GitQuery: CaseIterable {
    case describe, commit

    var arguments: [String] {
      switch self {
      case .describe: return ["describe", "--always", "--tags"]
      case .commit: return ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]
      }
    }
  }

  /// A query's answer: the background one when `askGitInBackground` started it, else asked now.
  private func ask(_ query: GitQuery) -> String? {
    gitPending.wait()
    if let known = gitAnswers.withLock({ $0[query] }) { return known }
    let answer = git(query.arguments)
    gitAnswers.withLock { $0[query] = .some(answer) }
    return answer
  }

  /// One read-only git query in the checkout, its trimmed output; nil when git fails.
  private func git(_ arguments: [String]) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments =
      [
        "git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-C", root.path,
      ] + arguments
    var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GIT_") }
    environment["GIT_CONFIG_NOSYSTEM"] = "1"
    environment["GIT_CONFIG_GLOBAL"] = "/dev/null"
    environment["GIT_TERMINAL_PROMPT"] = "0"
    environment["GIT_OPTIONAL_LOCKS"] = "0"
    process.environment = environment
    process.standardInput = FileHandle.nullDevice
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
