import Foundation
import QualifyCore

/// The server side of seed 001's sign-in handoff, read from the code that redeems the codes
/// as real servers write it: a SQL string (`delete from … returning`) or a query builder
/// (drizzle's `.update(table).set({ consumedAt }).where(and(…, isNull(…))).returning(…)`);
/// the code hashed by a call to a function of the module that hashes with SHA-256
/// (`sha256(code)`, `hashCallbackCode(callbackCode)`); a lifetime constant of any name with
/// `TTL` in it and its unit in its name; the verifier compared by `timingSafeEqual` or a
/// helper wrapping it. What is not written in a form read here is left unknown, never
/// taken as right.
struct HandoffServerReader {
  let search: CodeSearch

  func read() -> HandoffServerCode {
    var code = HandoffServerCode()
    code.found = !search.isEmpty
    code.files = search.files.map(\.file)
    readLifetime(into: &code)
    code.hashesCode = hashesCode()
    guard let consume = consumingStatement() else {
      // The redemption may live where qualify did not look: unknown, not a failure.
      return code
    }
    code.consumesAtomically = Sourced(
      consume.atomic, at: FileLocation(file: consume.file, line: consume.line, column: 1),
      derivation: consume.why.map { [$0] } ?? [])
    guard let redemption = enclosingFunction(of: consume) else { return code }
    code.uniformRejections = uniformRejections(redemption)
    code.wrongVerifierBurns = verifierComparedAfter(consume, in: redemption)
    code.checksState = stateCompared(in: redemption)
    return code
  }

  // MARK: The lifetime

  /// `CODE_TTL_MS`, `HANDOFF_TTL_MS = 2 * 60_000`, `CODE_TTL_SECONDS = 120`: its value in
  /// milliseconds from the unit its name gives; computed or of no unit, it is unknown.
  private func readLifetime(into code: inout HandoffServerCode) {
    let names = search.captures(#"(?:const|let)\s+([A-Z][A-Z0-9_]*TTL[A-Z0-9_]*)\s*[:=]"#)
    guard let name = names.first?.value, let written = search.constant(name) else { return }
    code.ttlName = name
    let scale: Int? =
      name.hasSuffix("_MS") || name.contains("MILLIS")
      ? 1
      : name.hasSuffix("_SECONDS") || name.hasSuffix("_SEC") || name.hasSuffix("_S")
        ? 1000 : name.hasSuffix("_MINUTES") || name.hasSuffix("_MIN") ? 60_000 : nil
    guard let value = CodeSearch.integer(written.value), let scale else {
      code.computedTTL = written
      return
    }
    code.ttlMilliseconds = Sourced(
      value * scale, at: written.location,
      derivation: scale == 1 ? [] : ["\(name) = \(written.value) × \(scale) ms"])
  }

  // MARK: Hashing

  /// Functions of these files whose body hashes with SHA-256 (`function F(…) { … }` or
  /// `const F = (…) => …`).
  private func hashingFunctions() -> Set<String> {
    var names: Set<String> = []
    let declared = search.captures(
      #"(?:function\s+([A-Za-z_$][\w$]*)\s*\(|const\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s*)?\()"#,
      groups: 2)
    let all = statements()
    for found in declared {
      let text: String
      if found.value[0].isEmpty {
        // An arrow function: the statement that declares it.
        let name = found.value[1]
        text =
          all.first { $0.text.contains("const \(name) =") || $0.text.contains("const \(name)=") }?
          .text ?? ""
      } else {
        text = search.blocks(after: "function \(found.value[0])(").map(\.body).joined(
          separator: "\n")
      }
      if text.contains("createHash(\"sha256\")") || text.contains("createHash('sha256')") {
        names.insert(found.value[0].isEmpty ? found.value[1] : found.value[0])
      }
    }
    return names
  }

  /// Whether the statement that stores a new code stores a hash of it, and not the code
  /// beside it: a hashing call on the code in the insert (`digest(callbackCode)`), or a local
  /// holding one (`const hash = digest(code)`), and the code's own name nowhere else in it.
  private func hashesCode() -> Sourced<Bool>? {
    let hashing = hashingFunctions()
    let all = statements()
    let inserts = all.filter {
      let lower = $0.text.lowercased()
      return lower.contains("insert into") || lower.contains(".insert(")
    }
    guard let first = inserts.first else { return nil }
    let calls = hashing.sorted().map {
      NSRegularExpression.escapedPattern(for: $0) + #"\(\s*([\w.]*[Cc]ode\w*)\s*\)"#
    }
    // Locals holding a digest of the code.
    var digests: [String: String] = [:]
    for statement in all {
      for call in calls {
        let local = #"(?:const|let)\s+(\w+)\s*=\s*"# + call
        guard let regex = try? NSRegularExpression(pattern: local),
          let match = regex.firstMatch(
            in: statement.text, range: NSRange(statement.text.startIndex..., in: statement.text)),
          let name = Range(match.range(at: 1), in: statement.text),
          let code = Range(match.range(at: 2), in: statement.text)
        else { continue }
        digests[String(statement.text[name])] = String(statement.text[code])
      }
    }
    for insert in inserts {
      let at = FileLocation(file: insert.file, line: insert.line, column: 1)
      var hashed: String?
      var rest = insert.text
      for call in calls {
        guard let regex = try? NSRegularExpression(pattern: call) else { continue }
        let range = NSRange(rest.startIndex..., in: rest)
        if let match = regex.firstMatch(in: rest, range: range),
          let code = Range(match.range(at: 1), in: rest)
        {
          hashed = String(rest[code])
          rest = regex.stringByReplacingMatches(in: rest, range: range, withTemplate: "")
        }
      }
      for (local, code) in digests
      where rest.range(of: #"\b"# + local + #"\b"#, options: .regularExpression) != nil {
        hashed = code
      }
      guard let code = hashed else { continue }
      let name = code.split(separator: ".").last.map(String.init) ?? code
      if rest.range(of: #"(?<![\w.])"# + name + #"\b"#, options: .regularExpression) != nil {
        return Sourced(
          false, at: at, derivation: ["the insert stores \(name) itself beside its digest"])
      }
      return Sourced(true, at: at, derivation: ["the insert stores a SHA-256 of \(code)"])
    }
    return Sourced(
      false, at: FileLocation(file: first.file, line: first.line, column: 1),
      derivation: hashing.isEmpty
        ? ["no function of these files hashes with SHA-256"]
        : ["the insert calls none of \(hashing.sorted().joined(separator: ", ")) on the code"])
  }

  // MARK: Consumption

  /// What opens a statement of its own.
  static let keywords = [
    "const", "let", "var", "if", "return", "await", "throw", "export", "function", "for",
    "while",
  ]

  struct Statement {
    var file: String
    /// The line it starts on (1-based).
    var line: Int
    /// The line its `text` begins on (the previous statement's last line).
    var textLine: Int
    var text: String
  }

  /// The files' statements (up to each `;`), each with the line of its first code.
  func statements() -> [Statement] {
    var out: [Statement] = []
    for (file, lines) in search.files {
      var text = ""
      var start: Int?
      var textLine = lines.first.map { $0.0 + 1 } ?? 1
      var depth = 0
      for (index, line) in lines {
        // Without semicolons a statement ends where the next begins: a line opening with a
        // statement's keyword outside any parentheses.
        let opening = line.trimmingCharacters(in: .whitespaces)
        if depth == 0, start != nil,
          Self.keywords.contains(where: {
            opening.hasPrefix($0 + " ") || opening.hasPrefix($0 + "(")
          })
        {
          out.append(
            Statement(file: file, line: start ?? index + 1, textLine: textLine, text: text))
          text = ""
          start = nil
          textLine = index + 1
        }
        for character in line {
          if start == nil && !character.isWhitespace { start = index + 1 }
          if character == "(" || character == "[" { depth += 1 }
          if character == ")" || character == "]" { depth = max(0, depth - 1) }
          if character == ";" {
            out.append(
              Statement(file: file, line: start ?? index + 1, textLine: textLine, text: text))
            text = ""
            start = nil
            textLine = index + 1
          } else {
            text.append(character)
          }
        }
        text.append("\n")
      }
    }
    return out
  }

  struct Consumption {
    var file: String
    var line: Int
    var atomic: Bool
    /// Why it is not atomic.
    var why: String?
  }

  /// The statement that deletes a handoff row or marks it used, and whether it is the one
  /// that reads it (`returning`, under a condition that it is still unused).
  private func consumingStatement() -> Consumption? {
    var fallback: Consumption?
    for statement in statements() {
      let lower = statement.text.lowercased().replacingOccurrences(
        of: #"\s+"#, with: " ", options: .regularExpression)
      let deletes = lower.contains("delete from") || lower.contains(".delete(")
      let marks =
        (lower.contains("update ") || lower.contains(".update("))
        && (lower.contains("consumed") || lower.contains("used_at") || lower.contains("usedat"))
      guard deletes || marks else { continue }
      // A scrub of expired rows is no redemption.
      if deletes && !lower.contains("code") && !lower.contains("hash") { continue }
      let returns = lower.contains("returning")
      let unused = lower.contains("is null") || lower.contains("isnull(")
      let atomic = returns && (deletes || unused)
      let line = firstLine(of: statement, holding: ["delete", "update"])
      let why =
        atomic
        ? nil
        : !returns
          ? "the row is deleted or marked used by a statement that returns nothing, so another reads it"
          : "the row is marked used with no condition that it is still unused (is null), so a second redemption matches it too"
      let found = Consumption(file: statement.file, line: line, atomic: atomic, why: why)
      if atomic { return found }
      fallback = fallback ?? found
    }
    return fallback
  }

  private func firstLine(of statement: Statement, holding words: [String]) -> Int {
    let lines = statement.text.split(separator: "\n", omittingEmptySubsequences: false)
    for (offset, line) in lines.enumerated()
    where words.contains(where: { line.lowercased().contains($0) }) {
      return statement.textLine + offset
    }
    return statement.line
  }

  // MARK: The redemption

  struct Function {
    var file: String
    var start: Int
    var lines: [(Int, String)]
  }

  /// The function or method whose body holds the consuming statement.
  private func enclosingFunction(of consume: Consumption) -> Function? {
    guard let lines = search.files.first(where: { $0.file == consume.file })?.lines else {
      return nil
    }
    // A method's parameters may be wrapped one per line (`async redeem(` alone on its line).
    let opener = try? NSRegularExpression(
      pattern:
        #"^\s*(?:export\s+)?(?:(?:public|private|protected|static)\s+)*(?:async\s+)?(?:function\s+[\w$]+\s*\(|[\w$]+\s*\([^)]*\)\s*(?::\s*[^{=]+)?\{|[\w$]+\s*\(\s*$)"#
    )
    var best: Function?
    for (position, entry) in lines.enumerated() where entry.0 + 1 <= consume.line {
      let text = entry.1
      let word = text.trimmingCharacters(in: .whitespaces).prefix { $0.isLetter }
      guard
        opener?.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil,
        !["if", "for", "while", "switch", "catch", "return"].contains(String(word))
      else { continue }
      var depth = 0
      var opened = false
      var body: [(Int, String)] = []
      for line in lines[position...] {
        body.append(line)
        for character in line.1 {
          if character == "{" {
            depth += 1
            opened = true
          } else if character == "}" {
            depth -= 1
          }
        }
        if opened && depth <= 0 { break }
      }
      if let last = body.last, last.0 + 1 >= consume.line {
        best = Function(file: consume.file, start: entry.0 + 1, lines: body)
      }
    }
    return best
  }

  /// Every refusal the redemption returns is one answer.
  private func uniformRejections(_ function: Function) -> Sourced<Bool>? {
    let returns = function.lines.compactMap { line -> String? in
      guard let range = line.1.range(of: "return ") else { return nil }
      return line.1[range.upperBound...].trimmingCharacters(in: .whitespaces)
    }
    let rejections = Set(
      returns.filter { !$0.contains("200") && !$0.contains("ok: true") })
    // Refusals that are thrown, or none at all: not read.
    guard !rejections.isEmpty else { return nil }
    return Sourced(
      rejections.count <= 1, at: FileLocation(file: function.file, line: function.start, column: 1),
      derivation: rejections.count > 1
        ? ["rejections: " + rejections.sorted().joined(separator: " | ")] : [])
  }

  /// Whether the redemption compares the verifier only after the statement consuming the
  /// code, so a wrong verifier has burned it: a `timingSafeEqual` call or a call to a helper
  /// of these files wrapping it, or an equality on the stored challenge.
  private func verifierComparedAfter(_ consume: Consumption, in function: Function)
    -> Sourced<Bool>?
  {
    let comparators = comparators(besides: function)
    let compares = function.lines.dropFirst().filter { line in
      comparators.contains { line.1.contains($0) }
        || (line.1.lowercased().contains("challenge")
          && (line.1.contains("===") || line.1.contains("!==")))
    }
    guard let first = compares.first else { return nil }
    let burns = compares.allSatisfy { $0.0 + 1 > consume.line }
    let before = compares.first { $0.0 + 1 < consume.line } ?? first
    return Sourced(
      burns, at: FileLocation(file: function.file, line: (burns ? first : before).0 + 1, column: 1))
  }

  /// `timingSafeEqual(` and the helpers of these files wrapping it (`equals(a, b)`), the
  /// redemption itself left out.
  private func comparators(besides function: Function) -> [String] {
    var comparators = ["timingSafeEqual("]
    let opener = function.lines.first?.1 ?? ""
    for found in search.captures(#"function\s+([A-Za-z_$][\w$]*)\s*\("#)
    where !opener.contains("function \(found.value)(")
      && search.blocks(after: "function \(found.value)(").contains(where: {
        $0.body.contains("timingSafeEqual(")
      })
    {
      comparators.append(found.value + "(")
    }
    return comparators
  }

  /// Whether the redemption compares the state it is given with the one its code was issued
  /// for (seed 001: the page exchanges the code, the state and the verifier): a comparator
  /// or an equality over a stored `….state` (`equals(input.state, row.state)`,
  /// `row.state !== state`), or the state in the consuming statement's match
  /// (`eq(mobileAuthHandoff.state, state)`).
  private func stateCompared(in function: Function) -> Sourced<Bool> {
    let comparators = comparators(besides: function)
    for (index, line) in function.lines.dropFirst() {
      let text = line
      guard text.range(of: #"\.state\b"#, options: .regularExpression) != nil else { continue }
      let byCall = comparators.contains { text.contains($0) }
      let byEquality =
        text.range(
          of: #"\.state\s*[!=]==?\s*[\w$.]*\bstate\b|\bstate\s*[!=]==?\s*[\w$]+\.state\b"#,
          options: .regularExpression) != nil
      let inMatch =
        text.range(of: #"\beq\(\s*[\w$.]+\.state\s*,"#, options: .regularExpression) != nil
      if byCall || byEquality || inMatch {
        return Sourced(true, at: FileLocation(file: function.file, line: index + 1, column: 1))
      }
    }
    return Sourced(
      false, at: FileLocation(file: function.file, line: function.start, column: 1),
      derivation: [
        "the redemption never compares the state it is given with the one its code was issued for"
      ])
  }
}
