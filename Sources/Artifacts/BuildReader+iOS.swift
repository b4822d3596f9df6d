import Foundation
import QualifyCore

extension BuildReader {
  /// The Xcode configuration a channel's build uses: Release for store channels (an archive
  /// always builds Release), Debug for dev builds.
  var xcodeConfiguration: String { channel.isRelease ? "Release" : "Debug" }

  mutating func readIOS(into build: inout AppBuild, environment: EnvLayers) {
    let paths = profile.paths
    // The project: build settings, build phases, compiled sources.
    var project: XcodeProject?
    if let path = paths["ios.project"] {
      do {
        if let (text, file) = try repository.text(path) {
          project = try XcodeProject.parse(text: text, file: file, projectPath: path)
        }
      } catch {
        collect(error)
      }
    }
    let settings = buildSettings(
      project: project, environment: environment, synced: build.capacitor)
    let conditions = Set(
      (settings.value("SWIFT_ACTIVE_COMPILATION_CONDITIONS")?.value ?? "")
        .split(separator: " ").map(String.init))

    // Info.plist, as the build expands it: URL schemes, bundle id, ATS, scene manifest.
    var sceneDelegateClass: String?
    var storyboard: String?
    if let path = paths["ios.infoPlist"] {
      do {
        if let (data, file) = try repository.data(path) {
          let plist = try PropertyListReader.parse(data: data, file: file)
          readInfoPlist(plist, file: file, path: path, settings: settings, into: &build)
          let scene = plist["UIApplicationSceneManifest"]?["UISceneConfigurations"]?[
            "UIWindowSceneSessionRoleApplication"]?.array?.first
          if let name = scene?["UISceneDelegateClassName"]?.string {
            sceneDelegateClass = settings.expand(name).value.split(separator: ".").last.map(
              String.init)
          }
          storyboard =
            (scene?["UISceneStoryboardFile"]?.string ?? plist["UIMainStoryboardFile"]?.string)
            .map { settings.expand($0).value }
        } else {
          diagnostics.append(
            .error(
              at: nil, "iOS Info.plist not found at \(path)",
              hint: "name it as \"ios.infoPlist\" under \"paths\" in qualify.json"))
        }
      } catch {
        collect(error)
      }
    }

    // Entitlements: aps-environment (a distribution export rewrites it to production).
    if let path = paths["ios.entitlements"] {
      do {
        if let (data, file) = try repository.data(path) {
          let plist = try PropertyListReader.parse(data: data, file: file)
          if let raw = plist["aps-environment"]?.string {
            let env = settings.expand(raw).value
            let loc = location(file, plist.line(of: "aps-environment"))
            build.push.apsEnvironment = Sourced(
              channel.isRelease ? "production" : env, at: loc,
              derivation: channel.isRelease && env != "production"
                ? ["the distribution export rewrites \"\(env)\" to \"production\""] : [])
          }
        }
      } catch {
        collect(error)
      }
    }

    readAuthPlugin(into: &build, conditions: conditions)
    readRegistration(
      into: &build, project: project, conditions: conditions,
      sceneDelegateClass: sceneDelegateClass, storyboard: storyboard)
    readStripPhase(into: &build, project: project)
    readStrings(.ios, into: &build)
  }

  /// The settings of the app target in the channel's configuration.
  mutating func buildSettings(
    project: XcodeProject?, environment: EnvLayers, synced: CapacitorConfig? = nil
  ) -> XcodeBuildSettings {
    // The build environment is visible to Xcode's expansion as its lowest layer.
    var envLayer: [XcodeBuildSettings.Definition] = []
    for file in environment.files {
      for entry in file.entries {
        envLayer.append(
          .init(
            key: entry.key, value: entry.value,
            location: FileLocation(file: file.path, line: entry.line, column: 1),
            layer: "build environment"))
      }
    }
    guard let project, let target = project.applicationTarget else {
      return XcodeBuildSettings(layers: [
        envLayer,
        XcodeBuildSettings.defaults(
          target: "App", configuration: xcodeConfiguration,
          sourceRoot: XcodeProject.join(profile.capacitorRoot, "ios/App")),
      ])
    }
    let name = xcodeConfiguration
    let projectConfiguration =
      project.projectConfigurations.first { $0.name == name } ?? project.projectConfigurations.first
    let targetConfiguration =
      target.configurations.first { $0.name == name } ?? target.configurations.first
    var layers: [[XcodeBuildSettings.Definition]] = [
      envLayer,
      XcodeBuildSettings.defaults(
        target: target.name, configuration: targetConfiguration?.name ?? name,
        sourceRoot: project.sourceRoot),
    ]
    for configuration in [projectConfiguration, targetConfiguration] {
      guard let configuration else { continue }
      layers.append(
        xcconfig(
          configuration.baseConfigurationPath, environment: envLayer, synced: synced, depth: 0))
      layers.append(
        configuration.settings.compactMap { entry in
          let (key, conditions) = XcodeBuildSettings.splitConditions(entry.key)
          guard
            XcodeBuildSettings.conditionsHold(conditions, configuration: configuration.name)
          else { return nil }
          return .init(
            key: key, value: entry.value,
            location: FileLocation(file: project.file, line: entry.line, column: 1),
            layer: "\(project.file) (\(configuration.name))")
        })
    }
    return XcodeBuildSettings(layers: layers)
  }

  /// The definitions of a base `.xcconfig`, with its includes; a file the build generates
  /// from its environment (the profile's `ios.generatedXcconfig`) is generated here the same
  /// way from the channel's env.
  private mutating func xcconfig(
    _ path: String?, environment: [XcodeBuildSettings.Definition], synced: CapacitorConfig?,
    depth: Int
  ) -> [XcodeBuildSettings.Definition] {
    guard let path, depth < 8 else { return [] }
    if let generated = profile.generatedXcconfig, generated.path == path {
      let scope = XcodeBuildSettings(layers: [environment])
      let copied: [XcodeBuildSettings.Definition] = generated.syncedSettings.compactMap {
        setting in
        guard let config = synced, let json = config.synced,
          let value = json.at(setting.path)
        else { return nil }
        let text = value.string ?? value.number.map { String(format: "%g", $0) } ?? ""
        return .init(
          key: setting.key, value: text,
          location: FileLocation(
            file: config.file, line: json.line(at: setting.path) ?? 1, column: 1),
          layer: "\(path) (generated from the synced config's \(setting.path))",
          derivation: [
            "\(path) is generated with the synced capacitor.config.json's \(setting.path) (\(config.file))"
          ])
      }
      return copied
        + generated.settings.map { setting in
          let expansion = scope.expand(setting.expression)
          return .init(
            key: setting.key, value: expansion.value,
            location: expansion.location ?? generated.location,
            layer: "\(path) (generated from the build environment: \(setting.expression))",
            derivation: ["\(path) is generated from the build environment as \(setting.expression)"]
              + expansion.derivation)
        }
    }
    do {
      guard let (text, file) = try repository.text(path) else { return [] }
      let config = try XcconfigFile(text: text, file: file)
      var out: [XcodeBuildSettings.Definition] = []
      for item in config.items {
        switch item {
        case .entry(let entry):
          guard
            XcodeBuildSettings.conditionsHold(entry.conditions, configuration: xcodeConfiguration)
          else { continue }
          out.append(
            .init(
              key: entry.key, value: entry.value,
              location: FileLocation(file: file, line: entry.line, column: 1), layer: file))
        case .include(let include):
          let included = XcodeProject.join(
            (path as NSString).deletingLastPathComponent, include.path)
          if repository.locate(included) == nil && !include.optional
            && profile.generatedXcconfig?.path != included
          {
            diagnostics.append(
              .error(
                at: FileLocation(file: file, line: include.line, column: 1),
                "#include \"\(include.path)\": no such file",
                hint: "use #include? for a file that may be absent"))
            continue
          }
          out += xcconfig(included, environment: environment, synced: synced, depth: depth + 1)
        }
      }
      return out
    } catch {
      collect(error)
      return []
    }
  }

  /// `file` is the plist as shown, `path` where it is in the app (its folder holds the
  /// launch storyboard).
  mutating func readInfoPlist(
    _ plist: PlistValue, file: String, path: String, settings: XcodeBuildSettings,
    into build: inout AppBuild
  ) {
    for type in plist["CFBundleURLTypes"]?.array ?? [] {
      let line = type.line(of: "CFBundleURLSchemes")
      for scheme in type["CFBundleURLSchemes"]?.array ?? [] {
        guard let raw = scheme.string else { continue }
        let expansion = settings.expand(raw)
        build.registeredSchemes.append(
          Sourced(
            expansion.value, at: location(file, line),
            derivation: raw == expansion.value
              ? [] : ["\(raw) → \"\(expansion.value)\""] + expansion.derivation))
      }
    }
    if let raw = plist["CFBundleIdentifier"]?.string {
      let expansion = settings.expand(raw)
      if !expansion.value.isEmpty {
        build.appId = Sourced(
          expansion.value,
          at: expansion.location ?? location(file, plist.line(of: "CFBundleIdentifier")),
          derivation: raw == expansion.value ? [] : expansion.derivation)
      }
    }
    let bundle = readBundleInfo(plist, file: file, path: path, settings: settings)
    build.bundleInfo = bundle
    if bundle.values["CFBundleShortVersionString"] != nil || bundle.values["CFBundleVersion"] != nil
    {
      build.storeVersion = StoreVersion(
        marketing: BuildReader.storeValue(bundle.values["CFBundleShortVersionString"]?.expanded),
        build: BuildReader.storeValue(bundle.values["CFBundleVersion"]?.expanded))
    }
    if let ats = readATS(plist, file: file) {
      build.transport.atsInSource = ats
      build.transport.atsShipped = ats
    }
  }

  /// The bundle keys of the built Info.plist, expanded as Xcode does, with the keys Xcode 13
  /// generates from build settings, and whether the launch screen exists.
  private func readBundleInfo(
    _ plist: PlistValue, file: String, path: String, settings: XcodeBuildSettings
  ) -> BundleInfo {
    var bundle = BundleInfo(file: file)
    for key in BundleInfo.requiredKeys + BundleInfo.nameKeys {
      guard let raw = plist[key]?.string else { continue }
      let expansion = settings.expand(raw)
      bundle.values[key] = BundleInfo.Entry(
        raw: raw,
        expanded: Sourced(
          expansion.value, at: location(file, plist.line(of: key)),
          derivation: raw == expansion.value ? [] : expansion.derivation))
    }
    // Xcode 13's generated Info.plist: the keys the file leaves out come from build settings
    // (INFOPLIST_KEY_<key>, and the identity and versions Xcode always writes).
    if settings.value("GENERATE_INFOPLIST_FILE")?.value == "YES" {
      let generated = [
        "CFBundleIdentifier": "$(PRODUCT_BUNDLE_IDENTIFIER)",
        "CFBundleExecutable": "$(EXECUTABLE_NAME)",
        "CFBundlePackageType": "$(PRODUCT_BUNDLE_PACKAGE_TYPE)",
        "CFBundleShortVersionString": "$(MARKETING_VERSION)",
        "CFBundleVersion": "$(CURRENT_PROJECT_VERSION)", "CFBundleName": "$(PRODUCT_NAME)",
      ]
      for key in BundleInfo.requiredKeys + BundleInfo.nameKeys where bundle.values[key] == nil {
        let raw =
          settings.value("INFOPLIST_KEY_\(key)") != nil
          ? "$(INFOPLIST_KEY_\(key))" : generated[key]
        guard let raw else { continue }
        let expansion = settings.expand(raw)
        bundle.values[key] = BundleInfo.Entry(
          raw: raw,
          expanded: Sourced(
            expansion.value, at: expansion.location, derivation: expansion.derivation))
      }
      if settings.value("INFOPLIST_KEY_UILaunchScreen_Generation")?.value == "YES" {
        bundle.hasLaunchScreenDictionary = true
      }
    }
    // The SwiftUI template's `UILaunchScreen` dictionary is a launch screen too.
    if plist["UILaunchScreen"] != nil { bundle.hasLaunchScreenDictionary = true }
    if let name = bundle.values["UILaunchStoryboardName"]?.expanded.value, !name.isEmpty {
      // Anywhere in the iOS project's folder, as a storyboard or a xib.
      let project = profile.paths["ios.project"].map {
        (($0 as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
      }
      let folder = project ?? (path as NSString).deletingLastPathComponent
      bundle.launchStoryboardFound = ["storyboard", "xib"].contains { ext in
        repository.files(under: folder, suffix: "\(name).\(ext)").contains {
          ($0 as NSString).lastPathComponent == "\(name).\(ext)"
        }
      }
    }
    return bundle
  }

  /// `NSAppTransportSecurity` as the source holds it.
  private func readATS(_ plist: PlistValue, file: String) -> ATSSettings? {
    if let ats = plist["NSAppTransportSecurity"] {
      var atsSettings = ATSSettings(
        location: location(file, plist.line(of: "NSAppTransportSecurity")))
      if let v = ats["NSAllowsArbitraryLoads"]?.bool {
        atsSettings.allowsArbitraryLoads = Sourced(
          v, at: location(file, ats.line(of: "NSAllowsArbitraryLoads")))
      }
      if let v = ats["NSAllowsLocalNetworking"]?.bool {
        atsSettings.allowsLocalNetworking = Sourced(
          v, at: location(file, ats.line(of: "NSAllowsLocalNetworking")))
      }
      for domain in ats["NSExceptionDomains"]?.entries ?? []
      where domain.value["NSExceptionAllowsInsecureHTTPLoads"]?.bool == true {
        atsSettings.insecureExceptionDomains.append(
          Sourced(domain.key, at: location(file, domain.line)))
      }
      return atsSettings
    }
    return nil
  }

}

extension BuildReader {
  /// A bundle value for the release record: one left with an unexpanded `$(…)` is not a
  /// version, and says which setting it waits for.
  static func storeValue(_ value: Sourced<String>?) -> Sourced<String?> {
    guard let value else { return Sourced(nil, at: nil, derivation: ["not in Info.plist"]) }
    guard !value.value.contains("$("), !value.value.isEmpty else {
      return Sourced(
        nil, at: value.location,
        derivation: value.derivation + [
          value.value.isEmpty
            ? "it expands to nothing: its build setting is not set"
            : "\(value.value) is not set in the build settings"
        ])
    }
    return Sourced(value.value, at: value.location, derivation: value.derivation)
  }
}
