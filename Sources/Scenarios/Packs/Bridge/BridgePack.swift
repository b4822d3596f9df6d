import Artifacts
import Devices
import Foundation
import HTTP
import MockStack
import QualifyCore
import StackPorts

/// The bridge pack: seed 001's React Native shell — the descriptor, protocol negotiation,
/// the honest capability report, the receiver's checks and bounds, snapshots and deltas, and
/// the system-browser sign-in handoff with its server side.
enum BridgePack: ScenarioPack {
  static let name = "bridge"
  static let shells: Set<ShellKind> = [.reactNativeBridge]

  static let messageTypes = BridgeReceiver.webToNativeTypes.sorted()

  static let actions: [ActionSpec] = bridgeActions + throttleActions

  static let bridgeActions: [ActionSpec] = [
    ActionSpec(
      .app, "loads its page",
      summary:
        "The shell's WebView loads the compiled origin: a fresh document nonce, the descriptor injected before page scripts, the page's `web.hello` and the shell's `native.hello`.",
      example: "openmapx loads its page"
    ) { context in
      let shell = try context.bridgeShell()
      shell.running ? shell.reload() : shell.launch()
      return Outcome(
        "\(shell.name) loaded its page: protocol \(shell.page.negotiated.map(String.init) ?? "none"), navigation \(shell.page.navigationEnabled ? "on" : "off")"
      )
    },
    ActionSpec(
      .app, "page speaks protocol", [.value("min", .integer), .keyword("to", "max", .integer)],
      summary:
        "The deployed web build's protocol range (default 3 to 3), for the next page load; the web deploys independently of the store binary.",
      example: "openmapx page speaks protocol 4 to 5"
    ) { context in
      let shell = try context.bridgeShell()
      let min = Int(context.arguments["min"] ?? "") ?? 3
      let max = Int(context.arguments["max"] ?? "") ?? min
      shell.webRange = min...Swift.max(min, max)
      return Outcome("\(shell.name)'s page speaks protocol \(min) to \(max)")
    },
    ActionSpec(
      .app, "page sends",
      [
        .value("type", .choice(messageTypes)), .flag("from-another-origin"),
        .flag("stale-nonce"), .flag("duplicate"), .flag("unknown-field"),
        .flag("unknown-payload-field"), .flag("polluting-key"), .flag("stale-clock"),
        .keyword("protocol", "protocol", .integer),
        .keyword("size", "size", .choice(["at-ceiling", "over-ceiling"])),
        .keyword("coordinates", "coordinates", .integer), .keyword("steps", "steps", .integer),
        .keyword("legs", "legs", .integer),
      ],
      summary:
        "A message to the shell: as the page sends it, or from a frame of another origin, with the previous document's nonce, the last message again, a field the schema does not have (in the envelope, or in the payload), a `__proto__` key in its payload, stamped ten minutes before the receiver's clock, another protocol version, padded to exactly the byte ceiling or one byte over it, or carrying a route of COORDINATES, STEPS and LEGS.",
      example: "openmapx page sends session.prepare coordinates 100001"
    ) { context in
      let shell = try context.bridgeShell()
      var variant = BridgeShell.Variant()
      variant.fromOrigin =
        context.arguments.has("from-another-origin") ? "https://tiles.example.net/embed" : nil
      variant.staleNonce = context.arguments.has("stale-nonce")
      variant.duplicate = context.arguments.has("duplicate")
      variant.unknownField = context.arguments.has("unknown-field")
      variant.unknownPayloadField = context.arguments.has("unknown-payload-field")
      variant.pollutingKey = context.arguments.has("polluting-key")
      variant.sentAgoMs = context.arguments.has("stale-clock") ? 10 * 60_000 : 0
      variant.protocolVersion = context.arguments["protocol"].flatMap { Int($0) }
      if let size = context.arguments["size"] {
        variant.bytes = shell.receiver.limits.messageBytes + (size == "over-ceiling" ? 1 : 0)
      }
      variant.coordinates = context.arguments["coordinates"].flatMap { Int($0) } ?? 0
      variant.steps = context.arguments["steps"].flatMap { Int($0) } ?? 0
      variant.legs = context.arguments["legs"].flatMap { Int($0) } ?? 0
      let type = context.arguments["type"] ?? "event.ack"
      // The rest of the payload is what a page written against the app's schema fills in.
      let payload: [String: Any] = type == "event.ack" ? ["eventIds": ["e1"]] : [:]
      let decision = shell.send(type, payload: payload, variant: variant)
      return Outcome("\(shell.name)'s page sent \(type): \(shell.describe(decision))")
    },
    ActionSpec(
      .app, "page is newer than the shell",
      summary:
        "The deployed web build speaks only versions above the shell's own range (the web deploys independently of the store binary), for the next page load.",
      example: "openmapx page is newer than the shell"
    ) { context in
      let shell = try context.bridgeShell()
      let top = shell.receiver.shellRange.upperBound
      shell.webRange = (top + 1)...(top + 2)
      return Outcome(
        "\(shell.name)'s page speaks protocol \(top + 1) to \(top + 2) (the shell: up to \(top))")
    },
    ActionSpec(
      .app, "gets a full snapshot",
      [.value("session", .text), .value("route", .text), .keyword("at", "revision", .integer)],
      summary: "Native sends the page a full snapshot of SESSION and ROUTE at REVISION.",
      example: "openmapx gets a full snapshot s1 r1 at 4"
    ) { context in
      let shell = try context.bridgeShell()
      shell.fullSnapshot(
        session: context.arguments["session"] ?? "", route: context.arguments["route"] ?? "",
        revision: Int(context.arguments["revision"] ?? "") ?? 0)
      return Outcome("\(shell.name)'s page holds a full snapshot")
    },
    ActionSpec(
      .app, "gets a delta",
      [
        .value("session", .text), .value("route", .text), .keyword("from", "base", .integer),
        .keyword("to", "revision", .integer),
      ],
      summary:
        "Native sends the page a delta of SESSION and ROUTE from revision BASE to REVISION.",
      example: "openmapx gets a delta s1 r1 from 4 to 5"
    ) { context in
      let shell = try context.bridgeShell()
      let result = shell.delta(
        session: context.arguments["session"] ?? "", route: context.arguments["route"] ?? "",
        base: Int(context.arguments["base"] ?? "") ?? 0,
        revision: Int(context.arguments["revision"] ?? "") ?? 0)
      return Outcome("\(shell.name)'s page: the delta was \(result.rawValue)")
    },
    ActionSpec(
      .app, "opens the sign-in handoff",
      summary:
        "`SystemAuthSession.open(\"sign-in\")`: a verifier of VERIFIER_BYTES and a state of STATE_BYTES in memory, the S256 challenge to /mobile-auth on the compiled origin in the system browser, the test user signs in and the page there asks the issue route for a code as its own code does (held to the route's schema), the callback returns on the compiled scheme's auth/callback; the page holds the code, the state and the verifier.",
      example: "openmapx opens the sign-in handoff"
    ) { context in
      let shell = try context.bridgeShell()
      guard let server = context.world.ports.handoff else {
        throw ScenarioRuntimeError("no handoff server in this world")
      }
      shell.openHandoff(purpose: "sign-in", login: server.login, password: server.password)
      if let failure = shell.handoffFailure {
        return Outcome(
          "\(shell.name) opened the sign-in handoff",
          problem: .init(kind: .failed, message: failure, reason: .handoff))
      }
      return Outcome("\(shell.name) opened the sign-in handoff: auth.result ok")
    },
    ActionSpec(
      .app, "redeems the handoff",
      [
        .flag("wrong-verifier"), .flag("wrong-state"), .flag("from-another-origin"),
        .flag("without-origin"),
      ],
      summary:
        "The page posts the code, the verifier and the state to the exchange as its own code does — the path its call names, the keys of its JSON body — to the route the server registers (the seed's /api/mobile-auth/redeem when no route was read; a well-formed verifier of another attempt with `wrong-verifier`, another attempt's state with `wrong-state`), then the one-time token to /api/mobile-auth/verify; with `from-another-origin` a page of another site posts it, with `without-origin` a script that sends no Origin. Leaves the redemption's answer for `expect status`.",
      example: "openmapx redeems the handoff wrong-verifier"
    ) { context in
      let shell = try context.bridgeShell()
      guard shell.handoff != nil else {
        return Outcome(
          "\(shell.name) has no handoff to redeem",
          problem: .init(
            kind: .failed, message: shell.handoffFailure ?? "no handoff was opened",
            reason: .handoff))
      }
      let foreign = context.arguments.has("from-another-origin")
      let bare = context.arguments.has("without-origin")
      if foreign || bare, shell.build.bridge?.handoffServer.routes?.checksOrigin == nil {
        throw ScenarioNotApplicable(
          "the handoff's routes were not found among \(shell.build.bridge?.handoffServer.searched.joined(separator: ", ") ?? "the server's files") (a file naming mobile-auth or handoff that registers a route): whether they refuse another Origin is not verified"
        )
      }
      shell.redeem(
        wrongVerifier: context.arguments.has("wrong-verifier"),
        wrongState: context.arguments.has("wrong-state"),
        fromOrigin: foreign ? "https://tiles.example.net" : nil, withoutOrigin: bare)
      var result = Outcome(
        "\(shell.name) redeemed the handoff: \(shell.lastRedemption.map { "HTTP \($0.status)" } ?? "no answer")"
      )
      result.response = shell.lastRedemption
      return result
    },
    ActionSpec(
      .world, "two redemptions race for the handoff of", [.value("app", .app)],
      summary:
        "The code and verifier APP holds are redeemed twice at the same moment (a double tap, a replayed request): the answers are kept for `expect redemptions won`.",
      example: "two redemptions race for the handoff of openmapx", powers: [.backendHook]
    ) { context in
      guard let name = context.arguments["app"], let shell = context.world.bridge?.shells[name],
        let handoff = shell.handoff, let server = context.world.ports.handoff
      else { throw ScenarioRuntimeError("no handoff to race for") }
      let answers = try server.redeemTogether([
        (handoff.code, handoff.verifier, handoff.state),
        (handoff.code, handoff.verifier, handoff.state),
      ])
      context.world.bridge?.race = answers
      return Outcome(
        "two redemptions raced: \(answers.map { "HTTP \($0.status)" }.joined(separator: ", "))")
    },
  ]

  static var expectations: [ExpectationSpec] { receiverExpectations + replyExpectations }

  static let receiverExpectations: [ExpectationSpec] = [
    ExpectationSpec(
      "bridge decision on",
      [
        .value(
          "app", .app),
        .value(
          "decision",
          .choice(
            ["acknowledged", "dispatched", "handshake", "as-composed"]
              + [
                "origin", "nonce", "too-large", "invalid-json", "schema", "duplicate", "protocol",
                "bounds", "unsupported-capability", "prototype-pollution",
                "timestamp-out-of-range", "refused-well-formed",
              ])),
      ],
      summary:
        "What the shell's receiver did with the page's last message: accepted it (acknowledged, dispatched, handshake) or refused it, and why. Origin and nonce refusals are silent: the page gets no reply.",
      example: "expect bridge decision on openmapx unsupported-capability"
    ) { context in
      let shell = try context.bridgeShell("app")
      var wanted = context.arguments["decision"] ?? ""
      if wanted == "as-composed" {
        // Dispatched where the app composes a dispatcher, unsupported-capability where not.
        wanted = shell.receiver.dispatches ? "dispatched" : "unsupported-capability"
      }
      let actual: String
      switch shell.lastDecision {
      case .rejected(let rejection): actual = rejection.rawValue
      case .acknowledged: actual = "acknowledged"
      case .dispatched: actual = "dispatched"
      case .handshake: actual = "handshake"
      case nil: actual = "nothing sent"
      }
      if actual == wanted { return nil }
      var schema = helloRefusal(shell)
      if [actual, wanted].contains("schema"), let read = shell.build.bridge?.messageSchema {
        let refusal = actual == "schema" ? shell.receiver.schemaRefusal.map { ", \($0)" } : nil
        schema += "; the app's webToNativeSchema (\(read.origin))\(refusal ?? "")"
      }
      return context.fail(
        .bridgeDecision, actual,
        "expected the shell to answer \(wanted); it \(shell.lastDecision.map(shell.describe) ?? "received nothing") (dispatcher composed: \(shell.build.bridge?.dispatcherComposed.map { "\($0.value ? "yes" : "no"), \($0.origin)" } ?? "unknown"))\(receiverCode(shell.build))\(schema)"
      )
    },
    ExpectationSpec(
      "protocol on", [.value("app", .app), .value("version", .text)],
      summary:
        "The protocol version the handshake selected (`none` when the ranges do not overlap).",
      example: "expect protocol on openmapx 3"
    ) { context in
      let shell = try context.bridgeShell("app")
      let actual = shell.page.negotiated.map(String.init) ?? "none"
      var wanted = context.arguments["version"] ?? ""
      if wanted == "highest-common" {
        let shellRange = shell.receiver.shellRange
        let low = Swift.max(shell.webRange.lowerBound, shellRange.lowerBound)
        let high = Swift.min(shell.webRange.upperBound, shellRange.upperBound)
        wanted = low <= high ? String(high) : "none"
      }
      if actual == wanted { return nil }
      return context.fail(
        .protocolVersion, actual,
        "expected protocol \(wanted) on \(shell.name); the handshake selected \(actual) (page \(shell.webRange.lowerBound)–\(shell.webRange.upperBound), shell \(shell.receiver.shellRange.lowerBound)–\(shell.receiver.shellRange.upperBound))\(helloRefusal(shell))"
      )
    },
    ExpectationSpec(
      "navigation on",
      [.value("app", .app), .value("state", .choice(["on", "off"])), .flag("update-required")],
      summary:
        "Whether the page may start installed navigation, and (with `update-required`) whether it asks the user for a store update.",
      example: "expect navigation on openmapx off update-required"
    ) { context in
      let shell = try context.bridgeShell("app")
      let wantOn = context.arguments["state"] == "on"
      let wantUpdate = context.arguments.has("update-required")
      if shell.page.navigationEnabled == wantOn && (!wantUpdate || shell.page.updateRequired) {
        return nil
      }
      return context.fail(
        .navigationState, shell.page.navigationEnabled ? "on" : "off",
        "expected navigation \(wantOn ? "on" : "off")\(wantUpdate ? " with an update asked for" : "") on \(shell.name); it is \(shell.page.navigationEnabled ? "on" : "off")\(shell.page.updateRequired ? ", an update asked for" : ", no update asked for")"
      )
    },
    ExpectationSpec(
      "capability on",
      [
        .value("app", .app), .value("name", .text),
        .value("state", .choice(["available", "unavailable"])),
      ],
      summary: "What `native.hello` reports for capability NAME.",
      example: "expect capability on openmapx groundNavigation unavailable"
    ) { context in
      let shell = try context.bridgeShell("app")
      let name = context.arguments["name"] ?? ""
      guard let value = shell.page.capabilities[name] else {
        return context.fail(
          .capability, "absent",
          "the shell reports no capability \(name) (has \(shell.page.capabilities.keys.sorted().joined(separator: ", ")))"
        )
      }
      let wanted = context.arguments["state"] == "available"
      if value == wanted { return nil }
      return context.fail(
        .capability, value ? "available" : "unavailable",
        "expected \(name) \(wanted ? "available" : "unavailable"); the shell reports it \(value ? "available" : "unavailable")\(value && shell.build.bridge?.dispatcherComposed?.value != true ? " with no dispatcher composed to back it" : "")"
      )
    },
    ExpectationSpec(
      "honest capability report on", [.value("app", .app)],
      summary:
        "`native.hello` reports available only what the app composes a dispatcher for: with none, every capability unavailable.",
      example: "expect honest capability report on openmapx"
    ) { context in
      let shell = try context.bridgeShell("app")
      guard !shell.page.capabilities.isEmpty else {
        return context.fail(
          .capability, "absent",
          "\(shell.name)'s page got no capability report\(helloRefusal(shell))")
      }
      let claimed = shell.page.capabilities.filter(\.value).keys.sorted()
      if claimed.isEmpty || shell.receiver.dispatches { return nil }
      let at = shell.build.bridge?.capabilities.first { claimed.contains($0.name) }?.value.origin
      return context.fail(
        .capability, claimed.joined(separator: ","),
        "the shell reports \(claimed.joined(separator: ", ")) available with no dispatcher composed (\(at ?? "describeShell()")): the page would start what nothing runs"
      )
    },
    ExpectationSpec(
      "rejections uniform", [],
      summary:
        "Every refusal of the handoff server so far was the same answer (status and body): none tells which check failed.",
      example: "expect rejections uniform"
    ) { context in
      let refusals = Set(try context.world.ports.handoff?.refusals() ?? [])
      if refusals.count <= 1 { return nil }
      return context.fail(
        .handoff, "\(refusals.count) answers",
        "the server refused in \(refusals.count) ways: \(refusals.sorted().joined(separator: " | "))\(serverCode(context.world))"
      )
    },
    ExpectationSpec(
      "page authority on",
      [.value("app", .app), .value("authority", .choice(["native", "browser"]))],
      summary:
        "Which authority the page selected, and that it did so before its own scripts ran: with native authority the browser's navigation engine never starts.",
      example: "expect page authority on openmapx native"
    ) { context in
      let shell = try context.bridgeShell("app")
      let wanted = context.arguments["authority"] ?? "native"
      let actual = shell.page.authority
      if actual == wanted { return nil }
      return context.fail(
        .pageAuthority, actual,
        "expected \(wanted) authority on \(shell.name)'s page; \(shell.page.browserEngineStarted ? "page scripts ran before the descriptor and started the browser navigation engine" : "it has \(actual)")"
      )
    },
    ExpectationSpec(
      "snapshot on", [.value("app", .app), .keyword("at", "revision", .integer)],
      summary: "The page's snapshot is at REVISION.",
      example: "expect snapshot on openmapx at 5"
    ) { context in
      let shell = try context.bridgeShell("app")
      let wanted = Int(context.arguments["revision"] ?? "") ?? 0
      let actual = shell.page.snapshots.revision
      if actual == wanted { return nil }
      return context.fail(
        .snapshot, actual.map(String.init) ?? "none",
        "expected the page's snapshot at revision \(wanted); it is at \(actual.map(String.init) ?? "none")"
      )
    },
    ExpectationSpec(
      "snapshot requests on", [.value("app", .app), .value("count", .integer)],
      summary: "How many full snapshots the page asked for after a gap.",
      example: "expect snapshot requests on openmapx 1"
    ) { context in
      let shell = try context.bridgeShell("app")
      let wanted = Int(context.arguments["count"] ?? "") ?? 0
      if shell.page.snapshotRequests == wanted { return nil }
      return context.fail(
        .snapshot, "\(shell.page.snapshotRequests) requests",
        "expected \(wanted) snapshot.request from the page; it sent \(shell.page.snapshotRequests)")
    },
    ExpectationSpec(
      "signed in on", [.value("app", .app)], negatable: true,
      summary:
        "The page's WebView holds the web app's session (the handoff was redeemed and verified).",
      example: "expect signed in on openmapx"
    ) { context in
      let shell = try context.bridgeShell("app")
      if (shell.signedInUser != nil) != context.negated { return nil }
      return context.fail(
        .handoff, shell.signedInUser == nil ? "signed out" : "signed in",
        shell.signedInUser == nil
          ? "\(shell.name) is not signed in: \(shell.handoffFailure ?? shell.lastRedemption.map { "the redemption answered HTTP \($0.status)" } ?? "no redemption")"
          : "did not expect \(shell.name) signed in (as \(shell.signedInUser ?? ""))")
    },
    ExpectationSpec(
      "redemptions won", [.value("count", .integer)],
      summary: "Of the racing redemptions, COUNT got a token.",
      example: "expect redemptions won 1"
    ) { context in
      let won = (context.world.bridge?.race ?? []).filter { $0.status == 200 }.count
      let wanted = Int(context.arguments["count"] ?? "") ?? 1
      if won == wanted { return nil }
      return context.fail(
        .handoff, "\(won) won",
        "expected \(wanted) of \((context.world.bridge?.race ?? []).count) racing redemptions to succeed; \(won) did\(serverCode(context.world))"
      )
    },
    ExpectationSpec(
      "handoff material leaked on", [.value("app", .app)], negatable: true,
      summary:
        "The code or the verifier of the last attempt is in native storage, in the diagnostic export, or in the /mobile-auth URL (which must carry only the challenge); `expect no …` is the rule.",
      example: "expect no handoff material leaked on openmapx"
    ) { context in
      let shell = try context.bridgeShell("app")
      let leaks = shell.handoffLeaks
      if leaks.isEmpty == context.negated { return nil }
      return context.fail(
        .handoffLeak, leaks.isEmpty ? "none" : leaks.joined(separator: ", "),
        leaks.isEmpty
          ? "expected the handoff material of \(shell.name) somewhere it must not be; it is nowhere"
          : "the handoff material of \(shell.name) is in \(leaks.joined(separator: ", "))")
    },
    ExpectationSpec(
      "code stored hashed on", [.value("app", .app)],
      summary: "The server's handoff table holds the callback code only as its SHA-256.",
      example: "expect code stored hashed on openmapx"
    ) { context in
      let shell = try context.bridgeShell("app")
      guard let server = context.world.ports.handoff, let code = shell.handoff?.code else {
        throw ScenarioRuntimeError("no handoff code to look for")
      }
      if try !server.storedKeys().contains(code) { return nil }
      return context.fail(
        .handoffLeak, "plain code",
        "the server's table holds the callback code itself\(serverCode(context.world))")
    },
  ]

  static let mutations: [MutationSpec] = BridgeMutations.all

  static let failureReasons: [FailureReason] = [
    .bridgeDecision, .bridgeReply, .protocolVersion, .navigationState, .capability, .pageAuthority,
    .snapshot,
    .handoff, .handoffLeak,
  ]
}

extension FailureReason {
  static let bridgeDecision = FailureReason(
    "bridge-decision", detail: "what the receiver did", "The receiver decided otherwise.")
  static let protocolVersion = FailureReason(
    "protocol", detail: "the version", "The handshake selected another protocol version.")
  static let navigationState = FailureReason(
    "navigation-state", detail: "on or off", "Installed navigation is (or is not) enabled.")
  static let capability = FailureReason(
    "capability", detail: "what is reported", "The capability report differs.")
  static let pageAuthority = FailureReason(
    "page-authority", detail: "native or browser", "The page runs with another authority.")
  static let snapshot = FailureReason(
    "snapshot", detail: "the revision", "The page's snapshot state differs.")
  static let handoff = FailureReason(
    "handoff", detail: "what happened", "The sign-in handoff went otherwise.")
  static let handoffLeak = FailureReason(
    "handoff-leak", detail: "where", "Handoff material is where it must not be.")
}

extension ActionContext {
  /// The acting app's bridge shell.
  func bridgeShell() throws -> BridgeShell {
    let app = try requireApp()
    guard let shell = world.bridge?.shells[app.name] else {
      throw ScenarioRuntimeError("\(app.name) is not a React Native bridge shell")
    }
    return shell
  }
}

extension ExpectationContext {
  func bridgeShell(_ name: String) throws -> BridgeShell {
    guard let value = arguments[name], let shell = world.bridge?.shells[value] else {
      throw ScenarioRuntimeError("no bridge shell \(arguments[name] ?? name) in this world")
    }
    return shell
  }
}
