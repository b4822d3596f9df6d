import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

@testable import Artifacts

/// Hostile and unusual app files: each is a diagnostic with its file and line, or read as
/// the platform reads it — never a crash.
@Suite struct ReaderHardeningTests {
  @Test(arguments: [5000, 20000])
  func deeplyNestedXMLIsADiagnosticNotACrash(depth: Int) {
    let text =
      "<manifest>" + String(repeating: "<a>", count: depth)
      + String(repeating: "</a>", count: depth)
      + "</manifest>"
    #expect {
      try XMLReader.parse(text: text, file: "AndroidManifest.xml")
    } throws: { error in
      guard let diagnostic = error as? Diagnostic else { return false }
      return diagnostic.location?.file == "AndroidManifest.xml"
        && diagnostic.message.contains("nested deeper than")
    }
  }

  @Test func deeplyNestedPlistsAreADiagnosticInBothFormats() throws {
    let depth = 5000
    let xml =
      "<?xml version=\"1.0\"?><plist version=\"1.0\">"
      + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
      + "</plist>"
    #expect(throws: Diagnostic.self) {
      try PropertyListReader.parse(data: Data(xml.utf8), file: "Info.plist")
    }
    var nested: Any = "leaf"
    for _ in 0..<300 { nested = [nested] }
    let binary = try PropertyListSerialization.data(
      fromPropertyList: ["k": nested], format: .binary, options: 0)
    #expect {
      try PropertyListReader.parse(data: binary, file: "App.entitlements")
    } throws: { error in
      (error as? Diagnostic)?.message.contains("nested deeper than") == true
    }
  }

  /// Foundation's XMLParser on Linux crashed on a processing instruction without data, also
  /// one met while recovering from an error (found by `make fuzz`); libxml2 used directly
  /// reads them, and the reader gives them no meaning.
  @Test func processingInstructionsAreIgnoredNotFatal() throws {
    let root = try XMLReader.parse(
      text:
        "<?xml version=\"1.0\"?>\n<?pi?>\n<resources>\n<?x ?>\n<string name=\"a\">b<?y?>c</string>\n</resources>\n",
      file: "strings.xml")
    #expect(root.name == "resources")
    #expect(root.children.first?.line == 5)
    #expect(root.children.first?.text == "bc")
    for (text, message, line) in [
      ("<?xml?>\n<plist/>", "XML declaration", 1),
      ("<plist>\n<key a=\"<?x?>\">k</key></plist>", "'<' inside an attribute value", 2),
      ("<plist>\n<ke<?x?>y>k</key></plist>", "malformed XML", 2),
    ] {
      #expect {
        try XMLReader.parse(text: text, file: "Info.plist")
      } throws: { error in
        guard let diagnostic = error as? Diagnostic else { return false }
        return diagnostic.message.contains(message) && diagnostic.location?.line == line
      }
    }
  }

  /// Internal entities mean what the document says (an app can hide a value behind one), so
  /// they are expanded, within bounds (AndroidTransportTests checks bombs and external ones).
  @Test func namespacedNamesKeepTheirPrefixAndInternalEntitiesAreExpanded() throws {
    let root = try XMLReader.parse(
      text: """
        <?xml version="1.0"?>
        <!DOCTYPE manifest [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>
        <manifest xmlns:android="http://schemas.android.com/apk/res/android">
          <application android:usesCleartextTraffic="false">&lol2;&amp;</application>
        </manifest>
        """, file: "AndroidManifest.xml")
    let application = try #require(root.children("application").first)
    #expect(application.attributes == ["android:usesCleartextTraffic": "false"])
    #expect(application.text == "lollollollol&")
    #expect(application.line == 4)
  }

  @Test func xmlErrorsSayWhatIsWrongAndWhere() {
    #expect {
      try XMLReader.parse(
        text:
          "<resources>\n  <string name=\"a\">x</string>\n  <string name=b>y</string>\n</resources>\n",
        file: "strings.xml")
    } throws: { error in
      guard let diagnostic = error as? Diagnostic else { return false }
      return diagnostic.location?.line == 3 && diagnostic.message.contains("not quoted")
        && !diagnostic.message.contains("parser error")
    }
    #expect {
      try XMLReader.parse(
        text: "<manifest>\n  <application>\n</manifest>\n", file: "AndroidManifest.xml")
    } throws: { error in
      guard let diagnostic = error as? Diagnostic else { return false }
      return diagnostic.location?.line == 3 && diagnostic.message.contains("application line 2")
    }
  }

  @Test(arguments: [
    (Data([0xFF, 0xFE]) + "\"k\" = \"v\";\n".data(using: .utf16LittleEndian)!, "UTF-16 LE"),
    (Data([0xFE, 0xFF]) + "\"k\" = \"v\";\n".data(using: .utf16BigEndian)!, "UTF-16 BE"),
    (Data([0xEF, 0xBB, 0xBF]) + Data("\"k\" = \"v\";\r\n".utf8), "UTF-8 with BOM, CRLF"),
  ])
  func stringsFilesInXcodesEncodingsAreRead(data: Data, label: String) throws {
    let text = TextDecoding.decode(data).text
    let strings = try LocalizedStrings.parseStrings(text: text, file: "Localizable.strings")
    #expect(strings["k"]?.value == "v", "\(label)")
    #expect(strings["k"]?.line == 1, "\(label)")
  }

  @Test func anXMLFileDeclaredUTF16IsRead() throws {
    let text =
      "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<resources><string name=\"a\">x</string></resources>\n"
    let data = Data([0xFF, 0xFE]) + text.data(using: .utf16LittleEndian)!
    let strings = try LocalizedStrings.parseAndroid(
      text: TextDecoding.decode(data).text, file: "strings.xml")
    #expect(strings["a"]?.value == "x")
  }

  @Test func envFilesFollowComposeQuotingAndLineEndings() throws {
    let env = try EnvFile(
      text:
        "A=\"https://x.example\" # the API\r\nB='single # kept'\r\nC=plain # comment\r\nD=a#b\r\nE=\"esc \\\"q\\\"\"\r\n",
      path: "backend.prod.env")
    #expect(env["A"] == "https://x.example")
    #expect(env["B"] == "single # kept")
    #expect(env["C"] == "plain")
    #expect(env["D"] == "a#b")
    #expect(env["E"] == "esc \"q\"")
    #expect(env.line(of: "C") == 3)
  }
}
