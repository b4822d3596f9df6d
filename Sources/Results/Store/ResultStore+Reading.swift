import Foundation
import QualifyCore
import ResultModel

extension ResultStore {
  // MARK: Reading

  /// The most recent runs, newest first.
  public func runs(limit: Int = 20) throws -> [RunRecord] {
    try database.rows(
      "SELECT \(ResultStore.runColumns) FROM runs ORDER BY started_at DESC, id DESC LIMIT ?",
      [.integer(Int64(limit))]
    ).map(ResultStore.runRecord)
  }

  /// The run `id`, or the latest when `id` is nil or `latest`; ids may be abbreviated to a
  /// unique prefix.
  public func run(_ id: String?) throws -> RunRecord? {
    let columns = ResultStore.runColumns
    if id == nil || id == "latest" {
      return try database.rows(
        "SELECT \(columns) FROM runs ORDER BY started_at DESC, id DESC LIMIT 1"
      ).first.map(ResultStore.runRecord)
    }
    let rows = try database.rows(
      "SELECT \(columns) FROM runs WHERE id LIKE ? ORDER BY id", [.text((id ?? "") + "%")])
    if rows.count == 1 { return try ResultStore.runRecord(rows[0]) }
    return try rows.first { try $0.text("id") == id }.map(ResultStore.runRecord)
  }

  /// The newest qualified run of `app` on `channel` that started before `date`: what a new
  /// run is compared with (a shared store may hold other apps' runs).
  public func lastQualified(app: String, channel: Channel, before date: Date) throws -> RunRecord? {
    try database.rows(
      "SELECT \(ResultStore.runColumns) FROM runs WHERE status = 'qualified' AND app = ? AND channel = ? AND started_at < ? ORDER BY started_at DESC, id DESC LIMIT 1",
      [.text(app), .text(channel.rawValue), .text(ResultStore.format(date))]
    ).first.map(ResultStore.runRecord)
  }

  static let runColumns =
    "id, started_at, finished_at, status, channel, app, app_version, seed, filter, platforms, pid, host, harness_version, passed, failed, control_did_not_bite, error, scope, not_applicable, app_name, app_files, waived, waivers"

  static func runRecord(_ row: Row) throws -> RunRecord {
    var record = RunRecord(
      id: try row.text("id") ?? "",
      startedAt: parse(try row.text("started_at")) ?? Date(timeIntervalSince1970: 0),
      channel: Channel(rawValue: try row.text("channel") ?? "") ?? .prod,
      app: try row.text("app") ?? "", appVersion: try row.text("app_version"),
      seed: UInt64(try row.text("seed") ?? "") ?? 0, filter: try row.text("filter"),
      platforms: (try row.text("platforms") ?? "").split(separator: ",").compactMap {
        Platform(rawValue: String($0))
      },
      harnessVersion: try row.text("harness_version") ?? "")
    record.finishedAt = parse(try row.text("finished_at"))
    record.status = RunRecord.Status(rawValue: try row.text("status") ?? "") ?? .aborted
    record.pid = Int32(try row.integer("pid") ?? 0)
    record.host = try row.text("host") ?? ""
    record.counts = [
      "passed": Int(try row.integer("passed") ?? 0),
      "failed": Int(try row.integer("failed") ?? 0),
      "control-did-not-bite": Int(try row.integer("control_did_not_bite") ?? 0),
      "error": Int(try row.integer("error") ?? 0),
      "not-applicable": Int(try row.integer("not_applicable") ?? 0),
    ]
    record.scope = decodeScope(try row.text("scope"))
    record.appName = try row.text("app_name")
    record.appFiles = try row.text("app_files").flatMap {
      try? JSONDecoder().decode([AppFileDigest].self, from: Data($0.utf8))
    }
    record.waived = Int(try row.integer("waived") ?? 0)
    record.waivers = Int(try row.integer("waivers") ?? 0)
    return record
  }

  /// The scenario results of a run, rebuilt from the tables, in scenario order.
  public func results(run: String) throws -> [ScenarioResult] {
    let rows = try database.rows(
      "SELECT id, scenario_id, title, file, platform, channel, checklist, tags, verdict, message, duration, supports, proof, na_cause, attempts FROM scenario_results WHERE run_id = ? ORDER BY scenario_id, platform",
      [.text(run)])
    return try rows.map { row in
      let executions = try database.rows(
        "SELECT id, control, mutations, expected_step, because, outcome, message, failed_step, is_error, duration, failure_reason, failure_detail, fix, failed_line FROM executions WHERE result_id = ? ORDER BY id",
        [.integer(try row.integer("id") ?? 0)])
      var check = ExecutionRecord(
        steps: [], failedStep: nil, message: nil, isError: false, duration: 0)
      var controls: [ControlRecord] = []
      for execution in executions {
        let record = try executionRecord(execution)
        if let name = try execution.text("control") {
          controls.append(
            ControlRecord(
              name: name,
              mutations: (try execution.text("mutations") ?? "").split(separator: "\n").map(
                String.init),
              expectedStep: Int(try execution.integer("expected_step") ?? 0),
              because: try execution.text("because"),
              outcome: ControlRecord.Outcome(rawValue: try execution.text("outcome") ?? "")
                ?? .error,
              message: try execution.text("message") ?? "",
              execution: record.steps.isEmpty && record.duration == 0 ? nil : record))
        } else {
          check = record
        }
      }
      return try ResultStore.scenarioResult(row, check: check, controls: controls)
    }
  }

  static func scenarioResult(_ row: Row, check: ExecutionRecord, controls: [ControlRecord])
    throws -> ScenarioResult
  {
    let list = { (column: String) in
      (try row.text(column) ?? "").split(separator: ",").map(String.init)
    }
    var result = ScenarioResult(
      scenarioID: try row.text("scenario_id") ?? "", title: try row.text("title") ?? "",
      file: try row.text("file") ?? "",
      platform: Platform(rawValue: try row.text("platform") ?? "") ?? .ios,
      channel: Channel(rawValue: try row.text("channel") ?? "") ?? .prod,
      checklist: try list("checklist").compactMap { Int($0) }, tags: try list("tags"),
      verdict: Verdict(rawValue: try row.text("verdict") ?? "") ?? .error,
      message: try row.text("message") ?? "", check: check, controls: controls,
      duration: try row.real("duration") ?? 0)
    result.supports = try list("supports").compactMap { Int($0) }
    result.proof = Proof(rawValue: try row.text("proof") ?? "") ?? .simulated
    result.notApplicableCause = try row.text("na_cause").flatMap(
      NotApplicableCause.init(rawValue:))
    result.attempts =
      try row.text("attempts").flatMap {
        try? JSONDecoder().decode([ScenarioResult.Attempt].self, from: Data($0.utf8))
      } ?? []
    return result
  }

  private func executionRecord(_ row: Row) throws -> ExecutionRecord {
    let executionID = try row.integer("id") ?? 0
    let evidenceRows = try database.rows(
      "SELECT step_idx, kind, source, summary, detail, time FROM evidence WHERE execution_id = ? ORDER BY step_idx, seq",
      [.integer(executionID)])
    var evidence: [Int: [Evidence]] = [:]
    for e in evidenceRows {
      evidence[Int(try e.integer("step_idx") ?? 0), default: []].append(
        Evidence(
          kind: Evidence.Kind(rawValue: try e.text("kind") ?? "") ?? .note,
          source: try e.text("source") ?? "", summary: try e.text("summary") ?? "",
          detail: try e.text("detail") ?? "",
          time: ResultStore.parse(try e.text("time")) ?? Date(timeIntervalSince1970: 0)))
    }
    let steps = try database.rows(
      "SELECT idx, title, status, message, duration FROM steps WHERE execution_id = ? ORDER BY idx",
      [.integer(executionID)]
    ).map { s in
      let index = Int(try s.integer("idx") ?? 0)
      return StepRecord(
        index: index, title: try s.text("title") ?? "",
        status: StepRecord.Status(rawValue: try s.text("status") ?? "") ?? .error,
        message: try s.text("message"), evidence: evidence[index] ?? [],
        duration: try s.real("duration") ?? 0)
    }
    return ExecutionRecord(
      steps: steps, failedStep: try row.integer("failed_step").map { Int($0) },
      message: try row.text("message"), isError: try row.integer("is_error") == 1,
      duration: try row.real("duration") ?? 0, failureReason: try row.text("failure_reason"),
      failureDetail: try row.text("failure_detail"), fix: try row.text("fix"),
      failedLine: try row.integer("failed_line").map { Int($0) })
  }
}
