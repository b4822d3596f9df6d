import Foundation

/// One session's refresh tokens under seed 002's rules, with no I/O: a refresh presents the
/// live token and gets a new one (rotation); a retired token coming back is a replay, and
/// revokes the session (reuse detection); an ended session never refreshes again, and says
/// why in the contract's codes. `SessionBackend` is the HTTP around it.
///
/// A refresh that rotates is two events: `refresh` decides, then `rotate(to:)` takes the
/// token the backend drew. Anything else between them is a bug in the backend, and traps in a
/// debug build.
struct RefreshTokenMachine: Sendable {
  /// Why a session ended.
  enum Ending: String, Sendable, Equatable {
    case loggedOut = "logged out"
    case loggedOutEverywhere = "logged out everywhere"
    case deviceDeleted = "device deleted"
    case refreshReused = "refresh token reused"
    case profileBanned = "profile banned"
  }

  enum State: Sendable, Equatable {
    case live
    /// A refresh was granted with rotation; the new token is being drawn.
    case rotating
    case ended(Ending)
  }

  /// The mutations of the contract's rules (`session.no-rotation`, …).
  struct Behaviours: Sendable {
    var noReuseDetection = false
    var noRotation = false
    /// Seconds a refresh token is still taken after its expiry (a control's off-by-one).
    var leeway: TimeInterval = 0
  }

  /// What a refresh is answered with.
  enum Answer: Sendable, Equatable {
    /// A new envelope; `rotated` when a new refresh token replaces the presented one.
    case renewed(rotated: Bool)
    /// A retired token came back: the session is revoked now.
    case replayed
    /// The session had ended already.
    case ended(Ending)
    case expired
    /// The user's profile is banned: the session ends now.
    case banned

    /// The contract's answer to a refused refresh (status, `error` code, message); nil when
    /// it was renewed. A replay stays `refresh_reused`, so a client can tell a theft from an
    /// expiry.
    var refusal: (status: Int, code: String, message: String)? {
      switch self {
      case .renewed: nil
      case .replayed: (401, "refresh_reused", "This refresh token was already used.")
      case .ended(let ending):
        (
          401, ending == .refreshReused ? "refresh_reused" : "session_expired",
          "The session has ended (\(ending.rawValue))."
        )
      case .expired: (401, "session_expired", "The session has expired.")
      case .banned: (403, "profile_banned", "This profile is banned.")
      }
    }
  }

  private(set) var state: State = .live
  private(set) var current: String
  private(set) var expires: Date
  /// The tokens this session issued before `current`.
  private var retired: Set<String> = []
  let behaviours: Behaviours

  init(token: String, expires: Date, behaviours: Behaviours = Behaviours()) {
    current = token
    self.expires = expires
    self.behaviours = behaviours
  }

  /// Whether `token` is one this session issued, live or retired.
  func issued(_ token: String) -> Bool { token == current || retired.contains(token) }

  /// Ends the session; the last ending is the one a later refresh is told.
  mutating func end(_ ending: Ending) {
    assert(state != .rotating, "a session ends between a refresh and its rotation")
    state = .ended(ending)
  }

  /// `POST /v1/mobile/session/refresh` presenting `token`, one this session issued, at `now`;
  /// `banned` says whether the user's profile is banned now.
  mutating func refresh(_ token: String, now: Date, banned: Bool) -> Answer {
    precondition(issued(token), "a refresh reaches the session whose token it presents")
    assert(state != .rotating, "a refresh arrived before the last one's rotation")
    if token != current && !behaviours.noReuseDetection {
      state = .ended(.refreshReused)
      return .replayed
    }
    if case .ended(let ending) = state { return .ended(ending) }
    guard expires.addingTimeInterval(behaviours.leeway) > now else { return .expired }
    if banned {
      state = .ended(.profileBanned)
      return .banned
    }
    guard !behaviours.noRotation else { return .renewed(rotated: false) }
    state = .rotating
    return .renewed(rotated: true)
  }

  /// The new refresh token of a rotating refresh: the presented one is retired.
  mutating func rotate(to token: String) {
    assert(state == .rotating, "a rotation without a refresh that granted one")
    guard state == .rotating else { return }
    retired.insert(current)
    current = token
    state = .live
  }
}
