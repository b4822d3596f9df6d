import Foundation
import QualifyCore

/// The engines of a process: each started on first use, once, then reused by every scenario
/// of the run (a fresh origin per scenario keeps their storage apart), one scenario at a time
/// per engine, and stopped when the process exits — an interrupted run included, since the
/// interrupt handler exits.
public final class EnginePool: Sendable {
  public static let shared = EnginePool()

  private struct Slot {
    var process: EngineProcess?
    var failure: WebDriverError?
  }

  private let slots = Locked([EngineKind: Slot]())
  private let locks: [EngineKind: NSLock] = Dictionary(
    uniqueKeysWithValues: EngineKind.allCases.map { ($0, NSLock()) })
  /// `--no-engines`: no engine is started; what needs one is not covered.
  public var turnedOff: Bool {
    get { off.withLock { $0 } }
    set { off.withLock { $0 = newValue } }
  }
  private let off = Locked(false)
  /// Where the engine in use writes its WebDriver exchange (the scenario's trace).
  private let sinks = Locked<[EngineKind: @Sendable (String) -> Void]>([:])

  init() {
    atexit { EnginePool.shared.stopAll() }
  }

  /// Why `kind` cannot run here (what is missing and how to install it), nil when it can.
  public func unavailable(_ kind: EngineKind) -> String? {
    kind.missing().map { "\($0) not installed (\(kind.installHint))" }
  }

  /// How long each started engine took to be ready (driver and browser).
  public var startTimes: [EngineKind: Double] {
    slots.withLock { $0.compactMapValues { $0.process?.startSeconds } }
  }

  /// Runs `body` with `kind`'s session, started if it is not yet; one caller at a time.
  public func use<T>(
    _ kind: EngineKind, transcript: (@Sendable (String) -> Void)? = nil,
    _ body: (WebDriverSession) throws -> T
  ) throws -> T {
    guard let lock = locks[kind] else { throw WebDriverError("not installed", kind.rawValue) }
    lock.lock()
    defer { lock.unlock() }
    sinks.withLock { $0[kind] = transcript }
    defer { sinks.withLock { $0[kind] = nil } }
    let process = try start(kind)
    do {
      return try body(process.session)
    } catch let error as WebDriverError where EnginePool.lost.contains(error.code) {
      // The browser or its driver went away (a crash, an OOM kill): the next scenario starts
      // the engine afresh instead of failing on a dead session.
      slots.withLock { $0[kind] = nil }
      process.stop()
      throw error
    }
  }

  /// The W3C errors of a session that is gone, and a driver that no longer answers.
  static let lost: Set<String> = ["invalid session id", "unreachable", "session not created"]

  private func start(_ kind: EngineKind) throws -> EngineProcess {
    let slot = slots.withLock { $0[kind] }
    if let process = slot?.process { return process }
    if let failure = slot?.failure { throw failure }
    if let missing = unavailable(kind) { throw WebDriverError("not installed", missing) }
    do {
      let process = try EngineProcess(kind: kind) { [sinks] line in
        sinks.withLock { $0[kind] }?(line)
      }
      slots.withLock { $0[kind] = Slot(process: process) }
      return process
    } catch let error as WebDriverError {
      slots.withLock { $0[kind] = Slot(failure: error) }
      throw error
    }
  }

  /// Ends every session and stops every driver and X server.
  public func stopAll() {
    let processes = slots.withLock { slots in
      defer { slots = [:] }
      return slots.values.compactMap(\.process)
    }
    for process in processes { process.stop() }
  }
}
