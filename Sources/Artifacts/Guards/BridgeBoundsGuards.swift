import Foundation
import QualifyCore

/// The receiver's bounds as the protocol module declares them (seed 001, *Message limits*):
/// a bound other than the seed's, or a walk that never reaches its bound, lets a message
/// through that the native side cannot hold.
extension BuildGuards {
  static let bridgeBoundsRules: [GuardRule] = [
    GuardRule(
      id: "message-bounds", title: "The protocol module's bounds are seed 001's",
      source:
        "seed 001, What crosses (8 MiB per message; 100,000 coordinates, 10,000 steps, 512 legs)",
      devAllows: false, shells: [.reactNativeBridge],
      check: { build in
        guard let bridge = build.bridge else { return [] }
        var hits: [GuardHit] = bridge.computedConstants.map {
          GuardHit(
            "\($0.value) is computed from something qualify cannot evaluate", at: $0.location,
            value: $0.value)
        }
        for (name, bound) in BridgeShellSettings.seedLimits.sorted(by: { $0.key < $1.key }) {
          guard let limit = bridge.limits[name] else {
            if !bridge.computedConstants.contains(where: { $0.value.hasPrefix(name + " ") }) {
              hits.append(
                GuardHit(
                  "the protocol module declares no \(name): the receiver's bound is unknown",
                  at: nil, value: name))
            }
            continue
          }
          if limit.value != bound {
            hits.append(
              GuardHit(
                "\(name) is \(limit.value), seed 001's bound is \(bound)", at: limit.location,
                value: "\(limit.value)"))
          }
        }
        hits += bridge.unboundedWalks.map {
          GuardHit(
            "\($0.value) never grows its depth: the walk's bound never stops it, and a message nested past the receiver's stack overflows it",
            at: $0.location, value: "depth")
        }
        hits += bridge.unreadWalks.map {
          GuardHit(
            "\($0.value) passes a depth qualify does not evaluate: whether the walk's bound stops a deeply nested message is not verified",
            at: $0.location, value: "depth", unverified: true)
        }
        // A total the parser never adds a list to, or never compares, bounds nothing.
        if let counted = bridge.boundsCounted {
          for total in ["coordinates", "steps", "legs"]
          where !counted.value.values.contains(total) {
            hits.append(
              GuardHit(
                "no \(total) counted against a limit in the parser's tally: a message of any number of \(total) passes",
                at: counted.location, value: total))
          }
        }
        return hits
      },
      fix:
        "MAX_MESSAGE_BYTES = 8 MiB, MAX_TOTAL_COORDINATES = 100_000, MAX_TOTAL_STEPS = 10_000, MAX_LEGS = 512"
    )
  ]
}
