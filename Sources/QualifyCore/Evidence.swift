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
    /// What a real engine showed: a PNG, base64 in the detail.
    case screenshot
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
public final class EvidenceLog: Sendable {
  private struct State {
    var entries: [Evidence] = []
    var observers: [@Sendable (Evidence) -> Void] = []
  }

  private let state = Locked(State())

  public init() {}

  public func append(_ evidence: Evidence) {
    let current = state.withLock { state in
      state.entries.append(evidence)
      return state.observers
    }
    for observer in current { observer(evidence) }
  }

  /// Calls `observer` for every entry appended from now on (the `--trace` printer).
  public func observe(_ observer: @escaping @Sendable (Evidence) -> Void) {
    state.withLock { $0.observers.append(observer) }
  }

  public var all: [Evidence] { state.withLock { $0.entries } }

  public var count: Int { state.withLock { $0.entries.count } }

  /// Entries appended at or after position `index`.
  public func since(_ index: Int) -> [Evidence] {
    state.withLock { index < $0.entries.count ? Array($0.entries[index...]) : [] }
  }
}
