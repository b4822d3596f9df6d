import Foundation
import QualifyCore
import QualifyCrypto

extension BuildGuards {
  /// What App Store Connect requires of the bundle itself, read from the Info.plist the
  /// Release build ships (`BundleInfo`). Shared by the kinds whose reader reads Info.plist
  /// (single-origin, multi-instance, hybrid); the launcher rule by those whose reader reads
  /// the main AndroidManifest.xml for it (the multi-instance kind has its own).
  static let storeBundleRules: [GuardRule] = [
    GuardRule(
      id: "ota-key-form", title: "The baked OTA public key is one the updater can use",
      source:
        "Capgo v2's plugin: CryptoCipherV2 reads only a PKCS#1 BEGIN RSA PUBLIC KEY and checks 256-byte signature blocks (RSA-2048); the real repository: each deployment generates its own RSA-2048 pair",
      devAllows: false, shells: [.singleOrigin],
      check: { build in
        guard build.features.ota.enabled, let baked = build.capacitor?.updaterPublicKey,
          let problem = CapgoPublicKey.bakedProblem(baked.value)
        else { return [] }
        return [
          GuardHit(
            "CapacitorUpdater.publicKey: \(problem)",
            at: baked.location ?? build.capacitor?.location(line: 0),
            value: "unusable OTA public key")
        ]
      },
      fix:
        "bake the PKCS#1 public half of the RSA-2048 signing pair (qualify ota keygen or capgo key create; openssl rsa -RSAPublicKey_out converts an SPKI PEM) into CapacitorUpdater.publicKey (MOBILE_OTA_SIGNING_PUBLIC_KEY_B64)"
    ),
    GuardRule(
      id: "ota-ordering", title: "The builtin stamp carries what the app orders releases by",
      source:
        "seed 000, Bundle versioning (<count>-<sha>, the count orders releases); the real repository's ota.ts compares counts only when both ids carry one, and its docs/mobile-release.md orders bare commit ids by the manifest's sequence",
      devAllows: false, shells: [.singleOrigin],
      check: { build in
        guard build.features.ota.enabled, build.otaOrdering == "count",
          let stamp = build.capacitor?.updaterVersion,
          !BuildGuards.hasReleaseCount(stamp.value)
        else { return [] }
        return [
          GuardHit(
            "plugins.CapacitorUpdater.version \"\(stamp.value)\" has no release count, and the app orders releases by count (qualify.json ota.ordering, count by default): a device compares counts only when both ids carry one, so every other manifest applies, a downgrade included",
            at: stamp.location ?? build.capacitor?.location(line: 0),
            value: stamp.value)
        ]
      },
      fix:
        "stamp the build with a <count>-<sha> id (MOBILE_OTA_BUILD_ID=$(git rev-list --count HEAD)-$(git rev-parse --short HEAD)), or declare \"ota\": {\"ordering\": \"sequence\"} in qualify.json when the channel manifest's sequence orders releases"
    ),
    GuardRule(
      id: "ota-manual-mode", title: "The updater is driven by the app, not by an update server",
      source:
        "seed 000, OTA updates (driven entirely from JS against a public bucket, autoUpdate: false); Capgo's plugin settings: autoUpdate defaults to true and then checks updateUrl (https://plugin.capgo.app/updates) at every start and applies what it answers",
      devAllows: false, shells: [.singleOrigin],
      check: { build in
        guard build.features.ota.enabled, build.capacitor?.updaterAutoUpdate?.value != false
        else { return [] }
        let setting = build.capacitor?.updaterAutoUpdate
        let written =
          setting == nil
          ? "plugins.CapacitorUpdater.autoUpdate is not set, so the plugin's default (true) applies"
          : "plugins.CapacitorUpdater.autoUpdate is true"
        return [
          GuardHit(
            "\(written): the \(build.platform.rawValue) updater asks its update server at every start and applies what it answers, around ota.ts's signature, channel and downgrade checks (checklist item 4)",
            at: setting?.location ?? build.capacitor?.location(line: 0),
            value: "CapacitorUpdater.autoUpdate")
        ]
      },
      fix:
        "set plugins.CapacitorUpdater.autoUpdate to false in capacitor.config.ts and re-run cap sync for both platforms"
    ),
    GuardRule(
      id: "android-launcher", title: "The Android app has a launcher activity",
      source:
        "Android's manifest reference: an activity with the MAIN action and the LAUNCHER category is what the home screen starts",
      devAllows: false, shells: [.singleOrigin, .hybridWebView],
      check: { build in
        guard build.platform == .android, let manifest = build.manifestFile,
          build.launcherActivity == nil
        else { return [] }
        return [
          GuardHit(
            "no activity of \(manifest) has an intent-filter with android.intent.action.MAIN and android.intent.category.LAUNCHER: the app installs without an icon and cannot be opened",
            at: FileLocation(file: manifest, line: 0, column: 1), value: "no launcher activity")
        ]
      },
      fix:
        "give the main activity <intent-filter><action android:name=\"android.intent.action.MAIN\" /><category android:name=\"android.intent.category.LAUNCHER\" /></intent-filter>"
    ),
    GuardRule(
      id: "ios-store-bundle", title: "The built Info.plist has what the App Store requires",
      source:
        "Apple's Information Property List reference and App Store Connect's upload checks: identifier, executable, versions of up to three integers, package type APPL, a name, a launch storyboard",
      devAllows: true, shells: [.singleOrigin, .multiInstance, .hybridWebView],
      check: { build in
        guard build.platform == .ios, let bundle = build.bundleInfo else { return [] }
        return storeBundleHits(bundle)
      },
      fix:
        "restore the key in Info.plist as Xcode's template writes it (CFBundleShortVersionString = $(MARKETING_VERSION), CFBundleVersion = $(CURRENT_PROJECT_VERSION), CFBundlePackageType = $(PRODUCT_BUNDLE_PACKAGE_TYPE), UILaunchStoryboardName = LaunchScreen) and check its build setting"
    ),
  ]

  static func storeBundleHits(_ bundle: BundleInfo) -> [GuardHit] {
    var out: [GuardHit] = []
    let at = FileLocation(file: bundle.file, line: 0, column: 1)
    for key in BundleInfo.requiredKeys {
      if key == "UILaunchStoryboardName", bundle.hasLaunchScreenDictionary,
        bundle.values[key] == nil
      {
        continue
      }
      guard let entry = bundle.values[key] else {
        out.append(
          GuardHit(
            "\(bundle.file) has no \(key): App Store Connect refuses the upload", at: at,
            value: key))
        continue
      }
      if let problem = problem(key, entry) {
        out.append(GuardHit(problem, at: entry.expanded.location, value: entry.raw))
      }
    }
    let names = BundleInfo.nameKeys.compactMap { bundle.values[$0] }
    if names.isEmpty {
      out.append(
        GuardHit(
          "\(bundle.file) has neither CFBundleDisplayName nor CFBundleName: the app has no name under its icon",
          at: at, value: "CFBundleDisplayName"))
    }
    // Capacitor's target is "App": without a display name, CFBundleName's $(PRODUCT_NAME)
    // puts that under the icon.
    if bundle.values["CFBundleDisplayName"] == nil, let name = bundle.values["CFBundleName"],
      name.expanded.value == "App"
    {
      out.append(
        GuardHit(
          "\(bundle.file) has no CFBundleDisplayName and CFBundleName = \(name.raw) expands to the target's name \"App\": that is the name under the icon",
          at: name.expanded.location, value: name.raw))
    }
    for (key, entry) in zip(BundleInfo.nameKeys, BundleInfo.nameKeys.map { bundle.values[$0] }) {
      guard let entry, let problem = unresolved(key, entry) else { continue }
      out.append(GuardHit(problem, at: entry.expanded.location, value: entry.raw))
    }
    if bundle.launchStoryboardFound == false,
      let name = bundle.values["UILaunchStoryboardName"]
    {
      out.append(
        GuardHit(
          "UILaunchStoryboardName is \"\(name.expanded.value)\" but no \(name.expanded.value).storyboard is in the app's folder: the app launches to a black screen and the upload is refused",
          at: name.expanded.location, value: name.raw))
    }
    return out
  }

  /// A reference that never closes, or one that expands to nothing.
  private static func unresolved(_ key: String, _ entry: BundleInfo.Entry) -> String? {
    var depth = 0
    var index = entry.raw.startIndex
    while index < entry.raw.endIndex {
      let c = entry.raw[index]
      if c == "$", entry.raw.index(after: index) < entry.raw.endIndex,
        entry.raw[entry.raw.index(after: index)] == "("
      {
        depth += 1
        index = entry.raw.index(index, offsetBy: 2)
        continue
      }
      if c == ")", depth > 0 { depth -= 1 }
      index = entry.raw.index(after: index)
    }
    if depth > 0 {
      return "\(key) = \"\(entry.raw)\" opens a build variable reference it never closes"
    }
    if entry.expanded.value.trimmingCharacters(in: .whitespaces).isEmpty {
      let why = entry.expanded.derivation.last.map { " (\($0))" } ?? ""
      return "\(key) = \"\(entry.raw)\" expands to nothing in the Release build\(why)"
    }
    return nil
  }

  private static func problem(_ key: String, _ entry: BundleInfo.Entry) -> String? {
    if let unresolved = unresolved(key, entry) { return unresolved }
    let value = entry.expanded.value
    switch key {
    case "CFBundleShortVersionString", "CFBundleVersion":
      let parts = value.split(separator: ".", omittingEmptySubsequences: false)
      let valid =
        (1...3).contains(parts.count)
        && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
      return valid
        ? nil
        : "\(key) is \"\(value)\": App Store Connect accepts one to three integers separated by periods"
    case "CFBundlePackageType":
      return value == "APPL"
        ? nil : "CFBundlePackageType is \"\(value)\", not APPL: the bundle is not an application"
    default:
      return nil
    }
  }
}

extension BuildGuards {
  /// Whether a bundle id starts with seed 000's release count (`1234-` of `1234-a1b2c3d`), as
  /// the updater's `BundleVersion` reads it (Artifacts sits below the OTA module).
  static func hasReleaseCount(_ id: String) -> Bool {
    guard let dash = id.firstIndex(of: "-") else { return false }
    let count = id[..<dash]
    return !count.isEmpty && count.allSatisfy { $0.isASCII && $0.isNumber }
  }
}
