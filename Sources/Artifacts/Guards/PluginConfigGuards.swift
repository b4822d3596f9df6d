import Foundation
import QualifyCore

/// A block of `plugins` settings for a name no plugin of the build answers to is read by
/// nothing (issue 23: a setting read into the build and never used): Capacitor hands each
/// plugin the block under its own name, and a misspelt key leaves the plugin on its defaults.
extension BuildGuards {
  /// Plugins Capacitor itself ships (no entry in `packageClassList`).
  static let capacitorCorePlugins = ["CapacitorHttp", "CapacitorCookies", "SystemBars"]

  /// Levenshtein distance, for telling a misspelt plugin name from a plugin qualify does not
  /// know.
  static func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.lowercased())
    let b = Array(b.lowercased())
    guard !a.isEmpty else { return b.count }
    var previous = Array(0...b.count)
    for (i, x) in a.enumerated() {
      var current = [i + 1]
      for (j, y) in b.enumerated() {
        current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
      }
      previous = current
    }
    return previous[b.count]
  }

  static let pluginConfigRules: [GuardRule] = [
    GuardRule(
      id: "plugin-config",
      title: "Every plugins block names a plugin the build has",
      source:
        "Capacitor's configuration (each plugin reads plugins.<its name>; packageClassList is what cap sync installed)",
      devAllows: false,
      check: { build in
        guard let classes = build.capacitor?.packageClassList else { return [] }
        var known = capacitorCorePlugins
        for name in classes {
          known.append(name)
          if name.hasSuffix("Plugin") { known.append(String(name.dropLast("Plugin".count))) }
        }
        return (build.capacitor?.pluginKeys ?? []).compactMap { key in
          guard !known.contains(key.value) else { return nil }
          // A name far from every plugin's may be one qualify does not know: not judged.
          guard
            let near = known.min(by: {
              editDistance(key.value, $0) < editDistance(key.value, $1)
            }), editDistance(key.value, near) <= 2
          else { return nil }
          return GuardHit(
            "plugins.\(key.value) configures no plugin of this build (\(near) is one): Capacitor hands its settings to nothing and \(near) runs on its defaults",
            at: key.location, value: key.value)
        }
      },
      fix:
        "name the block after the plugin it configures, as in capacitor.config.ts, and run cap sync"
    )
  ]
}
