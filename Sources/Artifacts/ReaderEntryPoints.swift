/// The internal readers of untrusted input, driven whole from outside the module: the fuzz
/// targets (`make fuzz`, docs/fuzzing.md) feed them arbitrary bytes through these, so that the
/// readers stay internal and the fuzz targets build in release like any other module.
public enum ReaderEntryPoints {
  /// A network security config read and asked about a few hosts and its user-CA trust.
  public static func networkSecurityConfig(_ text: String, file: String) throws {
    let root = try XMLReader.parse(text: text, file: file)
    let config = try NetworkSecurityConfig.read(
      root, file: file, resources: AndroidResources(definitions: [:]))
    for host in ["messages.example", "api.messages.example", "localhost", ""] {
      _ = config.cleartextPermitted(host: host, platformDefault: false)
    }
    _ = config.userCertificateTrust(debuggable: true)
  }

  /// A values resource file's definitions, each resolved as a boolean.
  public static func androidResources(_ text: String, file: String) throws {
    let root = try XMLReader.parse(text: text, file: file)
    var definitions: [String: [AndroidResources.Definition]] = [:]
    for (key, definition) in AndroidResources.definitions(in: root, qualifiers: "", file: file) {
      definitions[key, default: []].append(definition)
    }
    let resources = AndroidResources(definitions: definitions)
    for key in definitions.keys { _ = resources.boolean("@" + key, at: nil) }
  }

  /// A Keycloak realm export, read for one client.
  public static func realm(_ text: String, file: String, clientID: String) throws {
    _ = try RealmReader.read(text: text, file: file, clientID: clientID)
  }

  /// Source text as the build compiles it, and a build phase's script as it runs.
  public static func source(_ text: String) {
    _ = SourceText.compiledSwiftLines(text, conditions: ["DEBUG"])
    _ = ShellScript.runs("strip", in: text, variables: ["CONFIGURATION": "Release"])
  }
}
