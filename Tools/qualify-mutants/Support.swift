import Foundation

struct Catalogue: Decodable {
  struct Mutant: Decodable {
    /// A short name.
    var id: String
    /// What part of the world or the app it breaks (updater, backend, idp, browser, …).
    var area: String
    /// The bug, in one sentence.
    var bug: String
    /// The app qualified (relative to the package): the sample app unless stated; a reader
    /// mutant runs on the regression fixture its rule catches.
    var app: String?
    /// The file edited: under `Sources/` for a source mutant (rebuilt), else relative to a
    /// copy of the app.
    var file: String
    /// Text that must occur exactly once in the file, and what replaces it.
    var find: String
    var replace: String
    var channel: String?
    /// qualify's environment for the run.
    var environment: [String: String]?
    /// Files added to the app's copy with the edit (path relative to the app: text), for a
    /// change that spans a reference and the file it names.
    var create: [String: String]?

    /// Writes `create`'s files under `app`.
    func createFiles(in app: URL) throws {
      for (path, text) in create ?? [:] {
        let target = app.appendingPathComponent(path)
        try FileManager.default.createDirectory(
          at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: target, atomically: true, encoding: .utf8)
      }
    }
  }

  var mutants: [Mutant]
  var harmless: [Mutant]
}

struct Failure: Error, CustomStringConvertible {
  var description: String
}

let fileManager = FileManager.default

func run(
  _ executable: String, _ arguments: [String], in directory: URL,
  environment: [String: String] = [:], timeout: TimeInterval? = nil
)
  throws -> (status: Int32, output: String)
{
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  process.currentDirectoryURL = directory
  var env = ProcessInfo.processInfo.environment
  env["NO_COLOR"] = "1"
  for (key, value) in environment { env[key] = value }
  process.environment = env
  let pipe = Pipe()
  process.standardOutput = pipe
  process.standardError = pipe
  try process.run()
  // A mutant can make the harness loop forever: a run past its time is stopped (and judged as
  // noticed, as a CI job's timeout would notice it).
  if let timeout {
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [process] in
      if process.isRunning { process.terminate() }
    }
  }
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// Prints a line unbuffered: progress is read as it happens (`make mutants | tee`), not when
/// the run ends.
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
