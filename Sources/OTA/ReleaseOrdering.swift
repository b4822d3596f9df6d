/// How an app orders its OTA releases, which decides what a device takes and what the
/// publisher refuses.
///
/// Seed 000 orders by the commit count of `<count>-<sha>` ids. The real repository now
/// publishes bare 8-character commit ids and orders releases by the channel manifest's
/// `sequence` (its docs/mobile-release.md, *Bundle versioning* and *Release sequence*; the
/// app's `ota.ts`): a device keeps the highest sequence it staged and takes any manifest with
/// a strictly greater one, even one pointing at an older build — that is a rollback — while a
/// stale or replayed manifest never moves it back.
public enum ReleaseOrdering: String, Sendable, CaseIterable {
  /// Seed 000: a manifest applies only when its count is strictly greater than the running
  /// bundle's; ids without a count fall back to plain inequality.
  case count
  /// The manifest's `sequence` orders releases; a manifest without one falls back to the
  /// count rule; hybrid ids on both sides still keep a bundle older than the native build's
  /// out (the native floor).
  case sequence

  /// Whether a device running `running`, built with `builtin`, whose highest staged sequence
  /// is `applied`, takes `manifest`.
  /// `nativeFloor` false leaves the native floor out (the updater's negative control);
  /// `equalSequenceApplies` and `equalCountApplies` are an app whose `ota.ts` refuses only a
  /// lower sequence or count, not an equal one.
  public func decide(
    manifest: Manifest, running: String, builtin: String, applied: Double?,
    nativeFloor: Bool = true, equalSequenceApplies: Bool = false, equalCountApplies: Bool = false
  ) -> (applies: Bool, rule: String) {
    let version = BundleVersion(manifest.version)
    if manifest.version == running {
      return (false, "the manifest's version \(running) is the running one")
    }
    guard self == .sequence, let sequence = manifest.sequence else {
      if equalCountApplies, version.compareCount(with: BundleVersion(running)) == 0 {
        return (
          true,
          "count of \(manifest.version) equals the running \(running)'s, and the app refuses only a lower one"
        )
      }
      return version.isUpdate(over: BundleVersion(running))
    }
    if nativeFloor, version.compareCount(with: BundleVersion(builtin)) == -1 {
      return (
        false,
        "\(manifest.version) is older than the native build's \(builtin) (the native floor: no bundle below the binary)"
      )
    }
    let seen = Manifest.text(sequence)
    if let applied, equalSequenceApplies ? sequence < applied : sequence <= applied {
      return (
        false,
        "sequence \(seen) is not greater than the applied \(Manifest.text(applied)): a stale or replayed manifest"
      )
    }
    if let applied, sequence == applied {
      return (
        true,
        "sequence \(seen) equals the applied one, and the app refuses only a lower sequence (a replayed pointer applies)"
      )
    }
    return (
      true,
      applied.map { "sequence \(seen) is greater than the applied \(Manifest.text($0))" }
        ?? "sequence \(seen), and no sequence applied yet (trust on first use)"
    )
  }
}
