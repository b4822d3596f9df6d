import Foundation
import QualifyCore

/// How a multi-instance shell's local page decides what to show when it is reached by going
/// back (seed 004, ADR 0006), and what iOS keeps of Capacitor's scripts for it (bug #1), read
/// as the code writes it:
///
/// - boot()'s redirect to the active instance — the `if` whose block navigates — must rest
///   on the navigation type: false whenever the load is `back_forward` (a page reloaded
///   because the back-forward cache was evicted), true on some cold launch. The test is a
///   function whose body compares with `'back_forward'`, a local holding its result, or the
///   comparison itself;
/// - the `pageshow` handler must reach its render on a persisted restore: no early return
///   it passes first may hold whenever `event.persisted` is true;
/// - iOS's copy of the local page's user scripts (`…userContentController.userScripts`)
///   must be rebuilt from each script's parts (`$0.source`, …): the array holds the live
///   scripts, which `removeAllUserScripts()` empties before they are restored from it.
struct LocalPageBootReader {
  let web: CodeSearch

  static let navigates = [
    "location.assign(", "loadInstance(", "location.replace(", "location.href =",
  ]

  /// Whether the handler boot() hands the `deeplink` parameter to navigates to an instance
  /// — itself, or through a small wrapper of `location.assign(` such as `loadInstance()` —
  /// so that a link to a known instance opens it; nil, with `unread` saying where qualify
  /// looked, when no handler is found. The parameter is read however the code writes it
  /// (`params.get('deeplink')`, `new URLSearchParams(…).get("deeplink")`,
  /// `url.searchParams.get(…)`), kept in a local or passed straight to the handler.
  func deepLinkHandlerNavigates(unread: inout Sourced<String>?) -> Sourced<Bool>? {
    guard let boot = bootBlock() else {
      unread = Sourced(bootUnfound, at: nil)
      return nil
    }
    let bootAt = FileLocation(file: boot.file, line: boot.line, column: 1)
    let read = #"\.get\(\s*['"]deeplink['"]\s*\)"#
    let skipped: Set<String> = [
      "if", "while", "Boolean", "String", "decodeURIComponent", "get", "URLSearchParams", "URL",
    ]
    var handlers: [String] = []
    if let variable = InstanceDecisionReader.matches(
      #"(?:const|let|var)\s+(\w+)\s*(?::[^=\n]+)?=[^;\n]*"# + read, boot.body
    ).first?.first {
      handlers = InstanceDecisionReader.matches(
        #"(\w+)\(\s*(?:decodeURIComponent\(\s*)?"#
          + NSRegularExpression.escapedPattern(for: variable)
          + #"\s*\)?\s*[,)]"#, boot.body
      ).map(\.[0]).filter { !skipped.contains($0) }
    } else {
      var search = boot.body.startIndex
      while let range = boot.body.range(
        of: read, options: .regularExpression, range: search..<boot.body.endIndex)
      {
        if let call = Self.enclosingCall(of: range.lowerBound, in: boot.body, skipping: skipped) {
          handlers.append(call)
        }
        search = range.upperBound
      }
    }
    guard !handlers.isEmpty else {
      unread = Sourced(
        "boot() hands the deeplink parameter to no function qualify finds (looked for .get('deeplink') kept in a local or passed to a call)",
        at: bootAt)
      return nil
    }
    // Every function the link reaches (a logger beside the handler): one that opens it is the
    // handler.
    var judged: Sourced<Bool>?
    for handler in handlers {
      guard let found = navigates(handler) else { continue }
      if found.value { return found }
      judged = judged ?? found
    }
    if let judged { return judged }
    let names = handlers.map { "\($0)()" }.joined(separator: ", ")
    unread = Sourced(
      "boot() hands the deeplink parameter to \(names), which the web code does not define (looked for function NAME( and const NAME =)",
      at: bootAt)
    return nil
  }

  /// Whether the function `handler` navigates, itself or through a short wrapper of the
  /// location; nil when the web code does not define it.
  private func navigates(_ handler: String) -> Sourced<Bool>? {
    guard
      let block = web.definition(of: handler)
    else { return nil }
    let at = FileLocation(file: block.file, line: block.line, column: 1)
    if Self.navigates.contains(where: block.body.contains) { return Sourced(true, at: at) }
    // A helper counts when it is a navigation itself: a short function that assigns the
    // location, not a renderer whose own handlers navigate later, on a tap.
    let own = CodeSearch.declaredName(in: String(block.body.prefix { $0 != "\n" }))
    let wrappers = web.calledBodies(from: block.body, except: own.map { [$0] } ?? []).filter {
      $0.body.split(separator: "\n").count <= 5
        && ["location.assign(", "location.replace(", "location.href ="].contains(
          where: $0.body.contains)
    }
    return Sourced(
      !wrappers.isEmpty, at: at,
      derivation: wrappers.isEmpty
        ? ["\(handler)() neither assigns the location nor calls a function that does"] : [])
  }

  /// The web code's string constants (`const MANAGE_PARAM = 'manage'`), by name; the first
  /// declaration of a name wins.
  func stringConstants() -> [String: String] {
    Dictionary(
      web.captures(
        #"(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::\s*[^=\n]+)?=\s*['"]([^'"]+)['"]"#, groups: 2
      )
      .map { ($0.value[0], $0.value[1]) }, uniquingKeysWith: { first, _ in first })
  }

  /// The query parameter boot() tests before redirecting (`params.has('manage')`, or a
  /// constant holding its name, as `MANAGE_PARAM` does): what a page that wants the manager
  /// must carry. Nil when boot() tests none qualify reads.
  func managerParameter() -> Sourced<String>? {
    guard let boot = bootBlock() else { return nil }
    let constants = stringConstants()
    // The URL's own parameters: a URLSearchParams, inline or kept in a local.
    let searches = Set(
      InstanceDecisionReader.matches(
        #"(?:const|let|var)\s+(\w+)\s*=\s*new\s+URLSearchParams\("#, boot.body
      ).map(\.[0]) + ["searchParams"])
    for found in InstanceDecisionReader.matches(
      #"([\w$.]+|URLSearchParams\([^()]*(?:\([^()]*\))?[^()]*\))\s*\.has\(\s*(['"][^'"]+['"]|[A-Za-z_$][\w$]*)\s*\)"#,
      boot.body)
    {
      let receiver = found[0]
      guard
        receiver.hasPrefix("URLSearchParams(")
          || searches.contains(String(receiver.split(separator: ".").last ?? ""))
      else { continue }
      let argument = found[1]
      let name =
        argument.first == "'" || argument.first == "\""
        ? String(argument.dropFirst().dropLast()) : constants[argument]
      guard let name, name != "deeplink" else { continue }
      return Sourced(
        name, at: FileLocation(file: boot.file, line: boot.line, column: 1),
        derivation: argument == name ? [] : ["\(argument) holds \"\(name)\""])
    }
    return nil
  }

  /// The local page's entry: `boot()`, or the function the module calls at its top level
  /// (`void start();`, `main().catch(…)`) when it has another name.
  func bootBlock() -> (file: String, line: Int, body: String)? {
    if let boot = web.definition(of: "boot") { return boot }
    for (_, lines) in web.files {
      for (_, line) in lines {
        guard
          let name = InstanceDecisionReader.matches(
            #"^(?:void\s+|await\s+)?([A-Za-z_$][\w$]*)\(\)\s*(?:\.(?:catch|then)\(.*)?;?\s*$"#, line
          ).first?.first, !["if", "while", "switch"].contains(name)
        else { continue }
        if let block = web.definition(of: name) { return block }
      }
    }
    return nil
  }

  /// What qualify says when it finds no entry: where it looked.
  var bootUnfound: String {
    "no boot() in the web code (looked for function boot(, const boot = and a function called at a module's top level in \(web.files.map(\.file).joined(separator: ", ")))"
  }

  /// The innermost call whose arguments hold `position` and whose callee is not one of
  /// `skipping` (the parameter's own reading: `new URLSearchParams(…)`, `decodeURIComponent`).
  static func enclosingCall(
    of position: String.Index, in text: String, skipping: Set<String>
  ) -> String? {
    var depth = 0
    var index = position
    while index > text.startIndex {
      index = text.index(before: index)
      switch text[index] {
      case ")": depth += 1
      case "(" where depth > 0: depth -= 1
      case "(":
        let name = String(
          text[..<index].reversed().drop { $0 == " " }.prefix {
            $0.isLetter || $0.isNumber || $0 == "_" || $0 == "$"
          }
          .reversed())
        if !name.isEmpty, !skipping.contains(name) { return name }
      case ";", "{", "}": return nil
      default: continue
      }
    }
    return nil
  }

  /// Whether boot()'s redirect is skipped on a back-forward load; nil when boot() or its
  /// redirect is not found or its condition is not read.
  func bootChecksBackForward() -> Sourced<Bool>? {
    var unread: Sourced<String>?
    return bootChecksBackForward(unread: &unread)
  }

  /// The same, and in `unread` the redirect's condition when it is found and not read (a
  /// call or a form qualify does not evaluate): neither passed nor failed.
  func bootChecksBackForward(unread: inout Sourced<String>?) -> Sourced<Bool>? {
    guard
      let block = bootBlock()
    else { return nil }
    let lines = block.body.split(separator: "\n", omittingEmptySubsequences: false).map(
      String.init)
    let functions = backForwardFunctions()
    let locals = Dictionary(
      InstanceDecisionReader.matches(#"(?:const|let)\s+(\w+)\s*=\s*(\w+)\("#, block.body)
        .filter { functions[$0[1]] != nil }.map { ($0[0], functions[$0[1]] ?? true) },
      uniquingKeysWith: { first, _ in first })
    for guardStatement in ScriptStatements.guards(block.body) {
      // The guard's own block: from its `if` to the return that ends it.
      let end =
        lines[guardStatement.line...].firstIndex { $0.contains("return") } ?? guardStatement.line
      let span = lines[guardStatement.line...end]
      guard span.contains(where: { line in Self.navigates.contains(where: line.contains) })
      else { continue }
      let at = FileLocation(file: block.file, line: block.line + guardStatement.line, column: 1)
      func backForward(_ value: Bool) -> (ScriptCondition, [String: String]) -> Bool? {
        { test, calls in
          Self.backForwardTest(test, calls: calls, functions: functions, locals: locals)
            .map { $0 == value }
        }
      }
      guard let onBack = RefusalCondition.range(guardStatement.condition, fixed: backForward(true))
      else {
        // No test of the navigation type at all (or not read): a cold launch and a reload
        // reached by back redirect alike.
        let read = ScriptConditionParser.parse(
          RefusalCondition.abstractingCalls(guardStatement.condition).0)
        // A call of a function the web code does not define (imported from elsewhere) may test
        // the navigation type where qualify does not read: unverified, not absent.
        let (_, calls) = RefusalCondition.abstractingCalls(guardStatement.condition)
        let foreign = calls.values.filter { call in
          let name = String(call.prefix { $0 != "(" }).trimmingCharacters(in: .whitespaces)
          return !name.contains(".") && !definesFunction(name)
        }
        guard case .success = read, foreign.isEmpty else {
          unread = Sourced(guardStatement.condition, at: at)
          return nil
        }
        return Sourced(false, at: at, derivation: ["boot()'s redirect does not test back_forward"])
      }
      guard
        let onLaunch = RefusalCondition.range(
          guardStatement.condition, fixed: backForward(false))
      else {
        unread = Sourced(guardStatement.condition, at: at)
        return nil
      }
      let checks = !onBack.canBeTrue && onLaunch.canBeTrue
      return Sourced(
        checks, at: at,
        derivation: checks
          ? [] : ["boot()'s redirect does not rest on the load not being back_forward"])
    }
    return nil
  }

  /// Whether the `pageshow` handler reaches its render on a persisted restore; nil when no
  /// handler is found.
  func pageshowRendersOnRestore() -> Sourced<Bool>? {
    guard let block = web.blocks(after: "pageshow").first else { return nil }
    let lines = block.body.split(separator: "\n", omittingEmptySubsequences: false).map(
      String.init)
    let render = lines.firstIndex { $0.contains("render") } ?? lines.count
    let persisted: (ScriptCondition, [String: String]) -> Bool? = { test, _ in
      if case .truthy(.path(let path, _)) = test, path.last == "persisted" { return true }
      return nil
    }
    // The render written under its own condition (`if (event.persisted) void render…`).
    if render < lines.count,
      let condition = InstanceDecisionReader.matches(
        #"\bif\s*\((.*)\)\s*(?:void\s+|await\s+)?[\w.]*render"#, lines[render]
      ).first?.first,
      let range = RefusalCondition.range(condition, fixed: persisted), !range.canBeTrue
    {
      return Sourced(
        false, at: FileLocation(file: block.file, line: block.line + render, column: 1),
        derivation: ["the pageshow handler renders only when event.persisted is false"])
    }
    for guardStatement in ScriptStatements.guards(block.body) where guardStatement.line < render {
      if let range = RefusalCondition.range(guardStatement.condition, fixed: persisted),
        !range.canBeFalse
      {
        return Sourced(
          false,
          at: FileLocation(file: block.file, line: block.line + guardStatement.line, column: 1),
          derivation: ["the pageshow handler returns before rendering when event.persisted"])
      }
    }
    return Sourced(true, at: FileLocation(file: block.file, line: block.line, column: 1))
  }

  /// The value a test takes on a back-forward load (`value`), nil when it does not test the
  /// navigation type.
  static func backForwardTest(
    _ test: ScriptCondition, calls: [String: String], functions: [String: Bool],
    locals: [String: Bool]
  ) -> Bool? {
    switch test {
    case .truthy(.path(let path, _)) where path.count == 1:
      if let call = calls[path[0]] {
        let name = String(call.prefix { $0 != "(" }).split(separator: ".").last.map(String.init)
        return name.flatMap { functions[$0] }
      }
      return locals[path[0]]
    case .compare(let a, let comparison, let b):
      guard [a, b].contains(.literal(.string("back_forward"))) else { return nil }
      switch comparison {
      case .strictEqual, .equal: return true
      case .strictNotEqual, .notEqual: return false
      default: return nil
      }
    default: return nil
    }
  }

  /// Functions of the web code whose body compares with `'back_forward'`, and what each
  /// returns on a back-forward load (false when it returns the `!==` of that comparison).
  /// Whether the web code declares a function `name` (`function name(`, `const name =`).
  func definesFunction(_ name: String) -> Bool {
    web.files.contains { file in
      file.lines.contains { _, line in
        line.contains("function \(name)(") || line.contains("const \(name) =")
          || line.contains("function \(name) (")
      }
    }
  }

  func backForwardFunctions() -> [String: Bool] {
    var out: [String: Bool] = [:]
    for (_, lines) in web.files {
      let text = lines.map(\.1).joined(separator: "\n")
      guard text.contains("back_forward") else { continue }
      for function in ScriptStatements.functions(in: text)
      where function.body.contains("back_forward") {
        let negated = function.body.range(
          of: #"return[^;]*!==?\s*['"]back_forward['"]"#, options: .regularExpression)
        out[function.name] = negated == nil
      }
    }
    return out
  }
}

/// iOS's copy of the local page's user scripts (seed 004, bug #1).
enum LocalScriptsSnapshotReader {
  /// Whether the copy is rebuilt from each script's parts (true) or holds the live array
  /// (false); nil when the shell keeps no copy.
  static func read(_ ios: CodeSearch) -> Sourced<Bool>? {
    let copy =
      #"(?:self\.)?\w+\s*=\s*\(?\s*(?:self\.)?webView\??\.configuration\.userContentController\.userScripts"#
    guard let regex = try? NSRegularExpression(pattern: copy) else { return nil }
    for (file, lines) in ios.files {
      for (offset, entry) in lines.enumerated() {
        let line = entry.1
        guard regex.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil
        else { continue }
        // The statement, with the closure that may rebuild each script on the next lines.
        var statement = line
        var next = offset + 1
        while statement.contains("{"), !statement.contains("}"), next < lines.count {
          statement += "\n" + lines[next].1
          next += 1
        }
        let rebuilt = statement.contains(".map") && statement.contains(".source")
        return Sourced(
          rebuilt, at: FileLocation(file: file, line: entry.0 + 1, column: 1),
          derivation: rebuilt
            ? [] : ["the local page's user scripts are kept as the live array, not rebuilt"])
      }
    }
    return nil
  }
}
