import Foundation
import QualifyCore

/// Reads what an app's `ota.ts` refuses: each `if (…) { … return; }` whose condition holds a
/// manifest against the applied sequence floor, the running bundle's count, the binary's
/// builtin, or the failed-boot record. The comparison operator decides the rule (`<=` refuses
/// an equal sequence, `<` lets it apply again); a refusal that is not written is absent.
enum OTAClientReader {
  static func read(_ text: String, file: String) -> OTAClientCode {
    let lines = SourceText.codeLines(text, quotes: ["\"", "'", "`"])
    var floorNames: Set<String> = []
    var countNames: Set<String> = []
    var nativeNames: Set<String> = []
    var failedNames: Set<String> = []
    for (_, line) in lines {
      guard let (name, value) = groups(#"(?:const|let|var)\s+(\w+)\s*=\s*(.+)"#, in: line)
      else { continue }
      if value.contains("AppliedSequence") || value.contains("OTA_SEQUENCE_KEY")
        || value.contains("ota-applied-sequence")
      {
        floorNames.insert(name)
      }
      if let second = SourceText.capture(
        #"compareVersionCounts\(\s*manifest\.version\s*,\s*([\w.]+)\s*\)"#, in: value)
      {
        if second.lowercased().contains("native") {
          nativeNames.insert(name)
        } else {
          countNames.insert(name)
        }
      }
      if value.contains("OTA_BOOT_FAILED_KEY") || value.contains("ota-boot-failed-version") {
        failedNames.insert(name)
      }
    }
    let at = { (index: Int) in FileLocation(file: file, line: index + 1, column: 1) }
    let nowhere = FileLocation(file: file, line: 1, column: 1)
    var code = OTAClientCode(
      file: file, sequenceFloor: Sourced(.none, at: nowhere),
      countOrder: Sourced(.none, at: nowhere),
      nativeFloor: Sourced(false, at: nowhere), failedBootGuard: Sourced(false, at: nowhere))
    for (index, condition) in refusals(lines) {
      if let floor = floor(condition, against: floorNames), code.sequenceFloor.value == .none {
        code.sequenceFloor = Sourced(floor, at: at(index))
      }
      if let order = countRule(condition, names: countNames), code.countOrder.value == .none {
        code.countOrder = Sourced(order, at: at(index))
      }
      if countRule(condition, names: nativeNames) != nil {
        code.nativeFloor = Sourced(true, at: at(index))
      }
      let readsRecord =
        condition.contains("OTA_BOOT_FAILED_KEY") || condition.contains("ota-boot-failed-version")
        || failedNames.contains { SourceText.matches(#"\b\#($0)\b"#, condition) }
      if readsRecord && condition.contains("manifest.version") {
        code.failedBootGuard = Sourced(true, at: at(index))
      }
    }
    code.skipsUnorderedIds = lines.contains { SourceText.matches(#"!==?\s*null\s*&&"#, $0.1) }
    readIdPattern(lines, at: at, into: &code)
    readComparison(text, file: file, into: &code)
    return code
  }

  /// The comparison the count rule calls (`compareVersionCounts`), when `text` defines it: an
  /// early `return null` that holds for two ids that both carry a count (a null test flipped,
  /// `left !== null || right === null`) leaves every release unordered, and the refusal,
  /// which wants a count, is skipped — the count rule holds for nothing.
  static func readComparison(_ text: String, file: String, into code: inout OTAClientCode) {
    guard code.countOrder.value != .none,
      let function = ScriptStatements.functions(in: text).first(where: {
        $0.name == "compareVersionCounts"
      })
    else { return }
    // Both ids counted, and different: the parameters are two release ids, each local bound
    // to an id's count holds a count of its own; anything else the test reads is not known.
    let counted = InstanceDecisionReader.matches(
      #"(?:const|let)\s+(\w+)\s*=\s*versionCount\("#, function.body
    ).compactMap(\.first)
    let parameters = ScriptStatements.parameters(
      InstanceDecisionReader.matches(
        #"compareVersionCounts\s*(?:=\s*(?:async\s*)?)?(\([^)]*\))"#, text
      ).first?.first ?? "")
    let lines = text.components(separatedBy: "\n")
    for statement in ScriptStatements.guards(function.body) where statement.returns == "null" {
      // The guard's own line (a wrapped signature puts the body's brace lines below the
      // declaration), else the body's count of lines from the declaration.
      let line =
        lines.indices.first { index in
          index >= function.line && lines[index].contains("if (\(statement.condition))")
        }.map { $0 + 1 } ?? function.line + statement.line + 1
      let holds: Bool?
      if case .success(let condition) = ScriptConditionParser.parse(statement.condition) {
        holds = condition.evaluate { path in
          guard path.count == 1 else { return nil }
          if let index = parameters.firstIndex(of: path[0]) {
            return .string(releaseIds[index % releaseIds.count])
          }
          return counted.firstIndex(of: path[0]).map { .number(Double($0 + 1)) }
        }
      } else {
        holds = nil
      }
      guard let holds else {
        // The first unread guard is named; one read later may still undo the rule.
        if code.unreadComparison == nil {
          code.unreadComparison = Sourced(
            statement.condition, at: FileLocation(file: file, line: line, column: 1))
        }
        continue
      }
      guard holds else { continue }
      code.unreadComparison = nil
      code.countOrder = Sourced(
        .none, at: FileLocation(file: file, line: line, column: 1),
        derivation: [
          "compareVersionCounts returns null when both ids carry a count (if (\(statement.condition))): no release is ordered, the refusal, which wants a count, is skipped, and an older bundle applies"
        ])
      return
    }
  }

  /// Ids the release process writes: a count and git's short SHA (7 characters at least,
  /// longer in a big repository), up to the full 40.
  static let releaseIds = [
    "1234-a1b2c3d", "1234-a1b2c3d4e5f", "1234-" + String(repeating: "a1b2c3d4", count: 5),
  ]

  /// The regex literal the client parses a `<count>-<sha>` id with, tried on `releaseIds`.
  /// An id it does not read has no count: under `order !== null && order <= 0` its refusal
  /// is skipped, so the count rule holds for no release of that shape.
  static func readIdPattern(_ text: String, file: String, into code: inout OTAClientCode) {
    readIdPattern(
      SourceText.codeLines(text, quotes: ["\"", "'", "`"]),
      at: { FileLocation(file: file, line: $0 + 1, column: 1) }, into: &code)
  }

  /// The relative modules a file imports (`import { x } from "./ota-version.mjs"`).
  static func localImports(_ text: String) -> [String] {
    text.split(separator: "\n").compactMap { line in
      SourceText.capture(#"^\s*import\s[^;]*from\s+["'](\.{1,2}/[^"']+)["']"#, in: String(line))
    }
  }

  private static func readIdPattern(
    _ lines: [(Int, String)], at: (Int) -> FileLocation, into code: inout OTAClientCode
  ) {
    for (index, line) in lines {
      guard let source = SourceText.capture(#"/(\^?\(\\d\+\)-[^/\n]*)/[a-z]*"#, in: line),
        let regex = try? NSRegularExpression(pattern: source)
      else { continue }
      code.idPattern = Sourced(source, at: at(index))
      code.unreadId = releaseIds.first { id in
        regex.firstMatch(in: id, range: NSRange(id.startIndex..., in: id)) == nil
      }
      break
    }
    // Whether the refusal skips an unreadable id is ota.ts's to say (the refusal is there).
    guard let unread = code.unreadId, let pattern = code.idPattern,
      code.countOrder.value != .none, code.skipsUnorderedIds
    else { return }
    code.countOrder = Sourced(
      .none, at: pattern.location,
      derivation: [
        "the id pattern /\(pattern.value)/ does not read \(unread): its count is null and the refusal, which wants a count, is skipped"
      ])
  }

  /// The conditions of `if` statements whose block returns, with the line of the `if`.
  static func refusals(_ lines: [(Int, String)]) -> [(Int, String)] {
    var out: [(Int, String)] = []
    for (position, (index, line)) in lines.enumerated() {
      guard let start = line.range(of: #"\bif\s*\("#, options: .regularExpression) else {
        continue
      }
      // The condition and its block, over as many lines as they take.
      var text = String(line[start.upperBound...])
      var next = position + 1
      while next < lines.count && next < position + 40 {
        text += "\n" + lines[next].1
        next += 1
      }
      var depth = 1
      var cursor = text.startIndex
      while cursor < text.endIndex && depth > 0 {
        if text[cursor] == "(" { depth += 1 }
        if text[cursor] == ")" { depth -= 1 }
        if depth > 0 { cursor = text.index(after: cursor) }
      }
      guard cursor < text.endIndex else { continue }
      let condition = String(text[..<cursor])
      let rest = text[text.index(after: cursor)...]
      guard let body = block(rest), SourceText.matches(#"\breturn\b"#, body) else { continue }
      out.append((index, condition))
    }
    return out
  }

  /// The statement after a condition: a braced block, or the one statement up to `;`.
  private static func block(_ text: Substring) -> String? {
    let trimmed = text.drop { $0.isWhitespace }
    guard trimmed.first == "{" else {
      return trimmed.firstIndex(of: ";").map { String(trimmed[...$0]) }
    }
    var depth = 0
    for index in trimmed.indices {
      if trimmed[index] == "{" { depth += 1 }
      if trimmed[index] == "}" {
        depth -= 1
        if depth == 0 { return String(trimmed[...index]) }
      }
    }
    return nil
  }

  /// The first two capture groups of `pattern`'s first match in `text`.
  private static func groups(_ pattern: String, in text: String) -> (String, String)? {
    guard let regex = try? NSRegularExpression(pattern: pattern),
      let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
      match.numberOfRanges > 2, let first = Range(match.range(at: 1), in: text),
      let second = Range(match.range(at: 2), in: text)
    else { return nil }
    return (String(text[first]), String(text[second]))
  }

  /// `sequence <= applied` (or `applied >= sequence`): the manifest held against the floor.
  static func floor(_ condition: String, against names: Set<String>) -> OTAClientCode.Floor? {
    let pattern = #"([\w.]+)\s*(<=|>=|<|>)\s*([\w.]+)"#
    guard let regex = try? NSRegularExpression(pattern: pattern) else { return nil }
    for match in regex.matches(
      in: condition, range: NSRange(condition.startIndex..., in: condition))
    {
      func group(_ n: Int) -> String {
        Range(match.range(at: n), in: condition).map { String(condition[$0]) } ?? ""
      }
      let (left, symbol, right) = (group(1), group(2), group(3))
      if names.contains(right) && !names.contains(left) {
        if symbol == "<=" { return .refusesEqual }
        if symbol == "<" { return .acceptsEqual }
      }
      if names.contains(left) && !names.contains(right) {
        if symbol == ">=" { return .refusesEqual }
        if symbol == ">" { return .acceptsEqual }
      }
    }
    return nil
  }

  /// `order <= 0` refuses an equal count; `order < 0` (or `=== -1`) only an older one.
  static func countRule(_ condition: String, names: Set<String>) -> OTAClientCode.Floor? {
    for name in names {
      guard let (symbol, number) = groups(#"\b\#(name)\s*(<=|<|===|==)\s*(-?\d+)"#, in: condition),
        let bound = Int(number)
      else { continue }
      switch (symbol, bound) {
      case ("<=", 0), ("<", 1): return .refusesEqual
      case ("<", 0), ("===", -1), ("==", -1), ("<=", -1): return .acceptsEqual
      default: continue
      }
    }
    return nil
  }
}
