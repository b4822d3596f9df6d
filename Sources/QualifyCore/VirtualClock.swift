import Foundation

/// The time every simulated component reads: it moves only when a scenario says so.
///
/// Every TTL in the simulated world (the 60 s exchange token, the 10 min mobile flag, cookie
/// expiry, the 12 h session) is measured against this clock, so `advance 61s` in a scenario
/// is instantaneous and reproducible. Nothing in the harness sleeps.
public final class VirtualClock: @unchecked Sendable {
  /// The instant every fresh world starts at, fixed so that the same seed gives the same run.
  public static let epoch = Date(timeIntervalSince1970: 1_798_761_600)  // 2027-01-01T00:00:00Z

  private let lock = NSLock()
  private var current: Date
  private let followsRealTime: Bool

  public init(start: Date = VirtualClock.epoch) {
    current = start
    followsRealTime = false
  }

  private init(realTime: Void) {
    current = Date(timeIntervalSince1970: 0)
    followsRealTime = true
  }

  /// A clock that follows the wall clock (`qualify serve`, where real clients wait in real
  /// time); `advance` still moves it ahead.
  public static func realTime() -> VirtualClock { VirtualClock(realTime: ()) }

  /// The current virtual instant.
  public var now: Date {
    lock.lock()
    defer { lock.unlock() }
    return followsRealTime ? Date().addingTimeInterval(current.timeIntervalSince1970) : current
  }

  /// Moves the clock forward; a negative interval is a programming error and is ignored.
  public func advance(by seconds: TimeInterval) {
    guard seconds > 0 else { return }
    lock.lock()
    current = current.addingTimeInterval(seconds)
    lock.unlock()
  }
}
