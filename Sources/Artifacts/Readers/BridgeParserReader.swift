import Foundation
import QualifyCore

/// The refusals of the protocol module's parser that receive() relies on (seed 001, What
/// crosses; OpenMapX's `parseMobileBridgeMessage`), read as written: a key that pollutes a
/// prototype (`__proto__`, `constructor`, `prototype`) refused anywhere in the decoded value —
/// by the parser or a function of the module it calls —, and the message's clock compared
/// with the receiver's (`Math.abs(nowMs - ….sentAtMs) > MAX_CLOCK_SKEW_MS`), which only runs
/// when receive() hands the parser its clock (`nowMs:`).
enum BridgeParserReader {
  /// `pollution` and `clock`, as `BridgeShellSettings.receiverChecks` holds them; empty when
  /// the parser is not found (the simulated receiver then makes both, as the seed says).
  static func read(_ core: CodeSearch, receive: BridgeReceiverReader.Body?) -> [String: Sourced<
    Bool
  >] {
    guard let parser = function("parseMobileBridgeMessage", in: core) else { return [:] }
    let at = FileLocation(file: parser.file, line: parser.line, column: 1)
    var out: [String: Sourced<Bool>] = [:]
    // The functions of the module whose body names a polluting key, and whether the parser
    // refuses on one of them (or names the key itself).
    var checkers: [String] = []
    for (_, lines) in core.files {
      let text = lines.map(\.1).joined(separator: "\n")
      for function in ScriptStatements.functions(in: text)
      where function.body.contains("__proto__") || referencesKeyList(function.body, in: text) {
        checkers.append(function.name)
      }
    }
    let refusesPollution =
      parser.body.contains("__proto__")
      || checkers.contains { name in
        parser.body.range(
          of: #"if\s*\(\s*"# + name + #"\("#, options: .regularExpression) != nil
      }
    out["pollution"] = Sourced(
      refusesPollution, at: at,
      derivation: refusesPollution
        ? [] : ["parseMobileBridgeMessage refuses no __proto__, constructor or prototype key"])
    let comparesClock =
      parser.body.range(
        of: #"sentAtMs\)?\s*>=?\s*\w*SKEW\w*|\w*SKEW\w*\s*<=?\s*[^;]*sentAtMs"#,
        options: .regularExpression) != nil
    let handsClock =
      receive.map { body in
        body.lines[..<body.dispatch].contains { $0.contains("nowMs:") }
      } ?? true
    out["clock"] = Sourced(
      comparesClock && handsClock,
      at: handsClock
        ? at : receive.map { FileLocation(file: $0.file, line: $0.line, column: 1) } ?? at,
      derivation: !comparesClock
        ? ["parseMobileBridgeMessage compares no sentAtMs with a skew bound"]
        : handsClock
          ? [] : ["receive() hands the parser no clock (nowMs:), so its skew check never runs"])
    return out
  }

  /// How the parser counts a message's aggregates, as written: each list key whose length is
  /// added to a total (`if (key === "legs") totals.legs += child.length`) and compared with a
  /// limit (`if (totals.legs > MAX_LEGS) return fail(…)`), as `key → total`; nil when the
  /// module adds to no total (the seed's counting is then simulated).
  static func counting(_ core: CodeSearch) -> Sourced<[String: String]>? {
    var counted: [String: String] = [:]
    var compared: Set<String> = []
    var at: FileLocation?
    for (file, lines) in core.files {
      let text = lines.map(\.1).joined(separator: "\n")
      // The test and the addition may sit on two lines, in braces (`curly` style).
      let additions = try? NSRegularExpression(
        pattern:
          #"key\s*===?\s*["'](\w+)["'][^;]*?\b\w+\.(coordinates|steps|legs)\s*\+="#)
      for match in additions?.matches(in: text, range: NSRange(text.startIndex..., in: text)) ?? []
      {
        guard let key = Range(match.range(at: 1), in: text),
          let total = Range(match.range(at: 2), in: text)
        else { continue }
        counted[String(text[key])] = String(text[total])
        if at == nil {
          let line = text[..<key.lowerBound].filter { $0 == "\n" }.count
          at = FileLocation(
            file: file, line: lines.count > line ? lines[line].0 + 1 : line + 1, column: 1)
        }
      }
      for found in InstanceDecisionReader.matches(
        #"\b\w+\.(coordinates|steps|legs)\s*>=?\s*[A-Za-z_][\w.]*|[A-Za-z_][\w.]*\s*<=?\s*\w+\.(coordinates|steps|legs)\b"#,
        text)
      {
        compared.formUnion(found.filter { !$0.isEmpty })
      }
    }
    guard let at else { return nil }
    return Sourced(counted.filter { compared.contains($0.value) }, at: at)
  }

  /// The function `name` of the module: its file, first line and body.
  static func function(_ name: String, in code: CodeSearch) -> (
    file: String, line: Int, body: String
  )? {
    for (file, lines) in code.files {
      let text = lines.map(\.1).joined(separator: "\n")
      guard let found = ScriptStatements.functions(in: text).first(where: { $0.name == name })
      else { continue }
      return (file, lines.count > found.line ? lines[found.line].0 + 1 : 0, found.body)
    }
    return nil
  }

  /// Whether the body tests keys against a constant of the text that lists `__proto__`.
  static func referencesKeyList(_ body: String, in text: String) -> Bool {
    let lists = InstanceDecisionReader.matches(
      #"(?:const|let)\s+(\w+)\s*=\s*(?:new Set\()?\[[^\]]*"__proto__""#, text
    ).map { $0[0] }
    return lists.contains { body.contains($0) }
  }
}

extension BridgeParserReader {
  /// The module's walks over a decoded message that take a depth (`function
  /// hasForbiddenKey(value: unknown, depth = 0)`) and call themselves without changing it
  /// (`depth + 0`, `depth`, or no depth: its default again) or away from their bound: their
  /// bound (`depth > 64`, or a countdown's `depth <= 0`) never stops them, and a message nested
  /// deeper than the receiver's stack overflows it before any refusal. With them, the walks
  /// whose depth argument is not evaluated (`depth * 2`, a local bound to a call): neither
  /// bounded nor not. Only the module that defines `parseMobileBridgeMessage` is read.
  static func walks(_ core: CodeSearch) -> (unbounded: [Sourced<String>], unread: [Sourced<String>])
  {
    // The module that parses the bridge's messages, not every file of the core package.
    guard let parser = function("parseMobileBridgeMessage", in: core) else { return ([], []) }
    var unbounded: [Sourced<String>] = []
    var unread: [Sourced<String>] = []
    for (file, lines) in core.files where file == parser.file {
      let text = lines.map(\.1).joined(separator: "\n")
      for function in ScriptStatements.functions(in: text) {
        let header =
          InstanceDecisionReader.matches(
            #"(?:function\s+|(?:const|let)\s+)"# + function.name + #"\b[^{]*?\(([^)]*)\)"#, text
          ).first?.first ?? ""
        let parts = ScriptStatements.topLevelParts(header, angles: true).map {
          $0.trimmingCharacters(in: .whitespaces)
        }
        let parameters = parts.map {
          String($0.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "$" })
        }
        guard let position = parameters.firstIndex(of: "depth") else { continue }
        let line = lines.count > function.line ? lines[function.line].0 + 1 : function.line + 1
        let at = FileLocation(file: file, line: line, column: 1)
        let growing = boundGrows(
          parameter: parts.first { $0.hasPrefix("depth") } ?? "", function.body)
        var unevaluated: String?
        for call in calls(of: function.name, in: function.body) {
          let arguments = ScriptStatements.topLevelParts(call, angles: false)
          // No argument there is the default again: the depth unchanged.
          let given =
            position < arguments.count && !arguments[position].isEmpty
            ? arguments[position] : "depth"
          // A call not evaluated does not hide a stuck one after it.
          guard let step = depthStep(given, in: function.body) else {
            unevaluated = unevaluated ?? "\(function.name)(\(call))"
            continue
          }
          // A step away from the bound (`depth - 1` under `depth > 64`) never reaches it
          // either; with no bound read, any step is taken to reach one.
          let reaches = step != 0 && (growing.map { $0 == (step > 0) } ?? true)
          guard !reaches else { continue }
          unbounded.append(Sourced("\(function.name)(\(call))", at: at))
          unevaluated = nil
          break
        }
        if let unevaluated { unread.append(Sourced(unevaluated, at: at)) }
      }
    }
    return (unbounded, unread)
  }

  /// How a call's depth argument moves the depth: 0 unchanged (`depth`, `depth + 0`), the sign
  /// of a literal step (`depth + 1`, `1 + depth`, `depth - 1`), through a local bound to one
  /// (`const next = depth + 1`); nil for anything else.
  static func depthStep(_ argument: String, in body: String, resolving: Bool = true) -> Int? {
    let compact = argument.filter { !$0.isWhitespace }
    if compact == "depth" { return 0 }
    if let step = InstanceDecisionReader.matches(#"^depth([-+])(\d+)$"#, compact).first,
      let size = Int(step[1])
    {
      return size == 0 ? 0 : (step[0] == "+" ? 1 : -1)
    }
    if let step = InstanceDecisionReader.matches(#"^(\d+)\+depth$"#, compact).first,
      let size = Int(step[0])
    {
      return size == 0 ? 0 : 1
    }
    guard resolving, compact.range(of: #"^[A-Za-z_$][\w$]*$"#, options: .regularExpression) != nil,
      let bound = InstanceDecisionReader.matches(
        #"(?:const|let)\s+"# + NSRegularExpression.escapedPattern(for: compact)
          + #"\s*(?::\s*\w+\s*)?=\s*([^;\n]+)"#, body
      ).first?.first
    else { return nil }
    return depthStep(bound, in: body, resolving: false)
  }

  /// Whether the walk's depth grows toward its bound (true) or counts down to it (false):
  /// from the parameter's default (`depth = 0` grows; `depth = MAX_DEPTH` counts down) and
  /// what the body compares it with (`depth <= 0` counts down; `depth > 64`, `depth <
  /// MAX_DEPTH` grow); nil when neither says, or they disagree.
  static func boundGrows(parameter: String, _ body: String) -> Bool? {
    // A start at 0 or 1 grows; one at a named bound or a large number counts down.
    let start = InstanceDecisionReader.matches(
      #"^depth\s*(?::\s*\w+)?\s*=\s*([\w$.]+)$"#, parameter
    ).first?.first.flatMap { start -> Bool? in
      if let value = Int(start) { return value < 8 }
      return start.range(of: #"^[A-Z][A-Z0-9_]*$"#, options: .regularExpression) != nil
        ? false : nil
    }
    // `depth > 64`, `MAX < depth`: a bound other than 0 is grown toward.
    let bound =
      (InstanceDecisionReader.matches(
        #"\bdepth\s*(?:[<>]=?|===)\s*([\w$.]+)"#, body
      ).first?.first
      ?? InstanceDecisionReader.matches(#"([\w$.]+)\s*(?:[<>]=?|===)\s*depth\b"#, body).first?
      .first).map { $0 != "0" }
    // The two disagreeing (a countdown's test under a default of 0): not said.
    if let start, let bound, start != bound { return nil }
    return start ?? bound
  }

  /// The argument lists of the calls of `name` in `body`.
  private static func calls(of name: String, in body: String) -> [String] {
    var out: [String] = []
    var searchFrom = body.startIndex
    while let found = body.range(
      of: #"\b"# + name + #"\s*\("#, options: .regularExpression,
      range: searchFrom..<body.endIndex)
    {
      let open = body.index(before: found.upperBound)
      guard let close = ScriptStatements.closingParenthesis(body, from: open) else { break }
      out.append(String(body[body.index(after: open)..<close]))
      searchFrom = body.index(after: close)
    }
    return out
  }
}
