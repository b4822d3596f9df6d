import Foundation
import QualifyCore

/// The iOS app's own code and build phases: the auth-session plugin, its registration on the
/// bridge the root view controller shows, and the phase that strips ATS from a release.
extension BuildReader {
  /// The auth-session plugin: `ASWebAuthenticationSession` and its ephemeral flag.
  mutating func readAuthPlugin(into build: inout AppBuild, conditions: Set<String>) {
    guard let path = profile.paths["ios.authPlugin"] else { return }
    do {
      guard let (text, file) = try repository.text(path) else {
        // Without the plugin the app falls back to the default Browser plugin.
        build.authSession.usesWebAuthenticationSession = false
        return
      }
      build.authSession.usesWebAuthenticationSession = true
      for (index, line) in SourceText.compiledSwiftLines(text, conditions: conditions) {
        if let range = line.range(
          of: #"prefersEphemeralWebBrowserSession\s*=\s*(true|false)"#, options: .regularExpression)
        {
          let value = line[range].hasSuffix("true")
          build.authSession.prefersEphemeral = Sourced(value, at: location(file, index + 1))
        }
      }
    } catch {
      collect(error)
    }
  }

  /// The plugin's class, as its source declares it.
  private func pluginClass() -> String {
    guard let path = profile.paths["ios.authPlugin"], let (text, _) = try? repository.text(path)
    else { return "WebAuthSessionPlugin" }
    for (_, line) in SourceText.codeLines(text) {
      if let name = SourceText.capture(#"class\s+(\w+)\s*:\s*CAPPlugin"#, in: line) {
        return name
      }
    }
    return "WebAuthSessionPlugin"
  }

  /// Whether the plugin is registered on the bridge the app shows: the registration line is
  /// compiled into this configuration (`#if DEBUG` is not), and the root view controller
  /// the app really creates — through its `SceneDelegate` under the UIScene lifecycle, or its
  /// storyboard — is the class that registers it (or a subclass).
  mutating func readRegistration(
    into build: inout AppBuild, project: XcodeProject?, conditions: Set<String>,
    sceneDelegateClass: String?, storyboard: String?
  ) {
    let plugin = pluginClass()
    guard let path = profile.paths["ios.viewController"] else { return }
    let found: (text: String, display: String)?
    do {
      found = try repository.text(path)
    } catch {
      collect(error)
      return
    }
    guard let (text, file) = found else {
      if build.authSession.usesWebAuthenticationSession {
        build.authSession.pluginRegistered = Sourced(false, at: nil)
        build.authSession.registrationProblem =
          "no view controller registers \(plugin) (\(path) does not exist)"
        build.authSession.usesWebAuthenticationSession = false
      }
      return
    }
    let pattern = #"registerPluginInstance\(\s*"# + plugin + #"\(\s*\)\s*\)"#
    var registered: Sourced<Bool> = Sourced(false, at: location(file, nil))
    var registeringClass: String?
    var registeredInSource = false
    var currentClass: String?
    // The compiled lines leave the directives out: matched to the source by line number.
    let compiled = Dictionary(
      SourceText.compiledSwiftLines(text, conditions: conditions), uniquingKeysWith: { a, _ in a })
    let all = SourceText.codeLines(text)
    for (index, raw) in all {
      let line = compiled[index] ?? ""
      if let name = SourceText.capture(#"class\s+(\w+)\s*:"#, in: raw) { currentClass = name }
      if SourceText.matches(pattern, raw) { registeredInSource = true }
      if SourceText.matches(pattern, line) {
        registered = Sourced(true, at: location(file, index + 1))
        registeringClass = currentClass
      }
    }
    if !registered.value && registeredInSource {
      let line = all.first { SourceText.matches(pattern, $0.1) }.map { $0.0 + 1 }
      registered = Sourced(false, at: location(file, line))
      build.authSession.registrationProblem =
        "registerPluginInstance(\(plugin)()) is compiled out of the \(xcodeConfiguration) configuration (inside #if DEBUG, or another condition that is false there)"
    }
    // The root view controller the app shows.
    if registered.value, let registeringClass {
      if let problem = rootControllerProblem(
        registeringClass: registeringClass, project: project,
        sceneDelegateClass: sceneDelegateClass,
        storyboard: storyboard, plugin: plugin)
      {
        registered = Sourced(false, at: problem.location ?? registered.location)
        build.authSession.registrationProblem = problem.message
      }
    }
    build.authSession.pluginRegistered = registered
    if !registered.value { build.authSession.usesWebAuthenticationSession = false }
  }

  private struct Problem {
    var message: String
    var location: FileLocation?
  }

  private mutating func rootControllerProblem(
    registeringClass: String, project: XcodeProject?, sceneDelegateClass: String?,
    storyboard: String?, plugin: String
  ) -> Problem? {
    let sources = swiftSources(project: project)
    // Subclasses of the registering class register too.
    var registering: Set<String> = [registeringClass]
    for (_, text) in sources {
      for (_, line) in SourceText.codeLines(text) {
        if let sub = SourceText.capture(#"class\s+(\w+)\s*:\s*(\w+)"#, in: line),
          let parent = SourceText.capture(#"class\s+\w+\s*:\s*(\w+)"#, in: line),
          registering.contains(parent)
        {
          registering.insert(sub)
        }
      }
    }
    if let sceneDelegateClass {
      guard
        let (file, text) = sources.first(where: { _, text in
          SourceText.codeLines(text).contains {
            SourceText.matches(#"class\s+"# + sceneDelegateClass + #"\b"#, $0.1)
          }
        })
      else {
        return Problem(
          message:
            "Info.plist names the scene delegate \(sceneDelegateClass), but no Swift file the App target compiles declares it: the scene never gets a window",
          location: nil)
      }
      for (index, line) in SourceText.codeLines(text) {
        guard let root = SourceText.capture(#"rootViewController\s*=\s*(\w+)\s*\("#, in: line)
        else { continue }
        if registering.contains(root) { return nil }
        return Problem(
          message:
            "\(sceneDelegateClass) makes \(root) the root view controller, not \(registeringClass): the app-local plugin \(plugin) is never registered on the bridge the app shows",
          location: FileLocation(file: file, line: index + 1, column: 1))
      }
    }
    // No programmatic root: the storyboard's initial view controller.
    guard let storyboard, let root = storyboardRoot(storyboard) else { return nil }
    if registering.contains(root.className) { return nil }
    return Problem(
      message:
        "the \(storyboard) storyboard's initial view controller is \(root.className), not \(registeringClass): the app-local plugin \(plugin) is never registered",
      location: root.location)
  }

  /// The Swift files the App target compiles (or the app folder's, without a project).
  private func swiftSources(project: XcodeProject?) -> [(String, String)] {
    var paths = project?.applicationTarget?.compiledSources.filter { $0.hasSuffix(".swift") } ?? []
    if paths.isEmpty {
      paths = ["ios.viewController", "ios.sceneDelegate", "ios.appDelegate", "ios.authPlugin"]
        .compactMap { profile.paths[$0] }
    }
    return paths.compactMap { path in
      (try? repository.text(path)).flatMap { $0 }.map { ($0.display, $0.text) }
    }
  }

  private func storyboardRoot(_ name: String) -> (className: String, location: FileLocation)? {
    var candidates: [String] = []
    if let path = profile.paths["ios.storyboard"] {
      candidates.append(
        XcodeProject.join((path as NSString).deletingLastPathComponent, "\(name).storyboard"))
    }
    for path in candidates {
      guard let (text, file) = (try? repository.text(path)).flatMap({ $0 }),
        let root = try? XMLReader.parse(text: text, file: file),
        let initial = root.attributes["initialViewController"]
      else { continue }
      for node in root.descendants("viewController") where node.attributes["id"] == initial {
        return (
          node.attributes["customClass"] ?? "UIViewController",
          FileLocation(file: file, line: node.line, column: 1)
        )
      }
    }
    return nil
  }

  /// The "Strip dev ATS exception" build phase, read for whether it deletes
  /// `NSAppTransportSecurity` from the product in the channel's configuration.
  mutating func readStripPhase(into build: inout AppBuild, project: XcodeProject?) {
    guard let project, let target = project.applicationTarget else { return }
    let deletes = #"(Delete\s*:NSAppTransportSecurity|-remove\s+NSAppTransportSecurity)"#
    let phases = target.shellScriptPhases.filter { SourceText.matches(deletes, $0.script) }
    guard let phase = phases.first else {
      build.guards.iosStripATSPhase = Sourced(false, at: location(project.file, target.line))
      build.guards.iosStripATSProblem =
        "no build phase of the \(target.name) target deletes NSAppTransportSecurity from the built Info.plist"
      return
    }
    // Archives build Release: what matters is whether the phase strips there. Debug (dev
    // builds) keeps the exception by design.
    let runs = phases.contains {
      ShellScript.runs(
        deletes, in: $0.script, variables: ["CONFIGURATION": "Release", "ACTION": "install"])
    }
    build.guards.iosStripATSPhase = Sourced(runs, at: location(project.file, phase.line))
    if !runs {
      build.guards.iosStripATSProblem =
        "the \"\(phase.name)\" build phase does not delete NSAppTransportSecurity in the Release configuration (its condition excludes Release)"
    } else if channel.isRelease {
      build.transport.atsShipped = nil
    }
  }
}
