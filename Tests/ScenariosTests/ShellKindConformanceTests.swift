import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

@testable import Artifacts
@testable import Scenarios

/// Issue 27: a shell kind is a plugin. Every kind of the registry has each layer's part, and
/// nothing maps a kind twice.
@Suite struct ShellKindConformanceTests {
  static let catalogue: [Scenario] = {
    do { return try ScenarioCatalogue.load(directory: Fixtures.root + "/Scenarios") } catch {
      fatalError("\(error)")
    }
  }()

  /// The bundled sample apps by folder name.
  static let samples: [String] = {
    let apps = Fixtures.root + "/Scenarios/apps"
    return ((try? FileManager.default.contentsOfDirectory(atPath: apps)) ?? []).map {
      apps + "/" + $0
    }
  }()

  static let sampleKinds: [ShellKind] = {
    let apps = Fixtures.root + "/Scenarios/apps"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: apps)) ?? []
    return names.compactMap { try? AppRepository(directory: apps + "/" + $0).profile.shell }
  }()

  @Test func kindsAreNamedOnce() {
    let ids = ShellKind.all.map(\.id)
    #expect(Set(ids).count == ids.count)
  }

  @Test func eachRegistryMapsEveryKindOnce() {
    let worlds = ShellWorlds.all.map { $0.kind.id }
    let readers = ShellBuildReaders.all.map { $0.kind.id }
    #expect(worlds.sorted() == ShellKind.all.map(\.id).sorted())
    #expect(readers.sorted() == ShellKind.all.map(\.id).sorted())
  }

  @Test(arguments: ShellKind.all.map(\.id))
  func everyKindHasEveryPart(id: String) throws {
    let kind = try #require(ShellKind.named(id))
    #expect(!kind.checklist.isEmpty, "\(id): a checklist")
    #expect(
      Vocabulary.packs.contains { $0.shells.contains(kind) && $0.shells.count == 1 },
      "\(id): a pack of its own")
    let scenarios = Self.catalogue.filter { $0.shell == kind }
    #expect(!scenarios.isEmpty, "\(id): scenarios in the bundled catalogue")
    let items = Set(kind.checklist.map(\.number))
    for scenario in scenarios {
      #expect(
        Set(scenario.checklist.map { Int($0) }).isSubset(of: items),
        "\(scenario.id) names a checklist item \(id) does not have")
    }
    #expect(Self.sampleKinds.contains(kind), "\(id): a bundled sample app")
    let architecture = try String(
      contentsOfFile: Fixtures.root + "/docs/architecture.md", encoding: .utf8)
    #expect(architecture.contains("`\(id)`"), "\(id): described in docs/architecture.md")
    if kind.stack.parts.isEmpty {
      #expect(kind.stack.nothing != nil, "\(id): says why a stack file names nothing for it")
    }
  }

  /// A build's kind and its kind's settings are one value (`ShellParts`): every sample's
  /// builds are of the profile's kind, and only that kind's settings are there (seed 000's
  /// backend env and identity provider included).
  @Test func aBuildIsOfOneKindWithThatKindsSettingsOnly() throws {
    var seen: Set<String> = []
    for app in Self.samples {
      // The regression fixtures' folder is no app of its own.
      guard let repository = try? AppRepository(directory: app),
        let builds = try? repository.builds(for: .prod)
      else { continue }
      let kind = repository.profile.shell
      for build in builds.values {
        seen.insert(build.shell.id)
        #expect(build.shell == kind, "\(app): \(build.platform)")
        #expect(build.parts.kind == kind)
        let present = [
          ("multi-instance", build.instanceShell != nil), ("hybrid-webview", build.hybrid != nil),
          ("react-native-bridge", build.bridge != nil),
          ("session-contract", build.sessionForegroundReload != nil),
          ("single-origin", build.backend != nil && build.identityProvider != nil),
        ].filter(\.1).map(\.0)
        #expect(present == [kind.id], "\(app): \(present)")
        // No kind fills another kind's fields with placeholders: a Capacitor config only for
        // the Capacitor kinds, a native callback scheme only where a login leaves the app.
        let capacitorKinds: Set<ShellKind> = [.singleOrigin, .multiInstance]
        #expect((build.capacitor != nil) == capacitorKinds.contains(kind), "\(app)")
        #expect(build.capacitor.map { !$0.file.isEmpty } ?? true, "\(app)")
        let callbackKinds: Set<ShellKind> = [.singleOrigin, .multiInstance, .reactNativeBridge]
        #expect((build.callbackScheme != nil) == callbackKinds.contains(kind), "\(app)")
      }
    }
    #expect(seen == Set(ShellKind.all.map(\.id)))
  }
}
