import Foundation
import QualifyCore

/// A `capacitor.config.ts` (or `.js`) evaluated as `cap sync` runs it with a channel's env,
/// giving the `capacitor.config.json` the sync would write: what a release build ships when the
/// synced file is gitignored, as it is in the real Messages repository.
///
/// Only the subset config files are written in is evaluated: `import`, `const`/`let`/`var`
/// (type annotations skipped), `if (…) { throw new Error(…) }` guards, `export default`,
/// literals, templates, objects with spreads and shorthand, `process.env.NAME`, `||`, `??`,
/// `&&`, `!`, `?:`, `===`/`!==`, `+`, `as`/`satisfies`, and `Boolean`, `String`, `Number`,
/// `parseInt`, `JSON.parse`, `Buffer.from(…).toString(…)` and a few string methods. Anything
/// else that the result depends on is an error naming its line: qualify never guesses a value
/// the build would compute. The script is never run.
public struct ConfigScript {
  /// What evaluating the script gave.
  public struct Result: Sendable {
    /// The exported configuration, as `JSON.stringify` would write it (undefined keys dropped).
    public var config: JSONValue
    /// For each key path of `config` (`server.url`), the env variables its value was computed
    /// from, in the order they were read: the value's derivation.
    public var reads: [String: [String]]
    /// The first `throw` the script reaches with this env (a guard refusing the build), or a
    /// property read of `undefined`: `cap sync` would fail with this message.
    public var failure: (message: String, line: Int)?
  }

  /// Evaluates `text` with `env` standing for `process.env`.
  /// - Throws: a `Diagnostic` at the line of what the subset cannot evaluate, or when the
  ///   script exports no configuration.
  public static func evaluate(text: String, file: String, env: @escaping (String) -> String?)
    throws -> Result
  {
    var evaluator = Evaluator(
      tokens: try tokens(text, file: file), file: file, env: env)
    try evaluator.program()
    guard let exported = evaluator.exported else {
      throw Diagnostic.error(
        at: FileLocation(file: file, line: 1, column: 1),
        "no `export default` (or `module.exports =`) of a configuration object")
    }
    var reads: [String: [String]] = [:]
    let config = exported.json(path: "", reads: &reads)
    return Result(config: config, reads: reads, failure: evaluator.failure)
  }

  /// A value as the evaluator carries it: what JavaScript would hold, and the env variables it
  /// was computed from.
  struct Traced {
    var value: Value
    var reads: [String] = []

    init(_ value: Value, reads: [String] = []) {
      self.value = value
      self.reads = reads
    }

    func adding(_ more: [String]) -> Traced { Traced(value, reads: more + reads) }

    func json(path: String, reads table: inout [String: [String]]) -> JSONValue {
      if !reads.isEmpty {
        var seen = Set<String>()
        table[path] = reads.filter { seen.insert($0).inserted }
      }
      switch value {
      case .null, .undefined, .global, .method, .bytes, .error: return .null
      case .bool(let b): return .bool(b)
      case .number(let n): return .number(n)
      case .string(let s): return .string(s)
      case .array(let items):
        return .array(
          items.enumerated().map { $1.json(path: "\(path).\($0)", reads: &table) })
      case .object(let members):
        return .object(
          members.compactMap { member in
            if case .undefined = member.value.value { return nil }
            let inner = path.isEmpty ? member.key : "\(path).\(member.key)"
            return (
              member.key, member.value.adding(reads).json(path: inner, reads: &table), member.line
            )
          })
      }
    }
  }

  struct Member {
    var key: String
    var value: Traced
    var line: Int
  }

  indirect enum Value {
    case undefined
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case bytes([UInt8])
    case object([Member])
    case array([Traced])
    /// A global the subset knows (`process`, `process.env`, `Buffer.from`, `Boolean`, …).
    case global(String)
    /// A method read off a value, not yet called.
    case method(Traced, String)
    /// What `new Error(message)` makes.
    case error(String)

    /// JavaScript's truthiness.
    var truthy: Bool {
      switch self {
      case .undefined, .null: return false
      case .bool(let b): return b
      case .number(let n): return n != 0 && !n.isNaN
      case .string(let s): return !s.isEmpty
      default: return true
      }
    }

    /// `String(value)`.
    var text: String {
      switch self {
      case .undefined: return "undefined"
      case .null: return "null"
      case .bool(let b): return b ? "true" : "false"
      case .number(let n):
        return n == n.rounded() && abs(n) < 1e15 ? String(Int(n)) : String(n)
      case .string(let s): return s
      case .bytes(let b): return String(decoding: b, as: UTF8.self)
      case .array(let items): return items.map(\.value.text).joined(separator: ",")
      case .error(let message): return "Error: \(message)"
      case .object, .global, .method: return "[object Object]"
      }
    }

    /// `===`, for the primitive values a config compares.
    func strictlyEquals(_ other: Value) -> Bool {
      switch (self, other) {
      case (.undefined, .undefined), (.null, .null): return true
      case (.bool(let a), .bool(let b)): return a == b
      case (.number(let a), .number(let b)): return a == b
      case (.string(let a), .string(let b)): return a == b
      default: return false
      }
    }

    init(json: JSONValue) {
      switch json {
      case .null: self = .null
      case .bool(let b): self = .bool(b)
      case .number(let n): self = .number(n)
      case .string(let s): self = .string(s)
      case .array(let items): self = .array(items.map { Traced(Value(json: $0)) })
      case .object(let members):
        self = .object(
          members.map { Member(key: $0.key, value: Traced(Value(json: $0.value)), line: $0.line) })
      }
    }
  }
}
