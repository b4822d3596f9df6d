import Foundation
import QualifyCore

/// An Android app's value resources (`res/values*/…xml`) across the source sets a build
/// merges, read as aapt2 compiles them, so that a manifest attribute written as a reference
/// (`@bool/allow_cleartext`) means what it means on a device.
///
/// Source sets: the build type's folder (`src/release/res`) overrides `src/main/res`.
/// Configuration qualifiers (`values-v28`, `values-night`) apply on the devices that match
/// them; a boolean is taken as true when any variant a device could pick is true, since some
/// devices in the field would then run with it.
struct AndroidResources {
  /// One definition of a resource.
  struct Definition {
    var value: String
    /// The folder's qualifiers (`v28`), empty for `values`.
    var qualifiers: String
    var location: FileLocation
  }

  /// `type/name` → its definitions, the highest-priority source set's only.
  private(set) var definitions: [String: [Definition]] = [:]

  /// The `res` folders by priority, highest first.
  let folders: [String]

  /// Reads every `values*/*.xml` under `folders`, refusing a malformed file with its line.
  init(repository: AppRepository, folders: [String]) throws {
    self.folders = folders
    var seenInHigher: Set<String> = []
    for folder in folders {
      var own: [String: [Definition]] = [:]
      for path in repository.files(under: folder, suffix: ".xml") {
        let relative = String(path.dropFirst(folder.count + 1))
        let parts = relative.split(separator: "/")
        guard parts.count == 2, parts[0] == "values" || parts[0].hasPrefix("values-") else {
          continue
        }
        let qualifiers = parts[0] == "values" ? "" : String(parts[0].dropFirst("values-".count))
        guard let (text, display) = try repository.text(path) else { continue }
        let root = try XMLReader.parse(text: text, file: display)
        for (key, definition) in AndroidResources.definitions(
          in: root, qualifiers: qualifiers, file: display)
        {
          own[key, default: []].append(definition)
        }
      }
      for (key, list) in own where !seenInHigher.contains(key) { definitions[key] = list }
      seenInHigher.formUnion(own.keys)
    }
  }

  /// Resources given directly (tests, fuzzing), `type/name` → definitions.
  init(definitions: [String: [Definition]], folders: [String] = ["res"]) {
    self.definitions = definitions
    self.folders = folders
  }

  /// The definitions of one `values*/…xml` document (`<bool name="x">`, `<item type="bool">`).
  static func definitions(in root: XMLNode, qualifiers: String, file: String) -> [(
    String, Definition
  )] {
    guard root.name == "resources" else { return [] }
    return root.children.compactMap { item in
      guard let name = item.attributes["name"] else { return nil }
      let type = item.name == "item" ? (item.attributes["type"] ?? "") : item.name
      return (
        "\(type)/\(name)",
        Definition(
          value: item.text.trimmingCharacters(in: .whitespacesAndNewlines),
          qualifiers: qualifiers, location: FileLocation(file: file, line: item.line, column: 1))
      )
    }
  }

  /// What a boolean attribute means: a literal aapt2 accepts, or a `@bool/` reference
  /// resolved through the resources.
  enum Boolean {
    /// The value, where it was decided, and how it got there.
    case value(Bool, FileLocation?, [String])
    /// Not a boolean aapt2 compiles: the build fails, so the value is bad input.
    case invalid(String)
  }

  /// A literal as aapt2's `ResourceUtils::ParseBool` takes it: trimmed, then `true` or
  /// `false` in any case.
  static func literal(_ raw: String) -> Bool? {
    switch raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() {
    case "true": return true
    case "false": return false
    default: return nil
    }
  }

  /// The boolean `raw` stands for, written at `location`.
  func boolean(_ raw: String, at location: FileLocation?, depth: Int = 0) -> Boolean {
    if let value = AndroidResources.literal(raw) { return .value(value, location, []) }
    let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
    guard trimmed.hasPrefix("@") else {
      return .invalid("\"\(raw)\" is not a boolean: aapt2 accepts true or false")
    }
    let reference = trimmed.dropFirst().replacingOccurrences(of: "+", with: "")
    if reference.hasPrefix("android:") {
      return .invalid(
        "\(trimmed) is a framework resource: its value depends on the device, not on the app")
    }
    let key = reference.split(separator: "/").count == 2 ? reference : ""
    guard key.hasPrefix("bool/"), let list = definitions[key], !list.isEmpty else {
      return .invalid(
        "\(trimmed) resolves to no <bool> in \(folders.map { $0 + "/values*" }.joined(separator: ", ")): aapt2 refuses the build"
      )
    }
    guard depth < 8 else { return .invalid("\(trimmed) refers to itself") }
    var anyTrue: (FileLocation, String)?
    var defaultValue: (Bool, FileLocation)?
    var derivation: [String] = []
    for definition in list {
      guard
        case .value(let value, _, let inner) = boolean(
          definition.value, at: definition.location, depth: depth + 1)
      else {
        return .invalid(
          "\(trimmed) = \"\(definition.value)\" at \(definition.location.file):\(definition.location.line) is not a boolean"
        )
      }
      let folder = definition.qualifiers.isEmpty ? "values" : "values-" + definition.qualifiers
      derivation.append(
        "\(trimmed) = \(value) in \(folder) (\(definition.location.file):\(definition.location.line))"
      )
      derivation += inner
      if definition.qualifiers.isEmpty { defaultValue = (value, definition.location) }
      if value, anyTrue == nil { anyTrue = (definition.location, folder) }
    }
    if let (location, folder) = anyTrue {
      if folder != "values" {
        derivation.append("devices matching \(folder) get true")
      }
      return .value(true, location, derivation)
    }
    return .value(false, defaultValue?.1 ?? list[0].location, derivation)
  }

  /// The file of an `@xml/name` reference in the highest-priority source set that has it.
  func xmlFile(_ reference: String, in repository: AppRepository) -> String? {
    let trimmed = reference.trimmingCharacters(in: .whitespaces)
    guard trimmed.hasPrefix("@xml/") else { return nil }
    let name = trimmed.dropFirst("@xml/".count)
    for folder in folders {
      let path = XcodeProject.join(folder, "xml/\(name).xml")
      if repository.locate(path) != nil { return path }
    }
    return nil
  }
}
