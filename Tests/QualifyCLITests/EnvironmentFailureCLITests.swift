import Foundation
import QualifyTestSupport
import Testing

/// The machine in the way — a closed or full standard output, a reader that goes away, a full
/// disk under the store — ends a command with exit 4 and what to do, never with a crash, and
/// the store stays consistent.
@Suite struct EnvironmentFailureCLITests {
  let scratch: URL

  init() throws {
    scratch = try Fixtures.temporaryDirectory("qualify-environment")
  }

  /// Runs `script` with `sh -c`, `$Q` naming the built binary, in the scratch folder.
  private func shell(_ script: String) throws -> ProcessResult {
    try Programs.run(
      "/bin/sh", ["-c", script], in: scratch.path,
      environment: ["Q": CLI.binary, "SCENARIOS": CLI.scenarios, "APP": Fixtures.sampleApp])
  }

  /// The status line the script prints as `NAME=code`.
  private func status(_ name: String, in output: String) -> Int? {
    output.split(separator: "\n").first { $0.hasPrefix(name + "=") }
      .flatMap { Int($0.dropFirst(name.count + 1)) }
  }

  @Test(arguments: [
    ("closed", "\"$Q\" list >&- ; echo code=$? >&2", "Bad file descriptor"),
    ("full", "\"$Q\" list > /dev/full ; echo code=$? >&2", "No space left on device"),
    // The reader is gone before qualify writes: every write meets a closed pipe.
    ("pipe", "{ sleep 0.5; \"$Q\" list; echo code=$? >&2; } | true", "Broken pipe"),
  ])
  func aStandardOutputThatCannotBeWrittenIsExit4(
    label: String, script: String, reason: String
  ) throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let result = try shell(script)
    #expect(status("code", in: result.stderr) == 4, "\(label): \(result.stderr)")
    #expect(
      result.stderr.contains("error: could not write to standard output: \(reason)"),
      "\(label): \(result.stderr)")
    #expect(!result.stderr.contains("Fatal error"), "\(result.stderr)")
    #expect(!result.stderr.contains("crashed"), "\(result.stderr)")
  }

  @Test func aRunWithStandardOutputClosedStillRecordsEveryResult() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let result = try shell(
      "\"$Q\" --channel prod --app \"$APP\" --scenarios \"$SCENARIOS\" --filter 'sso/*' --seed 4 >&- ; echo run=$? >&2"
    )
    #expect(status("run", in: result.stderr) == 4, "\(result.stderr)")
    let history = try CLI.run(["history", "--json"], in: scratch)
    #expect(history.status == 0, "\(history.stderr)")
    #expect(history.stdout.contains("passed-partial"), "\(history.stdout)")
    let show = try CLI.run(["show", "latest"], in: scratch)
    #expect(show.stdout.contains("sso/cross-app"), "\(show.stdout)")
  }

  /// A real full disk: a small tmpfs in a mount namespace of its own (CI runs as root).
  @Test func aFullDiskUnderTheStoreIsExit4InARunInHistoryAndInShow() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let disk = scratch.appendingPathComponent("disk").path
    try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
    let result = try Programs.run(
      "/usr/bin/unshare",
      [
        "-m", "/bin/sh", "-c",
        """
        mount -t tmpfs -o size=400k tmpfs "$DISK" || { echo mount=failed; exit 0; }
        "$Q" --channel prod --app "$APP" --scenarios "$SCENARIOS" --db "$DISK/q.sqlite" --report-dir reports --seed 4 >/dev/null 2>run.err; echo run=$?
        dd if=/dev/zero of="$DISK/filler" bs=1k 2>/dev/null
        "$Q" history --db "$DISK/q.sqlite" >/dev/null 2>history.err; echo history=$?
        "$Q" show latest --db "$DISK/q.sqlite" >/dev/null 2>show.err; echo show=$?
        rm "$DISK/filler"; mount -o remount,size=8m "$DISK"
        "$Q" history --db "$DISK/q.sqlite" --json; echo after=$?
        """,
      ], in: scratch.path,
      environment: [
        "Q": CLI.binary, "SCENARIOS": CLI.scenarios, "APP": Fixtures.sampleApp, "DISK": disk,
      ])
    let out = result.stdout
    try #require(!out.contains("mount=failed"), "tmpfs needs root: \(result.stderr)")
    for name in ["run", "history", "show"] {
      let message = try String(
        contentsOf: scratch.appendingPathComponent("\(name).err"), encoding: .utf8)
      #expect(!message.contains("bug in qualify"), "\(name): \(message)")
      // Reading may need no write: when the run could still mark itself aborted and SQLite
      // kept its journal (the checkpoint had no room), history and show read the full disk
      // and succeed. Whatever must write fails with exit 4 and says why.
      if name != "run", status(name, in: out) == 0 { continue }
      #expect(status(name, in: out) == 4, "\(name): \(out)")
      #expect(message.contains("database or disk is full"), "\(name): \(message)")
      #expect(message.contains("hint: free space on the disk"), "\(name): \(message)")
    }
    // Space again: the store opens, and the interrupted run is marked, not lost.
    #expect(status("after", in: out) == 0, "\(out)")
    #expect(out.contains("\"aborted\""), "\(out)")
  }

  /// Every execution of a full run times out, three runs in a row: each ends with its
  /// verdict (not qualified: nothing was proven), no crash at exit and no hang.
  @Test func aRunWhoseEveryExecutionTimesOutEndsCleanly() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    for round in 1...3 {
      let result = try CLI.run(
        [
          "--channel", "prod", "--app", Fixtures.sampleApp, "--scenarios", CLI.scenarios,
          "--timeout", "2ms", "--seed", String(round),
        ], in: scratch)
      let output = result.stdout + result.stderr
      #expect(result.status == 1, "round \(round): \(result.status) \(output.suffix(2000))")
      #expect(result.stdout.contains("timed out after 2.0ms"))
      #expect(result.stdout.contains("NOT QUALIFIED"))
      for crash in ["crashed", "Fatal error", "internal error", "bug in qualify"] {
        #expect(!output.contains(crash), "round \(round): \(output.suffix(2000))")
      }
    }
  }
}
