import Foundation
import QualifyCore
import Testing

@testable import Artifacts

/// Gradle scripts: the application id and manifest placeholders as Gradle resolves them,
/// and what the release guard really tests.
@Suite struct GradleTests {
  private func env(_ pairs: [String: String]) throws -> EnvLayers {
    EnvLayers([
      try EnvFile(
        text: pairs.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "\n"),
        path: "frontend.local")
    ])
  }

  static let groovy = """
    def appName = System.getenv("MOBILE_APP_NAME") ?: "Messages"
    android {
        defaultConfig {
            applicationId System.getenv("MOBILE_APP_ID") ?: "local.example.app"
            manifestPlaceholders = [
                authCallbackScheme: System.getenv("MOBILE_AUTH_SCHEME") ?: "stmessages",
                appLabel: "${appName}",
                minSdk: rootProject.ext.minSdkVersion
            ]
        }
        buildTypes {
            debug {
                applicationIdSuffix ".debug"
                manifestPlaceholders += [authCallbackScheme: "stmessages-dev"]
            }
            release {
                minifyEnabled false
            }
        }
    }
    """

  @Test func theReleaseBuildResolvesDefaultsWhenTheEnvIsSilent() throws {
    let script = GradleScript.read(
      text: GradleTests.groovy, file: "build.gradle", buildType: "release",
      environment: try env([:]), ext: ["minSdkVersion": "24"])
    #expect(script.applicationId?.value == "local.example.app")
    #expect(script.placeholders["authCallbackScheme"]?.value == "stmessages")
    #expect(script.placeholders["appLabel"]?.value == "Messages")
    #expect(script.placeholders["minSdk"]?.value == "24")
    let derivation = script.placeholders["authCallbackScheme"]?.derivation ?? []
    #expect(derivation.contains { $0.contains("MOBILE_AUTH_SCHEME is unset") })
    #expect(derivation.contains { $0.contains("default \"stmessages\"") })
  }

  /// Seed 000's build.gradle reads the displayed version back from the config `cap sync`
  /// wrote (`new JsonSlurper().parse(file(…))` behind `exists() ? … : null`): with the synced
  /// config, its `appVersion`; on a fresh checkout, the placeholder.
  @Test func theVersionNameIsReadBackFromTheSyncedConfig() throws {
    let text = """
      def syncedConfigFile = file('src/main/assets/capacitor.config.json')
      def syncedConfig = syncedConfigFile.exists()
              ? new groovy.json.JsonSlurper().parse(syncedConfigFile)
              : null
      android {
          defaultConfig {
              versionName syncedConfig?.appVersion ?: "0.0.0"
          }
      }
      """
    let synced = try JSONDocument(text: #"{"appVersion": "2.4.0"}"#, file: "capacitor.config.ts")
    let read = GradleScript.read(
      text: text, file: "build.gradle", buildType: "release", environment: try env([:]),
      syncedConfig: (synced.value, "capacitor.config.ts"))
    #expect(read.versionName?.value == "2.4.0")
    #expect(read.versionName?.derivation.contains { $0.contains("read back") } == true)
    let fresh = GradleScript.read(
      text: text, file: "build.gradle", buildType: "release", environment: try env([:]))
    #expect(fresh.versionName?.value == "0.0.0")
    // Another file parsed at configuration time is not a value qualify makes up.
    let other = GradleScript.read(
      text: text.replacingOccurrences(of: "capacitor.config.json", with: "version.json"),
      file: "build.gradle", buildType: "release", environment: try env([:]),
      syncedConfig: (synced.value, "capacitor.config.ts"))
    #expect(other.versionName?.value == nil)
  }

  /// A build type's `manifestPlaceholders = [...]` replaces only the build type's own map:
  /// AGP merges it over defaultConfig's key by key.
  @Test func aBuildTypesPlaceholderAssignmentMergesOverTheDefaults() throws {
    let text = """
      android {
          defaultConfig {
              manifestPlaceholders = [authCallbackScheme: "stmessages"]
          }
          buildTypes {
              release {
                  manifestPlaceholders = [usesCleartextTraffic: "false"]
              }
              debug {
                  manifestPlaceholders = [usesCleartextTraffic: "true", authCallbackScheme: "dev"]
              }
          }
      }
      """
    let release = GradleScript.read(
      text: text, file: "build.gradle", buildType: "release", environment: try env([:]))
    #expect(release.placeholders["authCallbackScheme"]?.value == "stmessages")
    #expect(release.placeholders["usesCleartextTraffic"]?.value == "false")
    let debug = GradleScript.read(
      text: text, file: "build.gradle", buildType: "debug", environment: try env([:]))
    #expect(debug.placeholders["authCallbackScheme"]?.value == "dev")
    #expect(debug.placeholders["usesCleartextTraffic"]?.value == "true")
  }

  /// A build type's `debuggable` in Groovy's two forms and Kotlin's `isDebuggable`; a Groovy
  /// boolean placeholder is stringified as AGP does.
  @Test func theBuildTypesDebuggableIsRead() throws {
    let groovy = """
      android {
          buildTypes {
              release {
                  debuggable true
                  manifestPlaceholders = [usesCleartextTraffic: false]
              }
              debug { debuggable = false }
          }
      }
      """
    let release = GradleScript.read(
      text: groovy, file: "build.gradle", buildType: "release", environment: try env([:]))
    #expect(release.debuggable?.value == "true")
    #expect(release.debuggable?.location?.line == 4)
    #expect(release.placeholders["usesCleartextTraffic"]?.value == "false")
    let debug = GradleScript.read(
      text: groovy, file: "build.gradle", buildType: "debug", environment: try env([:]))
    #expect(debug.debuggable?.value == "false")
    let kts = """
      android {
          buildTypes {
              getByName("release") { isDebuggable = System.getenv("DEBUG_RELEASE") == "1" }
          }
      }
      """
    let unread = GradleScript.read(
      text: kts, file: "build.gradle.kts", buildType: "release", environment: try env([:]))
    #expect(unread.debuggable != nil)
    #expect(unread.debuggable?.value == nil)
    let plain = GradleScript.read(
      text: GradleTests.groovy, file: "build.gradle", buildType: "release",
      environment: try env([:]))
    #expect(plain.debuggable == nil)
  }

  @Test func theEnvOverridesAndAnEmptyValueFallsBackAsInGroovy() throws {
    let script = GradleScript.read(
      text: GradleTests.groovy, file: "build.gradle", buildType: "release",
      environment: try env(["MOBILE_APP_ID": "fr.example.messages", "MOBILE_AUTH_SCHEME": ""]))
    #expect(script.applicationId?.value == "fr.example.messages")
    #expect(script.applicationId?.location?.file == "frontend.local")
    // Groovy's ?: treats "" as false: the default applies.
    #expect(script.placeholders["authCallbackScheme"]?.value == "stmessages")
  }

  @Test func theDebugBuildTypeAddsItsSuffixAndPlaceholders() throws {
    let script = GradleScript.read(
      text: GradleTests.groovy, file: "build.gradle", buildType: "debug", environment: try env([:]))
    #expect(script.applicationId?.value == "local.example.app.debug")
    #expect(script.placeholders["authCallbackScheme"]?.value == "stmessages-dev")
  }

  @Test func theKotlinDSLReadsTheSame() throws {
    let kts = """
      android {
          defaultConfig {
              applicationId = System.getenv("MOBILE_APP_ID") ?: "local.example.app"
              manifestPlaceholders["authCallbackScheme"] = System.getenv("MOBILE_AUTH_SCHEME") ?: "stmessages"
              manifestPlaceholders += mapOf("other" to "value")
          }
      }
      """
    let script = GradleScript.read(
      text: kts, file: "build.gradle.kts", buildType: "release",
      environment: try env(["MOBILE_AUTH_SCHEME": ""]))
    #expect(script.applicationId?.value == "local.example.app")
    // Kotlin's ?: only replaces null: an empty variable stays empty.
    #expect(script.placeholders["authCallbackScheme"]?.value == "")
    #expect(script.placeholders["other"]?.value == "value")
  }

  @Test func anExpressionQualifyCannotEvaluateSaysSo() throws {
    let script = GradleScript.read(
      text: "android { defaultConfig { applicationId computeId(project) } }", file: "build.gradle",
      buildType: "release", environment: try env([:]))
    #expect(script.applicationId?.value == nil)
    #expect(script.applicationId?.unresolved?.contains("computeId") == true)
  }

  @Test func variablesGradleGivesExtValues() {
    let ext = GradleScript.extValues(
      text: "ext {\n    minSdkVersion = 24\n    androidxVersion = '1.7.1'\n}\n")
    #expect(ext["minSdkVersion"] == "24")
    #expect(ext["androidxVersion"] == "1.7.1")
  }

  private func guardOf(_ body: String) -> GradleReleaseGuard? {
    GradleScript.read(
      text: body, file: "build.gradle", buildType: "release",
      environment: EnvLayers([])
    ).releaseGuard
  }

  @Test func aGuardThatThrowsOnBothKeysGuards() throws {
    let hook = try #require(
      guardOf(
        """
        tasks.configureEach { task ->
            if (task.name == 'preReleaseBuild') {
                task.doFirst {
                    def parsed = new groovy.json.JsonSlurper().parse(file('src/main/assets/capacitor.config.json'))
                    def server = parsed?.server
                    if (server?.url) {
                        throw new GradleException("dev server.url")
                    }
                    if (server?.cleartext) throw new GradleException("cleartext")
                }
            }
        }
        """))
    #expect(hook.readsSyncedConfig)
    #expect(hook.missingKeys.isEmpty)
  }

  /// A filter that leaves the release task out runs the hook before every other task: no
  /// guard, however well it reads the config (`==` flipped in the sample's own filter).
  @Test func aFilterThatLeavesTheReleaseTaskOutGuardsNothing() throws {
    let body = """
      def parsed = new groovy.json.JsonSlurper().parse(file('src/main/assets/capacitor.config.json'))
      if (parsed?.server?.url || parsed?.server?.cleartext) throw new GradleException('dev')
      """
    for filter in [
      #"tasks.matching { it.name != "preReleaseBuild" }.configureEach { doFirst {"#,
      #"tasks.matching { "preReleaseBuild" != it.name }.configureEach { doFirst {"#,
      #"tasks.matching { !it.name.equals('preReleaseBuild') }.configureEach { doFirst {"#,
    ] {
      let hook = try #require(guardOf(filter + "\n" + body + "\n} }\n"))
      #expect(hook.excludesReleaseTask, "\(filter)")
      #expect(hook.missingKeys.isEmpty)
    }
    for filter in [
      #"tasks.matching { it.name == "preReleaseBuild" }.configureEach { doFirst {"#,
      #"tasks.matching { it.name.equals('preReleaseBuild') }.configureEach { doFirst {"#,
    ] {
      let hook = try #require(guardOf(filter + "\n" + body + "\n} }\n"))
      #expect(!hook.excludesReleaseTask, "\(filter)")
    }
  }

  /// The config parsed at the top of the script and tested inside the hook guards as well;
  /// a test made at the top, outside the hook, guards nothing.
  @Test func aConfigParsedBeforeTheHookIsFollowedIntoIt() throws {
    let prelude = """
      def syncedConfigFile = file('src/main/assets/capacitor.config.json')
      def syncedConfig = syncedConfigFile.exists()
              ? new groovy.json.JsonSlurper().parse(syncedConfigFile)
              : null
      if (syncedConfig?.server?.url) { throw new GradleException("dev server.url") }

      """
    let inside = try #require(
      guardOf(
        prelude + """
          afterEvaluate {
              preReleaseBuild.doFirst {
                  if (syncedConfig?.server?.url) { throw new GradleException("dev server.url") }
                  if (syncedConfig?.server?.cleartext) { throw new GradleException("cleartext") }
              }
          }
          """))
    #expect(inside.readsSyncedConfig)
    #expect(inside.missingKeys.isEmpty)
    let outside = try #require(
      guardOf(
        prelude + """
          afterEvaluate {
              preReleaseBuild.doFirst {
                  if (syncedConfig?.server?.cleartext) { throw new GradleException("cleartext") }
              }
          }
          """))
    #expect(outside.missingKeys == ["server.url"])
  }

  @Test func aGuardOnAKeyCapSyncNeverWritesGuardsNothing() throws {
    let hook = try #require(
      guardOf(
        """
        preReleaseBuild.doFirst {
            def config = new groovy.json.JsonSlurper().parse(file("src/main/assets/capacitor.config.json"))
            if (config.server?.devUrl || config.server?.cleartext) {
                throw new GradleException("dev settings")
            }
        }
        """))
    #expect(hook.missingKeys == ["server.url"])
    #expect(hook.readKeys.contains("server.devUrl"))
  }

  @Test func aGuardThatOnlyLogsGuardsNothing() throws {
    let hook = try #require(
      guardOf(
        """
        tasks.matching { it.name == "preReleaseBuild" }.configureEach {
            doFirst {
                def config = new groovy.json.JsonSlurper().parse(file("src/main/assets/capacitor.config.json"))
                if (config.server?.url || config.server?.cleartext) {
                    logger.warn("capacitor.config.json carries dev settings")
                }
            }
        }
        """))
    #expect(hook.missingKeys == ["server.cleartext", "server.url"])
  }

  @Test func loggingAnErrorOrMakingAnExceptionIsNotFailing() throws {
    // The mistakes that read like failing: `logger.error` logs, an exception made and kept
    // does nothing. Kotlin's `error(...)` does throw.
    let hook = try #require(
      guardOf(
        """
        preReleaseBuild.doFirst {
            def config = new groovy.json.JsonSlurper().parse(file("src/main/assets/capacitor.config.json"))
            if (config.server?.url) { logger?.error("dev server.url in a release build") }
            if (config.server?.cleartext) { project.ext.failure = new GradleException("cleartext") }
        }
        """))
    #expect(hook.readKeys.isSuperset(of: GradleReleaseGuard.requiredKeys))
    #expect(hook.missingKeys == ["server.cleartext", "server.url"])
    // Kotlin's `error(...)` (here from a Groovy closure calling the same name) stops the build.
    let kotlin = try #require(
      guardOf(
        """
        preReleaseBuild.doFirst {
            def config = new groovy.json.JsonSlurper().parse(file("src/main/assets/capacitor.config.json"))
            if (config.server?.url) error("dev server.url")
            if (config.server?.cleartext) error("cleartext")
        }
        """))
    #expect(kotlin.missingKeys.isEmpty)
  }

  @Test func aCommentedOutGuardIsNoGuard() {
    #expect(guardOf("// preReleaseBuild.doFirst { throw new GradleException('x') }\n") == nil)
  }
}
