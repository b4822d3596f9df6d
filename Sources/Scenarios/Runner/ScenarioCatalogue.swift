import Artifacts
import Foundation
import QualifyCore

/// The scenario files under a directory (by default `Scenarios/`), parsed and filtered.
public enum ScenarioCatalogue {
  /// Parses every `.scenario` file below `directory` (skipping `apps/`).
  /// - Throws: `InputError` with every diagnostic of every file when one is malformed.
  public static func load(directory: String) throws -> [Scenario] {
    let root = URL(fileURLWithPath: directory).standardizedFileURL
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      throw InputError("scenario directory not found: \(directory)")
    }
    let files = scenarioFiles(in: root)
    let paths = files.sorted { $0.path < $1.path }
    // The files parse on every core (the catalogue is a fifth of a one-scenario run), each
    // into diagnostics of its own, merged in file order so that the output does not depend
    // on the schedule; the first file that cannot be read is the error, as when serial.
    let parsed = Locked(
      [Result<(Scenario?, [Diagnostic]), any Error>?](
        repeating: nil, count: paths.count))
    let shownFrom = root.deletingLastPathComponent()
    let rootLength = root.path.count
    DispatchQueue.concurrentPerform(iterations: paths.count) { index in
      let file = paths[index]
      let relative = String(file.standardizedFileURL.path.dropFirst(rootLength + 1))
      let id = String(relative.dropLast(".scenario".count))
      let own = DiagnosticsEngine()
      let result = Result {
        (try parse(file: file, id: id, diagnostics: own, shownFrom: shownFrom), own.diagnostics)
      }
      parsed.withLock { $0[index] = result }
    }
    let diagnostics = DiagnosticsEngine()
    var scenarios: [Scenario] = []
    for result in parsed.withLock({ $0 }) {
      guard let result else { continue }
      let (scenario, found) = try result.get()
      for diagnostic in found { diagnostics.emit(diagnostic) }
      if let scenario { scenarios.append(scenario) }
    }
    if diagnostics.hasErrors {
      throw InputError(
        "\(diagnostics.errorCount) error\(diagnostics.errorCount == 1 ? "" : "s") in the scenario files",
        diagnostics: diagnostics.diagnostics)
    }
    return scenarios
  }

  /// The `.scenario` files below `root`, `apps/` folders left out (sample apps and
  /// regression fixtures live there). Walked by hand: Foundation's enumerator here reads a
  /// folder's whole tree before `skipDescendants()` can leave it out.
  public static func scenarioFiles(in root: URL) -> [URL] {
    var files: [URL] = []
    var folders = [root]
    while let folder = folders.popLast() {
      let entries =
        (try? FileManager.default.contentsOfDirectory(
          at: folder, includingPropertiesForKeys: [.isDirectoryKey])) ?? []
      for url in entries where url.lastPathComponent != "apps" {
        if url.pathExtension == "scenario" {
          files.append(url)
        } else if (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
          folders.append(url)
        }
      }
    }
    return files
  }

  /// The largest scenario file: the longest in the catalogue is a few kilobytes.
  public static let maximumFileSize = 1 << 20

  /// Parses one file into `diagnostics`.
  /// - Parameter shownFrom: the folder a file outside the working directory is named from
  ///   (a catalogue's parent: `Scenarios/sso/cross-app.scenario`), so that no output names it
  ///   by a path of the machine qualify is installed on.
  public static func parse(
    file: URL, id: String? = nil, diagnostics: DiagnosticsEngine, shownFrom: URL? = nil
  ) throws -> Scenario? {
    // Only a catalogue that shares no folder with the working directory is named from its
    // parent: any other has a relative path that opens it.
    let display = { (url: URL) -> String in
      let path = url.standardizedFileURL.path
      guard let base = shownFrom, DisplayPath.relativeIfNear(path) == nil else {
        return DisplayPath.of(url)
      }
      return DisplayPath.of(path, from: base.standardizedFileURL.path)
    }
    let data: Data
    do {
      guard
        let read = try ConfinedFile.read(file.path, within: ["/"], limit: maximumFileSize)
      else { throw InputError("cannot read \(display(file))") }
      data = read
    } catch let refusal as ConfinedFile.Refusal {
      throw InputError(refusal.describe(display(file)))
    }
    return ScenarioParser().parse(
      text: String(decoding: data, as: UTF8.self), file: display(file), id: id,
      diagnostics: diagnostics)
  }

  /// Keeps the scenarios whose id (or pack) matches one of `globs` (`sso/*`, `*cleartext*`)
  /// and that carry one of `tags`; an empty list keeps everything.
  public static func filter(_ scenarios: [Scenario], globs: [String], tags: [String]) -> [Scenario]
  {
    scenarios.filter { scenario in
      (globs.isEmpty
        || globs.contains { Glob.matches($0, scenario.id) || Glob.matches($0, scenario.pack) })
        && (tags.isEmpty || tags.contains { scenario.tags.contains($0) || scenario.pack == $0 })
    }
  }
}
