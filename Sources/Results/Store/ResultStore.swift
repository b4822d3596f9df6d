import Foundation
import QualifyCore
import ResultModel

/// The SQLite results store (`Reports/qualify.sqlite`): runs, scenario results, steps,
/// controls and evidence.
///
/// A run row is written as `running` before anything runs; each scenario result lands in
/// one transaction; WAL keeps the file readable while a run writes and after a crash. A run
/// left `running` by a process that is gone is marked `aborted` by the next invocation.
public final class ResultStore: Sendable {
  let database: Database
  static let schemaVersion = 5

  /// Whether the store was opened read-only (a database qualify may read but not write).
  public let isReadOnly: Bool

  /// Opens or creates the store at `path` (its directory is created when missing); with
  /// `readOnly`, opens an existing store for reading and falls back to it when the file cannot
  /// be written.
  /// - Throws: `EnvironmentError` naming the path when it cannot be used (not a database, a
  ///   corrupt one, a folder that cannot be written).
  public init(path: String, readOnly: Bool = false) throws {
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
    var readOnly = readOnly
    if !readOnly {
      do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      } catch {
        throw EnvironmentError(
          "cannot create the folder of the results database \(path): \(error.localizedDescription)",
          hint: "pass --db FILE in a folder you can write")
      }
      if FileManager.default.fileExists(atPath: path)
        && !FileManager.default.isWritableFile(atPath: path)
      {
        readOnly = true
      }
    }
    isReadOnly = readOnly
    do {
      database = try Database(path: path, readOnly: readOnly)
      // Reading the schema is what tells a database from any other file.
      _ = try database.query("SELECT count(*) FROM sqlite_master")
      if !readOnly {
        try database.execute(
          "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;")
        try migrate()
      } else {
        let version = try database.query("PRAGMA user_version").first?.first?.integer ?? 0
        guard version == Int64(ResultStore.schemaVersion) else {
          throw EnvironmentError(
            "the results database \(path) is read-only and was written by another version of qualify (schema \(version), this one reads \(ResultStore.schemaVersion))",
            hint: "open it once where it can be written, or pass --db FILE")
        }
      }
    } catch let error as SQLiteError {
      throw EnvironmentError(
        "the results database \(path) cannot be used: \(error.message)", hint: error.hint)
    }
  }

  /// Refuses to write a read-only store with a message naming it.
  public func requireWritable() throws {
    if isReadOnly {
      throw EnvironmentError(
        "the results database \(database.path) is read-only: this command must record results",
        hint: "make it writable, or pass --db FILE")
    }
  }

  private func migrate() throws {
    let version = try database.query("PRAGMA user_version").first?.first?.integer ?? 0
    if version >= Int64(ResultStore.schemaVersion) { return }
    if version == 3 || version == 4 {
      if version == 3 { try upgradeToVersion4() }
      try upgradeToVersion5()
      return
    }
    if version == 1 || version == 2 {
      try upgradeToVersion3(from: version)
      try upgradeToVersion4()
      try upgradeToVersion5()
      return
    }
    try database.inTransaction { try database.execute(ResultStore.schema) }
  }

  /// Versions 1 and 2 to 3: the run's scope, what each result supports and how it proves
  /// (version 2); the app files a run read and each result's attempts (version 3).
  private func upgradeToVersion3(from version: Int64) throws {
    try database.inTransaction {
      if version == 1 {
        // Version 2 records the run's scope and, per result, what it supports and how it
        // proves.
        try database.execute(
          """
          ALTER TABLE runs ADD COLUMN scope TEXT;
          ALTER TABLE runs ADD COLUMN not_applicable INTEGER NOT NULL DEFAULT 0;
          ALTER TABLE runs ADD COLUMN app_name TEXT;
          ALTER TABLE scenario_results ADD COLUMN supports TEXT NOT NULL DEFAULT '';
          ALTER TABLE scenario_results ADD COLUMN proof TEXT NOT NULL DEFAULT 'simulated';
          ALTER TABLE scenario_results ADD COLUMN na_cause TEXT;
          """)
      }
      // Version 3 records the app files a run read (for attestations) and each result's
      // attempts under --repeat.
      try database.execute(
        """
        ALTER TABLE runs ADD COLUMN app_files TEXT;
        ALTER TABLE scenario_results ADD COLUMN attempts TEXT;
        PRAGMA user_version = 3;
        """)
    }
  }

  /// The whole schema of this version, for a new store.
  static let schema =
    """
    CREATE TABLE IF NOT EXISTS runs (
      id TEXT PRIMARY KEY,
      started_at TEXT NOT NULL,
      finished_at TEXT,
      status TEXT NOT NULL,
      channel TEXT NOT NULL,
      app TEXT NOT NULL,
      app_version TEXT,
      seed TEXT NOT NULL,
      filter TEXT,
      platforms TEXT NOT NULL,
      pid INTEGER NOT NULL,
      host TEXT NOT NULL,
      harness_version TEXT NOT NULL,
      passed INTEGER NOT NULL DEFAULT 0,
      failed INTEGER NOT NULL DEFAULT 0,
      control_did_not_bite INTEGER NOT NULL DEFAULT 0,
      error INTEGER NOT NULL DEFAULT 0,
      scope TEXT,
      not_applicable INTEGER NOT NULL DEFAULT 0,
      app_name TEXT,
      app_files TEXT,
      waived INTEGER NOT NULL DEFAULT 0,
      waivers INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE IF NOT EXISTS scenario_results (
      id INTEGER PRIMARY KEY,
      run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      scenario_id TEXT NOT NULL,
      title TEXT NOT NULL,
      file TEXT NOT NULL,
      platform TEXT NOT NULL,
      channel TEXT NOT NULL,
      checklist TEXT NOT NULL,
      tags TEXT NOT NULL,
      verdict TEXT NOT NULL,
      message TEXT NOT NULL,
      duration REAL NOT NULL,
      supports TEXT NOT NULL DEFAULT '',
      proof TEXT NOT NULL DEFAULT 'simulated',
      na_cause TEXT,
      attempts TEXT
    );
    CREATE INDEX IF NOT EXISTS scenario_results_run ON scenario_results(run_id);
    CREATE TABLE IF NOT EXISTS executions (
      id INTEGER PRIMARY KEY,
      result_id INTEGER NOT NULL REFERENCES scenario_results(id) ON DELETE CASCADE,
      control TEXT,
      mutations TEXT,
      expected_step INTEGER,
      because TEXT,
      outcome TEXT,
      message TEXT,
      failed_step INTEGER,
      is_error INTEGER NOT NULL,
      duration REAL NOT NULL,
      failure_reason TEXT,
      failure_detail TEXT,
      fix TEXT,
      failed_line INTEGER
    );
    CREATE TABLE IF NOT EXISTS steps (
      execution_id INTEGER NOT NULL REFERENCES executions(id) ON DELETE CASCADE,
      idx INTEGER NOT NULL,
      title TEXT NOT NULL,
      status TEXT NOT NULL,
      message TEXT,
      duration REAL NOT NULL,
      PRIMARY KEY (execution_id, idx)
    );
    CREATE TABLE IF NOT EXISTS evidence (
      execution_id INTEGER NOT NULL REFERENCES executions(id) ON DELETE CASCADE,
      step_idx INTEGER NOT NULL,
      seq INTEGER NOT NULL,
      kind TEXT NOT NULL,
      source TEXT NOT NULL,
      summary TEXT NOT NULL,
      detail TEXT NOT NULL,
      time TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS evidence_execution ON evidence(execution_id, step_idx, seq);
    PRAGMA user_version = \(ResultStore.schemaVersion);
    """

  /// Version 4 records, per run, how many failures waivers covered and how many waivers did
  /// (`history` and the trend page say "qualified with N waivers" without reading results),
  /// and per execution why it failed and the fix, so a re-rendered report says what the run
  /// said (a timeout is not an internal error; the fix stands in the blocker card).
  private func upgradeToVersion4() throws {
    try database.inTransaction {
      try database.execute(
        """
        ALTER TABLE runs ADD COLUMN waived INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE runs ADD COLUMN waivers INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE executions ADD COLUMN failure_reason TEXT;
        ALTER TABLE executions ADD COLUMN failure_detail TEXT;
        ALTER TABLE executions ADD COLUMN fix TEXT;
        PRAGMA user_version = 4;
        """)
    }
  }

  /// Version 5 records the scenario line each execution failed at: where JUnit's `line`
  /// points a scenario failure.
  private func upgradeToVersion5() throws {
    try database.inTransaction {
      try database.execute(
        """
        ALTER TABLE executions ADD COLUMN failed_line INTEGER;
        PRAGMA user_version = 5;
        """)
    }
  }

  /// RFC 3339 with milliseconds, UTC: a value type, safe from any thread.
  static let timestamp = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

  public static func format(_ date: Date) -> String { timestamp.format(date) }
  static func parse(_ text: String?) -> Date? { text.flatMap { try? timestamp.parse($0) } }

  // MARK: Runs

  /// Marks `running` runs of processes that no longer exist as `aborted`.
  /// - Returns: the ids it marked.
  @discardableResult
  public func markAbandonedRuns() throws -> [String] {
    if isReadOnly { return [] }
    let host = ProcessInfo.processInfo.hostName
    let rows = try database.rows("SELECT id, pid, host FROM runs WHERE status = 'running'")
    var marked: [String] = []
    for row in rows {
      guard let id = try row.text("id"), let pid = try row.integer("pid") else { continue }
      let sameHost = try row.text("host") == host
      // Another host's run cannot be checked; only this machine's dead processes are marked.
      guard sameHost,
        !ResultStore.isAlive(Int32(pid)) || Int32(pid) == ProcessInfo.processInfo.processIdentifier
      else { continue }
      try database.run(
        "UPDATE runs SET status = 'aborted', finished_at = COALESCE(finished_at, ?) WHERE id = ? AND status = 'running'",
        [.text(ResultStore.format(Date())), .text(id)])
      marked.append(id)
    }
    return marked
  }

  static func isAlive(_ pid: Int32) -> Bool {
    kill(pid, 0) == 0 || errno == EPERM
  }

  /// Writes the run row as `running`.
  public func begin(_ run: RunRecord) throws {
    try requireWritable()
    try database.run(
      """
      INSERT INTO runs (id, started_at, status, channel, app, app_version, seed, filter, platforms, pid, host, harness_version, scope, app_name, app_files)
      VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """,
      [
        .text(run.id), .text(ResultStore.format(run.startedAt)), .text(run.channel.rawValue),
        .text(run.app),
        SQLValue(run.appVersion), .text(String(run.seed)), SQLValue(run.filter),
        .text(run.platforms.map(\.rawValue).joined(separator: ",")), .integer(Int64(run.pid)),
        .text(run.host),
        .text(run.harnessVersion), SQLValue(run.scope.flatMap(ResultStore.encode)),
        SQLValue(run.appName), SQLValue(run.appFiles.flatMap(ResultStore.encode)),
      ])
  }

  static func encode<T: Encodable>(_ scope: T) -> String? {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return (try? encoder.encode(scope)).map { String(decoding: $0, as: UTF8.self) }
  }

  static func decodeScope(_ text: String?) -> RunScope? {
    guard let text else { return nil }
    return try? JSONDecoder().decode(RunScope.self, from: Data(text.utf8))
  }

  /// Records one scenario result in a single transaction.
  public func record(_ result: ScenarioResult, run: String) throws {
    try database.inTransaction {
      try database.run(
        """
        INSERT INTO scenario_results (run_id, scenario_id, title, file, platform, channel, checklist, tags, verdict, message, duration, supports, proof, na_cause, attempts)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        [
          .text(run), .text(result.scenarioID), .text(result.title), .text(result.file),
          .text(result.platform.rawValue),
          .text(result.channel.rawValue),
          .text(result.checklist.map(String.init).joined(separator: ",")),
          .text(result.tags.joined(separator: ",")), .text(result.verdict.rawValue),
          .text(result.message),
          .real(result.duration),
          .text(result.supports.map(String.init).joined(separator: ",")),
          .text(result.proof.rawValue), SQLValue(result.notApplicableCause?.rawValue),
          SQLValue(result.attempts.isEmpty ? nil : ResultStore.encode(result.attempts)),
        ])
      let resultID = database.lastInsertID
      try insert(result.check, resultID: resultID, control: nil)
      for control in result.controls {
        try insert(control.execution, resultID: resultID, control: control)
      }
      let column: String
      switch result.verdict {
      case .passed: column = "passed"
      case .failed: column = "failed"
      case .controlDidNotBite: column = "control_did_not_bite"
      case .error: column = "error"
      case .notApplicable: column = "not_applicable"
      }
      try database.run("UPDATE runs SET \(column) = \(column) + 1 WHERE id = ?", [.text(run)])
    }
  }

  private func insert(_ execution: ExecutionRecord?, resultID: Int64, control: ControlRecord?)
    throws
  {
    try database.run(
      """
      INSERT INTO executions (result_id, control, mutations, expected_step, because, outcome, message, failed_step, is_error, duration, failure_reason, failure_detail, fix, failed_line)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """,
      [
        .integer(resultID), SQLValue(control?.name),
        SQLValue(control?.mutations.joined(separator: "\n")),
        SQLValue(control?.expectedStep), SQLValue(control?.because),
        SQLValue(control?.outcome.rawValue),
        SQLValue(control?.message ?? execution?.message), SQLValue(execution?.failedStep),
        .integer(execution?.isError == true ? 1 : 0), .real(execution?.duration ?? 0),
        SQLValue(execution?.failureReason), SQLValue(execution?.failureDetail),
        SQLValue(execution?.fix), SQLValue(execution?.failedLine),
      ])
    let executionID = database.lastInsertID
    for step in execution?.steps ?? [] {
      try database.run(
        "INSERT INTO steps (execution_id, idx, title, status, message, duration) VALUES (?, ?, ?, ?, ?, ?)",
        [
          .integer(executionID), .integer(Int64(step.index)), .text(step.title),
          .text(step.status.rawValue), SQLValue(step.message), .real(step.duration),
        ])
      for (seq, evidence) in step.evidence.enumerated() {
        try database.run(
          "INSERT INTO evidence (execution_id, step_idx, seq, kind, source, summary, detail, time) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
          [
            .integer(executionID), .integer(Int64(step.index)), .integer(Int64(seq)),
            .text(evidence.kind.rawValue),
            .text(evidence.source), .text(evidence.summary), .text(evidence.detail),
            .text(ResultStore.format(evidence.time)),
          ])
      }
    }
  }

  /// Replaces the run's recorded scope (what the run turned out to cover: one stopped early).
  public func update(scope: RunScope, run: String) throws {
    try database.run(
      "UPDATE runs SET scope = ? WHERE id = ?",
      [SQLValue(ResultStore.encode(scope)), .text(run)])
  }

  /// Writes the final status.
  /// - Parameters:
  ///   - waived: the failures waivers covered; `waivers`: the waivers that covered them.
  public func finish(run: String, status: RunRecord.Status, waived: Int = 0, waivers: Int = 0)
    throws
  {
    try database.run(
      "UPDATE runs SET status = ?, finished_at = ?, waived = ?, waivers = ? WHERE id = ?",
      [
        .text(status.rawValue), .text(ResultStore.format(Date())), .integer(Int64(waived)),
        .integer(Int64(waivers)), .text(run),
      ])
  }

}
