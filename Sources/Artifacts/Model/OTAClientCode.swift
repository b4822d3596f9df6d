import Foundation
import QualifyCore

/// What the app's own OTA client (`ota.ts`, seed 000's `checkAndApplyOtaUpdate`) refuses,
/// read from its code: the simulated updater applies these rules, so a regression in the
/// real file fails the OTA scenarios instead of being assumed away.
public struct OTAClientCode: Sendable {
  /// How a manifest is held against what the device already has.
  public enum Floor: String, Sendable {
    /// Refused unless strictly newer (`sequence <= applied` → refuse): what the docs say.
    case refusesEqual = "refuses equal and older"
    /// Only an older one is refused (`sequence < applied`): an equal one applies again.
    case acceptsEqual = "refuses older only"
    /// No refusal found: any manifest applies.
    case none = "no refusal"
  }

  public var file: String
  /// The manifest's `sequence` against the highest one applied (`ota-applied-sequence`).
  public var sequenceFloor: Sourced<Floor>
  /// A manifest's `<count>-<sha>` count against the running bundle's (manifests without a
  /// sequence, and apps ordering by count).
  public var countOrder: Sourced<Floor>
  /// A bundle older than the binary's builtin refused (the native floor).
  public var nativeFloor: Sourced<Bool>
  /// A version recorded as a failed boot (`ota-boot-failed-version`) refused.
  public var failedBootGuard: Sourced<Bool>
  /// The pattern the client reads a `<count>-<sha>` id with (`/^(\d+)-[0-9a-f]{7,40}$/`), and
  /// the first id of the release process's shape it does not read (nil: it reads them all).
  public var idPattern: Sourced<String>?
  public var unreadId: String?
  /// An early `return null` of `compareVersionCounts` whose test qualify could not evaluate,
  /// at its line: whether it leaves two counted ids unordered is not known.
  public var unreadComparison: Sourced<String>?
  /// The count refusal is skipped for an id that has no count (`order !== null && …`).
  public var skipsUnorderedIds = false

  public init(
    file: String, sequenceFloor: Sourced<Floor>, countOrder: Sourced<Floor>,
    nativeFloor: Sourced<Bool>, failedBootGuard: Sourced<Bool>
  ) {
    self.file = file
    self.sequenceFloor = sequenceFloor
    self.countOrder = countOrder
    self.nativeFloor = nativeFloor
    self.failedBootGuard = failedBootGuard
  }
}
