import Foundation

/// "Did you mean …" by edit distance, for unknown keywords, flags and names.
public enum Suggestions {
  /// The candidate closest to `word`, if it is close enough to be a plausible typo.
  public static func closest(to word: String, among candidates: [String]) -> String? {
    let lowered = Array(word.lowercased().unicodeScalars)
    var best: (String, Int)?
    for candidate in candidates {
      let other = Array(candidate.lowercased().unicodeScalars)
      // A typo is at most three edits away, and lengths that differ by more cannot be closer:
      // skipping them keeps a long garbage word from costing a full table per candidate.
      guard abs(other.count - lowered.count) <= 3 else { continue }
      let distance = editDistance(lowered, other)
      if best == nil || distance < best?.1 ?? Int.max {
        best = (candidate, distance)
      }
    }
    guard let (candidate, distance) = best else { return nil }
    let limit = max(1, min(3, candidate.count / 3))
    return distance <= limit ? candidate : nil
  }

  /// Optimal-string-alignment distance: Levenshtein plus adjacent transpositions, the most
  /// common typo ("lsit").
  public static func editDistance(_ a: String, _ b: String) -> Int {
    editDistance(Array(a.unicodeScalars), Array(b.unicodeScalars))
  }

  static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    let width = b.count + 1
    var table = [Int](repeating: 0, count: (a.count + 1) * width)
    for i in 0...a.count { table[i * width] = i }
    for j in 0...b.count { table[j] = j }
    for i in 1...a.count {
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        var value = min(
          table[(i - 1) * width + j] + 1, table[i * width + j - 1] + 1,
          table[(i - 1) * width + j - 1] + cost)
        if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
          value = min(value, table[(i - 2) * width + j - 2] + 1)
        }
        table[i * width + j] = value
      }
    }
    return table[a.count * width + b.count]
  }
}

/// Shell-style globbing: `*` (any run), `?` (one character), `[abc]`.
public enum Glob {
  public static func matches(_ pattern: String, _ text: String) -> Bool {
    fnmatch(pattern, text, 0) == 0
  }
}
