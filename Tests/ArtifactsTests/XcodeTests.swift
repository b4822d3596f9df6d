import Foundation
import QualifyCore
import Testing

@testable import Artifacts

/// The Xcode readers: the project file's ASCII property list, its targets and
/// configurations, `.xcconfig` files, build-setting expansion and build-phase scripts.
@Suite struct XcodeTests {
  static let project = """
    // !$*UTF8*$!
    {
    \tarchiveVersion = 1;
    \tobjects = {
    \t\tAA /* App.app */ = {isa = PBXFileReference; path = App.app; sourceTree = BUILT_PRODUCTS_DIR; };
    \t\tF1 /* SceneDelegate.swift */ = {isa = PBXFileReference; path = SceneDelegate.swift; sourceTree = "<group>"; };
    \t\tF2 /* Base.xcconfig */ = {isa = PBXFileReference; path = ../Config/Base.xcconfig; sourceTree = SOURCE_ROOT; };
    \t\tB1 /* SceneDelegate.swift in Sources */ = {isa = PBXBuildFile; fileRef = F1; };
    \t\tG0 = {isa = PBXGroup; children = (G1, F2); sourceTree = "<group>"; };
    \t\tG1 /* App */ = {isa = PBXGroup; children = (F1); path = App; sourceTree = "<group>"; };
    \t\tT1 /* App */ = {
    \t\t\tisa = PBXNativeTarget;
    \t\t\tbuildConfigurationList = L2;
    \t\t\tbuildPhases = (S1, P1);
    \t\t\tname = App;
    \t\t\tproductType = "com.apple.product-type.application";
    \t\t};
    \t\tS1 = {isa = PBXSourcesBuildPhase; files = (B1); };
    \t\tP1 /* Strip */ = {isa = PBXShellScriptBuildPhase; name = "Strip dev ATS exception"; runOnlyForDeploymentPostprocessing = 0; shellScript = "if [ \\"${CONFIGURATION}\\" != \\"Debug\\" ]; then\\n  /usr/libexec/PlistBuddy -c \\"Delete :NSAppTransportSecurity\\" x\\nfi\\n"; };
    \t\tPR = {isa = PBXProject; buildConfigurationList = L1; targets = (T1); };
    \t\tC1 /* Release */ = {isa = XCBuildConfiguration; baseConfigurationReference = F2; buildSettings = { SCHEME = fromProject; }; name = Release; };
    \t\tC2 /* Release */ = {isa = XCBuildConfiguration; buildSettings = {
    \t\t\t\t"PRODUCT_BUNDLE_IDENTIFIER" = "$(APP_ID:default=org.example.app)";
    \t\t\t\tOTHER = "$(inherited) target";
    \t\t\t\t"SDK_ONLY[sdk=iphoneos*]" = device;
    \t\t\t\t"SIM_ONLY[sdk=iphonesimulator*]" = simulator;
    \t\t\t}; name = Release; };
    \t\tL1 = {isa = XCConfigurationList; buildConfigurations = (C1); };
    \t\tL2 = {isa = XCConfigurationList; buildConfigurations = (C2); };
    \t};
    \trootObject = PR;
    }
    """

  @Test func readsTargetsConfigurationsAndPathsThroughTheGroupTree() throws {
    let project = try XcodeProject.parse(
      text: XcodeTests.project, file: "project.pbxproj",
      projectPath: "src/frontend/ios/App/App.xcodeproj/project.pbxproj")
    #expect(project.sourceRoot == "src/frontend/ios/App")
    let target = try #require(project.applicationTarget)
    #expect(target.name == "App")
    #expect(target.compiledSources == ["src/frontend/ios/App/App/SceneDelegate.swift"])
    #expect(target.shellScriptPhases.map(\.name) == ["Strip dev ATS exception"])
    #expect(
      project.projectConfigurations.first?.baseConfigurationPath
        == "src/frontend/ios/Config/Base.xcconfig")
    #expect(target.configurations.first?.settings.first?.key == "PRODUCT_BUNDLE_IDENTIFIER")
  }

  @Test func aMalformedProjectNamesTheLineAndColumn() {
    #expect {
      try OpenStepPlistReader.parse(text: "{\n  a = (b, c;\n}", file: "p.pbxproj")
    } throws: { error in
      guard let diagnostic = error as? Diagnostic else { return false }
      // The line quoted under the message is the one named, for the caret to point into.
      return diagnostic.location?.line == 2 && diagnostic.message.contains("',' or ')'")
        && diagnostic.sourceLine == "  a = (b, c;"
    }
  }

  @Test func nestingIsBoundedInsteadOfExhaustingTheStack() {
    let deep = String(repeating: "(", count: 5000) + String(repeating: ")", count: 5000)
    #expect {
      try OpenStepPlistReader.parse(text: deep, file: "deep.pbxproj")
    } throws: { error in
      (error as? Diagnostic)?.message.contains("nesting deeper") == true
    }
  }

  @Test func xcconfigFilesReadSettingsConditionsIncludesAndComments() throws {
    let config = try XcconfigFile(
      text: """
        // generated — do not edit
        #include? "local.xcconfig"
        AUTH_CALLBACK_SCHEME = stmessages.staging // trailing comment
        OTHER_FLAG[sdk=iphoneos*] = yes\r
        """, file: "generated.xcconfig")
    var keys: [String] = []
    var includes: [String] = []
    for item in config.items {
      switch item {
      case .entry(let entry): keys.append("\(entry.key)=\(entry.value)@\(entry.line)")
      case .include(let include): includes.append("\(include.path)\(include.optional ? "?" : "")")
      }
    }
    #expect(keys == ["AUTH_CALLBACK_SCHEME=stmessages.staging@3", "OTHER_FLAG=yes@4"])
    #expect(includes == ["local.xcconfig?"])
  }

  @Test func xcconfigErrorsNameTheLine() {
    #expect {
      try XcconfigFile(text: "A = 1\nnot a setting\n", file: "x.xcconfig")
    } throws: { error in
      (error as? InputError)?.diagnostics.first?.location?.line == 2
    }
  }

  private func settings(_ layers: [[(String, String)]]) -> XcodeBuildSettings {
    XcodeBuildSettings(
      layers: layers.enumerated().map { index, layer in
        layer.map {
          XcodeBuildSettings.Definition(
            key: $0.0, value: $0.1,
            location: FileLocation(file: "layer\(index)", line: 1, column: 1),
            layer: "layer\(index)")
        }
      })
  }

  /// One expansion rule per row: (text, value).
  static let expansions: [(String, String)] = [
    ("$(SCHEME)", "stmessages"),
    ("${SCHEME}", "stmessages"),
    ("$(UNSET)", ""),
    ("$(UNSET:default=fallback)", "fallback"),
    ("$(EMPTY:default=fallback)", "fallback"),
    ("$(SCHEME:default=ignored)", "stmessages"),
    ("$(NAME:lower)", "my app"),
    ("$(NAME:upper)", "MY APP"),
    ("$(NAME:rfc1034identifier)", "My-App"),
    ("$(NAME:c99extidentifier)", "My_App"),
    ("$(PATH_VALUE:file)", "Info.plist"),
    ("$(PATH_VALUE:dir)", "App/App"),
    ("$(PATH_VALUE:base)", "Info"),
    ("$(PATH_VALUE:suffix)", ".plist"),
    ("$(NESTED_$(KIND))", "deep"),
    ("$(UNSET:default=$(SCHEME))", "stmessages"),
    ("$(PRODUCT_BUNDLE_IDENTIFIER).auth", "org.example.app.auth"),
    ("$ literal", "$ literal"),
    // Xcode's deprecated forms: `$NAME` refers, `$$` escapes, a trailing `$` stays.
    ("$SCHEME.auth", "stmessages.auth"),
    ("$(NAME:lower)-$SCHEME", "my app-stmessages"),
    ("$$(SCHEME)", "$(SCHEME)"),
    ("5$", "5$"),
  ]

  @Test(arguments: expansions)
  func buildSettingsExpandAsXcodeDoes(text: String, value: String) {
    let scope = settings([
      [
        ("SCHEME", "stmessages"), ("EMPTY", ""), ("NAME", "My App"),
        ("PATH_VALUE", "App/App/Info.plist"), ("KIND", "X"), ("NESTED_X", "deep"),
      ],
      [("PRODUCT_BUNDLE_IDENTIFIER", "$(APP_ID:default=org.example.app)")],
    ])
    #expect(scope.expand(text).value == value)
  }

  @Test func inheritedReadsTheLayerBelowAndLaterLayersWin() {
    let scope = settings([
      [("FLAGS", "base"), ("ID", "one")],
      [("FLAGS", "$(inherited) project"), ("ID", "two")],
      [("FLAGS", "$(inherited) target")],
    ])
    #expect(scope.value("FLAGS")?.value == "base project target")
    #expect(scope.value("ID")?.value == "two")
  }

  @Test func anExpansionSaysWhichVariableDecidedIt() {
    let scope = settings([[("SCHEME", "stmessages")]])
    let unset = scope.expand("$(AUTH_CALLBACK_SCHEME:default=stmessages)")
    #expect(unset.derivation.contains { $0.contains("AUTH_CALLBACK_SCHEME is unset") })
    let set = scope.expand("$(SCHEME)")
    #expect(set.location?.file == "layer0")
    #expect(set.derivation.contains { $0.hasPrefix("SCHEME = stmessages") })
  }

  @Test func conditionalSettingsApplyToDeviceBuildsOfTheirConfiguration() {
    #expect(XcodeBuildSettings.conditionsHold(["sdk": "iphoneos*"], configuration: "Release"))
    #expect(
      !XcodeBuildSettings.conditionsHold(["sdk": "iphonesimulator*"], configuration: "Release"))
    #expect(XcodeBuildSettings.conditionsHold(["config": "Release"], configuration: "Release"))
    #expect(!XcodeBuildSettings.conditionsHold(["config": "Debug"], configuration: "Release"))
  }

  /// One row per script shape: does the delete run in Release?
  static let stripScripts: [(String, Bool)] = [
    (
      "if [ \"${CONFIGURATION}\" != \"Debug\" ]; then\n  PlistBuddy -c \"Delete :NSAppTransportSecurity\" p\nfi",
      true
    ),
    (
      "if [ \"${CONFIGURATION}\" = \"Release\" ]; then\n  PlistBuddy -c \"Delete :NSAppTransportSecurity\" p\nfi",
      true
    ),
    (
      "if [ \"${CONFIGURATION}\" == \"Debug\" ]; then\n  PlistBuddy -c \"Delete :NSAppTransportSecurity\" p\nfi",
      false
    ),
    (
      "[ \"$CONFIGURATION\" = \"Debug\" ] && exit 0\nPlistBuddy -c \"Delete :NSAppTransportSecurity\" p",
      true
    ),
    (
      "[ \"$CONFIGURATION\" = \"Release\" ] && exit 0\nPlistBuddy -c \"Delete :NSAppTransportSecurity\" p",
      false
    ),
    (
      "if [ \"${CONFIGURATION}\" = \"Debug\" ]; then\n  echo keep\nelse\n  PlistBuddy -c \"Delete :NSAppTransportSecurity\" p\nfi",
      true
    ),
    ("# PlistBuddy -c \"Delete :NSAppTransportSecurity\" p\necho nothing", false),
  ]

  @Test(arguments: stripScripts)
  func theStripPhaseIsReadForWhetherItRunsInRelease(script: String, runs: Bool) {
    #expect(
      ShellScript.runs(
        "Delete\\s*:NSAppTransportSecurity", in: script,
        variables: ["CONFIGURATION": "Release"]) == runs)
  }

  @Test func swiftCodeCompiledOutOfTheConfigurationDoesNotCount() {
    let source = """
      class MainViewController: CAPBridgeViewController {
          override open func capacitorDidLoad() {
              #if DEBUG
              bridge?.registerPluginInstance(WebAuthSessionPlugin())
              #else
              // nothing
              #endif
          }
      }
      """
    let release = SourceText.compiledSwiftLines(source, conditions: [])
    let debug = SourceText.compiledSwiftLines(source, conditions: ["DEBUG"])
    #expect(!release.contains { $0.1.contains("registerPluginInstance") })
    #expect(debug.contains { $0.1.contains("registerPluginInstance") })
  }
}
