import Foundation
import QualifyCore

/// What the app's `ota.ts` refuses, named at its line (issue 26: the real client's rules,
/// read from its code, not assumed): a rule written weaker than the release process relies on
/// lets a replayed pointer, a downgrade or a crashing bundle onto the fleet.
extension BuildGuards {
  static let otaClientRules: [GuardRule] = [
    GuardRule(
      id: "ota-client-code",
      title: "The app's OTA client refuses what the release process relies on",
      source:
        "seed 000, Bundle versioning and Rollback (strictly greater count, a failed boot never re-applied); the real repository's docs/mobile-release.md, Release sequence (a strictly greater sequence, the native floor)",
      devAllows: false, shells: [.singleOrigin],
      check: { build in
        guard build.features.ota.enabled else { return [] }
        guard let code = build.otaClient else {
          let path = build.files["web.ota"] ?? AppProfile.conventionalPaths["web.ota"] ?? ""
          return [
            GuardHit(
              "the OTA client (\(path), the profile's web.ota) was not read: what the app refuses before staging a bundle is unverified",
              at: nil, value: "ota.ts", unverified: true)
          ]
        }
        var hits: [GuardHit] = []
        let sequenced = build.otaOrdering == "sequence"
        let order = sequenced ? code.sequenceFloor : code.countOrder
        let what = sequenced ? "sequence" : "count"
        switch order.value {
        case .refusesEqual: break
        case .acceptsEqual:
          hits.append(
            GuardHit(
              "ota.ts refuses a manifest only when its \(what) is lower: one whose \(what) equals the \(sequenced ? "applied" : "running") one applies again (a replayed or re-pointed manifest moves the fleet)",
              at: order.location, value: "\(what) < applied"))
        // The id pattern that leaves the count unread is named below, once.
        case .none where code.unreadId != nil && order.location == code.idPattern?.location: break
        case .none:
          hits.append(
            GuardHit(
              "ota.ts holds no manifest's \(what) against the \(sequenced ? "applied sequence" : "running bundle's count"): any manifest that differs applies, a downgrade included"
                + order.because,
              // Where the refusal was undone, when a line undid it; else the file.
              at: order.derivation.isEmpty
                ? FileLocation(file: code.file, line: 1, column: 1) : order.location,
              value: "no \(what) refusal"))
        }
        if let unread = code.unreadComparison, !sequenced, order.value != .none {
          hits.append(
            GuardHit(
              "compareVersionCounts returns null when `\(unread.value)`, a test qualify does not evaluate: whether two counted releases are left unordered (the count refusal skipped) is not verified",
              at: unread.location, value: "compareVersionCounts", unverified: true))
        }
        if let unread = code.unreadId, let pattern = code.idPattern {
          hits.append(
            GuardHit(
              "ota.ts reads a bundle id with /\(pattern.value)/, which does not match \(unread) (a count and a short SHA as git writes them): such a release has no count to order it by",
              at: pattern.location, value: "id pattern"))
        }
        if !code.failedBootGuard.value {
          hits.append(
            GuardHit(
              "ota.ts does not refuse a version recorded as a failed boot (ota-boot-failed-version): a bundle that crashed is downloaded and applied again, in a loop",
              at: FileLocation(file: code.file, line: 1, column: 1), value: "no failed-boot refusal"
            ))
        }
        if sequenced && !code.nativeFloor.value {
          hits.append(
            GuardHit(
              "ota.ts has no native floor: under sequence ordering a <count>-<sha> bundle older than the store build applies whenever its sequence is new",
              at: FileLocation(file: code.file, line: 1, column: 1), value: "no native floor"))
        }
        return hits
      },
      fix:
        "in ota.ts, return before staging when the manifest's sequence is <= the applied one (the count <= the running one's), when its version is the recorded failed boot, and when its count is below the native build's"
    )
  ]
}
