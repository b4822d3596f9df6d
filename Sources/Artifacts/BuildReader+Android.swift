import Foundation
import QualifyCore

extension BuildReader {
  /// The Gradle build type a channel's build uses.
  var gradleBuildType: String { channel.isRelease ? "release" : "debug" }

  mutating func readAndroid(into build: inout AppBuild, environment: EnvLayers) {
    let paths = profile.paths
    // build.gradle: the application id and the manifest placeholders, as Gradle resolves
    // them in the build environment.
    var placeholders: [String: ResolvedValue] = [:]
    if let path = paths["android.buildGradle"] {
      do {
        if let (text, file) = try repository.text(path) {
          let ext =
            try paths["android.variablesGradle"].flatMap { try repository.text($0) }
            .map { GradleScript.extValues(text: $0.text) } ?? [:]
          let properties =
            try paths["android.gradleProperties"].flatMap {
              try repository.text($0)
            }.map { GradleProperties.parse($0.text) } ?? [:]
          let script = GradleScript.read(
            text: text, file: file, buildType: gradleBuildType, environment: environment,
            ext: ext, properties: properties,
            syncedConfig: build.capacitor.flatMap { config in
              config.synced.map { (json: $0, file: config.file) }
            })
          build.transport.targetSdk = ext["targetSdkVersion"].flatMap {
            Int($0.trimmingCharacters(in: .whitespaces))
          }
          placeholders = script.placeholders
          if let id = script.applicationId {
            if let value = id.value {
              build.appId = Sourced(value, at: id.location, derivation: id.derivation)
            } else {
              build.appId.derivation.append(
                "qualify cannot evaluate applicationId in \(file) (\(id.unresolved ?? "?")): taken from the profile or MOBILE_APP_ID"
              )
            }
          }
          readReleaseGuard(script.releaseGuard, file: file, into: &build)
          if let debuggable = script.debuggable, channel.isRelease {
            if let value = debuggable.value {
              if value == "true" {
                build.transport.releaseDebuggable = Sourced(
                  "debuggable true in the \(gradleBuildType) build type", at: debuggable.location,
                  derivation: debuggable.derivation)
              }
            } else {
              build.transport.unreadDebuggable = Sourced(
                debuggable.unresolved ?? "?", at: debuggable.location,
                derivation: debuggable.derivation)
            }
          }
          if script.versionName != nil || script.versionCode != nil {
            build.storeVersion = StoreVersion(
              marketing: BuildReader.storeValue(script.versionName, name: "versionName", file),
              build: BuildReader.storeValue(script.versionCode, name: "versionCode", file))
          }
        }
      } catch {
        collect(error)
      }
    }
    placeholders["applicationId"] = ResolvedValue(
      value: build.appId.value, derivation: build.appId.derivation,
      location: build.appId.location, unresolved: nil)
    readManifest(into: &build, placeholders: placeholders)
    if let services = readGoogleServicesJSON() {
      build.push.firebaseProjectId = services.project
      build.push.firebasePackages += services.packages
    }
    readStrings(.android, into: &build)
  }

  /// `google-services.json`: the Firebase project and the packages it has clients for; nil
  /// when the app has none (or it does not parse, which is collected).
  mutating func readGoogleServicesJSON() -> (
    project: Sourced<String>?, packages: [Sourced<String>]
  )? {
    guard let path = profile.paths["android.googleServices"] else { return nil }
    do {
      guard let (text, file) = try repository.text(path) else { return nil }
      let json = try JSONDocument(text: text, file: file).value
      let project = json.at("project_info.project_id")?.string.map {
        Sourced($0, at: location(file, json["project_info"]?.line(of: "project_id")))
      }
      var packages: [Sourced<String>] = []
      for client in json["client"]?.array ?? [] {
        if let info = client.at("client_info.android_client_info"),
          let name = info["package_name"]?.string
        {
          packages.append(Sourced(name, at: location(file, info.line(of: "package_name"))))
        }
      }
      return (project, packages)
    } catch {
      collect(error)
      return nil
    }
  }

  /// A Gradle version declaration for the release record, with why it was not evaluated.
  static func storeValue(_ value: ResolvedValue?, name: String, _ file: String) -> Sourced<String?>
  {
    guard let value else {
      return Sourced(nil, at: nil, derivation: ["\(file) declares no \(name)"])
    }
    return Sourced(
      value.value, at: value.location,
      derivation: value.derivation
        + (value.value == nil
          ? ["qualify cannot evaluate \(name) (\(value.unresolved ?? "?"))"] : []))
  }

  private mutating func readReleaseGuard(
    _ hook: GradleReleaseGuard?, file: String, into build: inout AppBuild
  ) {
    guard let hook else {
      build.guards.androidReleaseGuard = Sourced(false, at: location(file, nil))
      build.guards.androidReleaseGuardProblem = "no preReleaseBuild hook"
      return
    }
    let at = location(file, hook.line)
    if hook.excludesReleaseTask {
      build.guards.androidReleaseGuard = Sourced(false, at: at)
      build.guards.androidReleaseGuardProblem =
        "the hook's task filter leaves preReleaseBuild out: it runs before every other task, never before a release build"
    } else if !hook.readsSyncedConfig {
      build.guards.androidReleaseGuard = Sourced(false, at: at)
      build.guards.androidReleaseGuardProblem =
        "the preReleaseBuild hook never reads src/main/assets/capacitor.config.json"
    } else if !hook.missingKeys.isEmpty {
      let others = hook.readKeys.subtracting(GradleReleaseGuard.requiredKeys)
      // Only the keys it ends on: `server` is on the way to `server.devUrl`.
      let read = others.filter { key in !hook.readKeys.contains { $0.hasPrefix(key + ".") } }
        .sorted()
      let unthrown = hook.missingKeys.filter(hook.readKeys.contains)
      build.guards.androidReleaseGuard = Sourced(false, at: at)
      build.guards.androidReleaseGuardProblem =
        "the preReleaseBuild hook does not fail on \(hook.missingKeys.joined(separator: " or "))"
        + (unthrown.isEmpty
          ? ""
          : " (it tests \(unthrown.joined(separator: ", ")) but neither throws nor calls error())")
        + (read.isEmpty
          ? "" : " (it tests \(read.joined(separator: ", ")), which cap sync never writes)")
    } else {
      build.guards.androidReleaseGuard = Sourced(true, at: at)
    }
  }

  /// AndroidManifest.xml with its placeholders substituted: schemes the browser can deliver
  /// (a `VIEW` intent-filter with `BROWSABLE` on an exported activity), cleartext, the
  /// notification permission.
  mutating func readManifest(
    into build: inout AppBuild, placeholders: [String: ResolvedValue]
  ) {
    guard let path = profile.paths["android.manifest"] else { return }
    let found: (text: String, display: String)?
    do {
      found = try repository.text(path)
    } catch {
      collect(error)
      return
    }
    guard let (text, file) = found else {
      diagnostics.append(
        .error(
          at: nil, "AndroidManifest.xml not found at \(path)",
          hint: "name it as \"android.manifest\" under \"paths\" in qualify.json"))
      return
    }
    do {
      let root = try XMLReader.parse(text: text, file: file)
      guard root.name == "manifest" else {
        throw Diagnostic.error(
          at: location(file, root.line),
          "expected <manifest> as the root element, found <\(root.name)>")
      }
      func substitute(_ raw: String) -> (value: String?, derivation: [String], missing: String?) {
        Self.substitute(raw, placeholders)
      }
      if let app = root.children("application").first {
        readTransport(
          app, file: file, manifestPath: path,
          substitute: { raw in
            let resolved = substitute(raw)
            return (resolved.value ?? raw, resolved.derivation)
          },
          into: &build)
      }
      build.manifestFile = file
      readIntentFilters(root, file: file, placeholders: placeholders, into: &build)
      let permission = root.children("uses-permission").first {
        $0.attributes["android:name"] == "android.permission.POST_NOTIFICATIONS"
      }
      build.push.postNotificationsPermission = Sourced(
        permission != nil, at: location(file, permission?.line))
    } catch {
      collect(error)
    }
  }

  /// The activities' intent-filters: the launcher, and each custom scheme the system browser
  /// can deliver (or why not).
  private func readIntentFilters(
    _ root: XMLNode, file: String, placeholders: [String: ResolvedValue],
    into build: inout AppBuild
  ) {
    let targetSDK = 31
    for activity in (root.children("application").first?.children ?? [])
    where
      ["activity", "activity-alias"].contains(activity.name)
    {
      let exportedAttribute = activity.attributes["android:exported"]
      for filter in activity.children("intent-filter") {
        let actions = filter.children("action").compactMap { $0.attributes["android:name"] }
        let categories = filter.children("category").compactMap {
          $0.attributes["android:name"]
        }
        if actions.contains("android.intent.action.MAIN"),
          categories.contains("android.intent.category.LAUNCHER"), build.launcherActivity == nil
        {
          build.launcherActivity = Sourced(
            activity.attributes["android:name"] ?? "(unnamed)", at: location(file, activity.line))
        }
        for data in filter.children("data") {
          guard let raw = data.attributes["android:scheme"] else { continue }
          let (value, derivation, missing) = Self.substitute(raw, placeholders)
          let at = location(file, data.line)
          guard let scheme = value else {
            build.undeliverableSchemes.append(
              UndeliverableScheme(
                scheme: Sourced(raw, at: at, derivation: derivation),
                reason: missing ?? "unresolved"))
            continue
          }
          if ["http", "https"].contains(scheme.lowercased()) { continue }
          let sourced = Sourced(
            scheme, at: at,
            derivation: raw == scheme ? [] : derivation)
          let reasons = Self.undeliverable(
            actions: actions, categories: categories, exported: exportedAttribute,
            activity: activity.attributes["android:name"], targetSDK: targetSDK)
          if reasons.isEmpty {
            build.registeredSchemes.append(sourced)
          } else {
            build.undeliverableSchemes.append(
              UndeliverableScheme(scheme: sourced, reason: reasons.joined(separator: "; ")))
          }
        }
      }
    }
  }

  /// `${name}` placeholders of a manifest value replaced as the manifest merge does, with
  /// how each was resolved; `missing` says why a value cannot be had.
  static func substitute(_ raw: String, _ placeholders: [String: ResolvedValue]) -> (
    value: String?, derivation: [String], missing: String?
  ) {
    var out = ""
    var derivation: [String] = []
    var rest = Substring(raw)
    while let start = rest.range(of: "${") {
      out += rest[..<start.lowerBound]
      guard let end = rest[start.upperBound...].firstIndex(of: "}") else { break }
      let name = String(rest[start.upperBound..<end])
      guard let resolved = placeholders[name] else {
        return (
          nil, derivation,
          "no manifestPlaceholders value for ${\(name)}: the manifest merge fails"
        )
      }
      guard let value = resolved.value else {
        return (
          nil, derivation,
          "${\(name)} cannot be evaluated here: \(resolved.unresolved ?? "?") — declare the value in build.gradle literally"
        )
      }
      out += value
      derivation += ["${\(name)} → \"\(value)\""] + resolved.derivation
      rest = rest[rest.index(after: end)...]
    }
    out += rest
    return (out, derivation, nil)
  }

  /// Why the system browser cannot deliver a custom scheme of this intent-filter (empty: it
  /// can): a `VIEW` action, the `BROWSABLE` category, and an exported activity (declared so
  /// from Android 12).
  static func undeliverable(
    actions: [String], categories: [String], exported: String?, activity: String?,
    targetSDK: Int
  ) -> [String] {
    var reasons: [String] = []
    if !actions.contains("android.intent.action.VIEW") {
      reasons.append("its intent-filter has no android.intent.action.VIEW")
    }
    if !categories.contains("android.intent.category.BROWSABLE") {
      reasons.append(
        "its intent-filter lacks android.intent.category.BROWSABLE: a browser cannot open it"
      )
    }
    if exported == "false" {
      reasons.append(
        "\(activity ?? "the activity") is android:exported=\"false\": no other app can start it"
      )
    } else if exported == nil && targetSDK >= 31 {
      reasons.append(
        "\(activity ?? "the activity") has an intent-filter but no android:exported (required from Android 12)"
      )
    }
    return reasons
  }
}

/// `gradle.properties`: `key=value` lines.
enum GradleProperties {
  static func parse(_ text: String) -> [String: String] {
    var out: [String: String] = [:]
    for line in TextLines.split(text) {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      guard !trimmed.hasPrefix("#"), !trimmed.hasPrefix("!"), let eq = trimmed.firstIndex(of: "=")
      else { continue }
      out[trimmed[..<eq].trimmingCharacters(in: .whitespaces)] = trimmed[
        trimmed.index(after: eq)...
      ].trimmingCharacters(in: .whitespaces)
    }
    return out
  }
}
