import Foundation
import QualifyCore

/// The decisions of a React Native bridge shell (seed 001) that two pieces of its code must
/// agree on, read as written (issue 23): the navigation decision `App.tsx` loads on against
/// the ones `classifyNavigation` returns, each message type of the protocol's vocabulary
/// against its schema, the handoff's result statuses against `auth.result`'s, and the
/// config module's test of a release origin's host, evaluated.
extension BuildReader {
  /// receive() under `apps/mobile/src/bridge`: the checks it makes before dispatch, those of
  /// the protocol module's parser it relies on, and a refusal a well-formed message meets.
  func readReceiver(into settings: inout BridgeShellSettings) {
    let receiver = BridgeReceiverReader(
      search: CodeSearch(
        repository, under: XcodeProject.join(BridgeReader.mobile, "src/bridge"), suffixes: [".ts"],
        quotes: ["\"", "'", "`"]))
    settings.receiverChecks = receiver.read()
    if settings.receiverChecks != nil {
      let core = CodeSearch(
        repository, under: "packages/core/src", suffixes: [".ts"], quotes: ["\"", "'", "`"])
      settings.receiverChecks?.merge(
        BridgeParserReader.read(core, receive: receiver.body())
      ) { first, _ in first }
      settings.boundsCounted = BridgeParserReader.counting(core)
      (settings.unboundedWalks, settings.unreadWalks) = BridgeParserReader.walks(core)
    }
    let refusals = receiver.judgeRefusals()
    settings.receiverRefusesWellFormed = refusals.refusing
    settings.receiverUnjudgedRefusals = refusals.unjudged
    let app = CodeSearch(
      repository, under: XcodeProject.join(BridgeReader.mobile, "src"), suffixes: ["App.tsx"],
      quotes: Self.quotes)
    settings.rejectionReplies = RejectionRepliesReader.read(
      app,
      unauthenticated: RejectionRepliesReader.unauthenticatedCodes(receiver.body()?.lines ?? []))
  }

  mutating func readBridgeDecisions(into settings: inout BridgeShellSettings) {
    settings.navigation = readNavigationDecisions()
    readProtocolModule(into: &settings)
    let auth = CodeSearch(
      repository, under: XcodeProject.join(BridgeReader.mobile, "src/auth"), suffixes: [".ts"],
      quotes: Self.quotes)
    settings.handoff.statuses = auth.captures(#"status:\s*["']([^"']*)["']\s+as\s+const"#)
    settings.publicHostCheck = readPublicHostCheck() ?? settings.publicHostCheck
  }

  /// The quotes a TypeScript string is written in.
  static let quotes: Set<Character> = ["\"", "'", "`"]

  /// `App.tsx`'s navigation handler and `classifyNavigation`'s decisions.
  func readNavigationDecisions() -> BridgeNavigationCode {
    let quotes = Self.quotes
    let app = CodeSearch(
      repository, under: XcodeProject.join(BridgeReader.mobile, "src"), suffixes: ["App.tsx"],
      quotes: quotes)
    var navigation = BridgeNavigationCode()
    navigation.handler = app.captures(#"(onShouldStartLoadWithRequest)\s*="#).first
    navigation.originAllowlist = app.captures(#"originWhitelist=\{([^}]*)\}"#).first
    navigation.classifies =
      app.captures(#"(?:const|let)\s+(\w+)\s*=\s*classifyNavigation\("#)
      .first
    // `return decision === "allow-in-webview"`: what the handler lets the WebView load.
    // Or `if (decision === "allow-in-webview") return true;`.
    navigation.loadsOn =
      app.capturesAcrossLines(
        #"return\s*\(?\s*(\w+\s*===?\s*["'][^"']*["'])"#
      )
      .first
      ?? app.capturesAcrossLines(
        #"if\s*\(\s*(\w+\s*===?\s*["'][^"']*["'])\s*\)\s*\{?\s*return\s+true\b"#
      ).first
    // `if (decision === "open-system") void Linking.openURL(…)`, or in a block, or through a
    // function of App.tsx that calls it (`openExternally(request.url)`): what goes to the OS.
    var openers = ["Linking\\.openURL"]
    for found in app.captures(#"(?:const\s+(\w+)\s*=|function\s+(\w+)\s*\()"#, groups: 2) {
      let (name, opener) =
        found.value[0].isEmpty
        ? (found.value[1], "function \(found.value[1])(")
        : (found.value[0], "const \(found.value[0]) =")
      if app.blocks(after: opener).contains(where: { $0.body.contains("Linking.openURL") }) {
        openers.append(NSRegularExpression.escapedPattern(for: name))
      }
    }
    navigation.opensOn =
      app.capturesAcrossLines(
        #"(\w+\s*===?\s*["'][^"']*["'])\s*\)\s*\{?\s*(?:void\s+|await\s+)?(?:"#
          + openers.joined(separator: "|") + #")\b"#
      ).first
    let policy = CodeSearch(
      repository, under: XcodeProject.join(BridgeReader.mobile, "src"),
      suffixes: ["originPolicy.ts"], quotes: quotes)
    if let body = policy.blocks(after: "function classifyNavigation(").first {
      var returned: [String] = []
      for literal in Self.returnedLiterals(body.body) where !returned.contains(literal) {
        returned.append(literal)
      }
      navigation.decisions = Sourced(
        returned, at: FileLocation(file: body.file, line: body.line, column: 1))
      navigation.sameOrigin =
        policy.capturesAcrossLines(
          #"if\s*\(([^\n]+?)\)\s*\{?\s*return\s+["']allow-in-webview"#
        ).first
      Self.readEarlyRefusals(body, in: policy, into: &navigation)
      // The whole function, to be run on the URLs the rule is about: whatever shape its tests
      // take, what it answers for a look-alike host is what the WebView does.
      // Its sets and helpers may be imported from the files beside it.
      let root = XcodeProject.join(BridgeReader.mobile, "src")
      let path = repository.files(under: root, suffix: "originPolicy.ts").first {
        body.file.hasSuffix($0)
      }
      let repository = self.repository
      let read =
        path.map { path in
          ScriptFunction.read(name: "classifyNavigation", at: path) {
            try? repository.text($0)?.text
          }
        }
        ?? ScriptFunction.read(
          "classifyNavigation",
          in: policy.files.first { $0.file == body.file }?.lines.map(\.1).joined(
            separator: "\n") ?? "")
      if case .success(let function) = read {
        navigation.function = Sourced(
          function, at: FileLocation(file: body.file, line: body.line, column: 1))
      }
    }
    return navigation
  }

  /// The protocol module: each direction's vocabulary against its schema, the envelope's type
  /// field, and the statuses `auth.result` accepts.
  func readProtocolModule(into settings: inout BridgeShellSettings) {
    let quotes = Self.quotes
    let module = CodeSearch(
      repository, under: (BridgeReader.protocolModule as NSString).deletingLastPathComponent,
      suffixes: [(BridgeReader.protocolModule as NSString).lastPathComponent], quotes: quotes)
    if let (file, lines) = module.files.first {
      for (list, schema) in [
        ("WEB_TO_NATIVE_TYPES", "webToNativeSchema"), ("NATIVE_TO_WEB_TYPES", "nativeToWebSchema"),
      ] {
        var vocabulary = ProtocolVocabulary(list: list, schema: schema)
        vocabulary.listed = Self.literals(
          in: lines, from: "const \(list) = [", until: "]", pattern: #"^\s*["']([^"']+)["']"#,
          file: file)
        vocabulary.checked = Self.literals(
          in: lines, from: "const \(schema) = ", until: "]);",
          pattern: #"^\s*envelope\(\s*["']([^"']+)["']"#, file: file, multiline: true)
        vocabulary.schemaAt = lines.first { $0.1.contains("const \(schema) = ") }.map {
          FileLocation(file: file, line: $0.0 + 1, column: 1)
        }
        if let line = lines.first(where: { $0.1.contains("const \(schema) = ") }),
          let key = Self.matches(#"discriminatedUnion\(\s*["']([^"']+)["']"#, in: line.1).first
        {
          vocabulary.discriminator = Sourced(
            key[0], at: FileLocation(file: file, line: line.0 + 1, column: 1))
        }
        settings.vocabularies.append(vocabulary)
      }
      if let at = settings.vocabularies.first(where: { $0.schema == "webToNativeSchema" })?
        .schemaAt
      {
        let text = lines.map(\.1).joined(separator: "\n")
        switch SchemaReader(text).schema("webToNativeSchema") {
        case .success(let shape): settings.messageSchema = Sourced(.read(shape), at: at)
        case .failure(let error):
          settings.messageSchema = Sourced(.unverified(error.reason), at: at)
        }
      }
      // `const envelope = (type, payload) => z.object({ …, type: z.literal(type), … })`: the
      // field every message's type sits in.
      if let start = lines.firstIndex(where: { $0.1.contains("const envelope = ") }),
        let tag = lines[start...].prefix(12).lazy.compactMap({ line in
          // The field holding the type parameter, not a pinned literal (`protocolVersion:
          // z.literal(3)`).
          Self.matches(#"["']?(\w+)["']?:\s*z\.literal\(\s*[A-Za-z_]\w*\s*\)"#, in: line.1).first
            .map {
              (line.0, $0[0])
            }
        }).first
      {
        settings.envelopeTag = Sourced(
          tag.1, at: FileLocation(file: file, line: tag.0 + 1, column: 1))
      }
      // auth.result's status enum: the answers the page accepts from the handoff.
      if let schema = lines.firstIndex(where: { $0.1.contains("const nativeToWebSchema = ") }),
        let start = lines[schema...].firstIndex(where: { $0.1.contains(#""auth.result""#) }),
        let status = lines[start...].prefix(12).first(where: {
          $0.1.contains("status: z.enum([")
        }),
        let values = status.1.range(of: #"\[[^\]]*\]"#, options: .regularExpression)
      {
        settings.handoff.acceptedStatuses = Sourced(
          Self.quoted(String(status.1[values])),
          at: FileLocation(file: file, line: status.0 + 1, column: 1))
      }
    }
  }

  /// The config module's host test (`isPublicHost` or `isNonPublicHost`), read as a function
  /// qualify evaluates; unverified when its body is not one qualify runs; nil when there is
  /// none.
  func readPublicHostCheck() -> Sourced<ReadDecision<PublicHostCheck>>? {
    let config = CodeSearch(
      repository, under: XcodeProject.join(BridgeReader.mobile, "config"),
      suffixes: ["mobileConfig.ts"], quotes: Self.quotes)
    // The test by either sense: `isPublicHost` (the seed's name) or its negation, as the real
    // module writes it (`isNonPublicHost`, `isPrivateHost`).
    let declared = #"function\s+(is(?:Non)?Public\w*|isPrivate\w*)\s*\("#
    for (file, lines) in config.files {
      guard
        let (index, name) = lines.lazy.compactMap({ line in
          Self.matches(declared, in: line.1).first.map { (line.0, $0[0]) }
        }).first
      else { continue }
      let text = lines.map(\.1).joined(separator: "\n")
      let at = FileLocation(file: file, line: index + 1, column: 1)
      let negated = name.contains("Non") || name.contains("Private")
      switch ScriptFunction.read(name, in: text) {
      case .success(let function):
        return Sourced(.read(PublicHostCheck(function: function, negated: negated)), at: at)
      case .failure(let error):
        return Sourced(.unverified("\(name): \(error.reason)"), at: at)
      }
    }
    return nil
  }

  /// classifyNavigation's `if (…) return "reject";` on credentials and on the URL's length,
  /// parsed as conditions, and the constant the length is compared with.
  static func readEarlyRefusals(
    _ body: (file: String, line: Int, body: String), in policy: CodeSearch,
    into navigation: inout BridgeNavigationCode
  ) {
    let header = String(body.body.prefix { $0 != ")" }) + ")"
    navigation.rawName = ScriptStatements.parameters(header).first
    if let raw = navigation.rawName {
      navigation.targetName =
        Self.matches(
          #"(\w+)\s*=\s*new\s+URL\(\s*"# + NSRegularExpression.escapedPattern(for: raw) + #"\s*\)"#,
          in: body.body
        ).first?[0]
    }
    navigation.mentionsCredentials =
      body.body.contains("username") || body.body.contains("password")
    for statement in ScriptStatements.guards(body.body)
    where statement.returns.hasPrefix("\"reject\"") || statement.returns.hasPrefix("'reject'") {
      let at = FileLocation(file: body.file, line: body.line + statement.line, column: 1)
      let parsed: ReadDecision<ScriptCondition> =
        switch ScriptConditionParser.parse(statement.condition) {
        case .success(let condition): .read(condition)
        case .failure(let error): .unverified(error.reason)
        }
      let condition = statement.condition
      if condition.contains(".username") || condition.contains(".password") {
        navigation.credentialRefusal = navigation.credentialRefusal ?? Sourced(parsed, at: at)
      } else if navigation.lengthRefusal == nil,
        condition.range(of: #"\.length\b"#, options: .regularExpression) != nil,
        condition.contains("<") || condition.contains(">"),
        // The bound a constant names (`rawUrl.length < 1` is another test).
        let name = Self.matches(#"\b([A-Z_][A-Z0-9_]*)\b"#, in: condition).first?[0]
      {
        navigation.lengthRefusal = Sourced(parsed, at: at)
        // `MAX_NAVIGATION_URL_LENGTH = 8 * 1024`: a literal or a product of literals, on
        // either side of the comparison.
        if let value = policy.captures(
          #"const\s+"# + name + #"\s*=\s*([0-9_]+(?:\s*\*\s*[0-9_]+)*)\s*;"#
        ).first {
          let factors = value.value.split(separator: "*").map {
            Int($0.replacingOccurrences(of: "_", with: "").trimmingCharacters(in: .whitespaces))
          }
          if !factors.contains(nil) {
            navigation.lengthLimit = Sourced(
              factors.compactMap { $0 }.reduce(1, *), at: value.location)
          }
        }
      }
    }
  }

  /// The string literals a function body returns (`return "reject"`, `? "a" : "b"`).
  static func returnedLiterals(_ body: String) -> [String] {
    var out: [String] = []
    for statement in body.components(separatedBy: "return ").dropFirst() {
      let expression = statement.prefix { $0 != ";" && $0 != "\n" }
      out += quoted(String(expression))
    }
    return out
  }

  static func quoted(_ text: String) -> [String] {
    matches(#"["']([^"']*)["']"#, in: text).map { $0[0] }
  }

  /// Every match's capture groups.
  static func matches(_ pattern: String, in text: String) -> [[String]] {
    guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
    return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
      (1..<match.numberOfRanges).map {
        Range(match.range(at: $0), in: text).map { String(text[$0]) } ?? ""
      }
    }
  }

  /// The first capture of `pattern` on each line from the one holding `from` to the first
  /// that starts with `until` (a schema's envelopes sit one per line, or on the line after
  /// `envelope(`).
  static func literals(
    in lines: [(Int, String)], from: String, until: String, pattern: String, file: String,
    multiline: Bool = false
  ) -> [Sourced<String>]? {
    guard let start = lines.firstIndex(where: { $0.1.contains(from) }) else { return nil }
    var out: [Sourced<String>] = []
    var index = start + 1
    while index < lines.count {
      let line = lines[index].1
      if line.trimmingCharacters(in: .whitespaces).hasPrefix(until) { break }
      var text = line
      // `envelope(` alone on its line, its type on the next.
      if multiline, line.trimmingCharacters(in: .whitespaces) == "envelope(",
        index + 1 < lines.count
      {
        text = "envelope(" + lines[index + 1].1
      }
      if let value = matches(pattern, in: text).first?.first {
        out.append(
          Sourced(value, at: FileLocation(file: file, line: lines[index].0 + 1, column: 1)))
      }
      index += 1
    }
    return out
  }
}
