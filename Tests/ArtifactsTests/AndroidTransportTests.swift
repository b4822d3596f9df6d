import Foundation
import QualifyCore
import Testing

@testable import Artifacts

/// Android's cleartext rules as the platform applies them: aapt2's booleans and resource
/// references, the network security config's most specific match and inheritance, and XML
/// entities from the document's own DTD only.
@Suite struct AndroidTransportTests {
  static func config(_ xml: String, resources: AndroidResources = .init(definitions: [:])) throws
    -> NetworkSecurityConfig
  {
    try NetworkSecurityConfig.read(
      try XMLReader.parse(text: xml, file: "nsc.xml"), file: "nsc.xml", resources: resources)
  }

  static let layered = """
    <network-security-config>
      <base-config cleartextTrafficPermitted="false"/>
      <domain-config cleartextTrafficPermitted="true">
        <domain includeSubdomains="true">example.org</domain>
        <domain-config>
          <domain>api.example.org</domain>
        </domain-config>
        <domain-config cleartextTrafficPermitted="false">
          <domain includeSubdomains="true">secure.example.org</domain>
        </domain-config>
      </domain-config>
      <domain-config cleartextTrafficPermitted="true">
        <domain>example.com</domain>
      </domain-config>
    </network-security-config>
    """

  @Test(arguments: [
    ("example.org", true),
    ("cdn.example.org", true),
    // A nested config that says nothing inherits its parent's permission.
    ("api.example.org", true),
    // The most specific match decides, whatever the order.
    ("secure.example.org", false),
    ("a.secure.example.org", false),
    // Without includeSubdomains only the name itself matches.
    ("example.com", true),
    ("www.example.com", false),
    // A look-alike host is not a subdomain.
    ("notexample.org", false),
    ("example.org.evil.test", false),
    ("EXAMPLE.ORG", true),
  ])
  func theMostSpecificDomainConfigDecides(host: String, permitted: Bool) throws {
    let config = try Self.config(Self.layered)
    #expect(config.cleartextPermitted(host: host, platformDefault: true).value == permitted)
  }

  @Test func withoutABaseConfigThePlatformDefaultApplies() throws {
    let config = try Self.config(
      "<network-security-config><domain-config><domain>a.test</domain></domain-config></network-security-config>"
    )
    #expect(config.cleartextPermitted(host: "a.test", platformDefault: true).value)
    #expect(!config.cleartextPermitted(host: "a.test", platformDefault: false).value)
  }

  @Test func userCAsCountInDebugOverridesOnlyForADebuggableBuild() throws {
    let config = try Self.config(
      """
      <network-security-config>
        <debug-overrides><trust-anchors><certificates src="user"/></trust-anchors></debug-overrides>
      </network-security-config>
      """)
    #expect(config.userCertificateTrust(debuggable: false).isEmpty)
    #expect(config.userCertificateTrust(debuggable: true).count == 1)
  }

  @Test(arguments: [
    ("true", true), ("TRUE", true), (" True ", true), ("false", false), ("FALSE", false),
  ])
  func booleansAsAapt2CompilesThem(raw: String, value: Bool) {
    guard case .value(let read, _, _) = AndroidResources(definitions: [:]).boolean(raw, at: nil)
    else {
      Issue.record("\(raw) is not read as a boolean")
      return
    }
    #expect(read == value)
  }

  @Test(arguments: ["yes", "1", "", "@string/x", "@android:bool/config_x", "@bool/missing"])
  func whatIsNotABooleanIsRefused(raw: String) {
    guard case .invalid = AndroidResources(definitions: [:]).boolean(raw, at: nil) else {
      Issue.record("\(raw) was taken as a boolean")
      return
    }
  }

  static func definition(_ value: String, _ qualifiers: String = "") -> AndroidResources.Definition
  {
    .init(
      value: value, qualifiers: qualifiers,
      location: FileLocation(
        file: "values\(qualifiers.isEmpty ? "" : "-" + qualifiers)/bools.xml", line: 2, column: 1))
  }

  @Test func referencesResolveThroughOtherBooleansAndQualifiedVariants() {
    let resources = AndroidResources(definitions: [
      "bool/a": [Self.definition("@bool/b")],
      "bool/b": [Self.definition("TRUE")],
      "bool/c": [Self.definition("false"), Self.definition("true", "v28")],
      "bool/d": [Self.definition("false"), Self.definition("false", "night")],
      "bool/loop": [Self.definition("@bool/loop")],
    ])
    func value(_ name: String) -> Bool? {
      if case .value(let v, _, _) = resources.boolean("@bool/\(name)", at: nil) { return v }
      return nil
    }
    #expect(value("a") == true)
    // Devices on API 28+ pick values-v28: some devices in the field allow it.
    #expect(value("c") == true)
    #expect(value("d") == false)
    #expect(value("loop") == nil)
    guard case .value(_, let at, let derivation) = resources.boolean("@bool/c", at: nil) else {
      return
    }
    #expect(at?.file == "values-v28/bools.xml")
    #expect(derivation.contains("devices matching values-v28 get true"))
  }

  @Test func internalEntitiesExpandInAttributesAndText() throws {
    let root = try XMLReader.parse(
      text: """
        <!DOCTYPE manifest [
          <!ENTITY yes "&#116;rue">
          <!ENTITY on "&yes;">
        ]>
        <manifest><application a="&on;">x&on;y</application></manifest>
        """, file: "m.xml")
    let application = try #require(root.children("application").first)
    #expect(application.attributes["a"] == "true")
    #expect(application.text == "xtruey")
  }

  @Test func anExternalEntityIsRefusedNeverRead() throws {
    let secret = FileManager.default.temporaryDirectory.appendingPathComponent(
      "qualify-entity-\(UUID().uuidString.prefix(6))")
    try Data("true".utf8).write(to: secret)
    defer { try? FileManager.default.removeItem(at: secret) }
    #expect(throws: Diagnostic.self) {
      try XMLReader.parse(
        text: """
          <!DOCTYPE manifest [<!ENTITY x SYSTEM "file://\(secret.path)">]>
          <manifest><application a="&x;"/></manifest>
          """, file: "m.xml")
    }
    do {
      _ = try XMLReader.parse(
        text: """
          <!DOCTYPE manifest [<!ENTITY x SYSTEM "file://\(secret.path)">]>
          <manifest><application>&x;</application></manifest>
          """, file: "m.xml")
      Issue.record("an external entity was accepted")
    } catch let diagnostic as Diagnostic {
      #expect(diagnostic.message.contains("is external"), "\(diagnostic.message)")
    }
  }

  /// The diagnostic `text` is refused with, nil when it parses.
  private func refusal(_ text: String) -> Diagnostic? {
    do {
      _ = try XMLReader.parse(text: text, file: "m.xml")
      return nil
    } catch {
      return error as? Diagnostic
    }
  }

  @Test func anEntityBombIsRefused() throws {
    var declarations = "<!ENTITY l0 \"\(String(repeating: "lol", count: 100))\">"
    for level in 1...6 {
      let previous = String(repeating: "&l\(level - 1);", count: 10)
      declarations += "<!ENTITY l\(level) \"\(previous)\">"
    }
    // libxml2's own amplification check or qualify's budget, whichever stops it first.
    let bomb = refusal("<!DOCTYPE m [\(declarations)]><m a=\"&l6;\"/>")
    #expect(bomb?.message.contains("entit") == true, "\(String(describing: bomb))")
    // Under libxml2's radar: one large entity used in many attributes of one element.
    let big = String(repeating: "x", count: 20_000)
    let uses = (0..<8).map { "a\($0)=\"&big;\"" }.joined(separator: " ")
    let wide = refusal("<!DOCTYPE m [<!ENTITY big \"\(big)\">]><m \(uses)/>")
    #expect(wide?.message.contains("64 KiB") == true, "\(String(describing: wide))")
  }
}
