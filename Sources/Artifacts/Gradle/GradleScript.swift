import Foundation
import QualifyCore

/// A value a Gradle declaration resolves to, with how it was decided.
public struct ResolvedValue: Sendable, Equatable {
  /// The value, nil when the declaration cannot be evaluated here.
  public var value: String?
  /// One sentence per input that decided it (`MOBILE_AUTH_SCHEME is unset: …`).
  public var derivation: [String]
  /// Where the declaration is written.
  public var location: FileLocation?
  /// Why the value could not be resolved.
  public var unresolved: String?
}

/// What qualify reads of an Android `app/build.gradle` (or `build.gradle.kts`) for one build
/// type: the application id and the manifest placeholders as Gradle would resolve them in
/// the build environment, and the shape of the release-build guard.
public struct GradleScript: Sendable {
  public var file: String
  public var applicationId: ResolvedValue?
  /// Manifest placeholder → value (`authCallbackScheme` → `stmessages`).
  public var placeholders: [String: ResolvedValue]
  /// The `preReleaseBuild` hook, when the script has one.
  public var releaseGuard: GradleReleaseGuard?
  /// `versionName` and `versionCode` as the build type sees them: what the store shows and
  /// orders releases by.
  public var versionName: ResolvedValue?
  public var versionCode: ResolvedValue?
  /// The build type's `debuggable` (Groovy) or `isDebuggable` (Kotlin DSL): a debuggable
  /// release build applies the network security config's `debug-overrides`.
  public var debuggable: ResolvedValue?

  /// Evaluates `text` for `buildType` (`release` or `debug`).
  /// - Parameters:
  ///   - environment: the build environment (`System.getenv`).
  ///   - ext: `rootProject.ext` values (from `variables.gradle`).
  ///   - properties: Gradle project properties (`project.findProperty`).
  ///   - syncedConfig: the `capacitor.config.json` `cap sync` writes before Gradle runs, for a
  ///     script that reads it back (`new JsonSlurper().parse(file('…/capacitor.config.json'))`).
  public static func read(
    text: String, file: String, buildType: String, environment: EnvLayers,
    ext: [String: String] = [:], properties: [String: String] = [:],
    syncedConfig: (json: JSONValue, file: String)? = nil
  ) -> GradleScript {
    let tokens = GradleLexer.tokens(text)
    var evaluator = GradleEvaluator(
      tokens: tokens, file: file, environment: environment, ext: ext, properties: properties,
      kotlin: file.hasSuffix(".kts"))
    evaluator.syncedConfig = syncedConfig
    evaluator.collectVariables(in: 0..<tokens.count)
    var script = GradleScript(
      file: file, applicationId: nil, placeholders: [:], releaseGuard: nil)
    if let android = evaluator.block(named: "android", in: 0..<tokens.count) {
      if let defaults = evaluator.block(named: "defaultConfig", in: android) {
        evaluator.collectVariables(in: defaults)
        evaluator.declarations(in: defaults, into: &script)
      }
      if let types = evaluator.block(named: "buildTypes", in: android),
        let type = evaluator.block(named: buildType, in: types)
      {
        evaluator.collectVariables(in: type)
        // defaultConfig and the build type each hold their own placeholder map (an `=` in the
        // build type replaces only its own); AGP merges them key by key, the build type's
        // winning.
        let inherited = script.placeholders
        script.placeholders = [:]
        evaluator.declarations(in: type, into: &script)
        script.placeholders = inherited.merging(script.placeholders) { $1 }
      }
    }
    script.releaseGuard = GradleReleaseGuard.find(in: tokens, file: file)
    return script
  }

  /// The `ext { … }` values of a `variables.gradle`, literal ones only.
  public static func extValues(text: String) -> [String: String] {
    let tokens = GradleLexer.tokens(text)
    var out: [String: String] = [:]
    var index = 0
    while index + 2 < tokens.count {
      if tokens[index].kind == .identifier, tokens[index + 1].isSymbol("="),
        let literal = tokens[index + 2].literal
          ?? (tokens[index + 2].kind == .number
            ? tokens[index + 2].text : nil)
      {
        out[tokens[index].text] = literal
      }
      index += 1
    }
    return out
  }
}
