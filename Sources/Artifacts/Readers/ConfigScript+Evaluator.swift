import Foundation
import QualifyCore

extension ConfigScript {
  /// Walks the tokens once, evaluating as it parses. In a branch not taken (`active` false)
  /// it only parses, so a call the subset does not know is an error only where the build
  /// would really make it.
  struct Evaluator {
    let tokens: [Token]
    let file: String
    let env: (String) -> String?
    var position = 0
    var active = true
    var constants: [String: Traced] = [:]
    var exported: Traced?
    var failure: (message: String, line: Int)?
    /// How deep expressions and blocks nest here: a config nests a few levels, and a script
    /// nesting hundreds is hostile input, refused before it can exhaust the stack.
    var depth = 0

    init(tokens: [Token], file: String, env: @escaping (String) -> String?) {
      self.tokens = tokens
      self.file = file
      self.env = env
    }

    // MARK: Tokens

    var current: Token? { position < tokens.count ? tokens[position] : nil }
    var line: Int { current?.line ?? tokens.last?.line ?? 1 }

    func error(_ message: String, line: Int? = nil) -> Diagnostic {
      Diagnostic.error(
        at: FileLocation(file: file, line: line ?? self.line, column: 1), message,
        hint:
          "qualify evaluates a Capacitor config's literals, process.env, ||, ??, &&, ?:, spreads, if/throw guards and Boolean/String/Buffer.from; give it the synced capacitor.config.json under \"paths\" in qualify.json instead"
      )
    }

    func isPunctuator(_ symbol: String) -> Bool { current?.kind == .punctuator(symbol) }
    func isWord(_ word: String) -> Bool { current?.kind == .word(word) }

    mutating func accept(_ symbol: String) -> Bool {
      guard isPunctuator(symbol) else { return false }
      position += 1
      return true
    }

    mutating func expect(_ symbol: String) throws {
      guard accept(symbol) else { throw error("expected `\(symbol)`") }
    }

    mutating func word() throws -> String {
      guard case .word(let word)? = current?.kind else { throw error("expected a name") }
      position += 1
      return word
    }

    /// Past one balanced `(…)`, `[…]` or `{…}`, `position` on its opener.
    mutating func skipBalanced() throws {
      var depth = 0
      repeat {
        guard let token = current else { throw error("a bracket is not closed") }
        if case .punctuator(let p) = token.kind {
          if ["(", "[", "{"].contains(p) { depth += 1 }
          if [")", "]", "}"].contains(p) { depth -= 1 }
        }
        position += 1
      } while depth > 0
    }

    // MARK: Statements

    mutating func program() throws {
      while current != nil { try statement() }
    }

    /// Counts one more level of nesting, refusing past any real config's.
    mutating func descend() throws {
      depth += 1
      guard depth <= 100 else { throw error("the script nests more than 100 levels deep") }
    }

    mutating func statement() throws {
      try descend()
      defer { depth -= 1 }
      guard let token = current else { return }
      switch token.kind {
      case .punctuator(";"): position += 1
      case .punctuator("{"):
        position += 1
        while !isPunctuator("}") {
          guard current != nil else { throw error("a block is not closed") }
          try statement()
        }
        position += 1
      case .word("import"): try skipImport()
      case .word("export"):
        position += 1
        if isWord("default") {
          position += 1
          let value = try expression()
          if active { exported = value }
        }
      case .word("const"), .word("let"), .word("var"): try declaration()
      case .word("type"), .word("interface"), .word("declare"): try skipTypeDeclaration()
      case .word("if"): try ifStatement()
      case .word("throw"):
        position += 1
        let thrown = try expression()
        if active, failure == nil {
          if case .error(let message) = thrown.value {
            failure = (message, token.line)
          } else {
            failure = (thrown.value.text, token.line)
          }
        }
      case .word("module"):
        position += 1
        try expect(".")
        guard try word() == "exports" else { throw error("expected `module.exports`") }
        try expect("=")
        let value = try expression()
        if active { exported = value }
      default:
        // An expression statement (`console.log(…)`): parsed, its value unused.
        let wasActive = active
        active = false
        defer { active = wasActive }
        _ = try expression()
      }
    }

    mutating func skipImport() throws {
      position += 1
      while let token = current {
        position += 1
        if token.kind == .punctuator(";") { return }
        if case .string = token.kind, !isPunctuator(".") { return }
      }
    }

    mutating func skipTypeDeclaration() throws {
      let start = line
      position += 1
      while let token = current {
        if token.kind == .punctuator(";") {
          position += 1
          return
        }
        if token.line > start, case .word(let w) = token.kind,
          ["const", "let", "var", "export", "if", "import", "type", "interface"].contains(w)
        {
          return
        }
        if case .punctuator(let p) = token.kind, ["(", "[", "{"].contains(p) {
          try skipBalanced()
          if p == "{" && token.line >= start && isStatementStart { return }
        } else {
          position += 1
        }
      }
    }

    var isStatementStart: Bool {
      guard case .word(let w)? = current?.kind else { return current == nil }
      return ["const", "let", "var", "export", "if", "import", "type", "interface"].contains(w)
    }

    mutating func declaration() throws {
      position += 1
      guard case .word(let name)? = current?.kind else {
        // A destructuring (`const { a } = …`): its names stay unknown.
        let wasActive = active
        active = false
        defer { active = wasActive }
        try skipBalanced()
        try expect("=")
        _ = try expression()
        return
      }
      position += 1
      if accept(":") { try skipType() }
      guard accept("=") else { return }
      let value = try expression()
      if active { constants[name] = value }
    }

    mutating func ifStatement() throws {
      position += 1
      try expect("(")
      let condition = try expression()
      try expect(")")
      let wasActive = active
      active = wasActive && condition.value.truthy
      try statement()
      if isWord("else") {
        position += 1
        active = wasActive && !condition.value.truthy
        try statement()
      }
      active = wasActive
    }

    /// Past a type annotation: up to the `=`, `,`, `)` or `;` that ends it at its own depth.
    mutating func skipType() throws {
      while let token = current {
        if case .punctuator(let p) = token.kind {
          if ["=", ",", ")", ";", "}", "]"].contains(p) { return }
          if ["(", "[", "{"].contains(p) {
            try skipBalanced()
            continue
          }
          if p == "<" {
            var depth = 0
            repeat {
              if isPunctuator("<") { depth += 1 }
              if isPunctuator(">") { depth -= 1 }
              position += 1
            } while depth > 0 && current != nil
            continue
          }
        }
        position += 1
      }
    }
  }
}
