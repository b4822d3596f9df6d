import CSQLite
import Foundation
import QualifyCore

/// A failed SQLite call, with the statement it ran; bound values are not included.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
  public var code: Int32
  public var message: String
  public var sql: String?
  /// The database file the call was on.
  public var path: String?

  public init(code: Int32, message: String, sql: String?, path: String? = nil) {
    self.code = code
    self.message = message
    self.sql = sql
    self.path = path
  }

  public var description: String {
    "SQLite error \(code): \(message)" + (sql.map { " (in: \($0))" } ?? "")
  }

  /// The machine is in the way, not qualify: the disk is full, the file cannot be written or
  /// read, another process holds it, or it is not (or no longer) a database. The primary
  /// result code decides (extended codes carry it in their low byte).
  public var isEnvironment: Bool {
    [
      SQLITE_FULL, SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_CORRUPT, SQLITE_NOTADB,
      SQLITE_BUSY, SQLITE_LOCKED, SQLITE_PERM, SQLITE_NOLFS, SQLITE_MISMATCH,
    ].contains(code & 0xff)
  }

  /// What the user can do about an environment failure.
  public var hint: String {
    switch code & 0xff {
    case SQLITE_FULL:
      return
        "free space on the disk that holds it, or pass --db FILE on another disk; what was recorded before is intact"
    case SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_MISMATCH:
      return
        "it is not a qualify database or it is damaged: move it aside (a new one is created) or pass --db FILE"
    case SQLITE_BUSY, SQLITE_LOCKED:
      return "another process holds it: wait for it, or pass --db FILE"
    default:
      return "check the disk and the file's permissions, or pass --db FILE"
    }
  }
}

/// A value bound to or read from a statement.
public enum SQLValue: Sendable, Equatable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)

  public var text: String? { if case .text(let s) = self { return s } else { return nil } }
  public var integer: Int64? { if case .integer(let i) = self { return i } else { return nil } }
  public var real: Double? {
    switch self {
    case .real(let d): return d
    case .integer(let i): return Double(i)
    default: return nil
    }
  }
}

/// A connection owning its `sqlite3` handle.
///
/// Sendable by construction, not by the compiler's proof: the connection is opened with
/// `SQLITE_OPEN_FULLMUTEX` (SQLite serialises every call on it), and each statement, from
/// prepare to finalize, runs while the recursive `lock` is held, so a transaction and the
/// last-insert id are never interleaved with another thread's.
public final class Database: @unchecked Sendable {
  private let handle: OpaquePointer
  private let lock = NSRecursiveLock()
  public let path: String

  /// Opens (creating when needed) the database at `path`, or opens it read-only.
  public init(path: String, readOnly: Bool = false) throws {
    var pointer: OpaquePointer?
    let flags =
      readOnly
      ? SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX
      : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX
    let status = sqlite3_open_v2(path, &pointer, flags, nil)
    guard status == SQLITE_OK, let pointer else {
      let message = pointer.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
      if let pointer { sqlite3_close_v2(pointer) }
      throw SQLiteError(code: status, message: "\(message): \(path)", sql: nil, path: path)
    }
    handle = pointer
    self.path = path
    sqlite3_busy_timeout(handle, 5000)
  }

  deinit {
    sqlite3_close_v2(handle)
  }

  /// Runs one or more statements without parameters.
  public func execute(_ sql: String) throws {
    lock.lock()
    defer { lock.unlock() }
    var error: UnsafeMutablePointer<CChar>?
    let status = sqlite3_exec(handle, sql, nil, nil, &error)
    if status != SQLITE_OK {
      let message = error.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
      sqlite3_free(error)
      throw SQLiteError(code: status, message: message, sql: sql, path: path)
    }
  }

  /// Runs a statement with `values` bound to its `?` parameters.
  public func run(_ sql: String, _ values: [SQLValue] = []) throws {
    try withStatement(sql, values) { statement in
      while try statement.step() {}
    }
  }

  /// The rows of a query, each a list of column values.
  public func query(_ sql: String, _ values: [SQLValue] = []) throws -> [[SQLValue]] {
    try withStatement(sql, values) { statement in
      var rows: [[SQLValue]] = []
      while try statement.step() { rows.append(statement.row) }
      return rows
    }
  }

  /// The rows of a query, read by column name (`Row`).
  public func rows(_ sql: String, _ values: [SQLValue] = []) throws -> [Row] {
    try withStatement(sql, values) { statement in
      let columns = statement.columnNames
      var rows: [Row] = []
      while try statement.step() {
        rows.append(Row(columns: columns, values: statement.row, sql: sql, path: path))
      }
      return rows
    }
  }

  /// The rowid of the last insert on this connection.
  public var lastInsertID: Int64 {
    lock.lock()
    defer { lock.unlock() }
    return sqlite3_last_insert_rowid(handle)
  }

  /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
  public func inTransaction<T>(_ body: () throws -> T) throws -> T {
    lock.lock()
    defer { lock.unlock() }
    try execute("BEGIN IMMEDIATE")
    do {
      let value = try body()
      try execute("COMMIT")
      return value
    } catch {
      try? execute("ROLLBACK")
      throw error
    }
  }

  private func withStatement<T>(
    _ sql: String, _ values: [SQLValue], _ body: (Statement) throws -> T
  ) throws -> T {
    lock.lock()
    defer { lock.unlock() }
    let statement = try Statement(database: self, handle: handle, sql: sql)
    try statement.bind(values)
    return try body(statement)
  }

  fileprivate func error(_ status: Int32, sql: String) -> SQLiteError {
    SQLiteError(
      code: status, message: String(cString: sqlite3_errmsg(handle)), sql: sql, path: path)
  }
}

/// A prepared statement owning its `sqlite3_stmt`.
final class Statement {
  private let pointer: OpaquePointer
  private let database: Database
  let sql: String

  init(database: Database, handle: OpaquePointer, sql: String) throws {
    var statement: OpaquePointer?
    let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
    guard status == SQLITE_OK, let statement else { throw database.error(status, sql: sql) }
    pointer = statement
    self.database = database
    self.sql = sql
  }

  deinit {
    sqlite3_finalize(pointer)
  }

  func bind(_ values: [SQLValue]) throws {
    for (offset, value) in values.enumerated() {
      let index = Int32(offset + 1)
      let status: Int32
      switch value {
      case .null: status = sqlite3_bind_null(pointer, index)
      case .integer(let i): status = sqlite3_bind_int64(pointer, index, i)
      case .real(let d): status = sqlite3_bind_double(pointer, index, d)
      case .text(let s): status = sqlite3_bind_text(pointer, index, s, -1, CSQLite_transient())
      }
      guard status == SQLITE_OK else { throw database.error(status, sql: sql) }
    }
  }

  /// Advances; true while a row is available.
  func step() throws -> Bool {
    let status = sqlite3_step(pointer)
    switch status {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default: throw database.error(status, sql: sql)
    }
  }

  /// Each result column's name → its index.
  var columnNames: [String: Int] {
    var names: [String: Int] = [:]
    for column in 0..<sqlite3_column_count(pointer) {
      if let name = sqlite3_column_name(pointer, column) {
        names[String(cString: name)] = Int(column)
      }
    }
    return names
  }

  var row: [SQLValue] {
    (0..<sqlite3_column_count(pointer)).map { column in
      switch sqlite3_column_type(pointer, column) {
      case SQLITE_INTEGER: return .integer(sqlite3_column_int64(pointer, column))
      case SQLITE_FLOAT: return .real(sqlite3_column_double(pointer, column))
      case SQLITE_NULL: return .null
      default:
        guard let text = sqlite3_column_text(pointer, column) else { return .null }
        return .text(String(cString: text))
      }
    }
  }
}

extension SQLValue {
  init(_ text: String?) { self = text.map { .text($0) } ?? .null }
  init(_ integer: Int?) { self = integer.map { .integer(Int64($0)) } ?? .null }
  init(_ real: Double?) { self = real.map { .real($0) } ?? .null }
}
