import Foundation
import QualifyCore

/// The handoff's exchange as each side writes it (OpenMapX's `routes/mobile-auth.ts` and the
/// web page's `redeemSystemAuth`): the route the server registers for the code and its
/// verifier — its path, the prefix its plugin is registered under, the body fields its schema
/// requires and whether it refuses any other — and the page's `fetch` of it — the literal end
/// of its URL and the keys of the `JSON.stringify({…})` it sends. A side renamed without the
/// other refuses every sign-in while each side's own tests pass.
enum HandoffContractReader {
  // MARK: The server's route

  /// The exchange and the issue among the POST routes of `routes`: the route whose body
  /// carries a verifier (else the one whose path names an exchange or a redemption), and the
  /// one whose body carries a challenge; the prefix from a `register(NAME, { prefix })` of
  /// the routes' export anywhere in `server`.
  static func routes(_ routes: CodeSearch, server: CodeSearch) -> (
    exchange: Sourced<HandoffRoute>?, issue: Sourced<HandoffRoute>?
  ) {
    var candidates: [Sourced<HandoffRoute>] = []
    for (file, lines) in routes.files {
      let text = lines.map(\.1).joined(separator: "\n")
      for registration in posts(in: text) {
        guard
          var route = route(
            registration.arguments, generic: registration.generic, in: text, constants: routes)
        else { continue }
        route.prefix = prefix(of: text, server: server) ?? ""
        candidates.append(Sourced(route, at: location(file, lines, text, registration.at)))
      }
    }
    func carrying(_ role: HandoffField) -> Sourced<HandoffRoute>? {
      candidates.first { $0.value.field(role) != nil }
    }
    let exchange =
      carrying(.verifier)
      ?? candidates.first {
        $0.value.path.contains("exchange") || $0.value.path.contains("redeem")
      }
    return (exchange, carrying(.challenge))
  }

  /// Each `.post(…)` / `.post<…>(…)` call: its generic, its arguments, where it starts.
  private static func posts(in text: String) -> [(
    at: String.Index, generic: String, arguments: [String]
  )] {
    guard let regex = try? NSRegularExpression(pattern: #"\.post\s*(?=[<(])"#) else { return [] }
    var out: [(String.Index, String, [String])] = []
    for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
      guard let range = Range(match.range, in: text) else { continue }
      var index = range.upperBound
      var generic = ""
      if text[index] == "<" {
        guard let close = closingAngle(text, from: index) else { continue }
        generic = String(text[text.index(after: index)..<close])
        index = text.index(after: close)
        while index < text.endIndex, text[index].isWhitespace { index = text.index(after: index) }
      }
      guard index < text.endIndex, text[index] == "(",
        let close = ScriptStatements.closingParenthesis(text, from: index)
      else { continue }
      let inner = String(text[text.index(after: index)..<close])
      // A trailing comma leaves an empty last part: not an argument.
      var arguments = ScriptStatements.topLevelParts(inner, angles: false)
      if arguments.last?.isEmpty == true { arguments.removeLast() }
      out.append((range.lowerBound, generic, arguments))
    }
    return out
  }

  /// The `>` closing the `<` at `start` (a `=>` inside closes nothing).
  private static func closingAngle(_ text: String, from start: String.Index) -> String.Index? {
    var depth = 0
    var previous: Character = " "
    var index = start
    while index < text.endIndex {
      let character = text[index]
      if character == "<" { depth += 1 }
      if character == ">" && previous != "=" {
        depth -= 1
        if depth == 0 { return index }
      }
      previous = character
      index = text.index(after: index)
    }
    return nil
  }

  /// A route's path and fields: its schema's body (`required`, and `properties` when
  /// `additionalProperties: false`), else what its handler reads of `request.body`, else its
  /// `Body` type.
  private static func route(
    _ arguments: [String], generic: String, in text: String, constants: CodeSearch
  ) -> HandoffRoute? {
    guard let path = literal(arguments.first ?? ""), path.hasPrefix("/") else { return nil }
    // `post(path, options, handler)`, or `post(path, { schema, handler })`.
    let options =
      arguments.count >= 3
      ? arguments[1] : arguments.count == 2 && arguments[1].hasPrefix("{") ? arguments[1] : ""
    let handler = arguments.last ?? ""
    if let schema = bodySchema(options, in: text) {
      // The schema's own keys, not those of an object nested in it.
      let top = topLevel(schema.text)
      let required = quotedList(after: "required", in: top) ?? []
      let strict =
        top.range(of: #"\badditionalProperties["']?\s*:\s*false"#, options: .regularExpression)
        != nil
      let accepted =
        strict
        ? (quotedList(after: "enum", in: propertyNames(schema.text)) ?? properties(schema.text))
        : nil
      return HandoffRoute(
        path: path, required: required, accepted: accepted, fieldsFrom: schema.name,
        bounds: bounds(schema.text, constants: constants))
    }
    if options.range(of: #"\bschema["']?\s*:"#, options: .regularExpression) != nil {
      // A schema qualify does not resolve (imported, built): its fields are not guessed.
      var unread = HandoffRoute(path: path, required: [], fieldsFrom: "a schema not read")
      unread.unread = "its body schema is not an object literal of the module"
      return unread
    }
    // What the handler reads, a field read with a fallback (`?? x`, `= x`) being optional.
    var read: [String] = []
    for found in InstanceDecisionReader.matches(
      #"\b(?:request|req)\.body\.([A-Za-z_$][\w$]*)(\s*(?:\?\?|\|\|))?"#, handler)
    where found.count == 2 && found[1].isEmpty && !read.contains(found[0]) {
      read.append(found[0])
    }
    for names in InstanceDecisionReader.matches(
      #"\{([^{}]*)\}\s*=\s*(?:request|req)\.body\b"#, handler)
    {
      let fields = (names.first ?? "").split(separator: ",").map {
        $0.trimmingCharacters(in: .whitespacesAndNewlines)
      }
      for field in fields where !field.hasPrefix("...") && !field.contains("=") {
        let name = field.split(separator: ":").first.map {
          $0.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if let name, !name.isEmpty, !read.contains(name) { read.append(name) }
      }
    }
    if !read.isEmpty {
      return HandoffRoute(path: path, required: read, fieldsFrom: "what its handler reads")
    }
    if let body = bodyType(generic, in: text) {
      return HandoffRoute(path: path, required: body, fieldsFrom: "its Body type")
    }
    return HandoffRoute(path: path, required: [], fieldsFrom: "nothing read")
  }

  /// `schema` with the contents of the objects nested in it blanked (brackets and lengths
  /// kept): what its own keys say, not a nested object's.
  static func topLevel(_ schema: String) -> String {
    var depth = 0
    return String(
      schema.map { character -> Character in
        if character == "{" { depth += 1 }
        defer { if character == "}" { depth -= 1 } }
        return depth > 1 && character != "{" && character != "}" ? " " : character
      })
  }

  /// The object given as `schema: { body: … }`: a constant of the module by its name, or
  /// written in place.
  private static func bodySchema(_ options: String, in text: String) -> (
    name: String, text: String
  )? {
    guard
      let named = InstanceDecisionReader.matches(
        #"schema["']?\s*:\s*\{[^}]*?\bbody["']?\s*:\s*([A-Za-z_$][\w$]*|\{)"#, options
      ).first?.first
    else { return nil }
    if named == "{" {
      guard let start = options.range(of: #"\bbody["']?\s*:\s*\{"#, options: .regularExpression),
        let open = options[start].lastIndex(of: "{")
      else { return nil }
      return object(in: options, from: open).map { ("the route's body schema", $0) }
    }
    guard
      let declared = text.range(
        of: #"(?:const|let)\s+"# + NSRegularExpression.escapedPattern(for: named)
          + #"\s*(?::[^=]+)?=\s*\{"#, options: .regularExpression),
      let open = text[declared].lastIndex(of: "{")
    else { return nil }
    return object(in: text, from: open).map { (named, $0) }
  }

  /// The object literal opening at `open`, braces included.
  private static func object(in text: String, from open: String.Index) -> String? {
    let rest = String(text[open...])
    guard let close = ScriptStatements.closingBrace(rest) else { return nil }
    return String(rest[...close])
  }

  /// The strings of `NAME: [ "a", "b" ]` in `text`.
  private static func quotedList(after name: String, in text: String) -> [String]? {
    guard
      let list = InstanceDecisionReader.matches(
        #"\b"# + name + #"["']?\s*:\s*\[([^\]]*)\]"#, text
      ).first?.first
    else { return nil }
    return list.split(separator: ",").map {
      $0.trimmingCharacters(in: CharacterSet(charactersIn: " \n\t\"'`"))
    }.filter { !$0.isEmpty }
  }

  /// `propertyNames: { … }`'s object, "" when there is none.
  private static func propertyNames(_ schema: String) -> String {
    guard
      let start = schema.range(of: #"propertyNames["']?\s*:\s*\{"#, options: .regularExpression),
      let open = schema[start].lastIndex(of: "{")
    else { return "" }
    return object(in: schema, from: open) ?? ""
  }

  /// Where the schema's own `properties: {` is (not a nested object's), its brace last.
  private static func properties(in schema: String) -> Range<String.Index>? {
    let top = topLevel(schema)
    guard let found = top.range(of: #"\bproperties["']?\s*:\s*\{"#, options: .regularExpression)
    else { return nil }
    // `topLevel` keeps every character's place: the same offsets in the schema.
    let start = top.distance(from: top.startIndex, to: found.lowerBound)
    let length = top.distance(from: found.lowerBound, to: found.upperBound)
    let lower = schema.index(schema.startIndex, offsetBy: start)
    return lower..<schema.index(lower, offsetBy: length)
  }

  /// The keys of the schema's `properties: { … }`.
  private static func properties(_ schema: String) -> [String]? {
    guard let start = properties(in: schema),
      let open = schema[start].lastIndex(of: "{"), let body = object(in: schema, from: open)
    else { return nil }
    return entries(body)?.map(\.key)
  }

  /// Each property's `minLength`, `maxLength` (a literal or a constant of the module) and
  /// `enum`.
  private static func bounds(_ schema: String, constants: CodeSearch) -> [String:
    HandoffFieldBounds]
  {
    guard let start = properties(in: schema),
      let open = schema[start].lastIndex(of: "{"), let body = object(in: schema, from: open),
      let fields = entries(body)
    else { return [:] }
    func number(_ name: String, _ text: String) -> Int? {
      guard
        let written = InstanceDecisionReader.matches(
          #"\b"# + name + #"["']?\s*:\s*([A-Za-z0-9_$.]+)"#, text
        ).first?.first
      else { return nil }
      return CodeSearch.integer(written)
        ?? constants.constant(written).flatMap { CodeSearch.integer($0.value) }
    }
    var out: [String: HandoffFieldBounds] = [:]
    for (name, value) in fields {
      let field = HandoffFieldBounds(
        minLength: number("minLength", value), maxLength: number("maxLength", value),
        values: quotedList(after: "enum", in: value))
      if field != HandoffFieldBounds() { out[name] = field }
    }
    return out
  }

  /// `{ Body: { a: string; b?: string } }` or `{ Body: Name }` with `interface Name { … }` /
  /// `type Name = { … }`: its fields that are not optional.
  private static func bodyType(_ generic: String, in text: String) -> [String]? {
    var fields = ""
    if let start = generic.range(of: #"\bBody\s*:\s*\{"#, options: .regularExpression),
      let open = generic[start].lastIndex(of: "{")
    {
      fields = object(in: generic, from: open) ?? ""
    } else if let name = InstanceDecisionReader.matches(
      #"\bBody\s*:\s*([A-Za-z_$][\w$]*)"#, generic
    )
    .first?.first,
      let declared = text.range(
        of: #"(?:interface\s+"# + name + #"\s*|type\s+"# + name + #"\s*=\s*)\{"#,
        options: .regularExpression),
      let open = text[declared].lastIndex(of: "{")
    {
      fields = object(in: text, from: open) ?? ""
    }
    guard !fields.isEmpty else { return nil }
    let names = InstanceDecisionReader.matches(
      #"(?:^|[{;,\n])\s*([A-Za-z_$][\w$]*)\s*:"#, String(fields.dropFirst().dropLast())
    ).compactMap(\.first)
    return names.isEmpty ? nil : names
  }

  /// The prefix the routes' export is registered under, in any file of `server`.
  private static func prefix(of routes: String, server: CodeSearch) -> String? {
    let exported = InstanceDecisionReader.matches(
      #"export\s+(?:const|(?:async\s+)?function)\s+([A-Za-z_$][\w$]*)"#, routes
    ).compactMap(\.first)
    for name in exported {
      let pattern =
        #"register\(\s*"# + NSRegularExpression.escapedPattern(for: name)
        + #"\s*,\s*\{[^}]*prefix\s*:\s*["'`]([^"'`]*)["'`]"#
      if let found = server.capturesAcrossLines(pattern).first { return found.value }
    }
    return nil
  }

  // MARK: The page's call

  /// The page's calls among `client`'s files that are not route files: calls whose URL's
  /// literal end names `mobile-auth` and whose body is a `JSON.stringify({…})` — the exchange
  /// the one that carries a verifier, the issue the one that carries a challenge. A call of
  /// that kind that could not be read is said, with why, when no exchange was read.
  static func calls(_ client: CodeSearch, routeFiles: [String]) -> (
    exchange: Sourced<HandoffCall>?, issue: Sourced<HandoffCall>?, unread: Sourced<String>?
  ) {
    var unread: Sourced<String>?
    var read: [Sourced<HandoffCall>] = []
    for (file, lines) in client.files {
      let text = lines.map(\.1).joined(separator: "\n")
      guard !routeFiles.contains(file),
        let regex = try? NSRegularExpression(
          pattern:
            #"[\w$.]+\s*\(\s*(`[^`]*mobile-auth[^`]*`|"[^"]*mobile-auth[^"]*"|'[^']*mobile-auth[^']*')"#
        )
      else { continue }
      for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
        guard let whole = Range(match.range, in: text),
          let url = Range(match.range(at: 1), in: text),
          let open = text[whole].firstIndex(of: "("),
          let close = ScriptStatements.closingParenthesis(text, from: open),
          // A parenthesis in a string before the URL's end would close the call early.
          close >= url.upperBound
        else { continue }
        let at = location(file, lines, text, whole.lowerBound)
        let written = String(text[url].dropFirst().dropLast())
        var path = written.components(separatedBy: "}").last ?? written
        path = path.components(separatedBy: "?").first ?? path
        guard path.contains("mobile-auth") else {
          unread = unread ?? Sourced("its URL's end is computed (\(written))", at: at)
          continue
        }
        let arguments = String(text[url.upperBound..<close])
        guard
          let body = arguments.range(of: #"JSON\.stringify\(\s*\{"#, options: .regularExpression),
          let brace = arguments[body].lastIndex(of: "{"),
          let literal = object(in: arguments, from: brace), let fields = entries(literal)
        else {
          if arguments.contains("JSON.stringify(") {
            unread = unread ?? Sourced("its body is not an object literal", at: at)
          }
          continue
        }
        read.append(
          Sourced(
            HandoffCall(
              path: path,
              fields: fields.map { entry in
                // The key says what it carries; a key that says nothing, its value.
                let byKey = HandoffField.carried(by: entry.key)
                return .init(
                  key: entry.key, role: byKey == .other ? .carried(by: entry.value) : byKey)
              }), at: at))
      }
    }
    let exchange = read.first { $0.value.key(.verifier) != nil }
    return (
      exchange, read.first { $0.value.key(.challenge) != nil }, exchange == nil ? unread : nil
    )
  }

  // MARK: Shared

  /// An object literal's entries at its top level (`key: value`, `"key": value`, `key`); nil
  /// when one is a spread or a computed key.
  static func entries(_ literal: String) -> [(key: String, value: String)]? {
    let inner = String(literal.dropFirst().dropLast())
    var out: [(String, String)] = []
    for part in ScriptStatements.topLevelParts(inner, angles: false) where !part.isEmpty {
      if part.hasPrefix("...") || part.hasPrefix("[") { return nil }
      guard let colon = part.firstIndex(of: ":") else {
        out.append((part, part))
        continue
      }
      let key = part[..<colon].trimmingCharacters(in: CharacterSet(charactersIn: " \n\t\"'`"))
      let value = part[part.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
      out.append((key, value))
    }
    return out
  }

  /// A literal string (quoted or a template with no substitution).
  private static func literal(_ text: String) -> String? {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard let first = trimmed.first, "\"'`".contains(first), trimmed.last == first,
      trimmed.count >= 2, !trimmed.contains("${")
    else { return nil }
    return String(trimmed.dropFirst().dropLast())
  }

  private static func location(
    _ file: String, _ lines: [(Int, String)], _ text: String, _ index: String.Index
  ) -> FileLocation {
    let before = text[..<index].filter { $0 == "\n" }.count
    return FileLocation(file: file, line: lines.count > before ? lines[before].0 + 1 : 0, column: 1)
  }
}
