import Foundation
import QualifyCore
import Results

/// Opening the results store for the commands that read it (`history`, `show`, `report`,
/// `diff`, `attest`), with the same errors everywhere.
enum StoreAccess {
  /// The store at `--db` (or the default); bad input when there is none. Opened for writing
  /// when `preferWritable` and the file allows it (to mark abandoned runs), else read-only.
  static func open(_ parsed: ParsedOptions, preferWritable: Bool = false) throws -> ResultStore {
    let path = parsed.value("db") ?? Paths.defaultDatabase
    guard FileManager.default.fileExists(atPath: path) else {
      throw InputError(
        "no results database at \(path)", hint: "run `qualify` first, or pass --db FILE")
    }
    guard preferWritable else { return try ResultStore(path: path, readOnly: true) }
    do {
      return try ResultStore(path: path)
    } catch is EnvironmentError {
      return try ResultStore(path: path, readOnly: true)
    }
  }

  /// The run `id` (a unique prefix, `latest`, or nil for the latest).
  static func run(_ id: String?, in store: ResultStore) throws -> RunRecord {
    guard let run = try store.run(id) else {
      throw InputError(
        id.map { "no run '\($0)' in the store" } ?? "the store has no run yet",
        hint: "see: qualify history")
    }
    return run
  }
}
