import Artifacts
import QualifyCore

/// Edits a control makes to a multi-instance shell's build (seed 004): what its static guards
/// must catch.
enum InstanceShellMutations {
  static let all: [MutationSpec] = [
    MutationSpec(
      "app.swift-file-not-compiled", [.value("file", .text, optional: true)],
      summary:
        "FILE (MainViewController.swift by default) drops out of the iOS target's Sources phase: on disk, never compiled.",
      breaks: "seed 004, task 20.1: every Swift file of the app is in the classic-format project"
    ) { configuration, arguments in
      guard configuration.platform == .ios, var shell = configuration.build.instanceShell else {
        return
      }
      let name = arguments["file"] ?? "MainViewController.swift"
      guard let dropped = shell.compiledSwiftFiles.first(where: { $0.hasSuffix("/" + name) })
      else { return }
      shell.compiledSwiftFiles.removeAll { $0 == dropped }
      shell.uncompiledSwiftFiles.append(
        Sourced(
          dropped,
          at: FileLocation(file: shell.projectFile ?? "project.pbxproj", line: 0, column: 1)))
      configuration.build.instanceShell = shell
    },
    MutationSpec(
      "app.deep-link-launch-mode", [.value("mode", .text)],
      summary: "The Android activity receiving the deep-link scheme is launched with MODE.",
      breaks: "seed 004, deep links: singleTask routes a warm link through onNewIntent"
    ) { configuration, arguments in
      guard configuration.platform == .android else { return }
      configuration.build.instanceShell?.deepLinkLaunchMode = Sourced(
        arguments["mode"] ?? "standard",
        at: FileLocation(
          file: configuration.build.files["android.manifest"] ?? "AndroidManifest.xml", line: 0,
          column: 1))
    },
    MutationSpec(
      "app.no-launcher-activity",
      summary: "No activity of the Android manifest carries the MAIN / LAUNCHER intent-filter.",
      breaks: "seed 004, task 20.1: the app opens on Android"
    ) { configuration, _ in
      guard configuration.platform == .android else { return }
      configuration.build.instanceShell?.launcherActivity = nil
    },
    MutationSpec(
      "app.allow-navigation", [.value("origin", .text)],
      summary: "The Capacitor config lists ORIGIN under server.allowNavigation.",
      breaks:
        "seed 004, navigation policy: the shell's policy, not Capacitor's, keeps instances in-app"
    ) { configuration, arguments in
      configuration.build.instanceShell?.allowNavigation.append(
        Sourced(
          arguments["origin"] ?? "*",
          at: FileLocation(file: configuration.build.capacitor.file, line: 0, column: 1)))
    },
    MutationSpec(
      "app.native-auth-code",
      summary:
        "The native view controller (iOS) or activity (Android) reads the WebView's cookie store itself.",
      breaks: "seed 004, task 20.1: no auth, role or plugin-permission logic in native code"
    ) { configuration, _ in
      let ios = configuration.platform == .ios
      configuration.build.instanceShell?.nativeAuthCode.append(
        Sourced(
          ios ? "WKHTTPCookieStore" : "CookieManager",
          at: FileLocation(
            file: ios
              ? "ios/App/App/MainViewController.swift"
              : "android/app/src/main/java/MainActivity.java",
            line: 0, column: 1)))
    },
  ]
}
