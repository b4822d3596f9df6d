/// An OTA bundle version as seed 000's *Bundle versioning* defines it: the hybrid id
/// `<count>-<sha>` (`1234-a1b2c3d`), where the commit count orders releases; anything else
/// (`builtin`, a pinned name) cannot be ordered.
public struct BundleVersion: Hashable, Sendable, CustomStringConvertible {
  public let text: String

  public init(_ text: String) {
    self.text = text
  }

  /// The commit count of a hybrid id, nil for an id without a numeric prefix or one too large
  /// for an `Int` (ordering uses `compareCount`, which has no such limit).
  public var count: Int? { countDigits.flatMap { Int($0) } }

  /// The decimal digits before the first dash, nil for an id without a numeric prefix.
  public var countDigits: Substring? {
    guard let dash = text.firstIndex(of: "-") else { return nil }
    let prefix = text[..<dash]
    guard !prefix.isEmpty, prefix.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
    return prefix
  }

  /// How this id's count orders against `other`'s (-1, 0, 1), nil when either has no count.
  /// Compared as decimal numbers of any length: a count past 64 bits still orders, where
  /// converting it would overflow and let a downgrade through.
  public func compareCount(with other: BundleVersion) -> Int? {
    guard let a = countDigits, let b = other.countDigits else { return nil }
    let x = a.drop { $0 == "0" }
    let y = b.drop { $0 == "0" }
    if x.count != y.count { return x.count < y.count ? -1 : 1 }
    if x == y { return 0 }
    return x < y ? -1 : 1
  }

  /// The commit of a hybrid id.
  public var sha: String? {
    guard countDigits != nil, let dash = text.firstIndex(of: "-") else { return nil }
    return String(text[text.index(after: dash)...])
  }

  public var description: String { text }

  /// Whether a device running `current` applies a manifest advertising `self` (rule 11): a
  /// strictly greater count when both are hybrid ids, otherwise plain inequality.
  public func isUpdate(over current: BundleVersion) -> (applies: Bool, rule: String) {
    if self == current {
      return (false, "the manifest's version \(text) is the running one")
    }
    if let order = compareCount(with: current), let new = countDigits,
      let old = current.countDigits
    {
      return order > 0
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
    guard let new = countDigits else {
      return (
        false,
        "\(text) is not a <count>-<sha> id: it cannot be ordered against the channel's \(current.text)"
      )
    }
    guard let old = current.countDigits else {
      return (
        false,
        "the channel's \(current.text) is not a <count>-<sha> id: \(text) cannot be ordered against it"
      )
    }
    return compareCount(with: current) == 1
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
