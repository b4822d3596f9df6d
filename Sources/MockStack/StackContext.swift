import Artifacts
import Foundation
import QualifyCore

/// What every mock of one world shares: the virtual clock, the seeded randomness, the event
/// log, the redactor and the behaviours switched by a control.
public final class StackContext: Sendable {
  public let clock: VirtualClock
  public let random: RandomSource
  public let evidence: EvidenceLog
  public let redactor: Redactor
  public let channel: Channel
  public let behaviours: StackBehaviours

  public init(
    clock: VirtualClock, random: RandomSource, evidence: EvidenceLog, redactor: Redactor,
    channel: Channel, behaviours: StackBehaviours
  ) {
    self.clock = clock
    self.random = random
    self.evidence = evidence
    self.redactor = redactor
    self.channel = channel
    self.behaviours = behaviours
  }

  /// Records an event of a mock component (redacted).
  public func event(_ source: String, _ summary: String, detail: String = "") {
    evidence.append(
      Evidence(
        kind: .event, source: source, summary: redactor.redact(summary),
        detail: redactor.redact(detail), time: clock.now))
  }

  /// A fresh secret value, registered with the redactor before anyone can print it.
  public func secret(byteCount: Int = 32) -> String {
    let value = random.token(byteCount: byteCount)
    redactor.register(value)
    return value
  }
}
