/// An OTA bundle version as seed 000's *Bundle versioning* defines it: the hybrid id
/// `<count>-<sha>` (`1234-a1b2c3d`), where the commit count orders releases; anything else
/// (`builtin`, a pinned name) cannot be ordered.
public struct BundleVersion: Hashable, Sendable, CustomStringConvertible {
  public let text: String

  public init(_ text: String) {
    self.text = text
  }

  /// The commit count of a hybrid id, nil for an id without a numeric prefix.
  public var count: Int? {
    guard let dash = text.firstIndex(of: "-") else { return nil }
    let prefix = text[..<dash]
    guard !prefix.isEmpty, prefix.allSatisfy(\.isNumber) else { return nil }
    return Int(prefix)
  }

  /// The commit of a hybrid id.
  public var sha: String? {
    guard count != nil, let dash = text.firstIndex(of: "-") else { return nil }
    return String(text[text.index(after: dash)...])
  }

  public var description: String { text }

  /// Whether a device running `current` applies a manifest advertising `self` (rule 11): a
  /// strictly greater count when both are hybrid ids, otherwise plain inequality.
  public func isUpdate(over current: BundleVersion) -> (applies: Bool, rule: String) {
    if self == current {
      return (false, "the manifest's version \(text) is the running one")
    }
    if let new = count, let old = current.count {
      return new > old
        ? (true, "count \(new) is greater than the running \(old)")
        : (
          false,
          "count \(new) is not greater than the running \(old) (the strictly-greater rule: no downgrade)"
        )
    }
    return (true, "\(text) and \(current.text) cannot be ordered; they differ (plain inequality)")
  }

  /// Whether publishing `self` over a channel whose manifest advertises `current` orders
  /// above it (rule 13, the mirror of the client-side guard). An id without a count cannot be
  /// ordered either way: after one, devices fall back to plain inequality and would apply an
  /// older build too, so the guard cannot vouch for it and only `--force` publishes it.
  public func ordersAbove(_ current: BundleVersion) -> (ok: Bool, rule: String) {
    guard let new = count else {
      return (
        false,
        "\(text) is not a <count>-<sha> id: it cannot be ordered against the channel's \(current.text)"
      )
    }
    guard let old = current.count else {
      return (
        false,
        "the channel's \(current.text) is not a <count>-<sha> id: \(text) cannot be ordered against it"
      )
    }
    return new > old
      ? (true, "count \(new) is above the channel's \(old)")
      : (
        false,
        "count \(new) does not order above the channel's current \(current.text) (count \(old))"
      )
  }

  /// Whether the id has the hybrid `<count>-<sha>` shape: an ASCII count, a dash, an ASCII
  /// alphanumeric commit.
  public var isHybrid: Bool {
    guard let dash = text.firstIndex(of: "-") else { return false }
    let count = text[..<dash]
    let sha = text[text.index(after: dash)...]
    return !count.isEmpty && count.count <= 18 && count.allSatisfy { $0.isASCII && $0.isNumber }
      && !sha.isEmpty && sha.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
  }
}
