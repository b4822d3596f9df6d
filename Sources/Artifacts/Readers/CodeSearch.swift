import Foundation
import QualifyCore

/// Source files of one language, comments blanked, searched for what the code does: whether
/// some file holds every marker of a rule, and where. The facts a shell's simulated
/// behaviour follows are read this way (seed 004's and seed 003's rules).
struct CodeSearch {
  var files: [(file: String, lines: [(Int, String)])]
  /// Each file's path in the repository, by the path displayed (what `files` and the
  /// locations hold): what a reader that loads the file again, or its imports, opens.
  var repositoryPaths: [String: String] = [:]

  /// The sources under `root` ending in one of `suffixes`, tests left out.
  init(
    _ repository: AppRepository, under root: String, suffixes: [String], quotes: Set<Character>
  ) {
    var paths: [String: String] = [:]
    files =
      suffixes.flatMap { repository.files(under: root, suffix: $0) }
      .filter { !$0.contains("__tests__") && !$0.contains(".test.") && !$0.contains(".spec.") }
      .compactMap { path in
        (try? repository.text(path)).flatMap { $0 }.map {
          paths[$0.display] = path
          return ($0.display, SourceText.codeLines($0.text, quotes: quotes))
        }
      }
    repositoryPaths = paths
  }

  /// The sources under each of `roots`, in order.
  init(
    _ repository: AppRepository, under roots: [String], suffixes: [String], quotes: Set<Character>
  ) {
    files = []
    for root in roots {
      let more = CodeSearch(repository, under: root, suffixes: suffixes, quotes: quotes)
      files += more.files
      repositoryPaths.merge(more.repositoryPaths) { first, _ in first }
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
    captures(pattern, groups: 1).map { Sourced($0.value[0], at: $0.location) }
  }

  /// Every match of `pattern` with its first `groups` capture groups, with where.
  func captures(_ pattern: String, groups: Int) -> [Sourced<[String]>] {
    guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
    var out: [Sourced<[String]>] = []
    for (file, lines) in files {
      for (index, line) in lines {
        let range = NSRange(line.startIndex..., in: line)
        for match in regex.matches(in: line, range: range) where match.numberOfRanges > groups {
          let values = (1...groups).map { group in
            Range(match.range(at: group), in: line).map { String(line[$0]) } ?? ""
          }
          out.append(Sourced(values, at: FileLocation(file: file, line: index + 1, column: 1)))
        }
      }
    }
    return out
  }

  /// The first capture group of each match of `pattern` in each file's whole text (a
  /// statement written across lines), with the line the match starts on.
  func capturesAcrossLines(_ pattern: String) -> [Sourced<String>] {
    guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
    var out: [Sourced<String>] = []
    for (file, lines) in files {
      let text = lines.map(\.1).joined(separator: "\n")
      for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text))
      where match.numberOfRanges > 1 {
        guard let whole = Range(match.range, in: text),
          let range = Range(match.range(at: 1), in: text)
        else { continue }
        let before = text[..<whole.lowerBound].filter { $0 == "\n" }.count
        let line = lines.count > before ? lines[before].0 + 1 : 0
        out.append(
          Sourced(String(text[range]), at: FileLocation(file: file, line: line, column: 1)))
      }
    }
    return out
  }

  /// The body of the block that starts on the first line holding `opener` (from that line
  /// to its closing brace), with where it starts, in each file that has one.
  func blocks(after opener: String) -> [(file: String, line: Int, body: String)] {
    files.compactMap { file, lines in
      guard let start = lines.firstIndex(where: { $0.1.contains(opener) }) else { return nil }
      return (file, lines[start].0 + 1, Self.block(lines[start...]))
    }
  }

  /// A JavaScript function's block by its name: `function NAME(` or `const NAME =`.
  func definition(of name: String) -> (file: String, line: Int, body: String)? {
    blocks(after: "function \(name)(").first ?? blocks(after: "const \(name) =").first
  }

  /// The lines from the first of `lines` to the brace that closes the block it opens. With
  /// `oneLineArrows`, a first line that opens no brace and holds an arrow or ends its
  /// statement (`x.onclick = () => open(url);`, `x.onclick = open;`) is the whole block.
  static func block(_ lines: ArraySlice<(Int, String)>, oneLineArrows: Bool = false) -> String {
    var depth = 0
    var opened = false
    var body: [String] = []
    for (_, line) in lines {
      body.append(line)
      if oneLineArrows, !opened, !line.contains("{"), line.contains("=>") || line.hasSuffix(";") {
        break
      }
      for character in line {
        if character == "{" {
          depth += 1
          opened = true
        } else if character == "}" {
          depth -= 1
        }
      }
      if opened && depth <= 0 { break }
    }
    return body.joined(separator: "\n")
  }

  /// Whether the block after `opener` does `does` itself, or calls a function of these files
  /// whose own body does (one call deep: `onPageFinished` calling a helper that asks, with
  /// arguments or without).
  func blockDoes(after opener: String, _ does: [String], home: String = "") -> Sourced<Bool>? {
    guard let first = files.first else { return nil }
    for block in blocks(after: opener) {
      let at = FileLocation(file: block.file, line: block.line, column: 1)
      if does.contains(where: block.body.contains) { return Sourced(true, at: at) }
      // The block's own function is not one of its helpers (`function __invoke(LogoutEvent $e)`
      // would otherwise be followed into every invokable class).
      let signature = block.body.split(separator: "\n").first.map(String.init) ?? ""
      let own = CodeSearch.declaredName(in: signature)
      let helpers = calledBodies(from: block.body, except: own.map { [$0] } ?? [])
      return Sourced(helpers.contains { does.contains(where: $0.body.contains) }, at: at)
    }
    let file = files.first { !home.isEmpty && $0.lines.contains { $0.1.contains(home) } }?.file
    return Sourced(false, at: FileLocation(file: file ?? first.file, line: 0, column: 1))
  }

  /// How each language these files are in declares a function named `name`.
  static func declarations(of name: String) -> [String] {
    ["fun \(name)(", "func \(name)(", "function \(name)(", "void \(name)("]
  }

  /// Compiled once: the readers call these for every block they follow.
  private static let declaration = try? NSRegularExpression(
    pattern: #"\b(?:fun|func|function|void)\s+(\w+)\s*\("#)
  private static let call = try? NSRegularExpression(pattern: #"([A-Za-z_][A-Za-z0-9_]*)\s*\("#)

  /// The function a signature line declares, nil when it declares none.
  static func declaredName(in line: String) -> String? {
    guard
      let regex = CodeSearch.declaration,
      let match = regex.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
      let range = Range(match.range(at: 1), in: line)
    else { return nil }
    return String(line[range])
  }

  /// The bodies of the functions `body` calls — `name(` with arguments or without, a method
  /// call included — as these files declare them (Kotlin `fun`, Swift `func`, JavaScript and
  /// PHP `function`, Java `void`), one each per file; `except` are not followed.
  func calledBodies(from body: String, except: Set<String> = [])
    -> [(file: String, line: Int, body: String)]
  {
    guard let call = CodeSearch.call else { return [] }
    let called = call.matches(in: body, range: NSRange(body.startIndex..., in: body))
      .compactMap { Range($0.range(at: 1), in: body).map { String(body[$0]) } }
    return Set(called).subtracting(except).sorted().flatMap { name in
      CodeSearch.declarations(of: name).flatMap { opener in
        // `void f(` declares in Java only: in TypeScript it is a call whose promise is dropped.
        blocks(after: opener).filter { !opener.hasPrefix("void ") || $0.file.hasSuffix(".java") }
      }
    }
  }

  /// A TypeScript constant's value as written (`const NAME: T = value as const;`, across
  /// lines), with where; nil when no file declares it.
  func constant(_ name: String) -> Sourced<String>? {
    let pattern =
      #"(?:const|let|var)\s+"# + NSRegularExpression.escapedPattern(for: name)
      + #"\s*(?::\s*[A-Za-z_<>\[\]. |]+)?\s*=\s*([^;]+?)\s*(?:as\s+const\s*)?;"#
    guard let regex = try? NSRegularExpression(pattern: pattern) else { return nil }
    for (file, lines) in files {
      let text = lines.map(\.1).joined(separator: "\n")
      guard
        let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
        let range = Range(match.range(at: 1), in: text)
      else { continue }
      let before = text[..<range.lowerBound].filter { $0 == "\n" }.count
      let line = lines.count > before ? lines[before].0 + 1 : 0
      let value = text[range].split(whereSeparator: \.isNewline).map {
        $0.trimmingCharacters(in: .whitespaces)
      }.joined(separator: " ")
      return Sourced(value, at: FileLocation(file: file, line: line, column: 1))
    }
    return nil
  }

  /// An integer expression of literals (`8 * 1024 * 1024`, `8 << 20`, `100_000`), nil when it
  /// is computed from anything else.
  static func integer(_ expression: String) -> Int? {
    let text = expression.replacingOccurrences(of: "_", with: "").trimmingCharacters(
      in: .whitespaces)
    if let shift = text.range(of: "<<") {
      guard let left = integer(String(text[..<shift.lowerBound])),
        let right = integer(String(text[shift.upperBound...])), right < 62
      else { return nil }
      return left << right
    }
    let factors = text.split(separator: "*").map { $0.trimmingCharacters(in: .whitespaces) }
    var product = 1
    for factor in factors {
      guard let value = Int(factor) else { return nil }
      product = product.multipliedReportingOverflow(by: value).overflow ? Int.max : product * value
    }
    return factors.isEmpty ? nil : product
  }
}
