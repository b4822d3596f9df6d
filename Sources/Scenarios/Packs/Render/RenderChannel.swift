import Artifacts
import Devices
import Foundation
import OTA
import QualifyCore

/// Item 3 on the OTA path: the app's built web bundle published on its channel as the
/// pipeline publishes it, and what the channel serves — verified and unpacked by the device's
/// updater — shown in the engine, so an OTA update that breaks rendering fails before a
/// device applies it. Against a real channel (`--stack`), what it serves now is rendered.
enum RenderChannel {
  /// The largest web bundle qualify zips: far above a built frontend.
  static let maximumBytes = 64 << 20

  static let actions: [ActionSpec] = [
    ActionSpec(
      .world, "ci publishes the app's web bundle",
      summary:
        "The deploy pipeline zips the app's built web bundle (`render.webDir`) and publishes it on the app's channel as `builtin+1`, encrypted and signed like any release; against a real channel nothing is published, and the channel's live bundle is what renders.",
      example: "ci publishes the app's web bundle"
    ) { context in
      let world = context.world
      let app = try world.renderApp()
      guard let bundle = app.build.webBundle else {
        throw ScenarioRuntimeError("\(app.name)'s web bundle was not read")
      }
      // No thread page: nothing the engine could show, whichever bundle serves it.
      guard bundle.threadPath != nil else {
        throw ScenarioNotApplicable(
          "not covered: \(app.build.name) names no thread page (qualify.json render.threadPath), so no engine can show its message bodies; check item 3 by hand",
          cause: .noThreadView)
      }
      if let live = try world.embeddedStack().realOTAChannel {
        return Outcome("the channel is real (\(live.manifestURL)): its live bundle renders")
      }
      let files = try zip(bundle, dropping: world.configuration.publishDropsFile)
      return try world.publish(
        version: "builtin+1", channel: nil, content: "web bundle", force: false, crashing: false,
        withoutChecksum: false, files: files)
    }
  ]

  /// The bundle's files, nearest folder of the overlay chain first, hidden files left out, as
  /// the pipeline's zip step takes them.
  static func zip(_ bundle: WebBundle, dropping dropped: String?) throws -> ZipArchive {
    var entries: [String: [UInt8]] = [:]
    var total = 0
    for (folder, _) in bundle.folders {
      guard let root = ConfinedFile.resolved(folder),
        let walker = FileManager.default.enumerator(atPath: root)
      else { continue }
      while let relative = walker.nextObject() as? String {
        let path = root + "/" + relative
        guard !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }),
          entries[relative] == nil, relative != dropped,
          let real = ConfinedFile.resolved(path), ConfinedFile.isInside(real, root)
        else { continue }
        var directory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: real, isDirectory: &directory),
          !directory.boolValue, let data = FileManager.default.contents(atPath: real)
        else { continue }
        total += data.count
        guard total <= maximumBytes else {
          throw ScenarioRuntimeError(
            "the web bundle \(bundle.webDir) is larger than \(maximumBytes >> 20) MiB")
        }
        entries[relative] = Array(data)
      }
    }
    guard entries["index.html"] != nil else {
      throw ScenarioNotApplicable(
        "not covered: the web bundle is not built — \(bundle.webDir)/index.html does not exist, so there is nothing to publish",
        cause: .renderUnavailable)
    }
    return ZipArchive(
      entries: entries.keys.sorted().map { ZipArchive.Entry(name: $0, data: entries[$0] ?? []) })
  }

  /// The bundle the app's channel serves now, as the app's updater verifies and unpacks it,
  /// made the shell's local origin: the failure to show, when a device would not take it.
  static func serveChannelBundle(
    _ app: App, session: RenderSession, threadPath: String, page: String
  ) throws -> String? {
    let live = app.updater.inspectLiveBundle()
    guard case .verified(let version) = live, let archive = app.updater.verifiedBundle(version)
    else {
      return "the bundle the channel serves is not one this build's devices take: \(live.reason)"
    }
    let bundle = try session.unpack(archive, version: version, threadPath: threadPath)
    guard bundle.has(page) else {
      return
        "the bundle the channel serves (\(version)) has no \(page): its files are \(archive.entries.map(\.name).prefix(12).joined(separator: ", "))"
    }
    try session.serve(bundle)
    return nil
  }
}
