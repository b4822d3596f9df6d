import Foundation
import QualifyCore
import ResultModel

/// The release checklist of the run's shell kind: the rows of the report's matrix.
public enum ReleaseChecklist {
  /// What a release-channel run must say about the items its simulation cannot settle (for
  /// seed 000's shell, until a run against the real IdP backs items 1 and 2), nil otherwise.
  public static func caveat(of scope: RunScope, channel: Channel) -> String? {
    guard channel.isRelease else { return nil }
    let shell = scope.shellKind
    if shell.realIdentityProviderSettlesCaveat && scope.realIdentityProvider != nil { return nil }
    return shell.releaseCaveat
  }
}

/// One cell of the checklist matrix: an item on a platform.
public struct ChecklistCell: Sendable, Codable {
  public enum State: String, Sendable, Codable {
    /// At least one check proving the item on the platform passed, none failed.
    case passed
    /// A check proving it failed (or a control did not bite).
    case failed
    /// Every check proving it that failed is covered by a waiver in force.
    case waived
    /// A check proving it could not run (harness error).
    case error
    /// Every check proving it is not applicable to this build.
    case notApplicable = "not-applicable"
    /// The profile declares this release does not ship the feature every check proving it
    /// needs (`features.deepLinks = false`): said as such, never passed.
    case notInRelease = "not-in-this-release"
    /// The catalogue has checks for it, but this (partial) run did not select them, or the
    /// channel's env was not supplied.
    case notRun = "not-run"
    /// No check proves it.
    case notCovered = "not-covered"
  }

  public var item: Int
  public var platform: Platform
  public var state: State
  /// Indices into the results that prove it, and those that only support it.
  public var proving: [Int]
  public var supporting: [Int]
  /// How the passing checks proved it (`static`, `simulated`).
  public var proofs: [Proof]
  public var failing: [String]
}

/// The checklist matrix of a run: each item on each platform it concerns.
public struct ChecklistCoverage: Sendable {
  public var cells: [ChecklistCell]
  /// The shell kind whose checklist the cells are of.
  public var shell: ShellKind

  /// - Parameter catalogue: item → platforms for which the whole catalogue has a proving
  ///   check on this channel (tells "not run" from "not covered" in partial runs).
  /// - Parameter waived: indices of failing results a waiver covers.
  public init(
    _ results: [ScenarioResult], catalogue: [Int: Set<Platform>]? = nil, waived: Set<Int> = [],
    shell: ShellKind = .default
  ) {
    self.shell = shell
    var cells: [ChecklistCell] = []
    for entry in shell.checklist {
      let item = entry.number
      for platform in entry.platforms {
        let proving = results.indices.filter {
          results[$0].checklist.contains(item) && results[$0].platform == platform
        }
        let supporting = results.indices.filter {
          results[$0].supports.contains(item) && results[$0].platform == platform
        }
        let verdicts = proving.filter { !waived.contains($0) }.map { results[$0].verdict }
        let state: ChecklistCell.State
        if verdicts.contains(.failed) || verdicts.contains(.controlDidNotBite) {
          state = .failed
        } else if proving.contains(where: waived.contains) && !verdicts.contains(.error) {
          state = .waived
        } else if verdicts.contains(.error) {
          state = .error
        } else if verdicts.contains(.passed) {
          state = .passed
        } else if !verdicts.isEmpty
          && proving.allSatisfy({
            [.envNotSupplied, .unverified].contains(results[$0].notApplicableCause)
          })
        {
          state = .notRun
        } else if !verdicts.isEmpty
          && proving.allSatisfy({
            [.renderUnavailable, .noThreadView, .enginesOff].contains(
              results[$0].notApplicableCause)
          })
        {
          // What only a real engine shows, with no engine or no thread view to show it in.
          state = .notCovered
        } else if !verdicts.isEmpty
          && proving.allSatisfy({ results[$0].notApplicableCause == .notInRelease })
        {
          state = .notInRelease
        } else if !verdicts.isEmpty {
          state = .notApplicable
        } else if catalogue?[item]?.contains(platform) == true {
          state = .notRun
        } else {
          state = .notCovered
        }
        let passing = proving.filter { results[$0].verdict == .passed }
        cells.append(
          ChecklistCell(
            item: item, platform: platform, state: state, proving: proving,
            supporting: supporting,
            proofs: Array(Set(passing.map { results[$0].proof })).sorted {
              $0.rawValue < $1.rawValue
            },
            failing: proving.filter {
              [.failed, .controlDidNotBite, .error].contains(results[$0].verdict)
            }.map { results[$0].displayName }))
      }
    }
    self.cells = cells
  }

  public func cells(of item: Int) -> [ChecklistCell] { cells.filter { $0.item == item } }

  /// Items proven on every platform they concern.
  public var coveredItems: [Int] {
    shell.checklist.map(\.number).filter { item in
      let own = cells(of: item)
      return !own.isEmpty && own.allSatisfy { $0.state == .passed }
    }
  }

  public var notApplicableItems: [Int] {
    shell.checklist.map(\.number).filter { item in
      let own = cells(of: item)
      return !own.isEmpty && own.allSatisfy { $0.state == .notApplicable }
    }
  }

  /// Items the release does not ship, as the profile declares.
  public var notInReleaseItems: [Int] {
    shell.checklist.map(\.number).filter { item in
      let own = cells(of: item)
      return !own.isEmpty && own.allSatisfy { $0.state == .notInRelease }
    }
  }

  /// `5 of 8 checklist items covered (failed: 6; not judged (harness error): 2; not covered:
  /// 3, 8; not applicable: 4)`.
  public var summary: String {
    let all = shell.checklist.map(\.number)
    let covered = coveredItems
    let applicable = notApplicableItems
    let notShipped = notInReleaseItems
    let failed = all.filter { item in cells(of: item).contains { $0.state == .failed } }
    // A check that could not run judged nothing: the item is not called failed for it.
    let errored = all.filter { item in
      !failed.contains(item) && cells(of: item).contains { $0.state == .error }
    }
    let waived = all.filter { item in
      !failed.contains(item) && !errored.contains(item)
        && cells(of: item).contains { $0.state == .waived }
    }
    let missing = all.filter {
      !covered.contains($0) && !applicable.contains($0) && !notShipped.contains($0)
        && !failed.contains($0)
        && !errored.contains($0) && !waived.contains($0)
    }
    var text = "\(covered.count) of \(all.count) checklist items covered"
    var notes: [String] = []
    if !failed.isEmpty {
      notes.append("failed: \(failed.map(String.init).joined(separator: ", "))")
    }
    if !errored.isEmpty {
      notes.append(
        "not judged (harness error): \(errored.map(String.init).joined(separator: ", "))")
    }
    if !missing.isEmpty {
      notes.append("not covered: \(missing.map(String.init).joined(separator: ", "))")
    }
    if !applicable.isEmpty {
      notes.append("not applicable: \(applicable.map(String.init).joined(separator: ", "))")
    }
    if !notShipped.isEmpty {
      notes.append(
        "not in this release: \(notShipped.map(String.init).joined(separator: ", "))")
    }
    if !waived.isEmpty {
      notes.append("waived: \(waived.map(String.init).joined(separator: ", "))")
    }
    if !notes.isEmpty { text += " (\(notes.joined(separator: "; ")))" }
    return text
  }
}
