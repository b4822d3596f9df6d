import Foundation
import QualifyCore

/// An expected failure the release owner accepts for a while (`qualify-waivers.json` in the
/// app repository, docs/release-report.md): a waived failure shows as waived and does not block the
/// release; an expired waiver no longer covers anything and is reported.
public struct Waiver: Sendable, Codable, Equatable {
  /// The scenario id (`push/receive`).
  public var check: String
  /// Only on this platform; nil waives the check on both.
  public var platform: Platform?
  /// Only this negative control's not biting; nil waives the check's own failure and any of
  /// its controls.
  public var control: String?
  public var reason: String
  public var owner: String
  /// The last day it applies (`YYYY-MM-DD`, UTC).
  public var expires: String
  /// A ticket or a document that explains it.
  public var reference: String?
  /// `qualify-waivers.json:12`, for messages.
  public var location: String?
  /// Whether `expires` was before the run's day when the run read it: an expired waiver
  /// covers nothing.
  public var expired: Bool = false
  /// `allowOnRelease`: the owner accepts that it waives a check guarding store builds on a
  /// release channel (a dev server, cleartext, push pairing); without it such a waiver covers
  /// nothing there.
  public var allowOnRelease: Bool?

  public init(
    check: String, platform: Platform? = nil, control: String? = nil, reason: String,
    owner: String, expires: String, reference: String? = nil, location: String? = nil
  ) {
    self.check = check
    self.platform = platform
    self.control = control
    self.reason = reason
    self.owner = owner
    self.expires = expires
    self.reference = reference
    self.location = location
  }

  /// `push/receive [ios] control "…"`, for lists.
  public var label: String {
    check + (platform.map { " [\($0.rawValue)]" } ?? "")
      + (control.map { " control \"\($0)\"" } ?? "")
  }

  /// Whether it covers the check's own failure of `result`.
  public func coversCheck(of result: ScenarioResult) -> Bool {
    !expired && control == nil && check == result.scenarioID
      && (platform == nil || platform == result.platform)
  }

  /// Whether it covers `control` of `result` not biting.
  public func covers(control name: String, of result: ScenarioResult) -> Bool {
    !expired && check == result.scenarioID && (platform == nil || platform == result.platform)
      && (control == nil || control == name)
  }

  /// The UTC day of `date` as `YYYY-MM-DD`, the form `expires` is compared in.
  public static func day(_ date: Date) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
    let parts = calendar.dateComponents([.year, .month, .day], from: date)
    return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
  }
}

extension ScenarioResult {
  /// The waivers that keep this failing result from blocking, nil when they do not: the
  /// check's own failure needs a waiver of the check; controls that did not bite each need a
  /// waiver of theirs (one per control, so several may apply). Errors of the harness are never
  /// waived.
  public func waivers(among waivers: [Waiver]) -> [Waiver]? {
    switch verdict {
    case .failed:
      return waivers.first { $0.coversCheck(of: self) }.map { [$0] }
    case .controlDidNotBite:
      let missed = controls.filter { $0.outcome == .didNotBite || $0.outcome == .bitElsewhere }
      guard !missed.isEmpty else { return nil }
      var covering: [Waiver] = []
      for control in missed {
        guard let waiver = waivers.first(where: { $0.covers(control: control.name, of: self) })
        else { return nil }
        if !covering.contains(waiver) { covering.append(waiver) }
      }
      return covering
    case .passed, .error, .notApplicable:
      return nil
    }
  }

  /// The waiver covering `control`'s not biting, among those that waive this result.
  public func waiver(forControl control: String, among waivers: [Waiver]) -> Waiver? {
    waivers.first { $0.covers(control: control, of: self) }
  }
}
