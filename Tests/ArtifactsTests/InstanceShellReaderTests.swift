import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

@testable import Artifacts

/// `capacitor.config.ts` read as the object literal it is.
@Suite struct ConfigLiteralTests {
  @Test func theCommittedShapeReadsWithItsLines() throws {
    let text = """
      import type { CapacitorConfig } from '@capacitor/cli';

      // A comment with { braces } and 'quotes'.
      const config: CapacitorConfig = {
        appId: 'fs.example.shell',
        "appName": "Shell",
        webDir: 'dist', /* trailing */
        server: {
          url: `https://${process.env.INSTANCE}`,
          allowNavigation: ['*.example.org', "other.example"],
          cleartext: false,
        },
        plugins: { CapacitorHttp: { enabled: true, }, },
      };

      export default config;
      """
    let config = try ConfigLiteral.parse(text: text, file: "capacitor.config.ts")
    #expect(config["appId"]?.string == "fs.example.shell")
    #expect(config["appName"]?.string == "Shell")
    #expect(config.line(of: "webDir") == 7)
    // A computed URL is kept as a set key whose value qualify cannot know.
    #expect(config["server"]?["url"] == .null)
    #expect(config["server"]?.line(of: "url") == 9)
    #expect(
      config["server"]?["allowNavigation"]?.array?.compactMap(\.string) == [
        "*.example.org", "other.example",
      ])
    #expect(config["server"]?["cleartext"]?.bool == false)
    #expect(config.at("plugins.CapacitorHttp.enabled")?.bool == true)
  }

  @Test func exportDefaultAndExpressionsRead() throws {
    let config = try ConfigLiteral.parse(
      text: "export default {\n  appId: APP_ID,\n  webDir: 'www',\n  bundledWebRuntime: false\n}",
      file: "capacitor.config.js")
    #expect(config["appId"] == .null)
    #expect(config["webDir"]?.string == "www")
    #expect(config["bundledWebRuntime"]?.bool == false)
  }

  @Test func commentsSpreadsAndUndefinedAreReadAsTypeScriptMeansThem() throws {
    let text = """
      /* An example, not the config: const config: CapacitorConfig = { server: { url: 'x' } } */
      // export default { server: { url: 'y' } }
      const base = { webDir: 'dist' };
      const config: CapacitorConfig = {
        ...base,
        appId: 'fs.example.shell', // a trailing comment with // slashes and 'quotes'
        server: { url: undefined, cleartext: null },
        plugins: { CapacitorHttp: { enabled: process.env.HTTP === '1' } },
      };
      export default config;
      """
    let config = try ConfigLiteral.parse(text: text, file: "capacitor.config.ts")
    #expect(config["appId"]?.string == "fs.example.shell")
    // undefined and null leave their keys unset; a spread's values are not read.
    #expect(config["server"]?["url"] == nil)
    #expect(config["server"]?["cleartext"] == nil)
    #expect(config["webDir"] == nil)
    #expect(config.at("plugins.CapacitorHttp.enabled") == .null)
  }

  @Test func malformedOrHostileTextIsADiagnosticWithItsLine() throws {
    for (text, line, words) in [
      ("const config: CapacitorConfig = {\n  appId: 'unterminated,\n};", 2, "not closed"),
      ("const config: CapacitorConfig = {\n  appId 'x'\n};", 2, "expected ':'"),
      ("// nothing here", 1, "no configuration object"),
      (
        "const config: CapacitorConfig = " + String(repeating: "{a:", count: 200) + "1", 1,
        "64 levels"
      ),
    ] {
      do {
        _ = try ConfigLiteral.parse(text: text, file: "capacitor.config.ts")
        Issue.record("\(text.prefix(40)) parsed")
      } catch let diagnostic as Diagnostic {
        #expect(diagnostic.location?.line == line, "\(diagnostic)")
        #expect(diagnostic.message.contains(words), "\(diagnostic.message)")
      }
    }
  }
}

/// A multi-instance shell's build (seed 004), read from the bundled sample and from copies
/// changed the way the real project was.
@Suite struct InstanceShellReaderTests {
  @Test func theSampleReadsAsItsFilesSay() throws {
    let builds = try AppRepository(directory: Fixtures.instanceShellApp).builds(for: .prod)
    let ios = try #require(builds[.ios])
    let android = try #require(builds[.android])
    for build in [ios, android] {
      #expect(build.shell == .multiInstance)
      #expect(build.appId.value == "fs.sovereign.mobile")
      #expect(build.registers(scheme: "sovereign"))
      #expect(build.capacitor?.serverURL == nil)
      #expect(BuildGuards.findings(for: build).isEmpty, "\(BuildGuards.findings(for: build))")
    }
    #expect(
      ios.instanceShell?.compiledSwiftFiles == [
        "ios/App/App/AppDelegate.swift", "ios/App/App/Bridge.swift",
        "ios/App/App/MainViewController.swift",
      ])
    #expect(ios.instanceShell?.uncompiledSwiftFiles.isEmpty == true)
    #expect(android.instanceShell?.deepLinkLaunchMode?.value == "singleTask")
    #expect(android.instanceShell?.launcherActivity?.value == ".MainActivity")
    // Only the multi-instance rules judge it, and the store's bundle rule every iOS shell
    // shares: no NEXT_PUBLIC_API_ORIGIN is asked for.
    #expect(
      BuildGuards.rules(for: .multiInstance).filter { $0.shells != [.multiInstance] }.map(\.id)
        == ["ios-store-bundle"])
  }

  /// An overlay of the sample with `files` written over it.
  func overlay(_ files: [String: String]) throws -> URL {
    try Fixtures.overlayApp("qualify-instance-shell", base: Fixtures.instanceShellApp, files: files)
  }

  /// The real project once had a Swift file on disk that its classic-format project did not
  /// compile, and no deep-link scheme on either platform.
  @Test func aSwiftFileTheProjectDoesNotCompileAndAnUnregisteredSchemeAreFound() throws {
    let manifest = try String(
      contentsOfFile: Fixtures.instanceShellApp + "/android/app/src/main/AndroidManifest.xml",
      encoding: .utf8
    ).replacingOccurrences(of: "<data android:scheme=\"sovereign\" />", with: "")
    let directory = try overlay([
      "ios/App/App/BridgeCapabilities.swift": "import WebKit\nenum BridgeCapabilities {}\n",
      "android/app/src/main/AndroidManifest.xml": manifest,
    ])
    defer { try? FileManager.default.removeItem(at: directory) }
    let builds = try AppRepository(directory: directory.path).builds(for: .prod)
    let ios = BuildGuards.findings(for: try #require(builds[.ios]))
    #expect(ios.map(\.rule) == ["swift-sources-compiled"])
    #expect(ios.first?.value == "ios/App/App/BridgeCapabilities.swift")
    let android = BuildGuards.findings(for: try #require(builds[.android]))
    #expect(android.map(\.rule) == ["deep-link-scheme"])
    #expect(android.first?.message.contains("in no intent-filter") == true)
  }

  @Test func nativeCodeThatHandlesCookiesIsFoundOnItsPlatform() throws {
    let directory = try overlay([
      "android/app/src/main/java/fs/sovereign/mobile/SessionSync.java":
        "package fs.sovereign.mobile;\nclass SessionSync {\n  // CookieManager in a comment does not count\n  void sync() { android.webkit.CookieManager.getInstance().flush(); }\n}\n"
    ])
    defer { try? FileManager.default.removeItem(at: directory) }
    let builds = try AppRepository(directory: directory.path).builds(for: .prod)
    let android = BuildGuards.findings(for: try #require(builds[.android]))
    #expect(android.map(\.rule) == ["no-native-auth"])
    #expect(android.first?.location?.line == 4)
    #expect(BuildGuards.findings(for: try #require(builds[.ios])).isEmpty)
  }

  @Test func noCapacitorConfigIsBadInput() throws {
    let directory = try Fixtures.temporaryApp("qualify-instance-shell")
    defer { try? FileManager.default.removeItem(at: directory) }
    try Data(#"{"shell": "multi-instance"}"#.utf8).write(
      to: directory.appendingPathComponent("qualify.json"))
    #expect(throws: InputError.self) {
      _ = try AppRepository(directory: directory.path).builds(for: .prod)
    }
  }

  @Test func anUnknownShellKindNamesItsLine() throws {
    #expect(throws: (any Error).self) {
      _ = try AppProfile.parse(
        text: "{\n  \"shell\": \"multi-instances\"\n}", file: "qualify.json", directoryName: "x")
    }
  }
}
