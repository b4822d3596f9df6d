/// The kinds of file the mutation engine edits, by how their text is lexed.
public enum SourceLanguage: String, Sendable, CaseIterable {
  /// Swift, Kotlin, Java, TypeScript/JavaScript and Gradle's Groovy: C-family comments and
  /// string literals, so that operators are only ever mutated in code.
  case swift, kotlin, java, typescript, groovy
  /// Xcode's project file: an old-style property list (`/* */` comments, quoted strings).
  case pbxproj
  case json
  /// XML, property lists and entitlements: attribute values and element text.
  case xml
  /// `KEY=value` files: the build and backend environments.
  case env

  /// The language of a file by its name, or nil for a file the engine leaves alone (display
  /// strings, storyboards, keys, HTML).
  public init?(path: String) {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    let ext = name.contains(".") ? name.split(separator: ".").last.map(String.init) ?? "" : ""
    switch ext {
    case "swift": self = .swift
    case "kt", "kts": self = .kotlin
    case "java": self = .java
    case "ts", "tsx", "js", "mjs": self = .typescript
    case "gradle": self = .groovy
    case "pbxproj": self = .pbxproj
    case "json": self = .json
    case "xml", "plist", "entitlements": self = .xml
    case "env", "local", "defaults", "prod", "staging", "dev", "test", "development",
      "production":
      self = .env
    default: return nil
    }
  }

  var isCode: Bool {
    switch self {
    case .swift, .kotlin, .java, .typescript, .groovy: true
    case .pbxproj, .json, .xml, .env: false
    }
  }
}
