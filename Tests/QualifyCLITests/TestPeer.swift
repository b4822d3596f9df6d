import Foundation
import QualifyTestSupport

/// A test peer written in Python (Tests/Fixtures/interop/): it reads its configuration as JSON
/// on stdin and prints one JSON line once it serves.
struct TestPeer {
  let process: Process
  /// The line it printed once it served.
  let ready: [String: Any]

  init(python: String, script: String, input: [String: Any]) throws {
    process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = [Fixtures.file(script)]
    let stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = FileHandle.nullDevice
    try process.run()
    stdin.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: input))
    try stdin.fileHandleForWriting.close()
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
      let chunk = stdout.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      line.append(chunk)
    }
    ready = (try? JSONSerialization.jsonObject(with: line) as? [String: Any]) ?? [:]
  }

  func stop() {
    // SIGKILL: a test harness may hand its children an ignored SIGTERM.
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  /// A loopback port nothing listens on now, for a peer whose address must be known before
  /// it starts (the redirect URIs registered at the identity provider name it).
  static func freePort() throws -> Int {
    let probe = try Programs.run(
      "/usr/bin/python3",
      [
        "-c",
        "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])",
      ])
    guard let port = Int(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
      throw RealOIDCProvider.Failure("no free port: \(probe.stderr)")
    }
    return port
  }
}
