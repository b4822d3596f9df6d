import Foundation

extension MutationGenerator {
  /// Relational, equality and logical operators written with a space on each side (as every
  /// style guide here writes them, which keeps generics, arrows and shifts out), negations,
  /// integer constants and booleans.
  mutating func codeOperators() {
    var index = 0
    while index < bytes.count {
      defer { index += 1 }
      guard isCode(index) else { continue }
      let before = index > 0 ? bytes[index - 1] : UInt8(ascii: "\n")
      let spacedBefore = before == UInt8(ascii: " ")
      if spacedBefore, let (op, width) = spacedOperator(at: index) {
        binaryOperator(op, at: index..<(index + width))
        index += width - 1
        continue
      }
      let byte = bytes[index]
      if byte == UInt8(ascii: "!"), index + 1 < bytes.count, isCode(index + 1),
        !Self.isIdentifier(before), before != UInt8(ascii: ")"), before != UInt8(ascii: "]"),
        before != UInt8(ascii: "!"), before != UInt8(ascii: "?"),
        Self.isIdentifier(bytes[index + 1]) || bytes[index + 1] == UInt8(ascii: "(")
      {
        add(.negationRemoved, index..<(index + 1), "")
        continue
      }
      if Self.isDigit(byte), !Self.isIdentifier(before), before != UInt8(ascii: "."),
        before != UInt8(ascii: "#")
      {
        var end = index
        while end < bytes.count, Self.isDigit(bytes[end]) { end += 1 }
        let next = end < bytes.count ? bytes[end] : UInt8(ascii: " ")
        let isFloat =
          next == UInt8(ascii: ".") && end + 1 < bytes.count && Self.isDigit(bytes[end + 1])
        if !Self.isIdentifier(next), !isFloat, end - index <= 9,
          let value = Int(string(index..<end))
        {
          add(.boundaryShifted, index..<end, String(value + 1))
          if value > 0 { add(.boundaryShifted, index..<end, String(value - 1)) }
        }
        index = end - 1
        continue
      }
      if Self.isIdentifier(byte), !Self.isIdentifier(before), before != UInt8(ascii: ".") {
        var end = index
        while end < bytes.count, Self.isIdentifier(bytes[end]) { end += 1 }
        let word = string(index..<end)
        if word == "true" { add(.booleanFlipped, index..<end, "false") }
        if word == "false" { add(.booleanFlipped, index..<end, "true") }
        index = end - 1
      }
    }
  }

  private func spacedOperator(at index: Int) -> (String, Int)? {
    for op in ["===", "!==", "==", "!=", "<=", ">=", "&&", "||", "<", ">"]
    where matches(op + " ", at: index) {
      return (op, op.utf8.count)
    }
    return nil
  }

  private mutating func binaryOperator(_ op: String, at range: Range<Int>) {
    switch op {
    case "<":
      add(.relationalFlipped, range, ">=")
      add(.relationalLoosened, range, "<=")
    case "<=":
      add(.relationalFlipped, range, ">")
      add(.relationalLoosened, range, "<")
    case ">":
      add(.relationalFlipped, range, "<=")
      add(.relationalLoosened, range, ">=")
    case ">=":
      add(.relationalFlipped, range, "<")
      add(.relationalLoosened, range, ">")
    case "==", "===":
      add(.equalityFlipped, range, op == "==" ? "!=" : "!==")
      equalityToMatch(at: range)
    case "!=", "!==":
      add(.equalityFlipped, range, op == "!=" ? "==" : "===")
    case "&&", "||":
      add(.logicalSwapped, range, op == "&&" ? "||" : "&&")
      // `a && b` → `a` and → `b`.
      if let end = conditionEnd(from: range.upperBound + 1) {
        add(.conditionDropped, (range.lowerBound - 1)..<end, "")
      }
      if let start = conditionStart(before: range.lowerBound - 1) {
        add(.conditionDropped, start..<(range.upperBound + 1), "")
      }
    default: break
    }
  }

  /// `lhs == rhs` → `lhs.hasSuffix(rhs)` (Swift) or `lhs.endsWith(rhs)`: the look-alike
  /// host that ends with the trusted one. Only where an operand is text-like, so that most
  /// such mutants compile.
  private mutating func equalityToMatch(at range: Range<Int>) {
    guard let end = operandEnd(from: range.upperBound + 1),
      let start = operandStart(before: range.lowerBound - 1)
    else { return }
    let lhs = string(start..<(range.lowerBound - 1))
    let rhs = string((range.upperBound + 1)..<end)
    let textLike = ["host", "scheme", "origin", "url", "domain", "path", "name", "key", "id"]
    let quoted = text.stringStarting[range.upperBound + 1] != nil
    guard quoted || textLike.contains(where: { (lhs + rhs).lowercased().contains($0) }),
      !lhs.isEmpty, !rhs.isEmpty, lhs != "nil", rhs != "nil", rhs != "null", rhs != "true",
      rhs != "false"
    else { return }
    let call: String
    switch language {
    case .swift: call = "hasSuffix"
    case .kotlin, .java, .groovy, .typescript: call = "endsWith"
    default: return
    }
    let receiver = lhs.hasSuffix("?") || lhs.contains(" ") ? "(\(lhs))" : lhs
    add(.equalityToMatch, start..<end, "\(receiver).\(call)(\(rhs))")
  }

  /// Scans from `index` — forward, or backward from the byte before it — over balanced
  /// brackets and whole string literals, and stops at depth zero at a byte of `stops`, where
  /// `stopsAt` says, or at an unbalanced bracket. Nil when nothing was scanned or the brackets
  /// did not balance.
  func scan(
    from index: Int, forward: Bool, stops: String, stopsAt: (Int) -> Bool = { _ in false }
  ) -> Int? {
    let stopBytes = Set(stops.utf8)
    let opening = Set((forward ? "([" : ")]").utf8)
    let closing = Set((forward ? ")]" : "([").utf8)
    var cursor = index
    var depth = 0
    while forward ? cursor < bytes.count : cursor > 0 {
      let at = forward ? cursor : cursor - 1
      if forward, let span = text.stringStarting[at] {
        cursor = text.strings[span].end
        continue
      }
      if !forward, let span = text.stringEnding[at] {
        cursor = text.strings[span].start
        continue
      }
      if depth == 0, stopsAt(at) { break }
      let byte = bytes[at]
      if opening.contains(byte) {
        depth += 1
      } else if closing.contains(byte) {
        if depth == 0 { break }
        depth -= 1
      } else if depth == 0, stopBytes.contains(byte) {
        break
      }
      cursor += forward ? 1 : -1
    }
    guard depth == 0, forward ? cursor > index : cursor < index else { return nil }
    return cursor
  }

  /// Where an operand that starts at `index` ends: up to a space, a comma, a semicolon, a
  /// brace, `?` or `:` at depth zero.
  func operandEnd(from index: Int) -> Int? {
    scan(from: index, forward: true, stops: " \n\t,;{}?:")
  }

  func operandStart(before index: Int) -> Int? {
    scan(from: index, forward: false, stops: " \n\t,;{}!=")
  }

  /// Where the condition that starts at `index` ends: at the next `&&`/`||`, an unbalanced
  /// closing bracket, the end of the line, a block's brace, `else` or a ternary.
  func conditionEnd(from index: Int) -> Int? {
    scan(from: index, forward: true, stops: "\n,;{}") { at in
      [" &&", " ||", " ?", " else", " {", " ->"].contains { matches($0, at: at) }
    }
  }

  func conditionStart(before index: Int) -> Int? {
    let stopWords = [
      "&& ", "|| ", "if ", "guard ", "while ", "return ", "= ", "( ", "when ", "case ",
      "where ", "? ", ": ",
    ]
    guard
      var start = scan(
        from: index, forward: false, stops: "\n,;{}",
        stopsAt: { at in
          // A space that ends a keyword or an operator: the condition starts after it.
          guard self.bytes[at] == UInt8(ascii: " ") else { return false }
          return stopWords.contains { stop in
            let width = stop.utf8.count
            guard at - width + 1 >= 0, self.matches(stop, at: at - width + 1) else { return false }
            guard at - width >= 0 else { return true }
            let before = self.bytes[at - width]
            // `== ` and `!= ` end in `= ` too: they are inside the condition.
            if stop == "= ", "=!<>".utf8.contains(before) { return false }
            return !Self.isIdentifier(before)
          }
        })
    else { return nil }
    while start < index, bytes[start] == UInt8(ascii: " ") { start += 1 }
    return start < index ? start : nil
  }

  /// Literals that look like a decision's operand (a scheme, a host, a key, a header, a
  /// path): short, without spaces. Sentences are messages, not decisions.
  mutating func codeStrings() {
    for span in text.strings {
      let content = span.contentStart..<span.contentEnd
      guard content.count >= 2, content.count <= 80, !isMessageLine(span.start) else { continue }
      let value = string(content)
      // An escape at the end (`"\n"`) is one character written as two.
      guard !value.contains(" "), !value.contains("\\("), !value.contains("${"),
        !value.contains("\n"), !value.dropLast().hasSuffix("\\"), !value.hasSuffix("\\")
      else { continue }
      add(.literalChanged, (content.upperBound - 1)..<content.upperBound, "")
    }
  }

  /// A whole call or assignment statement removed: the handler never registered, the value
  /// never stored, the cleanup never run.
  mutating func statements() {
    let keywords: Set<String> = [
      "if", "else", "guard", "while", "for", "func", "fun", "return", "switch", "case", "class",
      "struct", "enum", "let", "var", "val", "const", "import", "package", "public", "private",
      "internal", "protected", "override", "static", "final", "init", "super", "do", "try",
      "catch", "throw", "function", "export", "extension", "protocol", "interface", "default",
      "when", "break", "continue", "async", "await", "new", "type", "def", "apply", "plugins",
      "android", "defaultConfig", "buildTypes", "dependencies", "repositories",
    ]
    for index in lineStarts.indices {
      let range = lineRange(index)
      let line = string(range)
      let trimmed = line.trimmingSpaces
      guard !trimmed.isEmpty, let first = trimmed.utf8.first, Self.isIdentifier(first),
        !Self.isDigit(first)
      else { continue }
      let indent = line.prefix { $0 == " " || $0 == "\t" }
      let start = range.lowerBound + indent.utf8.count
      // The whole line must be code or strings: no comment, no brace opening or closing.
      let code = (start..<range.upperBound).filter { text.regions[$0] == .code }
      guard code.count > 0,
        !(start..<range.upperBound).contains(where: { text.regions[$0] == .comment }),
        !code.contains(where: { bytes[$0] == UInt8(ascii: "{") || bytes[$0] == UInt8(ascii: "}") })
      else { continue }
      let word = String(trimmed.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
      guard !keywords.contains(word), !trimmed.hasPrefix("@") else { continue }
      let endsAsCall = trimmed.hasSuffix(")") || trimmed.hasSuffix(");")
      let isAssignment = trimmed.contains(" = ") && !trimmed.contains(" == ")
      guard endsAsCall || isAssignment, !isMessageLine(start), !trimmed.hasSuffix(",") else {
        continue
      }
      // An initialiser's `self.name = name` cannot go without breaking the build.
      if let equals = trimmed.range(of: " = "), trimmed.hasPrefix("self."),
        trimmed[trimmed.index(trimmed.startIndex, offsetBy: 5)..<equals.lowerBound]
          == trimmed[equals.upperBound...]
      {
        continue
      }
      // Part of a longer statement: the previous line goes on, or the next one continues it.
      if index > 0 {
        let previous = string(lineRange(index - 1)).trimmingSpaces
        if let last = previous.last, ",([&|+=.?:".contains(last) { continue }
      }
      if index + 1 < lineStarts.count {
        let next = string(lineRange(index + 1)).trimmingSpaces
        if let first = next.first, ".&|+?:".contains(first) { continue }
      }
      // A statement that continues on the next line would leave half of itself behind.
      let opens = code.filter { bytes[$0] == UInt8(ascii: "(") }.count
      let closes = code.filter { bytes[$0] == UInt8(ascii: ")") }.count
      guard opens == closes else { continue }
      add(.statementRemoved, start..<range.upperBound, "")
    }
  }
}
