import Artifacts
import Foundation
import OTA
import QualifyCore
import Scenarios

/// The readers of untrusted input, one entry per fuzz target (`make fuzz`, docs/fuzzing.md).
///
/// Each target hands arbitrary bytes to a reader the way qualify reads a file. A reader may
/// return or refuse with the error it documents (a `Diagnostic`, an `InputError`, a
/// `ZipError`); anything else — a trap, a crash, another error type that would surface as
/// "a bug in qualify" — is a finding.
public enum FuzzTargets {
  public struct Target: Sendable {
    public let name: String
    /// Fixture files under the repository that seed its corpus (globs, relative to the root).
    public let seeds: [String]
    /// Seeds written in code, for formats no fixture holds as a file.
    public var generated: @Sendable () -> [[UInt8]] = { [] }
    public let run: @Sendable ([UInt8]) -> Void

    init(
      name: String, seeds: [String], generated: @escaping @Sendable () -> [[UInt8]] = { [] },
      run: @escaping @Sendable ([UInt8]) -> Void
    ) {
      self.name = name
      self.seeds = seeds
      self.generated = generated
      self.run = run
    }

    /// Copies the fixtures matching `seeds` under `root`'s Scenarios and Tests/Fixtures, and
    /// the generated seeds, into `directory`; returns how many.
    public func writeSeeds(from root: URL, to directory: URL) throws -> Int {
      let fileManager = FileManager.default
      try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
      var count = 0
      for folder in ["Scenarios", "Tests/Fixtures"] {
        let base = root.appendingPathComponent(folder)
        guard let walker = fileManager.enumerator(atPath: base.path) else { continue }
        for case let relative as String in walker {
          let path = folder + "/" + relative
          guard seeds.contains(where: { Glob.matches($0, path) }),
            let data = fileManager.contents(atPath: base.appendingPathComponent(relative).path),
            data.count <= 1 << 20
          else { continue }
          let name = path.replacingOccurrences(of: "/", with: "_")
          try data.write(to: directory.appendingPathComponent(name))
          count += 1
        }
      }
      for (index, bytes) in generated().enumerated() {
        try Data(bytes).write(to: directory.appendingPathComponent("generated-\(index)"))
        count += 1
      }
      return count
    }
  }

  /// An error the reader is not documented to throw.
  static func unexpected(_ error: Error, in target: String) -> Never {
    fatalError("\(target): undocumented error \(type(of: error)): \(error)")
  }

  static func text(_ bytes: [UInt8]) -> String { TextDecoding.decode(Data(bytes)).text }

  public static let all: [Target] = [
    Target(
      name: "plist", seeds: ["**/Info.plist", "**/*.entitlements", "**/*.plist"]
    ) { bytes in
      do {
        _ = try PropertyListReader.parse(data: Data(bytes), file: "Info.plist")
      } catch is Diagnostic {
      } catch { unexpected(error, in: "plist") }
    },
    Target(name: "xml", seeds: ["**/AndroidManifest.xml", "**/res/**/*.xml"]) { bytes in
      do {
        _ = try XMLReader.parse(text: text(bytes), file: "AndroidManifest.xml")
      } catch is Diagnostic {
      } catch { unexpected(error, in: "xml") }
    },
    Target(name: "nsc", seeds: ["**/res/xml/*.xml"], generated: networkSecurityConfigSeeds) {
      bytes in
      do {
        try ReaderEntryPoints.networkSecurityConfig(
          text(bytes), file: "network_security_config.xml")
      } catch is Diagnostic {
      } catch { unexpected(error, in: "nsc") }
    },
    Target(name: "resources", seeds: ["**/res/values*/*.xml"], generated: resourceSeeds) {
      bytes in
      do {
        try ReaderEntryPoints.androidResources(text(bytes), file: "bools.xml")
      } catch is Diagnostic {
      } catch { unexpected(error, in: "resources") }
    },
    Target(
      name: "json", seeds: ["**/capacitor.config.json", "**/qualify.json", "**/regression.json"]
    ) { bytes in
      do {
        _ = try JSONDocument(text: text(bytes), file: "capacitor.config.json")
      } catch is Diagnostic {
      } catch { unexpected(error, in: "json") }
    },
    Target(name: "env", seeds: ["**/*.env", "**/*.defaults", "**/frontend.local", "**/*.test"]) {
      bytes in
      do {
        _ = try EnvFile(text: text(bytes), path: "backend.prod.env")
      } catch is InputError {
      } catch is Diagnostic {
      } catch { unexpected(error, in: "env") }
    },
    Target(name: "strings", seeds: ["**/*.strings", "**/values*/strings.xml"]) { bytes in
      let decoded = text(bytes)
      do {
        _ = try LocalizedStrings.parseStrings(text: decoded, file: "Localizable.strings")
      } catch is InputError {
      } catch { unexpected(error, in: "strings") }
      do {
        _ = try LocalizedStrings.parseAndroid(text: decoded, file: "strings.xml")
      } catch is Diagnostic {
      } catch { unexpected(error, in: "strings") }
    },
    Target(name: "scenario", seeds: ["Scenarios/**/*.scenario", "Tests/Fixtures/*.scenario"]) {
      bytes in
      let engine = DiagnosticsEngine()
      _ = ScenarioParser().parse(
        text: text(bytes), file: "fuzz.scenario", id: "fuzz/fuzz", diagnostics: engine)
    },
    Target(
      name: "zip", seeds: [], generated: zipSeeds
    ) { bytes in
      do {
        _ = try CapgoBundle.unpackable(zip: bytes)
      } catch {
        // unpackable throws only its typed Refusal.
      }
      do {
        _ = try ZipArchive(bytes: bytes)
      } catch is ZipError {
      } catch { unexpected(error, in: "zip") }
    },
    Target(
      name: "manifest", seeds: ["**/manifest.json"], generated: manifestSeeds
    ) { bytes in
      do {
        let manifest = try Manifest.parse(bytes, source: "manifest.json")
        _ = Manifest.resolve(
          manifest.url, against: "https://ota.example/channels/prod/manifest.json")
        _ = BundleVersion(manifest.version).isUpdate(over: BundleVersion("1234-abc"))
      } catch is InputError {
      } catch { unexpected(error, in: "manifest") }
    },
    Target(name: "pbxproj", seeds: ["**/project.pbxproj"]) { bytes in
      do {
        _ = try XcodeProject.parse(
          text: text(bytes), file: "project.pbxproj",
          projectPath: "ios/App/App.xcodeproj/project.pbxproj")
      } catch is InputError {
      } catch is Diagnostic {
      } catch { unexpected(error, in: "pbxproj") }
    },
    Target(name: "xcconfig", seeds: ["**/*.xcconfig"]) { bytes in
      do {
        _ = try XcconfigFile(text: text(bytes), file: "App.xcconfig")
      } catch is InputError {
      } catch is Diagnostic {
      } catch { unexpected(error, in: "xcconfig") }
    },
    Target(name: "gradle", seeds: ["**/build.gradle", "**/*.gradle", "**/*.gradle.kts"]) { bytes in
      let decoded = text(bytes)
      for buildType in ["release", "debug"] {
        _ = GradleScript.read(
          text: decoded, file: "build.gradle", buildType: buildType, environment: EnvLayers([]))
      }
    },
    Target(name: "capconfig", seeds: ["**/capacitor.config.ts", "**/capacitor.config.js"]) {
      bytes in
      do {
        _ = try ConfigScript.evaluate(text: text(bytes), file: "capacitor.config.ts") {
          $0.hasPrefix("MOBILE_") ? "1" : nil
        }
      } catch is Diagnostic {
      } catch { unexpected(error, in: "capconfig") }
    },
    Target(name: "realm", seeds: ["**/realm.json"]) { bytes in
      do {
        try ReaderEntryPoints.realm(text(bytes), file: "realm.json", clientID: "messages")
      } catch is Diagnostic {
      } catch is InputError {
      } catch { unexpected(error, in: "realm") }
    },
    Target(name: "profile", seeds: ["**/qualify.json"]) { bytes in
      do {
        _ = try AppProfile.parse(text: text(bytes), file: "qualify.json", directoryName: "app")
      } catch is Diagnostic {
      } catch is InputError {
      } catch { unexpected(error, in: "profile") }
    },
    Target(name: "source", seeds: ["**/*.swift", "**/*.java", "**/*.sh"]) { bytes in
      ReaderEntryPoints.source(text(bytes))
    },
  ]

  public static func named(_ name: String) -> Target? { all.first { $0.name == name } }

  /// A bundle as `ota publish` writes one, and one with a zip-slip entry.
  @Sendable static func zipSeeds() -> [[UInt8]] {
    [
      ZipArchive(entries: [
        .init(name: "index.html", data: Array("<p>ok</p>".utf8)),
        .init(name: "assets/app.js", data: Array("console.log(1)".utf8)),
      ]).bytes,
      ZipArchive(entries: [.init(name: "../escape.js", data: [0])]).bytes,
    ]
  }

  /// Network security configs in the shapes Android documents, entities and nesting included.
  @Sendable static func networkSecurityConfigSeeds() -> [[UInt8]] {
    [
      """
      <?xml version="1.0" encoding="utf-8"?>
      <!DOCTYPE network-security-config [<!ENTITY t "true"> <!ENTITY tt "&t;">]>
      <network-security-config>
        <base-config cleartextTrafficPermitted="false"><trust-anchors>
          <certificates src="system"/></trust-anchors></base-config>
        <domain-config cleartextTrafficPermitted="&tt;">
          <domain includeSubdomains="true">messages.example</domain>
          <domain-config><domain>api.messages.example</domain></domain-config>
        </domain-config>
        <debug-overrides><trust-anchors><certificates src="user"/></trust-anchors></debug-overrides>
      </network-security-config>
      """
    ].map { Array($0.utf8) }
  }

  /// Value resources with references between booleans.
  @Sendable static func resourceSeeds() -> [[UInt8]] {
    [
      """
      <resources>
        <bool name="a">TRUE</bool>
        <bool name="b">@bool/a</bool>
        <item type="bool" name="c">@bool/b</item>
        <bool name="loop">@bool/loop</bool>
      </resources>
      """
    ].map { Array($0.utf8) }
  }

  /// A manifest as `ota publish` writes one.
  @Sendable static func manifestSeeds() -> [[UInt8]] {
    [
      Manifest(
        version: "1234-abcdef0", url: "bundles/1234-abcdef0.zip", checksum: "00ff",
        sessionKey: "AAAA:BBBB"
      ).json
    ]
  }
}
