import Foundation

/// The time every simulated component reads: it moves only when a scenario says so.
///
/// Every TTL in the simulated world (the 60 s exchange token, the 10 min mobile flag, cookie
/// expiry, the 12 h session) is measured against this clock, so `advance 61s` in a scenario
/// is instantaneous and reproducible. Nothing in the harness sleeps.
public final class VirtualClock: Sendable {
  /// The instant every fresh world starts at, fixed so that the same seed gives the same run.
  public static let epoch = Date(timeIntervalSince1970: 1_798_761_600)  // 2027-01-01T00:00:00Z

  /// The virtual instant, or the offset added to the wall clock when `followsRealTime`.
  private let current: Locked<Date>
  private let followsRealTime: Bool

  public init(start: Date = VirtualClock.epoch) {
    current = Locked(start)
    followsRealTime = false
  }

  private init(realTime: Void) {
    current = Locked(Date(timeIntervalSince1970: 0))
    followsRealTime = true
  }

  /// A clock that follows the wall clock (`qualify serve`, where real clients wait in real
  /// time); `advance` still moves it ahead.
  public static func realTime() -> VirtualClock { VirtualClock(realTime: ()) }

  /// The current virtual instant.
  public var now: Date {
    let value = current.withLock { $0 }
    return followsRealTime ? Date().addingTimeInterval(value.timeIntervalSince1970) : value
  }

  /// Moves the clock forward; a negative interval is a programming error and is ignored.
  public func advance(by seconds: TimeInterval) {
    guard seconds > 0 else { return }
    current.withLock { $0 = $0.addingTimeInterval(seconds) }
  }
}
