import Artifacts
import Devices
import Foundation
import QualifyCore

/// Edits a control makes to a React Native bridge shell (seed 001): its compiled config, its
/// release descriptor, its composition, its receiver, its handoff code, and the web app's
/// handoff code — each a mistake the seed's rules exist for.
enum BridgeMutations {
  private static let at = FileLocation(file: "(mutation)", line: 0, column: 1)

  /// `shape` with no object strict, at any depth.
  static func loosened(_ shape: SchemaShape) -> SchemaShape {
    switch shape {
    case .object(let fields, _):
      return .object(
        fields.mapValues { .init(loosened($0.shape), optional: $0.optional) }, strict: false)
    case .array(let element, let count): return .array(loosened(element), count: count)
    case .tuple(let elements): return .tuple(elements.map(loosened))
    case .record(let element): return .record(loosened(element))
    case .tagged(let key, let options):
      return .tagged(key: key, options: options.mapValues(loosened))
    case .anyOf(let options): return .anyOf(options.map(loosened))
    case .nullable(let inner): return .nullable(loosened(inner))
    default: return shape
    }
  }

  static let all: [MutationSpec] = [
    MutationSpec(
      "shell.receiver-skips",
      [.value("check", .choice(BridgeReceiver.Check.allCases.map(\.rawValue)))],
      summary:
        "The shell's receiver leaves out one check: the sender's origin, the document nonce, the byte ceiling, the schema, duplicates, the negotiated protocol (a non-overlapping handshake then takes the page's version), or the route bounds.",
      breaks:
        "seed 001: the receiver checks origin, nonce, bounds, schemas, duplicates and protocol"
    ) { configuration, arguments in
      configuration.shell.bridgeSkipsChecks.insert(arguments["check"] ?? "")
    },
    MutationSpec(
      "app.schema-loose", [.value("part", .choice(["envelope", "payload"]))],
      summary:
        "The protocol module's webToNativeSchema lost its `.strict()` on the envelope, or on every payload: a field it does not list passes.",
      breaks: "seed 001: the receiver checks a strict schema before dispatch"
    ) { configuration, arguments in
      guard let bridge = configuration.build.bridge else { return }
      let schema = bridge.messageSchema?.value.value ?? BridgeReceiver.seedSchema
      guard case .tagged(let key, let options) = schema else { return }
      let payloads = arguments["part"] == "payload"
      var loose: [String: SchemaShape] = [:]
      for (tag, option) in options {
        guard case .object(var fields, let strict) = option else { continue }
        if payloads, let payload = fields["payload"] {
          fields["payload"]?.shape = loosened(payload.shape)
        }
        loose[tag] = .object(fields, strict: payloads ? strict : false)
      }
      configuration.build.bridge?.messageSchema = Sourced(
        .read(.tagged(key: key, options: loose)), at: at)
    },
    MutationSpec(
      "app.handoff-routes-lack", [.value("rule", .choice(["no-store", "origin", "throttle"]))],
      summary:
        "The handoff's routes lose one of their guards: Cache-Control: no-store on every answer, the refusal of a caller whose Origin is not the web app's, or the throttle of failing callers.",
      breaks: "OpenMapX's handoff routes: no-store, Origin allowlist, 429"
    ) { configuration, arguments in
      guard var routes = configuration.build.bridge?.handoffServer.routes else { return }
      let no = Sourced(false, at: at)
      switch arguments["rule"] {
      case "no-store": routes.noStore = no
      case "origin": routes.checksOrigin = no
      default:
        routes.throttles = no
        routes.throttle = nil
      }
      configuration.build.bridge?.handoffServer.routes = routes
    },
    MutationSpec(
      "app.handoff-refuses-own-page",
      summary:
        "The routes' Origin check answers false for the web app's own page (`typeof origin === \"strin\"`): the page's every redemption is refused.",
      breaks: "seed 001: the page on the fixed origin redeems its code"
    ) { configuration, _ in
      configuration.build.bridge?.handoffServer.routes?.admitsOwnPage = Sourced(false, at: at)
    },
    MutationSpec(
      "app.handoff-allowlist-lacks-page",
      summary:
        "The server's Origin allowlist as deployed leaves the web app's origin out (`MOBILE_AUTH_ALLOWED_ORIGINS=https://openmapx.com/`, a trailing slash no Origin has): the page's every redemption is refused.",
      breaks: "seed 001: the page on the fixed origin redeems its code"
    ) { configuration, _ in
      configuration.build.bridge?.handoffServer.routes?.allowlistHoldsPage = Sourced(
        false, at: at, derivation: ["MOBILE_AUTH_ALLOWED_ORIGINS = https://openmapx.com/"])
      configuration.build.bridge?.handoffServer.routes?.allowlistFromFallbacks = false
    },
    MutationSpec(
      "app.handoff-exchange-renames", [.value("side", .choice(["page", "route"]))],
      summary:
        "One side of the handoff's exchange renames the code's field and the other does not: the page's `JSON.stringify({ code: … })` where the route's schema requires `callbackCode` (page), or the schema's `required: [\"code\", …]` where the page sends `callbackCode` (route): every exchange is refused with 400.",
      breaks: "seed 001: the page on the fixed origin redeems its code"
    ) { configuration, arguments in
      guard let bridge = configuration.build.bridge,
        var route = bridge.handoffServer.routes?.exchange?.value
      else { return }
      let field = route.field(.code) ?? bridge.exchangeCall?.value.key(.code) ?? "callbackCode"
      let renamed = field == "code" ? "callbackCode" : "code"
      func rename(_ key: String) -> String { key == field ? renamed : key }
      if arguments["side"] == "route" {
        route.required = route.required.map(rename)
        route.accepted = route.accepted?.map(rename)
        configuration.build.bridge?.handoffServer.routes?.exchange = Sourced(route, at: at)
        return
      }
      // The page's call as read, else the one its route expects.
      var call =
        bridge.exchangeCall?.value
        ?? route.ownCall(roles: [HandoffField.code, .verifier, .state])
      call.fields = call.fields.map { .init(key: rename($0.key), role: $0.role) }
      configuration.build.bridge?.exchangeCall = Sourced(call, at: at)
    },
    MutationSpec(
      "app.handoff-issue-renames",
      summary:
        "The page on the fixed origin's issue sends the challenge as `code_challenge` where the issue route's schema requires `codeChallenge`: every issue is refused with 400, and no callback code reaches the app.",
      breaks: "seed 001: the signed-in page gets a callback code for the app's challenge"
    ) { configuration, _ in
      guard let bridge = configuration.build.bridge,
        let route = bridge.handoffServer.routes?.issue?.value
      else { return }
      let field = route.field(.challenge) ?? "codeChallenge"
      let renamed = field == "code_challenge" ? "codeChallenge" : "code_challenge"
      var call =
        bridge.issueCall?.value
        ?? route.ownCall(roles: [HandoffField.purpose, .challenge, .state])
      call.fields = call.fields.map {
        .init(key: $0.key == field ? renamed : $0.key, role: $0.role)
      }
      configuration.build.bridge?.issueCall = Sourced(call, at: at)
    },
    MutationSpec(
      "app.handoff-state-bytes", [.value("bytes", .integer)],
      summary:
        "SystemAuthSession's STATE_BYTES is BYTES: the state is BYTES × 4 / 3 base64url characters, which the handoff routes' schemas may refuse (8 bytes give 11 characters, under a minLength of 16).",
      breaks: "seed 001: the signed-in page gets a callback code for the app's challenge"
    ) { configuration, arguments in
      configuration.build.bridge?.handoff.stateBytes = Sourced(
        Int(arguments["bytes"] ?? "") ?? 8, at: at)
    },
    MutationSpec(
      "app.handoff-admits-no-origin",
      summary:
        "The routes' Origin check lets a request without an Origin through (`if (!origin) return true;`, a script's call taken for the page's): anything outside a browser can redeem a code it got hold of.",
      breaks: "OpenMapX's handoff routes: a missing Origin is refused"
    ) { configuration, _ in
      configuration.build.bridge?.handoffServer.routes?.allowlistAdmitsMissing = Sourced(
        true, at: at, derivation: ["fromOwnPage() answers true for a request without an Origin"])
    },
    MutationSpec(
      "app.receiver-refuses-well-formed",
      summary:
        "A refusal in receive() lost its negation (`if (channel) return { status: \"rejected\", … }`): a message that passes every check is refused.",
      breaks: "seed 001: a well-formed message of the page is handled"
    ) { configuration, _ in
      configuration.build.bridge?.receiverRefusesWellFormed = Sourced("channel", at: at)
    },
    MutationSpec(
      "app.receiver-answers-every-refusal",
      summary:
        "App.tsx keeps receive()'s answer and sends every refusal back as native.error, a frame of another origin included.",
      breaks:
        "seed 001: refusing an unauthenticated sender (another origin, a stale nonce) is silent"
    ) { configuration, _ in
      configuration.build.bridge?.rejectionReplies = Sourced(.every, at: at)
    },
    MutationSpec(
      "shell.receiver-answers-every-refusal",
      summary:
        "The shell's receiver answers every refusal with native.error, whatever the app's handler does.",
      breaks:
        "seed 001: refusing an unauthenticated sender (another origin, a stale nonce) is silent"
    ) { configuration, _ in configuration.shell.bridgeAnswersEveryRefusal = true },
    MutationSpec(
      "shell.applies-any-delta",
      summary: "The page applies every snapshot delta, whatever its session, route and base.",
      breaks: "seed 001: a delta applies only to its session, route and base revision"
    ) { configuration, _ in configuration.shell.bridgeAppliesAnyDelta = true },
    MutationSpec(
      "shell.persists-handoff-attempt",
      summary: "The handoff attempt (state and verifier) is written to native storage.",
      breaks: "seed 001: attempts remain in memory; storage excludes the handoff material"
    ) { configuration, _ in configuration.shell.bridgePersistsAttempt = true },
    MutationSpec(
      "app.claims-capability", [.value("name", .text)],
      summary: "describeShell() reports capability NAME available, with no dispatcher behind it.",
      breaks: "seed 001: commands not composed are reported unavailable"
    ) { configuration, arguments in
      guard var bridge = configuration.build.bridge else { return }
      bridge.dispatcherComposed = Sourced(false, at: at)
      let name = arguments["name"] ?? ""
      bridge.capabilities = bridge.capabilities.map {
        $0.name == name ? ($0.name, Sourced(true, at: at)) : $0
      }
      configuration.build.bridge = bridge
    },
    MutationSpec(
      "app.descriptor-after-content",
      summary: "The descriptor is injected when the page has loaded, after its scripts ran.",
      breaks: "seed 001: the immutable descriptor is injected before page scripts run"
    ) { configuration, _ in
      configuration.build.bridge?.descriptorBeforeContent = Sourced(false, at: at)
    },
    MutationSpec(
      "app.webview-allows", [.value("what", .choice(["geolocation", "media-capture"]))],
      summary:
        "The WebView enables geolocation, or prompts for media capture instead of denying it.",
      breaks: "seed 001: disabled WebView geolocation and denied media capture"
    ) { configuration, arguments in
      if arguments["what"] == "geolocation" {
        configuration.build.bridge?.geolocationDisabled = Sourced(false, at: at)
      } else {
        configuration.build.bridge?.mediaCaptureDenied = Sourced(false, at: at)
      }
    },
    MutationSpec(
      "app.version-json-ahead",
      summary:
        "apps/mobile/release/version.json promises one protocol version more than the constants implement.",
      breaks: "seed 001: version.json and the protocol constants agree"
    ) { configuration, _ in
      guard let constants = configuration.build.bridge?.protocolConstants?.value else { return }
      configuration.build.bridge?.releaseProtocol = Sourced(
        ProtocolRange(min: constants.min, max: constants.max + 1), at: at)
    },
    MutationSpec(
      "app.web-origin", [.value("origin", .text)],
      summary: "The build compiles in ORIGIN for web and API.",
      breaks: "seed 001, Fixed origin: HTTPS public hosts; org.openmapx.app on https://openmapx.com"
    ) { configuration, arguments in
      let origin = Sourced(arguments["origin"] ?? "", at: at)
      configuration.build.bridge?.webOrigin = origin
      configuration.build.bridge?.apiOrigin = origin
    },
    MutationSpec(
      "app.official-id-elsewhere", [.value("origin", .text)],
      summary: "The official application identifier is built for ORIGIN.",
      breaks: "seed 001: org.openmapx.app is restricted to https://openmapx.com"
    ) { configuration, arguments in
      guard var bridge = configuration.build.bridge, let official = bridge.officialAppId else {
        return
      }
      bridge.appId = Sourced(official.value, at: at)
      bridge.webOrigin = Sourced(arguments["origin"] ?? "", at: at)
      bridge.apiOrigin = bridge.webOrigin
      configuration.build.bridge = bridge
    },
    MutationSpec(
      "app.protocol-bound", [.value("name", .text), .value("value", .integer)],
      summary: "The protocol module's bound NAME is VALUE.",
      breaks: "seed 001: 8 MiB, 100,000 coordinates, 10,000 steps, 512 legs"
    ) { configuration, arguments in
      let name = arguments["name"] ?? ""
      configuration.build.bridge?.limits[name] = Sourced(
        Int(arguments["value"] ?? "") ?? 0, at: at)
    },
    MutationSpec(
      "app.walk-depth-unbounded",
      summary:
        "A walk of the protocol module over a decoded message passes its depth on unchanged (`hasForbiddenKey(child, depth + 0)`): its bound never stops it.",
      breaks: "seed 001: the receiver refuses what it cannot bound"
    ) { configuration, _ in
      configuration.build.bridge?.unboundedWalks = [
        Sourced("hasForbiddenKey(child, depth)", at: at)
      ]
    },
    MutationSpec(
      "app.config-throws",
      summary: "The config module throws on the channel's build env.",
      breaks: "seed 001: the build's values are read once, validated and frozen"
    ) { configuration, _ in
      configuration.build.bridge?.configThrows = Sourced(true, at: at)
      configuration.build.bridge?.configUnread = nil
    },
    MutationSpec(
      "app.runtime-server-selector",
      summary: "The app reads a server URL from storage at start and loads it.",
      breaks: "seed 001: there is no runtime server selector"
    ) { configuration, _ in
      configuration.build.bridge?.runtimeServerSelector = Sourced("serverUrl", at: at)
    },
    MutationSpec(
      "app.scheme", [.value("scheme", .text)],
      summary: "The build compiles in SCHEME as its URL scheme.",
      breaks:
        "seed 001: the callback uses the compiled scheme; openmapx-dev only in development builds"
    ) { configuration, arguments in
      let scheme = arguments["scheme"] ?? ""
      configuration.build.bridge?.scheme = Sourced(scheme, at: at)
      configuration.build.registeredSchemes = [Sourced(scheme, at: at)]
    },
    MutationSpec(
      "app.handoff-challenge-plain",
      summary: "SystemAuthSession sends the verifier itself as a plain challenge.",
      breaks: "seed 001: /mobile-auth with the S256 challenge; the verifier never leaves the app"
    ) { configuration, _ in
      configuration.build.bridge?.handoff.challengeMethod = Sourced("plain", at: at)
    },
    MutationSpec(
      "app.diagnostics-keep-handoff",
      summary:
        "The diagnostics allowlist permits the handoff fields (an export by denylist leaves out only cookies).",
      breaks: "seed 001: diagnostic exports must exclude the handoff material"
    ) { configuration, _ in
      if let allowed = configuration.build.bridge?.diagnosticsAllows {
        configuration.build.bridge?.diagnosticsAllows = Sourced(
          allowed.value + ["handoffCode", "state", "codeVerifier"], at: at)
      } else {
        configuration.build.bridge?.diagnosticsExcludes = Sourced(["cookie"], at: at)
      }
    },
    MutationSpec(
      "app.navigation-loads-on", [.value("decision", .text)],
      summary:
        "onShouldStartLoadWithRequest lets the WebView load a URL when classifyNavigation answers DECISION.",
      breaks: "seed 001, Fixed origin: the compiled origin loads in the WebView, the rest does not"
    ) { configuration, arguments in
      let variable = configuration.build.bridge?.navigation.classifies?.value ?? "decision"
      configuration.build.bridge?.navigation.loadsOn = Sourced(
        "\(variable) === \"\(arguments["decision"] ?? "")\"", at: at)
    },
    MutationSpec(
      "app.navigation-unguarded",
      summary: "The WebView has no onShouldStartLoadWithRequest: it loads every link itself.",
      breaks: "seed 001, Fixed origin: one origin in the WebView"
    ) { configuration, _ in configuration.build.bridge?.navigation.handler = nil },
    MutationSpec(
      "app.navigation-prefix-match",
      summary: "classifyNavigation keeps a URL in the WebView when it starts with the origin.",
      breaks: "seed 001, Fixed origin: the origin is compared structurally"
    ) { configuration, _ in
      configuration.build.bridge?.navigation.sameOrigin = Sourced(
        "rawUrl.startsWith(config.webOrigin)", at: at)
    },
    MutationSpec(
      "app.navigation-credentials-partial",
      summary:
        "classifyNavigation refuses a URL only when it carries both a user name and a password.",
      breaks: "seed 001, Fixed origin: credentials never ride into the WebView"
    ) { configuration, _ in
      guard var navigation = configuration.build.bridge?.navigation else { return }
      // The URL by the name the app's own code gives it (OpenMapX: `candidate`).
      let target = navigation.targetName ?? "target"
      let condition = "\(target).username && \(target).password"
      if case .success(let parsed) = ScriptConditionParser.parse(condition) {
        navigation.credentialRefusal = Sourced(
          .read(parsed), at: navigation.credentialRefusal?.location ?? at)
      }
      configuration.build.bridge?.navigation = navigation
    },
    MutationSpec(
      "app.navigation-length-inclusive",
      summary: "classifyNavigation refuses a URL as long as its limit (>= for >).",
      breaks: "seed 001, Fixed origin: the navigation URL's length bound"
    ) { configuration, _ in
      guard var navigation = configuration.build.bridge?.navigation else { return }
      let condition = "\(navigation.rawName ?? "rawUrl").length >= MAX_NAVIGATION_URL_LENGTH"
      if case .success(let parsed) = ScriptConditionParser.parse(condition) {
        navigation.lengthRefusal = Sourced(
          .read(parsed), at: navigation.lengthRefusal?.location ?? at)
      }
      configuration.build.bridge?.navigation = navigation
    },
    MutationSpec(
      "app.protocol-discriminator", [.value("key", .text)],
      summary: "webToNativeSchema's discriminatedUnion picks a schema by field KEY.",
      breaks: "seed 001, The bridge protocol: a strict schema per message"
    ) { configuration, arguments in
      guard var bridge = configuration.build.bridge else { return }
      bridge.vocabularies = bridge.vocabularies.map { vocabulary in
        var vocabulary = vocabulary
        if vocabulary.schema == "webToNativeSchema" {
          vocabulary.discriminator = Sourced(
            arguments["key"] ?? "", at: vocabulary.discriminator?.location ?? at)
        }
        return vocabulary
      }
      configuration.build.bridge = bridge
    },
    MutationSpec(
      "app.protocol-type-unchecked", [.value("type", .text)],
      summary: "The protocol module's schema has no envelope for message type TYPE.",
      breaks: "seed 001, The bridge protocol: a strict schema per message"
    ) { configuration, arguments in
      guard var bridge = configuration.build.bridge else { return }
      bridge.vocabularies = bridge.vocabularies.map { vocabulary in
        var vocabulary = vocabulary
        vocabulary.checked = vocabulary.checked?.filter { $0.value != arguments["type"] }
        return vocabulary
      }
      configuration.build.bridge = bridge
    },
    MutationSpec(
      "app.handoff-status", [.value("status", .text)],
      summary: "SystemAuthSession answers a failed attempt with status STATUS.",
      breaks: "seed 001, The handoff: the page gets the attempt's result"
    ) { configuration, arguments in
      configuration.build.bridge?.handoff.statuses.append(
        Sourced(arguments["status"] ?? "", at: at))
    },
    MutationSpec(
      "app.public-host-accepts", [.value("host", .text)],
      summary: "mobileConfig.ts's host test takes HOST for a public host.",
      breaks: "seed 001, Fixed origin: release origins are public hosts"
    ) { configuration, arguments in
      guard var read = configuration.build.bridge?.publicHostCheck,
        case .read(var check) = read.value
      else { return }
      check.alsoPublic.insert(arguments["host"] ?? "")
      read.value = .read(check)
      configuration.build.bridge?.publicHostCheck = read
    },
    MutationSpec(
      "backend.handoff-lacks",
      [
        .value(
          "rule",
          .choice([
            "hash", "expiry", "atomic-consume", "verifier-burn", "uniform-rejections",
            "state-check",
          ]))
      ],
      summary:
        "The web app's handoff code loses a rule: the code stored as its hash, the two-minute expiry, the consuming statement, a wrong verifier burning the code, uniform refusals, or the state compared with the attempt's.",
      breaks: "seed 001, the handoff's threat model"
    ) { configuration, arguments in
      guard var server = configuration.build.bridge?.handoffServer else { return }
      switch arguments["rule"] {
      case "hash": server.hashesCode = Sourced(false, at: at)
      case "expiry": server.ttlMilliseconds = Sourced(24 * 3_600_000, at: at)
      case "atomic-consume": server.consumesAtomically = Sourced(false, at: at)
      case "uniform-rejections": server.uniformRejections = Sourced(false, at: at)
      case "state-check": server.checksState = Sourced(false, at: at)
      default: server.wrongVerifierBurns = Sourced(false, at: at)
      }
      configuration.build.bridge?.handoffServer = server
    },
    MutationSpec(
      "backend.handoff-code-lifetime", [.value("seconds", .integer)],
      summary:
        "The web app's handoff code lives SECONDS instead of two minutes (a unit slip, a bound off by some: `backend.handoff-code-lifetime 60`).",
      breaks: "seed 001, the handoff's threat model: codes expire after two minutes"
    ) { configuration, arguments in
      guard var server = configuration.build.bridge?.handoffServer else { return }
      server.ttlMilliseconds = Sourced((Int(arguments["seconds"] ?? "") ?? 120) * 1000, at: at)
      configuration.build.bridge?.handoffServer = server
    },
  ]
}
