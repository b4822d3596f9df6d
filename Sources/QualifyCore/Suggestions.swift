import Foundation

/// "Did you mean …" by edit distance, for unknown keywords, flags and names.
public enum Suggestions {
  /// The candidate closest to `word`, if it is close enough to be a plausible typo.
  public static func closest(to word: String, among candidates: [String]) -> String? {
    let lowered = word.lowercased()
    var best: (String, Int)?
    for candidate in candidates {
      let distance = editDistance(lowered, candidate.lowercased())
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
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { table[i][0] = i }
    for j in 0...b.count { table[0][j] = j }
    for i in 1...a.count {
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
        if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
          table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
        }
      }
    }
    return table[a.count][b.count]
  }
}

/// Shell-style globbing: `*` (any run), `?` (one character), `[abc]`.
public enum Glob {
  public static func matches(_ pattern: String, _ text: String) -> Bool {
    fnmatch(pattern, text, 0) == 0
  }
}
