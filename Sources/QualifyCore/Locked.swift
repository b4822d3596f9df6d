import Foundation

/// A value behind a lock, with the API and the checks of the standard library's `Mutex`: the
/// value goes in and out as `sending`, so the compiler proves that nothing guarded escapes to
/// another thread without the lock.
///
/// Not `Synchronization.Mutex` itself: on Linux it waits on futexes directly, which
/// ThreadSanitizer cannot see, so `make tsan` would report every guarded access as a race.
/// This one waits on a pthread mutex (`NSLock`), which it can.
public final class Locked<Value>: @unchecked Sendable {
  // The one unchecked conformance this type exists for: `value` is only touched inside
  // `withLock`, while `lock` is held.
  private let lock = NSLock()
  private var value: Value

  public init(_ initialValue: sending Value) {
    value = initialValue
  }

  /// Runs `body` with the value while holding the lock.
  public func withLock<Result, E: Error>(
    _ body: (inout sending Value) throws(E) -> sending Result
  ) throws(E) -> sending Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
