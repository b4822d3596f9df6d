import Foundation
import QualifyCore

extension BuildReader {
  /// The manifest's transport settings as the build ships them: `usesCleartextTraffic` and
  /// `debuggable` as aapt2 compiles them (booleans in any case, `@bool/` references resolved
  /// across the source sets, the build type's manifest over `main`'s), and the network
  /// security config the manifest names, read as Android applies it.
  mutating func readTransport(
    _ application: XMLNode, file: String, manifestPath: String,
    substitute: (String) -> (value: String, derivation: [String]), into build: inout AppBuild
  ) {
    // src/main/AndroidManifest.xml → src/main/res; the build type's own src/<type>/ wins.
    let main = (manifestPath as NSString).deletingLastPathComponent
    let typeFolder = XcodeProject.join(
      (main as NSString).deletingLastPathComponent, gradleBuildType)
    // Each attribute with where it is written: the build type's manifest merges over main's.
    var attributes: [String: (value: String, at: FileLocation)] = [:]
    for (key, value) in application.attributes {
      attributes[key] = (value, location(file, application.line))
    }
    do {
      if let (text, display) = try repository.text(
        XcodeProject.join(typeFolder, "AndroidManifest.xml")),
        let overlay = try XMLReader.parse(text: text, file: display).children("application").first
      {
        for (key, value) in overlay.attributes where key.hasPrefix("android:") {
          attributes[key] = (value, location(display, overlay.line))
        }
      }
    } catch {
      collect(error)
    }
    let resources: AndroidResources
    do {
      resources = try AndroidResources(
        repository: repository,
        folders: [XcodeProject.join(typeFolder, "res"), XcodeProject.join(main, "res")])
    } catch {
      collect(error)
      return
    }
    func boolean(_ key: String) -> Sourced<Bool>? {
      guard let (raw, at) = attributes[key] else { return nil }
      let (written, placeholders) = substitute(raw)
      switch resources.boolean(written, at: at) {
      case .value(let value, _, let derivation):
        // A spelling other than the plain literal is shown as written, then resolved.
        let spelled = ["true", "false"].contains(raw) ? [] : ["\(key)=\"\(raw)\""]
        return Sourced(value, at: at, derivation: spelled + placeholders + derivation)
      case .invalid(let why):
        diagnostics.append(.error(at: at, "\(key)=\"\(written)\": \(why)"))
        return nil
      }
    }
    build.transport.usesCleartextTraffic = boolean("android:usesCleartextTraffic")
    if channel.isRelease, let manifest = boolean("android:debuggable"), manifest.value {
      build.transport.releaseDebuggable = Sourced(
        "android:debuggable=\"true\" in the manifest", at: manifest.location,
        derivation: manifest.derivation)
    }
    build.transport.debuggable = !channel.isRelease || build.transport.releaseDebuggable != nil
    guard let (raw, at) = attributes["android:networkSecurityConfig"] else { return }
    let reference = substitute(raw).value
    guard let path = resources.xmlFile(reference, in: repository) else {
      let folders = resources.folders.map { $0 + "/xml" }.joined(separator: " or ")
      diagnostics.append(
        .error(
          at: at,
          "android:networkSecurityConfig=\"\(reference)\" names no file in \(folders): aapt2 refuses the build"
        ))
      return
    }
    do {
      if let (text, display) = try repository.text(path) {
        build.transport.networkSecurityConfig = try NetworkSecurityConfig.read(
          try XMLReader.parse(text: text, file: display), file: display, resources: resources)
      }
    } catch {
      collect(error)
    }
  }
}
