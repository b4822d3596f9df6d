import Foundation
import QualifyCore

/// The build settings of one target in one configuration, layered as Xcode layers them
/// (lowest first): the build environment, Xcode's own defaults, the project's base
/// `.xcconfig`, the project's settings, the target's base `.xcconfig`, the target's
/// settings. Expands `$(VAR)` and `${VAR}` with `$(inherited)` and the operators the
/// projects of seed 000 use (`:default=`, `:lower`, `:upper`, `:rfc1034identifier`,
/// `:c99extidentifier`, `:identifier`, `:base`, `:dir`, `:file`, `:suffix`).
///
/// Every value keeps where it was written, so a finding can say why a scheme or a bundle id
/// came out as it did.
public struct XcodeBuildSettings: Sendable {
  /// One setting as written at one layer.
  public struct Definition: Sendable {
    public var key: String
    public var value: String
    /// Where it is written (nil for Xcode's defaults).
    public var location: FileLocation?
    /// How the layer reads in an explanation (`ios/App/generated.xcconfig`).
    public var layer: String
    /// How a generated value was obtained from the environment.
    public var derivation: [String] = []
  }

  /// A value after expansion, and how it was obtained.
  public struct Expansion: Sendable, Equatable {
    public var value: String
    /// One sentence per variable that decided the value
    /// (`AUTH_CALLBACK_SCHEME is unset: default "stmessages"`).
    public var derivation: [String]
    /// Where the deciding value is written: the setting's line, or the `:default=` itself.
    public var location: FileLocation?
  }

  /// Layers, lowest first; each a list of definitions.
  public private(set) var layers: [[Definition]]

  public init(layers: [[Definition]]) {
    self.layers = layers
  }

  /// Xcode's own defaults for a target, the lowest layer above the environment.
  public static func defaults(
    target: String, configuration: String, sourceRoot: String
  ) -> [Definition] {
    [
      ("TARGET_NAME", target), ("PROJECT_NAME", target), ("CONFIGURATION", configuration),
      ("PRODUCT_NAME", "$(TARGET_NAME)"),
      ("PRODUCT_MODULE_NAME", "$(PRODUCT_NAME:c99extidentifier)"),
      ("EXECUTABLE_NAME", "$(PRODUCT_NAME)"), ("SRCROOT", sourceRoot),
      ("PROJECT_DIR", sourceRoot), ("PLATFORM_NAME", "iphoneos"), ("SDKROOT", "iphoneos"),
      ("EFFECTIVE_PLATFORM_NAME", "-iphoneos"), ("PRODUCT_BUNDLE_PACKAGE_TYPE", "APPL"),
    ].map { Definition(key: $0.0, value: $0.1, location: nil, layer: "Xcode's defaults") }
  }

  /// The definition that wins for `key`, at or below layer `below` (exclusive when given).
  func definition(_ key: String, below: Int? = nil) -> (Definition, layer: Int)? {
    let top = below ?? layers.count
    for index in stride(from: top - 1, through: 0, by: -1) {
      if let found = layers[index].last(where: { $0.key == key }) { return (found, index) }
    }
    return nil
  }

  /// The expanded value of setting `key`, nil when no layer defines it.
  public func value(_ key: String) -> Expansion? {
    guard let (definition, layer) = definition(key) else { return nil }
    var derivation: [String] = []
    var location: FileLocation? = definition.location
    let value = expand(
      definition.value, inheritedFrom: layer, key: key, depth: 0, derivation: &derivation,
      location: &location)
    return Expansion(
      value: value,
      derivation: ["\(key) = \(definition.value) (\(describe(definition)))"] + derivation,
      location: location)
  }

  /// Expands the `$(…)` references of `text` written in a file such as Info.plist.
  public func expand(_ text: String, at location: FileLocation? = nil) -> Expansion {
    var derivation: [String] = []
    var decided = location
    let value = expand(
      text, inheritedFrom: layers.count, key: nil, depth: 0, derivation: &derivation,
      location: &decided)
    return Expansion(value: value, derivation: derivation, location: decided)
  }

  private func describe(_ definition: Definition) -> String {
    if let location = definition.location {
      return location.line > 0 ? "\(location.file):\(location.line)" : location.file
    }
    return definition.layer
  }

  private func expand(
    _ text: String, inheritedFrom layer: Int, key: String?, depth: Int,
    derivation: inout [String], location: inout FileLocation?
  ) -> String {
    guard depth < 16, text.contains("$") else { return text }
    var out = ""
    var rest = Substring(text)
    while let dollar = rest.firstIndex(of: "$") {
      out += rest[..<dollar]
      let after = rest.index(after: dollar)
      guard after < rest.endIndex, rest[after] == "(" || rest[after] == "{" else {
        // As Xcode's macro parser reads them: `$$` is a literal `$`, the deprecated `$NAME`
        // a reference, any other `$` itself.
        if after < rest.endIndex, rest[after] == "$" {
          out.append("$")
          rest = rest[rest.index(after: after)...]
        } else if after < rest.endIndex, rest[after] == "_" || rest[after].isASCIILetter {
          let name = rest[after...].prefix { $0 == "_" || $0.isASCIILetter || $0.isASCIIDigit }
          out += reference(
            String(name), inheritedFrom: layer, key: key, depth: depth, derivation: &derivation,
            location: &location)
          rest = rest[name.endIndex...]
        } else {
          out.append("$")
          rest = rest[after...]
        }
        continue
      }
      let close: Character = rest[after] == "(" ? ")" : "}"
      let open = rest[after]
      // Find the matching close, allowing nested references in names and defaults.
      var level = 0
      var end: Substring.Index?
      var cursor = rest.index(after: after)
      while cursor < rest.endIndex {
        let c = rest[cursor]
        if c == open {
          level += 1
        } else if c == close {
          if level == 0 {
            end = cursor
            break
          }
          level -= 1
        }
        cursor = rest.index(after: cursor)
      }
      guard let end else {
        out += rest[dollar...]
        rest = rest[rest.endIndex...]
        break
      }
      let body = String(rest[rest.index(after: after)..<end])
      out += reference(
        body, inheritedFrom: layer, key: key, depth: depth, derivation: &derivation,
        location: &location)
      rest = rest[rest.index(after: end)...]
    }
    out += rest
    return out
  }

  /// One `$(NAME:op:op=arg)` reference.
  private func reference(
    _ body: String, inheritedFrom layer: Int, key: String?, depth: Int,
    derivation: inout [String], location: inout FileLocation?
  ) -> String {
    // Split at top-level colons (a default may itself hold `$(…)`).
    var parts: [String] = []
    var current = ""
    var level = 0
    for c in body {
      if c == "(" || c == "{" { level += 1 }
      if c == ")" || c == "}" { level -= 1 }
      if c == ":" && level == 0 {
        parts.append(current)
        current = ""
      } else {
        current.append(c)
      }
    }
    parts.append(current)
    let name = expand(
      parts[0], inheritedFrom: layer, key: key, depth: depth + 1, derivation: &derivation,
      location: &location)
    var value: String
    var defined = false
    if name == "inherited" {
      if let key, let (inherited, below) = definition(key, below: layer) {
        value = expand(
          inherited.value, inheritedFrom: below, key: key, depth: depth + 1,
          derivation: &derivation, location: &location)
        defined = true
      } else {
        value = ""
      }
    } else if let (definition, found) = definition(name) {
      // The innermost definition decides: it is set last.
      if let written = definition.location { location = written }
      var inner: [String] = []
      value = expand(
        definition.value, inheritedFrom: found, key: name, depth: depth + 1,
        derivation: &inner, location: &location)
      defined = true
      derivation.append("\(name) = \(value) (\(describe(definition)))")
      derivation += definition.derivation + inner
    } else {
      value = ""
    }
    for op in parts.dropFirst() {
      if op.hasPrefix("default=") {
        if value.isEmpty {
          let fallback = expand(
            String(op.dropFirst("default=".count)), inheritedFrom: layer, key: key,
            depth: depth + 1, derivation: &derivation, location: &location)
          derivation.append(
            "\(name) is \(defined ? "empty" : "unset"): its default \"\(fallback)\" applies")
          value = fallback
        }
        continue
      }
      value = XcodeBuildSettings.apply(op, to: value)
    }
    if !defined && !parts.dropFirst().contains(where: { $0.hasPrefix("default=") })
      && name != "inherited"
    {
      derivation.append("\(name) is unset: it expands to an empty string")
    }
    return value
  }

  static func apply(_ op: String, to value: String) -> String {
    switch op {
    case "lower": return value.lowercased()
    case "upper": return value.uppercased()
    case "rfc1034identifier":
      return String(
        value.map {
          $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") ? $0 : "-"
        }
      )
    case "c99extidentifier", "identifier":
      var out = String(value.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
      if let first = out.first, first.isNumber { out = "_" + out }
      return out
    case "base": return ((value as NSString).lastPathComponent as NSString).deletingPathExtension
    case "dir": return (value as NSString).deletingLastPathComponent
    case "file": return (value as NSString).lastPathComponent
    case "suffix":
      let ext = (value as NSString).pathExtension
      return ext.isEmpty ? "" : "." + ext
    case "standardizepath": return (value as NSString).standardizingPath
    case "quote": return value.replacingOccurrences(of: " ", with: "\\ ")
    default: return value
    }
  }
}

extension XcodeBuildSettings {
  /// Whether a conditional setting (`KEY[sdk=iphoneos*][config=Release]`) applies to a device
  /// build of `configuration`.
  static func conditionsHold(_ conditions: [String: String], configuration: String) -> Bool {
    for (name, pattern) in conditions {
      let subject: String
      switch name {
      case "sdk": subject = "iphoneos"
      case "config": subject = configuration
      case "arch": subject = "arm64"
      default: return false
      }
      if !Glob.matches(pattern, subject) { return false }
    }
    return true
  }

  /// Splits `KEY[cond=value]` as pbxproj writes a conditional setting.
  static func splitConditions(_ key: String) -> (String, [String: String]) {
    guard let open = key.firstIndex(of: "[") else { return (key, [:]) }
    var conditions: [String: String] = [:]
    var rest = key[open...]
    while let start = rest.firstIndex(of: "["), let end = rest.firstIndex(of: "]"), start < end {
      let body = rest[rest.index(after: start)..<end]
      if let eq = body.firstIndex(of: "=") {
        conditions[String(body[..<eq])] = String(body[body.index(after: eq)...])
      }
      rest = rest[rest.index(after: end)...]
    }
    return (String(key[..<open]), conditions)
  }
}

extension Character {
  fileprivate var isASCIILetter: Bool { isASCII && isLetter }
  fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
