import Foundation
import QualifyCore

/// One invocation of `qualify`, as the store keeps it.
public struct RunRecord: Sendable, Codable {
  public enum Status: String, Sendable, Codable {
    /// Written at start; still running, or killed before it could finish.
    case running
    /// Finished: a full run in which every scenario passed and every control bit.
    case qualified
    /// Finished: nothing failed, but the run covered less than a full run (a filter, one
    /// platform, controls off, a feature or env left out). Never QUALIFIED.
    case partial = "passed-partial"
    /// Finished: something failed or a control did not bite.
    case notQualified = "not-qualified"
    /// Finished with a harness error.
    case error
    /// Left `running` by a process that no longer exists.
    case aborted
  }

  public var id: String
  public var startedAt: Date
  public var finishedAt: Date?
  public var status: Status
  public var channel: Channel
  /// The app directory, absolute: what finds the checkout again (`attest`, the baseline).
  /// Outputs show `appShown`.
  public var app: String
  /// The app directory as outputs name it: relative to the working directory.
  public var appShown: String { DisplayPath.of(app) }
  /// The app's name as its profile gives it (`messages`).
  public var appName: String?
  /// `git describe` of the app, when it is a git checkout.
  public var appVersion: String?
  public var seed: UInt64
  public var filter: String?
  public var platforms: [Platform]
  public var pid: Int32
  public var host: String
  public var harnessVersion: String
  public var counts: [String: Int]
  /// Failures waivers covered, and the waivers that covered them (`qualified with N waivers`).
  public var waived = 0
  public var waivers = 0

  /// `qualified`, or `qualified (3 waived by 2 waivers)`: what `history` and the trend page
  /// show, so that a waiver never hides behind a clean status.
  public var statusText: String {
    waivers == 0
      ? status.rawValue
      : "\(status.rawValue) (\(waived) waived by \(waivers) waiver\(waivers == 1 ? "" : "s"))"
  }
  /// What the run was asked to cover.
  public var scope: RunScope?
  /// The app files the run read, with their digests: the subjects of an attestation.
  public var appFiles: [AppFileDigest]?

  public init(
    id: String, startedAt: Date, channel: Channel, app: String, appVersion: String?, seed: UInt64,
    filter: String?, platforms: [Platform], harnessVersion: String
  ) {
    self.id = id
    self.startedAt = startedAt
    self.status = .running
    self.channel = channel
    self.app = app
    self.appVersion = appVersion
    self.seed = seed
    self.filter = filter
    self.platforms = platforms
    self.pid = ProcessInfo.processInfo.processIdentifier
    self.host = ProcessInfo.processInfo.hostName
    self.harnessVersion = harnessVersion
    self.counts = [:]
  }

  /// A new run id: sortable time, then a short random suffix (`20261129-104755-3fa2`).
  public static func newID(at date: Date = Date()) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyyMMdd-HHmmss"
    let suffix = String(UInt16.random(in: 0...UInt16.max), radix: 16)
    return formatter.string(from: date) + "-" + String(repeating: "0", count: 4 - suffix.count)
      + suffix
  }
}

/// An app file a run read: its path relative to the app directory and its SHA-256 (hex).
public struct AppFileDigest: Sendable, Codable, Equatable {
  public var path: String
  public var sha256: String

  public init(path: String, sha256: String) {
    self.path = path
    self.sha256 = sha256
  }
}
