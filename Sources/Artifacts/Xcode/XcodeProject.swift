import Foundation
import QualifyCore

/// What qualify reads of an Xcode project (`App.xcodeproj/project.pbxproj`): the app
/// target, its build configurations with their base `.xcconfig` files, its build phases and
/// the files it compiles. Read structurally, so that a comment or an unreferenced object
/// never counts.
public struct XcodeProject: Sendable {
  /// One `XCBuildConfiguration`.
  public struct Configuration: Sendable {
    public var name: String
    /// Settings as written, in order, with their lines.
    public var settings: [(key: String, value: String, line: Int)]
    /// The base configuration file, relative to the app root, when one is referenced.
    public var baseConfigurationPath: String?
    public var line: Int
  }

  /// A `PBXShellScriptBuildPhase` of a target.
  public struct ShellScriptPhase: Sendable {
    public var name: String
    public var script: String
    public var line: Int
    /// `runOnlyForDeploymentPostprocessing = 1`: runs only when installing (archives).
    public var onlyWhenInstalling: Bool
  }

  public struct Target: Sendable {
    public var id: String
    public var name: String
    public var productType: String
    public var line: Int
    public var configurations: [Configuration]
    public var shellScriptPhases: [ShellScriptPhase]
    /// Paths (relative to the app root) of the files its Sources phase compiles.
    public var compiledSources: [String]
    /// Whether it has a Sources phase at all (a target without one compiles nothing).
    public var hasSourcesPhase: Bool
  }

  /// The project file, as a display path.
  public var file: String
  /// The directory holding the `.xcodeproj`, relative to the app root (`SRCROOT`).
  public var sourceRoot: String
  public var targets: [Target]
  /// The project-level configurations (the lowest layer of a target's settings).
  public var projectConfigurations: [Configuration]

  /// The target that builds the app: the application product, preferring one named `App`.
  public var applicationTarget: Target? {
    let apps = targets.filter { $0.productType == "com.apple.product-type.application" }
    return apps.first { $0.name == "App" } ?? apps.first ?? targets.first
  }

  /// Reads a project file.
  /// - Parameters:
  ///   - text: the `project.pbxproj` text.
  ///   - file: its display path, for diagnostics.
  ///   - projectPath: its path relative to the app root (`ios/App/App.xcodeproj/project.pbxproj`).
  /// - Throws: a `Diagnostic` when the file is not an ASCII property list with `objects`.
  public static func parse(text: String, file: String, projectPath: String) throws -> XcodeProject {
    let root = try OpenStepPlistReader.parse(text: text, file: file)
    guard let objects = root["objects"]?.entries else {
      throw Diagnostic.error(
        at: FileLocation(file: file, line: root.line, column: 1),
        "not an Xcode project: no \"objects\" dictionary")
    }
    // SRCROOT: the folder holding App.xcodeproj.
    let projectDirectory = (projectPath as NSString).deletingLastPathComponent
    let graph = ObjectGraph(
      objects, sourceRoot: (projectDirectory as NSString).deletingLastPathComponent)
    var targets: [Target] = []
    var projectConfigurations: [Configuration] = []
    for (id, entry) in graph.byID.sorted(by: { $0.value.line < $1.value.line }) {
      let object = entry.value
      switch object["isa"]?.string {
      case "PBXNativeTarget":
        targets.append(graph.target(id, object, line: entry.line))
      case "PBXProject":
        projectConfigurations = graph.configurations(object["buildConfigurationList"]?.string)
      default:
        break
      }
    }
    return XcodeProject(
      file: file, sourceRoot: graph.sourceRoot, targets: targets,
      projectConfigurations: projectConfigurations)
  }

  /// The project's objects by id, with each file reference's path through the group tree.
  private struct ObjectGraph {
    var byID: [String: (value: OpenStepValue, line: Int)] = [:]
    var parent: [String: String] = [:]
    let sourceRoot: String

    init(_ objects: [(key: String, value: OpenStepValue, line: Int)], sourceRoot: String) {
      self.sourceRoot = sourceRoot
      for entry in objects { byID[entry.key] = (entry.value, entry.line) }
      for (id, entry) in byID
      where entry.value["isa"]?.string == "PBXGroup"
        || entry.value["isa"]?.string == "PBXVariantGroup"
      {
        for child in entry.value["children"]?.array ?? [] {
          if let childID = child.string { parent[childID] = id }
        }
      }
    }

    func path(of id: String, depth: Int = 0) -> String? {
      guard depth < 32, let object = byID[id]?.value else { return nil }
      let own = object["path"]?.string
      switch object["sourceTree"]?.string ?? "<group>" {
      case "SOURCE_ROOT":
        return join(sourceRoot, own ?? "")
      case "<absolute>":
        return own
      case "<group>":
        guard let parentID = parent[id] else { return join(sourceRoot, own ?? "") }
        guard let base = path(of: parentID, depth: depth + 1) else { return nil }
        return join(base, own ?? "")
      default:
        return nil
      }
    }

    func configurations(_ listID: String?) -> [Configuration] {
      guard let listID, let list = byID[listID]?.value else { return [] }
      return (list["buildConfigurations"]?.array ?? []).compactMap { item in
        guard let id = item.string, let (object, line) = byID[id] else { return nil }
        var settings: [(key: String, value: String, line: Int)] = []
        for entry in object["buildSettings"]?.entries ?? [] {
          settings.append(
            (key: entry.key, value: entry.value.strings.joined(separator: " "), line: entry.line))
        }
        return Configuration(
          name: object["name"]?.string ?? "?", settings: settings,
          baseConfigurationPath: object["baseConfigurationReference"]?.string.flatMap {
            path(of: $0)
          }, line: line)
      }
    }

    /// A native target: its configurations, its shell script phases, the files it compiles.
    func target(_ id: String, _ object: OpenStepValue, line: Int) -> Target {
      var phases: [ShellScriptPhase] = []
      var sources: [String] = []
      var hasSources = false
      for phaseRef in object["buildPhases"]?.array ?? [] {
        guard let phaseID = phaseRef.string, let (phase, line) = byID[phaseID] else { continue }
        switch phase["isa"]?.string {
        case "PBXShellScriptBuildPhase":
          phases.append(
            ShellScriptPhase(
              name: phase["name"]?.string ?? "Run Script",
              script: phase["shellScript"]?.string ?? "", line: line,
              onlyWhenInstalling: phase["runOnlyForDeploymentPostprocessing"]?.string == "1"))
        case "PBXSourcesBuildPhase":
          hasSources = true
          for fileRef in phase["files"]?.array ?? [] {
            guard let buildFileID = fileRef.string,
              let referenceID = byID[buildFileID]?.value["fileRef"]?.string,
              let filePath = path(of: referenceID)
            else { continue }
            sources.append(filePath)
          }
        default:
          break
        }
      }
      return Target(
        id: id, name: object["name"]?.string ?? id,
        productType: object["productType"]?.string ?? "", line: line,
        configurations: configurations(object["buildConfigurationList"]?.string),
        shellScriptPhases: phases, compiledSources: sources, hasSourcesPhase: hasSources)
    }
  }

  /// `a/b` + `../c` → `a/c`, without touching the file system.
  static func join(_ base: String, _ relative: String) -> String {
    if relative.hasPrefix("/") { return relative }
    var parts = base.split(separator: "/").map(String.init).filter { $0 != "." }
    for part in relative.split(separator: "/").map(String.init) {
      switch part {
      case "", ".": continue
      case "..":
        if !parts.isEmpty && parts.last != ".." { parts.removeLast() } else { parts.append("..") }
      default: parts.append(part)
      }
    }
    return parts.joined(separator: "/")
  }
}
