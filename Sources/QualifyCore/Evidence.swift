import Foundation

/// One recorded fact of a scenario run: what happened, so a verdict can be read rather than
/// trusted (DESIGN.md, *Evidence*). Text is redacted before an `Evidence` is created.
public struct Evidence: Sendable, Codable, Hashable {
  public enum Kind: String, Sendable, Codable, CaseIterable {
    /// An HTTP exchange made by a simulated client.
    case http
    /// An event of a mock component (IdP `LOGIN`, backend session created, gateway delivery).
    case event
    /// A browser navigation chain.
    case navigation
    /// A cookie store snapshot.
    case cookies
    /// A decision of a simulated shell (updater refused a manifest, transport refused).
    case decision
    /// A static finding about an app artifact.
    case finding
    /// Anything else worth reading.
    case note
  }

  public var kind: Kind
  /// Who produced it: `idp`, `backend`, `ios/messages`, `browser`, …
  public var source: String
  /// One line.
  public var summary: String
  /// Multi-line detail (headers, bodies), possibly empty.
  public var detail: String
  /// The virtual time at which it happened.
  public var time: Date

  public init(kind: Kind, source: String, summary: String, detail: String = "", time: Date) {
    self.kind = kind
    self.source = source
    self.summary = summary
    self.detail = detail
    self.time = time
  }
}

/// The evidence of one scenario run, appended to by devices and mocks, read by the runner.
public final class EvidenceLog: @unchecked Sendable {
  private let lock = NSLock()
  private var entries: [Evidence] = []
  private var observers: [(Evidence) -> Void] = []

  public init() {}

  public func append(_ evidence: Evidence) {
    lock.lock()
    entries.append(evidence)
    let current = observers
    lock.unlock()
    for observer in current { observer(evidence) }
  }

  /// Calls `observer` for every entry appended from now on (the `--trace` printer).
  public func observe(_ observer: @escaping (Evidence) -> Void) {
    lock.lock()
    observers.append(observer)
    lock.unlock()
  }

  public var all: [Evidence] {
    lock.lock()
    defer { lock.unlock() }
    return entries
  }

  public var count: Int {
    lock.lock()
    defer { lock.unlock() }
    return entries.count
  }

  /// Entries appended at or after position `index`.
  public func since(_ index: Int) -> [Evidence] {
    lock.lock()
    defer { lock.unlock() }
    return index < entries.count ? Array(entries[index...]) : []
  }
}
