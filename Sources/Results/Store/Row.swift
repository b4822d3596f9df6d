import CSQLite

/// A row read by column name, as GRDB reads one: a column the query did not select, or a
/// value of another type than the one asked for, throws (`SQLITE_MISMATCH`, a damaged or
/// foreign database) instead of reading as a default. NULL reads as nil.
public struct Row: Sendable {
  /// The query's column names → their index, shared by its rows.
  let columns: [String: Int]
  let values: [SQLValue]
  let sql: String
  let path: String

  public func text(_ column: String) throws -> String? {
    switch try value(column) {
    case .null: return nil
    case .text(let text): return text
    case let other: throw mismatch(column, holds: other, wanted: "text")
    }
  }

  public func integer(_ column: String) throws -> Int64? {
    switch try value(column) {
    case .null: return nil
    case .integer(let integer): return integer
    case let other: throw mismatch(column, holds: other, wanted: "an integer")
    }
  }

  /// A REAL column; an integer is taken too, as SQLite stores a whole REAL value as one.
  public func real(_ column: String) throws -> Double? {
    switch try value(column) {
    case .null: return nil
    case .real(let real): return real
    case .integer(let integer): return Double(integer)
    case let other: throw mismatch(column, holds: other, wanted: "a number")
    }
  }

  private func value(_ column: String) throws -> SQLValue {
    guard let index = columns[column] else {
      throw SQLiteError(
        code: SQLITE_MISMATCH, message: "the query selects no column \(column)", sql: sql,
        path: path)
    }
    return values[index]
  }

  private func mismatch(_ column: String, holds value: SQLValue, wanted: String) -> SQLiteError {
    let holds =
      switch value {
      case .null: "NULL"
      case .integer: "an integer"
      case .real: "a real number"
      case .text: "text"
      }
    return SQLiteError(
      code: SQLITE_MISMATCH, message: "column \(column) holds \(holds) where \(wanted) belongs",
      sql: sql, path: path)
  }
}
