import Artifacts
import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

@Suite struct ReaderTests {
  @Test func jsonSyntaxErrorsHaveLineAndColumn() {
    let text = "{\n  \"server\": {\n    \"url\": \"x\",\n  }\n}\n"
    #expect {
      try JSONDocument(text: text, file: "c.json")
    } throws: { error in
      guard let d = error as? Diagnostic else { return false }
      return d.location?.line == 4 && d.message.contains("trailing comma")
    }
  }

  @Test func jsonValuesKnowTheirLines() throws {
    let json = try JSONDocument(text: "{\n  \"a\": {\n    \"b\": true\n  }\n}", file: "x.json")
      .value
    #expect(json.at("a.b")?.bool == true)
    #expect(json.line(at: "a.b") == 3)
  }

  @Test func malformedXMLReportsTheLine() {
    #expect {
      try XMLReader.parse(
        text: "<manifest>\n  <application>\n</manifest>\n", file: "AndroidManifest.xml")
    } throws: { error in
      (error as? Diagnostic)?.location?.line == 3
    }
  }

  @Test func plistKeysKnowTheirLines() throws {
    let text = """
      <?xml version="1.0" encoding="UTF-8"?>
      <plist version="1.0">
      <dict>
        <key>NSAppTransportSecurity</key>
        <dict>
          <key>NSAllowsArbitraryLoads</key>
          <true/>
        </dict>
      </dict>
      </plist>
      """
    let plist = try PropertyListReader.parse(data: Data(text.utf8), file: "Info.plist")
    #expect(plist["NSAppTransportSecurity"]?["NSAllowsArbitraryLoads"]?.bool == true)
    #expect(plist["NSAppTransportSecurity"]?.line(of: "NSAllowsArbitraryLoads") == 6)
  }

  @Test func binaryPlistsAreRead() throws {
    let data = try PropertyListSerialization.data(
      fromPropertyList: ["aps-environment": "production"], format: .binary, options: 0)
    let plist = try PropertyListReader.parse(data: data, file: "App.entitlements")
    #expect(plist["aps-environment"]?.string == "production")
  }

  @Test func envFilesReportEveryMalformedLine() {
    #expect {
      try EnvFile(
        text: "A=1\nthis is wrong\n# comment\nB C=2\nexport D=\"quoted\"\n", path: "backend.prod")
    } throws: { error in
      guard let input = error as? InputError else { return false }
      return input.diagnostics.map { $0.location?.line } == [2, 4]
    }
    let env = try? EnvFile(text: "A=1\nexport D=\"quoted\"\nA=2\n", path: "e")
    #expect(env?["A"] == "2")
    #expect(env?["D"] == "quoted")
  }

  @Test func stringsFilesParse() throws {
    let strings = try LocalizedStrings.parseStrings(
      text: "/* c */\n\"k\" = \"v \\\"q\\\"\";\n// x\n", file: "L.strings")
    #expect(strings["k"]?.value == "v \"q\"")
    #expect(strings["k"]?.line == 2)
  }

  @Test func aProfileWithUnknownKeysIsRejectedWithSuggestions() {
    #expect {
      try AppProfile.parse(
        text: "{\n  \"nmae\": \"x\",\n  \"paths\": { \"ios.infoplist\": \"a\" }\n}",
        file: "qualify.json", directoryName: "x")
    } throws: { error in
      guard let input = error as? InputError else { return false }
      return input.diagnostics.count == 2 && input.diagnostics[0].hint?.contains("name") == true
        && input.diagnostics[1].hint?.contains("ios.infoPlist") == true
    }
  }

  /// A generated xcconfig setting is an expression over the build env, or a copy of a key
  /// of the synced config; anything else is named at its line.
  @Test func aGeneratedXcconfigSettingCopiesTheSyncedConfigOrIsRefused() throws {
    let profile = try AppProfile.parse(
      text: """
        {"ios": {"generatedXcconfig": {"path": "ios/App/g.xcconfig", "settings": {
          "MOBILE_APP_ID": "$(MOBILE_APP_ID)",
          "MOBILE_VERSION_NAME": {"syncedConfig": "appVersion"}
        }}}}
        """, file: "qualify.json", directoryName: "x")
    #expect(profile.generatedXcconfig?.settings.map(\.key) == ["MOBILE_APP_ID"])
    #expect(profile.generatedXcconfig?.syncedSettings.map(\.path) == ["appVersion"])
    #expect {
      try AppProfile.parse(
        text: """
          {"ios": {"generatedXcconfig": {"path": "g.xcconfig", "settings": {
            "MOBILE_VERSION_NAME": {"synced": "appVersion"}
          }}}}
          """, file: "qualify.json", directoryName: "x")
    } throws: { error in
      (error as? InputError)?.diagnostics.first.map {
        $0.location?.line == 2 && $0.message.contains("syncedConfig")
      } == true
    }
  }
}
