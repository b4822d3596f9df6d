import Foundation
import QualifyCore

/// Source files of one language, comments blanked, searched for what the code does: whether
/// some file holds every marker of a rule, and where. The facts a shell's simulated
/// behaviour follows are read this way (seed 004's and seed 003's rules).
struct CodeSearch {
  var files: [(file: String, lines: [(Int, String)])]

  /// The sources under `root` ending in one of `suffixes`, tests left out.
  init(
    _ repository: AppRepository, under root: String, suffixes: [String], quotes: Set<Character>
  ) {
    files =
      suffixes.flatMap { repository.files(under: root, suffix: $0) }
      .filter { !$0.contains("__tests__") && !$0.contains(".test.") && !$0.contains(".spec.") }
      .compactMap { path in
        (try? repository.text(path)).flatMap { $0 }.map {
          ($0.display, SourceText.codeLines($0.text, quotes: quotes))
        }
      }
  }

  var isEmpty: Bool { files.isEmpty }

  /// Where the code holds every one of `all` (each in any file, or all in one file when
  /// `sameFile`): the first line holding the first of them.
  func find(_ all: [String], sameFile: Bool = false) -> FileLocation? {
    let texts = files.map { $0.lines.map(\.1).joined(separator: "\n") }
    if sameFile {
      for (index, text) in texts.enumerated() where all.allSatisfy({ text.contains($0) }) {
        let (file, lines) = files[index]
        if let line = lines.first(where: { $0.1.contains(all[0]) }) {
          return FileLocation(file: file, line: line.0 + 1, column: 1)
        }
      }
      return nil
    }
    guard all.allSatisfy({ needle in texts.contains { $0.contains(needle) } }) else { return nil }
    for (file, lines) in files {
      if let line = lines.first(where: { $0.1.contains(all[0]) }) {
        return FileLocation(file: file, line: line.0 + 1, column: 1)
      }
    }
    return nil
  }

  /// Present, where; or absent, named after the file that would hold it (the one holding
  /// `home`, else the first); nil when there is no code at all.
  func fact(_ alternatives: [[String]], home: String = "", sameFile: Bool = false)
    -> Sourced<Bool>?
  {
    guard let first = files.first else { return nil }
    for all in alternatives {
      if let at = find(all, sameFile: sameFile) { return Sourced(true, at: at) }
    }
    let file =
      files.first { !home.isEmpty && $0.lines.contains { $0.1.contains(home) } }?.file
      ?? first.file
    return Sourced(false, at: FileLocation(file: file, line: 0, column: 1))
  }

  /// Every first capture group of `pattern`, with where.
  func captures(_ pattern: String) -> [Sourced<String>] {
    guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
    var out: [Sourced<String>] = []
    for (file, lines) in files {
      for (index, line) in lines {
        let range = NSRange(line.startIndex..., in: line)
        for match in regex.matches(in: line, range: range) where match.numberOfRanges > 1 {
          if let capture = Range(match.range(at: 1), in: line) {
            out.append(
              Sourced(
                String(line[capture]), at: FileLocation(file: file, line: index + 1, column: 1)))
          }
        }
      }
    }
    return out
  }
}
