import Foundation
import QualifyCore
import StackPorts

extension RunPlan {
  /// What a command line asks a run to cover: one scenario (an id, a glob or a `.scenario`
  /// file), or the filters' and tags' share of the catalogue, optionally one shard of it.
  public struct Selection: Sendable, Equatable {
    public var single: String?
    public var filters: [String]
    public var tags: [String]
    /// `I/N` as given.
    public var shard: String?

    public init(
      single: String? = nil, filters: [String] = [], tags: [String] = [], shard: String? = nil
    ) {
      self.single = single
      self.filters = filters
      self.tags = tags
      self.shard = shard
    }
  }

  /// The scenarios `selection` picks out of `catalogue` (parsed once per run), for an app of
  /// `shell`'s kind; a selection that names nothing, a malformed shard, or one scenario of
  /// another kind is bad input.
  public static func scenarios(
    _ selection: Selection, from catalogue: [Scenario], shell: ShellKind, appTitle: String
  ) throws -> [Scenario] {
    let picked = try shard(pick(selection, from: catalogue), selection.shard)
    if let single = selection.single, let scenario = picked.first, scenario.shell != shell {
      throw InputError(
        "\(single) drives a \(scenario.shell.id) shell, and \(appTitle) is a \(shell.id) shell",
        hint: "qualify list --all shows each scenario's shell kind")
    }
    return picked
  }

  /// The runs the scenarios make: each scenario of the app's kind on each platform it applies
  /// to on `channel`, in id order.
  public static func runs(
    _ scenarios: [Scenario], platforms: [Platform], channel: Channel, shell: ShellKind
  ) -> [(Scenario, Platform)] {
    Runner.jobs(scenarios, platforms: platforms, channel: channel, shell: shell)
  }

  /// How many scenario executions run at once: `requested`, or one at a time when a real
  /// system is shared by every world (the IdP's event feed, a backend whose sessions a
  /// logout-all ends) and one scenario's steps would show in another's, and for one scenario
  /// reproduced alone.
  public static func parallelism(requested: Int, single: Bool, real: RealSystems?) -> Int {
    single || real?.identityProvider?.admin != nil || real?.backend != nil ? 1 : requested
  }

  private static func pick(_ selection: Selection, from all: [Scenario]) throws -> [Scenario] {
    guard let single = selection.single else {
      return ScenarioCatalogue.filter(all, globs: selection.filters, tags: selection.tags)
    }
    if single.hasSuffix(".scenario") {
      let diagnostics = DiagnosticsEngine()
      let url = URL(fileURLWithPath: single)
      guard FileManager.default.fileExists(atPath: url.path) else {
        throw InputError("no such scenario file: \(single)")
      }
      let scenario = try ScenarioCatalogue.parse(file: url, diagnostics: diagnostics)
      guard let scenario, !diagnostics.hasErrors else {
        throw InputError("\(single) has errors", diagnostics: diagnostics.diagnostics)
      }
      return [scenario]
    }
    let matching = all.filter { $0.id == single || Glob.matches(single, $0.id) }
    guard !matching.isEmpty else {
      throw InputError(
        "no scenario '\(single)'",
        hint: Suggestions.closest(to: single, among: all.map(\.id)).map {
          "did you mean '\($0)'?"
        } ?? "see: qualify list")
    }
    return matching
  }

  /// The `I`-th of `N` shards: every N-th scenario in id order, so that the shards of one
  /// catalogue are disjoint and together the whole.
  private static func shard(_ scenarios: [Scenario], _ value: String?) throws -> [Scenario] {
    guard let value else { return scenarios }
    let parts = value.split(separator: "/").compactMap { Int($0) }
    guard parts.count == 2, parts[1] >= 1, (1...parts[1]).contains(parts[0]) else {
      throw InputError("--shard must be I/N with 1 ≤ I ≤ N, got '\(value)'")
    }
    return scenarios.sorted { $0.id < $1.id }.enumerated().filter {
      $0.offset % parts[1] == parts[0] - 1
    }.map(\.element)
  }
}
