import Foundation
import QualifyCore
import Testing

/// Text snapshots under `Tests/<Target>/__Snapshots__/`, re-recorded when
/// `QUALIFY_RECORD_SNAPSHOTS=1` is set (swift-snapshot-testing's record mode).
public enum Snapshot {
  public static func assertMatches(
    _ text: String, named name: String, in target: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let url = URL(fileURLWithPath: Fixtures.root).appendingPathComponent(
      "Tests/\(target)/__Snapshots__/\(name)")
    let recording = ProcessInfo.processInfo.environment["QUALIFY_RECORD_SNAPSHOTS"] == "1"
    if recording || !FileManager.default.fileExists(atPath: url.path) {
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text.utf8).write(to: url)
      if !recording {
        Issue.record(
          "no snapshot \(name) existed; recorded it — check it in and run again",
          sourceLocation: sourceLocation)
      }
      return
    }
    let expected = try String(contentsOf: url, encoding: .utf8)
    if expected != text {
      let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
      let actualLines = text.split(separator: "\n", omittingEmptySubsequences: false)
      let first = zip(expectedLines, actualLines).enumerated().first {
        $0.element.0 != $0.element.1
      }
      let position =
        first.map {
          "line \($0.offset + 1):\n  expected: \($0.element.0)\n  actual:   \($0.element.1)"
        } ?? "length differs"
      Issue.record(
        "snapshot \(name) differs at \(position)\n(re-record with QUALIFY_RECORD_SNAPSHOTS=1 if the change is intended)",
        sourceLocation: sourceLocation)
    }
  }
}

/// Runs a program and collects what it printed.
public struct ProcessResult {
  public var status: Int32
  public var stdout: String
  public var stderr: String
}

public enum Programs {
  /// Runs `executable` with `arguments` in `directory`, feeding it `stdinData`, and waits
  /// for it to end.
  public static func run(
    _ executable: String, _ arguments: [String], in directory: String? = nil,
    environment: [String: String] = [:], input stdinData: Data? = nil
  ) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    var env = ProcessInfo.processInfo.environment
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let input = Pipe()
    if stdinData != nil { process.standardInput = input }
    try process.run()
    if let stdinData {
      input.fileHandleForWriting.write(stdinData)
      try input.fileHandleForWriting.close()
    }
    // Both pipes drained at once, before waiting: read one after the other, a child that
    // fills stderr while stdout is still open blocks forever (a run with many findings did).
    let errors = Locked(Data())
    let drained = DispatchGroup()
    DispatchQueue.global().async(group: drained) {
      let data = err.fileHandleForReading.readDataToEndOfFile()
      errors.withLock { $0 = data }
    }
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    drained.wait()
    let stderr = errors.withLock { $0 }
    process.waitUntilExit()
    return ProcessResult(
      status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
      stderr: String(decoding: stderr, as: UTF8.self))
  }

  /// The first of `candidates` that exists.
  public static func find(_ candidates: [String]) -> String? {
    candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
  }
}
