import Foundation
import QualifyCore

/// Guards on the decisions two parts of a React Native bridge shell's code must agree on
/// (seed 001, issue 23): a decision string, a message type or a status written one way on
/// one side and another way on the other is a release whose WebView loads nothing, whose
/// page's command is refused as unknown, or whose failed sign-in never reaches the page.
extension BuildGuards {
  /// Hosts a release must not load: loopback, private ranges and reserved names.
  static func isPublicHost(_ host: String) -> Bool {
    let host = host.lowercased()
    if ["localhost", "0.0.0.0", "::1"].contains(host) { return false }
    for prefix in ["127.", "10.", "192.168.", "169.254."] where host.hasPrefix(prefix) {
      return false
    }
    if host.hasPrefix("172."), let second = Int(host.split(separator: ".").dropFirst().first ?? ""),
      (16...31).contains(second)
    {
      return false
    }
    for suffix in [".local", ".localhost", ".test", ".example", ".invalid", ".internal"]
    where host.hasSuffix(suffix) {
      return false
    }
    return host.contains(".")
  }

  /// Where qualify looked for code it did not find (line 0: the file or folder as a whole), so
  /// that the run reports an unread decision of the app, not an input left out.
  static func lookedIn(_ path: String) -> FileLocation {
    FileLocation(file: XcodeProject.join(BridgeReader.mobile, path), line: 0, column: 1)
  }

  /// The hosts of a development machine, an emulator (Android's 10.0.2.2) and a LAN, at the
  /// edges of their ranges: a release origin on any of them installs and fails for everyone
  /// but its builder. (Reserved names such as `.test` are unreachable too, but no rule of the
  /// seed names them: the real module does not refuse them, and that is not a defect.)
  static let privateHostEdges = [
    "localhost", "127.0.0.1", "10.0.2.2", "192.168.1.20", "172.16.0.1", "172.31.255.254",
    "maps.local", "app.localhost",
  ]

  /// What a receiver without the check lets through.
  static let receiverRisk = [
    "origin": "a frame of another origin drives the native side",
    "nonce": "a previous document's script keeps talking to the shell",
    "duplicates": "a replayed command runs twice",
    "protocol": "a page speaks a protocol the handshake did not settle",
    "pollution": "a __proto__ key reaches the code that copies the message",
    "clock": "a message stamped any time is taken (a replay of last week's)",
  ]

  static let bridgeDecisionRules: [GuardRule] = [
    GuardRule(
      id: "official-binding",
      title: "The config module refuses the official id on another origin",
      source:
        "seed 001, Fixed origin (org.openmapx.app is restricted to https://openmapx.com, at build time)",
      devAllows: false, shells: [.reactNativeBridge],
      check: { build in
        // The module's own refusal, read from the files alone: without it a release env that
        // repoints the official id builds, whatever this release's env says.
        guard let bridge = build.bridge, let official = bridge.officialAppId,
          let origin = bridge.officialOrigin,
          let hit = GuardHit.missing(
            bridge.officialBinding,
            "the config module no longer refuses to build \(official.value) against another origin than \(origin.value): a release env that repoints it builds a signed official app on that origin",
            value: "official binding")
        else { return [] }
        return [hit]
      },
      fix:
        "throw in the config module when the official id is built against another origin than the official one"
    ),
    GuardRule(
      id: "receiver-code", title: "The receiver's code makes each check before dispatch",
      source:
        "seed 001, What crosses: origin, document nonce, duplicates and the negotiated protocol are checked before a command is dispatched",
      devAllows: false, shells: [.reactNativeBridge],
      check: { build in
        guard let bridge = build.bridge else { return [] }
        guard let checks = bridge.receiverChecks else {
          return [
            GuardHit(
              "no receive( method that dispatches (`dispatch(` or `dispatch?.(`) found under apps/mobile/src/bridge: which checks the receiver makes before dispatch is not verified",
              at: lookedIn("src/bridge"), value: "receive", unverified: true)
          ]
        }
        let refusal = bridge.receiverRefusesWellFormed.map { refusal in
          GuardHit(
            "receive() refuses a well-formed message at `if (\(refusal.value))`: a message that passes every check is refused there, so no command ever reaches the dispatch",
            at: refusal.location, value: "well-formed refused")
        }
        // An answer to a sender whose origin or nonce failed tells it what the receiver checks.
        let oracle: GuardHit?
        switch bridge.rejectionReplies {
        case nil:
          oracle = GuardHit(
            "no call of receive( found in App.tsx: what the page hears of a refused message is unverified",
            at: lookedIn("src/App.tsx"), value: "receive( call", unverified: true)
        case let replies? where replies.value == .every:
          oracle = GuardHit(
            "the message handler answers every refusal of receive() with native.error, a frame of another origin and a stale document's nonce included\(replies.derivation.first.map { " (\($0))" } ?? ""): an unauthenticated sender learns what the receiver checks",
            at: replies.location, value: "answers every refusal")
        default:
          oracle = nil
        }
        return [refusal, oracle].compactMap { $0 }
          + checks.sorted { $0.key < $1.key }.compactMap { check, fact in
            GuardHit.missing(
              fact,
              "receive() dispatches without the \(check) check: \(BuildGuards.receiverRisk[check] ?? "a message it should refuse is run")",
              value: check)
          }
      },
      fix:
        "refuse before dispatch: a document of another origin, a stale nonce, a message id seen before, a protocol other than the handshake's; answer no refusal of a sender whose origin or nonce failed"
    ),
    GuardRule(
      id: "navigation-policy",
      title: "The WebView loads only what classifyNavigation keeps in it",
      source:
        "seed 001, Fixed origin (one origin in the WebView, the rest to the system browser or refused)",
      devAllows: false, shells: [.reactNativeBridge],
      check: { build in
        guard let navigation = build.bridge?.navigation else { return [] }
        guard let handler = navigation.handler else {
          let allowlist = navigation.originAllowlist
          return [
            GuardHit(
              "App.tsx's WebView has no onShouldStartLoadWithRequest\(allowlist.map { " (only originWhitelist={\($0.value)})" } ?? ""): every link the page follows loads inside the app, a look-alike host included",
              at: allowlist?.location, value: "onShouldStartLoadWithRequest")
          ]
        }
        guard let decisions = navigation.decisions else {
          return [
            GuardHit(
              "onShouldStartLoadWithRequest acts on classifyNavigation, whose code is not in apps/mobile/src/shell/originPolicy.ts: what loads in the WebView cannot be checked",
              at: handler.location, value: "classifyNavigation", unverified: true)
          ]
        }
        var hits: [GuardHit] = []
        let variable = navigation.classifies?.value
        for (role, test, consequence) in [
          (
            "loads a URL in the WebView", navigation.loadsOn,
            "the compiled origin itself would not load"
          ),
          (
            "hands a URL to the system browser", navigation.opensOn,
            "a link to another site would be dropped instead of opened"
          ),
        ] {
          guard let test, let read = BridgeNavigationCode.test(test.value) else {
            hits.append(
              GuardHit(
                "onShouldStartLoadWithRequest's test for when it \(role) is not written as `decision === \"…\"`: it cannot be checked",
                at: handler.location, value: role, unverified: true))
            continue
          }
          if read.variable != variable {
            hits.append(
              GuardHit(
                "onShouldStartLoadWithRequest \(role) on \(read.variable), not on classifyNavigation's answer\(variable.map { " (\($0))" } ?? " (kept in no variable qualify reads)"): it cannot be checked",
                at: test.location, value: read.variable, unverified: true))
          } else if !decisions.value.contains(read.literal) {
            hits.append(
              GuardHit(
                "App.tsx \(role) when classifyNavigation answers \"\(read.literal)\", which it never returns (it returns \(decisions.value.map { "\"\($0)\"" }.joined(separator: ", ")); \(decisions.location?.description ?? "originPolicy.ts")): \(consequence)",
                at: test.location, value: read.literal))
          }
        }
        // The origin comparison: structural (`target.origin === product.origin`), never a
        // string match that lets `openmapx.com.evil.example` in.
        if let condition = navigation.sameOrigin {
          let text = condition.value
          if [".startsWith(", ".includes(", ".endsWith(", ".indexOf(", ".match("].contains(
            where: text.contains)
          {
            hits.append(
              GuardHit(
                "classifyNavigation keeps a URL in the WebView on a string match (\(text)): a look-alike host or a path on another origin passes it",
                at: condition.location, value: text))
          } else if !text.contains(".origin") {
            hits.append(
              GuardHit(
                "classifyNavigation keeps a URL in the WebView when \(text): not an origin comparison qualify can read",
                at: condition.location, value: text, unverified: true))
          }
        }
        hits += BuildGuards.earlyRefusalHits(navigation)
        // The function run on URLs: where the pieces found no error, what it answers decides,
        // and answers what a piece of it could not read (a helper, a condition in a form the
        // pieces do not parse).
        if !hits.contains(where: { !$0.unverified }), let origin = build.bridge?.webOrigin.value,
          let run = BuildGuards.runNavigation(navigation, origin: origin)
        {
          if run.complete, let file = navigation.function?.location?.file {
            hits.removeAll { $0.unverified && $0.location?.file == file }
          }
          hits += run.hits
        }
        return hits
      },
      fix:
        "return classifyNavigation(…) === \"allow-in-webview\" from onShouldStartLoadWithRequest, and hand \"open-system\" to Linking.openURL"
    ),
    GuardRule(
      id: "protocol-vocabulary",
      title: "Every message type has its schema, and every handoff status its place in auth.result",
      source:
        "seed 001, The bridge protocol (a strict schema per message; a message that fails any stage changes nothing)",
      devAllows: false, shells: [.reactNativeBridge],
      check: { build in
        guard let bridge = build.bridge else { return [] }
        var hits: [GuardHit] = []
        for vocabulary in bridge.vocabularies {
          guard let listed = vocabulary.listed else { continue }
          guard let checked = vocabulary.checked else {
            hits.append(
              GuardHit(
                "the protocol module lists \(vocabulary.list) but has no \(vocabulary.schema): whether each type is checked cannot be read",
                at: listed.first?.location, value: vocabulary.schema, unverified: true))
            continue
          }
          if let key = vocabulary.discriminator, let tag = bridge.envelopeTag,
            key.value != tag.value
          {
            hits.append(
              GuardHit(
                "\(vocabulary.schema) picks a message's schema by \"\(key.value)\", but envelope() puts the type in \"\(tag.value)\" (\(tag.location?.description ?? "mobileProtocol.ts")): no message matches a schema, and every one is dropped",
                at: key.location, value: key.value))
          }
          let checkedNames = Set(checked.map(\.value))
          let listedNames = Set(listed.map(\.value))
          for type in listed where !checkedNames.contains(type.value) {
            hits.append(
              GuardHit(
                "\(vocabulary.list) lists \"\(type.value)\", which \(vocabulary.schema) has no envelope for: every such message is refused as an unknown type",
                at: type.location, value: type.value))
          }
          for type in checked where !listedNames.contains(type.value) {
            hits.append(
              GuardHit(
                "\(vocabulary.schema) checks \"\(type.value)\", which \(vocabulary.list) does not list: the receiver drops it before its schema is tried",
                at: type.location, value: type.value))
          }
        }
        if let schema = bridge.messageSchema, case .unverified(let reason) = schema.value {
          hits.append(
            GuardHit(
              "webToNativeSchema cannot be read (\(reason)): the run holds the page's messages to the seed's schema, not to the app's",
              at: schema.location, value: "webToNativeSchema", unverified: true))
        }
        if let accepted = bridge.handoff.acceptedStatuses {
          for status in bridge.handoff.statuses where !accepted.value.contains(status.value) {
            hits.append(
              GuardHit(
                "SystemAuthSession answers status \"\(status.value)\", which auth.result's schema does not accept (it accepts \(accepted.value.joined(separator: ", ")); \(accepted.location?.description ?? "mobileProtocol.ts")): the page refuses the result and the sign-in never ends",
                at: status.location, value: status.value))
          }
        }
        return hits
      },
      fix:
        "keep WEB_TO_NATIVE_TYPES/NATIVE_TO_WEB_TYPES, their schemas' envelopes and auth.result's statuses in step"
    ),
    GuardRule(
      id: "release-origin-check",
      title: "mobileConfig.ts refuses the hosts of a development machine, an emulator or a LAN",
      source: "seed 001, Fixed origin (config/mobileConfig.ts validates the origin at build time)",
      devAllows: false, shells: [.reactNativeBridge],
      check: { build in
        guard let bridge = build.bridge, let read = bridge.publicHostCheck else { return [] }
        guard case .read(let check) = read.value else {
          return [
            GuardHit(
              "the config module's host test cannot be read (\(read.value.problem ?? "")): which hosts a release refuses is not known",
              at: read.location, value: "isPublicHost", unverified: true)
          ]
        }
        let name = check.function.name
        let answers = privateHostEdges.map { ($0, check.isPublic($0)) }
        let unanswered = answers.filter { $0.1 == nil }.map(\.0)
        // The control: a public host must pass, or the test is not the one qualify thinks.
        guard check.isPublic("openmapx.com") == true, unanswered.isEmpty else {
          let hosts = unanswered.isEmpty ? "openmapx.com" : unanswered.joined(separator: ", ")
          return [
            GuardHit(
              "\(name) could not be evaluated on \(hosts) (it needs something qualify does not run, or refuses a public host): which hosts a release refuses is not known",
              at: read.location, value: name, unverified: true)
          ]
        }
        var hits: [GuardHit] = []
        let accepted = answers.filter { $0.1 == true }.map(\.0)
        if !accepted.isEmpty {
          hits.append(
            GuardHit(
              "\(name) takes \(accepted.joined(separator: ", ")) for a public host: a release built against it is not refused at build time",
              at: read.location, value: accepted.joined(separator: ",")))
        }
        for (role, origin) in [("web", bridge.webOrigin), ("API", bridge.apiOrigin)] {
          guard bridge.release.value, let host = URLComponents(string: origin.value)?.host,
            check.isPublic(host) == false
          else { continue }
          hits.append(
            GuardHit(
              "\(name) refuses the compiled \(role) origin's host \(host)\(origin.because): the config module throws and the app opens on its fatal-configuration screen",
              at: read.location, value: host))
        }
        return hits
      },
      fix:
        "refuse localhost, loopback, the emulator's host alias, the private ranges and mDNS names in the config module's host test"
    ),
  ]
}
