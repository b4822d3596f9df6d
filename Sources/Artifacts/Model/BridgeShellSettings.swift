import Foundation
import QualifyCore

/// What a React Native bridge shell (seed 001) compiles in and what its code does: the
/// build-time origin, id and scheme as its config module derives them from the build env,
/// the protocol range of its release descriptor and of the protocol constants, the message
/// bounds, the capability report, the WebView's restrictions, and the sign-in handoff on
/// both sides. Each fact decides how the simulated shell and server behave.
public struct BridgeShellSettings: Sendable {
  /// `OPENMAPX_MOBILE_RELEASE=1` in the channel's build env.
  public var release: Sourced<Bool>
  public var webOrigin: Sourced<String>
  public var apiOrigin: Sourced<String>
  public var appId: Sourced<String>
  /// The URL scheme compiled in (`openmapx`, `openmapx-dev` in a development build).
  public var scheme: Sourced<String>
  /// The scheme the config module starts from, before a development build's suffix.
  public var baseScheme: String
  /// What a development build appends to the scheme (`-dev`).
  public var devSchemeSuffix = ""
  /// The scheme the config module defaults to: the official one.
  public var defaultScheme = ""

  /// The scheme the web app at this build's origin sends callbacks to: the official one for
  /// a release, its development twin otherwise — whatever this build compiled in.
  public var serverCallbackScheme: String {
    // The official site calls back the official scheme; a self-hosted one its own.
    let onOfficialOrigin = officialOrigin.map { $0.value == webOrigin.value } ?? true
    let scheme = onOfficialOrigin && !defaultScheme.isEmpty ? defaultScheme : baseScheme
    return release.value ? scheme : scheme + devSchemeSuffix
  }
  /// The official identifier and the origin it is bound to, as the config module names them.
  public var officialAppId: Sourced<String>?
  public var officialOrigin: Sourced<String>?
  /// The config module's refusal to build the official id against another origin (`if
  /// (appId === OFFICIAL_APP_ID && web.origin !== OFFICIAL_ORIGIN …) throw`): true where it
  /// is, false (at the module) when the module names the official identity and refuses
  /// nothing; nil without official constants.
  public var officialBinding: Sourced<Bool>?
  /// The config module's function run on the channel's build env, as the app runs it at
  /// start: true when it throws (the app opens on its fatal-configuration screen); nil when
  /// it was not found or qualify cannot evaluate it.
  public var configThrows: Sourced<Bool>?
  /// Why the config module's function was not run on the build env, and where qualify
  /// looked (nil when it ran): whether the module accepts the env is then unverified.
  public var configUnread: Sourced<String>?
  /// `protocol.min`/`max` of `apps/mobile/release/version.json`.
  public var releaseProtocol: Sourced<ProtocolRange>?
  /// `MOBILE_PROTOCOL_MIN`/`MAX` of the protocol module.
  public var protocolConstants: Sourced<ProtocolRange>?
  /// Where version.json's `max` and the `MOBILE_PROTOCOL_MAX` constant are written.
  public var releaseProtocolMax: FileLocation?
  public var protocolConstantsMax: FileLocation?
  /// `MAX_MESSAGE_BYTES`, `MAX_TOTAL_COORDINATES`, `MAX_TOTAL_STEPS`, `MAX_LEGS`.
  public var limits: [String: Sourced<Int>] = [:]
  /// Constants of the protocol module computed from something qualify cannot evaluate.
  public var computedConstants: [Sourced<String>] = []
  /// The protocol module's walks over a message whose depth bound never grows, each as the
  /// call that passes it on (`hasForbiddenKey(child, depth + 0)`).
  public var unboundedWalks: [Sourced<String>] = []
  /// The walks whose depth argument qualify does not evaluate (`depth * step`, a local bound to
  /// a call), each as the call.
  public var unreadWalks: [Sourced<String>] = []

  /// Seed 001's bounds, by constant.
  public static let seedLimits = [
    "MAX_MESSAGE_BYTES": 8 * 1024 * 1024, "MAX_TOTAL_COORDINATES": 100_000,
    "MAX_TOTAL_STEPS": 10_000, "MAX_LEGS": 512,
  ]
  /// `describeShell()`'s capabilities, by name: its literal block, or the defaults a
  /// provider overrides.
  public var capabilities: [(name: String, value: Sourced<Bool>)] = []
  /// Where `App.tsx` passes `createShellBridge` a capabilities provider, whose answers are
  /// computed at run time; nil when it passes none.
  public var capabilityProvider: Sourced<String>?
  /// `createShellBridge` is given a dispatcher where the app composes it.
  public var dispatcherComposed: Sourced<Bool>?
  /// The descriptor script is `injectedJavaScriptBeforeContentLoaded`, main frame only.
  public var descriptorBeforeContent: Sourced<Bool>?
  public var geolocationDisabled: Sourced<Bool>?
  public var mediaCaptureDenied: Sourced<Bool>?
  /// What the WebView's `source` is built from (`config.webOrigin`).
  public var webViewSource: Sourced<String>?
  /// Code that lets the origin change at run time (a stored or typed server URL).
  public var runtimeServerSelector: Sourced<String>?
  public var handoff = HandoffClientCode()
  /// What `App.tsx` does with `classifyNavigation`'s answer, and what that function answers.
  public var navigation = BridgeNavigationCode()
  /// Each direction's message types, listed and checked by a schema.
  public var vocabularies: [ProtocolVocabulary] = []
  /// The config module's own test of a release origin's host (`isPublicHost`, or its
  /// negation `isNonPublicHost`), read to be evaluated on the hosts the rule is about.
  public var publicHostCheck: Sourced<ReadDecision<PublicHostCheck>>?
  /// The field `envelope(type, …)` sets to the type's literal (`type: z.literal(type)`).
  public var envelopeTag: Sourced<String>?
  /// `webToNativeSchema` as written: what the receiver accepts from the page, held to each
  /// message in the run; unverified with the construct qualify does not read; nil when the
  /// module has none.
  public var messageSchema: Sourced<ReadDecision<SchemaShape>>?
  public var handoffServer = HandoffServerCode()
  /// The web page's call to the handoff's exchange (nil: none found, or none read).
  public var exchangeCall: Sourced<HandoffCall>?
  /// The page on the fixed origin's call to the handoff's issue (the purpose, the challenge
  /// and the state for a callback code).
  public var issueCall: Sourced<HandoffCall>?
  /// A call to the exchange qualify could not read, with why.
  public var exchangeCallUnread: Sourced<String>?
  /// Where qualify looked for the page's call (`parts.handoffClient`, else `apps/web/src`).
  public var exchangeCallSearched: [String] = []
  /// Keys the diagnostic export leaves out.
  public var diagnosticsExcludes: Sourced<[String]>?
  /// The only fields the diagnostics keep, where an allowlist keeps them (nil: no allowlist).
  public var diagnosticsAllows: Sourced<[String]>?
  /// The checks the receiver's `receive(` makes before dispatch (`origin`, `nonce`,
  /// `duplicates`, `protocol`: `BridgeReceiver.Check` names), each true where it is made and
  /// false where it is not; nil when no receiver code was found.
  public var receiverChecks: [String: Sourced<Bool>]?
  /// The list keys whose lengths the parser adds to a total it compares with a limit
  /// (`geometry → coordinates`, `steps → steps`, `legs → legs`), at the first addition; nil
  /// when no parser counting was found (the seed's is simulated).
  public var boundsCounted: Sourced<[String: String]>?
  /// A refusal in `receive(` that a well-formed message meets (its condition as written):
  /// the receiver then dispatches nothing at all.
  public var receiverRefusesWellFormed: Sourced<String>?
  /// Refusals of receive() whose condition qualify cannot evaluate on a well-formed message
  /// (neither judged to pass one nor to refuse it).
  public var receiverUnjudgedRefusals: [Sourced<String>] = []
  /// What the page hears when receive() refuses its message, as `App.tsx`'s message handler
  /// does with receive()'s answer; nil when no call of receive( is found.
  public var rejectionReplies: Sourced<RejectionReplies>?

  public init(
    release: Sourced<Bool>, webOrigin: Sourced<String>, apiOrigin: Sourced<String>,
    appId: Sourced<String>, scheme: Sourced<String>, baseScheme: String
  ) {
    self.release = release
    self.webOrigin = webOrigin
    self.apiOrigin = apiOrigin
    self.appId = appId
    self.scheme = scheme
    self.baseScheme = baseScheme
  }

  /// The capabilities the shell reports false.
  public var unavailableCapabilities: [String] {
    capabilities.filter { !$0.value.value }.map(\.name)
  }
}

/// A protocol version range.
public struct ProtocolRange: Sendable, Equatable, CustomStringConvertible {
  public var min: Int
  public var max: Int

  public init(min: Int, max: Int) {
    self.min = min
    self.max = max
  }

  public var description: String { "\(min)–\(max)" }

  /// The highest version both support, nil when the ranges do not overlap.
  public func negotiate(with other: ProtocolRange) -> Int? {
    let low = Swift.max(min, other.min)
    let high = Swift.min(max, other.max)
    return low <= high ? high : nil
  }
}

/// The app's side of the handoff (`SystemAuthSession`).
public struct HandoffClientCode: Sendable {
  /// Whether any handoff code was found under `src/auth`.
  public var found = false
  /// `VERIFIER_BYTES`.
  public var verifierBytes: Sourced<Int>?
  /// `STATE_BYTES`: the random bytes of the attempt's state.
  public var stateBytes: Sourced<Int>?
  /// The purposes `open(purpose)` takes (`type AuthPurpose = "sign-in" | …`).
  public var purposes: Sourced<[String]>?
  /// The path opened on the compiled origin (`/mobile-auth`).
  public var path: Sourced<String>?
  /// `code_challenge_method`.
  public var challengeMethod: Sourced<String>?
  /// The callback's host and path on the compiled scheme (`auth/callback`).
  public var callback: Sourced<String>?
  /// Where the `/mobile-auth` URL gets the attempt's `state` (`searchParams.set("state", …)`).
  public var sendsState: Sourced<String>?
  /// Where the callback's `state` is compared with the attempt's.
  public var checksCallbackState: Sourced<String>?
  /// Where the callback's host is compared with `auth`.
  public var checksCallbackHost: Sourced<String>?
  /// Where the code reads the callback's state, and a URL's host: a check written in a form
  /// the reader does not know is then unverified, not missing.
  public var readsCallbackState: Sourced<String>?
  public var readsCallbackHost: Sourced<String>?
  /// The callback's refusals run on the right callback and on wrong ones (nil: not found or
  /// not evaluated; the checks above then judge alone).
  public var callbackCheck: Sourced<HandoffCallbackCheck>?
  /// The statuses `SystemAuthSession` answers with (`status: "failed" as const`).
  public var statuses: [Sourced<String>] = []
  /// The statuses `auth.result`'s schema accepts.
  public var acceptedStatuses: Sourced<[String]>?

  public init() {}
}

/// How the WebView's navigations are decided: `onShouldStartLoadWithRequest` in `App.tsx`
/// acting on `classifyNavigation` (`src/shell/originPolicy.ts`).
public struct BridgeNavigationCode: Sendable {
  /// Where the WebView gets `onShouldStartLoadWithRequest`.
  public var handler: Sourced<String>?
  /// `originWhitelist={…}`, as written.
  public var originAllowlist: Sourced<String>?
  /// The variable the handler keeps `classifyNavigation`'s answer in.
  public var classifies: Sourced<String>?
  /// What the handler returns: `decision === "allow-in-webview"`.
  public var loadsOn: Sourced<String>?
  /// The test in front of `Linking.openURL`: `decision === "open-system"`.
  public var opensOn: Sourced<String>?
  /// The decisions `classifyNavigation` returns, in the order it returns them.
  public var decisions: Sourced<[String]>?
  /// The condition under which it answers `allow-in-webview`.
  public var sameOrigin: Sourced<String>?
  /// The early `return "reject"` that refuses a URL carrying credentials
  /// (`target.username || target.password`): `origin` drops them, so the origin comparison
  /// alone would keep `https://user@openmapx.com/` in the WebView.
  public var credentialRefusal: Sourced<ReadDecision<ScriptCondition>>?
  /// The early `return "reject"` on the raw URL's length, and the limit its constant holds.
  public var lengthRefusal: Sourced<ReadDecision<ScriptCondition>>?
  public var lengthLimit: Sourced<Int>?
  /// The parsed URL the function judges (`target = new URL(rawUrl)`) and its raw parameter:
  /// a test on another variable (the product's URL) refuses nothing of the target.
  public var targetName: String?
  public var rawName: String?
  /// Whether the function's body mentions `username` or `password` at all.
  public var mentionsCredentials = false
  /// `classifyNavigation` itself, read to be run on URLs (nil when its body holds what qualify
  /// does not evaluate: its decisions are then judged from the pieces above alone).
  public var function: Sourced<ScriptFunction>?

  public init() {}

  /// The literal of a test `name === "value"`, and its variable.
  public static func test(_ text: String) -> (variable: String, literal: String)? {
    let parts = text.components(separatedBy: "==")
    guard parts.count == 2 else { return nil }
    let variable = parts[0].trimmingCharacters(in: .whitespaces)
    let literal = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: " =\"'"))
    return (variable, literal)
  }
}

/// One direction of the protocol: the types its vocabulary lists (`WEB_TO_NATIVE_TYPES`) and
/// the ones its schema has an envelope for (`webToNativeSchema`).
public struct ProtocolVocabulary: Sendable {
  public var list: String
  public var schema: String
  /// nil when the list or the schema is not in the module.
  public var listed: [Sourced<String>]?
  public var checked: [Sourced<String>]?
  public var schemaAt: FileLocation?
  /// The key `z.discriminatedUnion("type", …)` picks a message's schema by.
  public var discriminator: Sourced<String>?

  public init(list: String, schema: String) {
    self.list = list
    self.schema = schema
  }
}

/// The server's side of the handoff (the web app's redemption code).
public struct HandoffServerCode: Sendable {
  /// Whether the server's code was found.
  public var found = false
  /// Where qualify looked for it (the profile's `parts.handoffServer`, else the monorepo's
  /// server folders), for a message when it is not there.
  public var searched: [String] = []
  /// The files read as the server's.
  public var files: [String] = []
  /// The lifetime constant's name (`CODE_TTL_MS`, `HANDOFF_TTL_MS`).
  public var ttlName: String?
  /// The lifetime computed from something qualify cannot evaluate (an env variable), or
  /// named without a unit.
  public var computedTTL: Sourced<String>?
  /// Every rejection of the redemption is the same answer.
  public var uniformRejections: Sourced<Bool>?
  /// The code is stored as its SHA-256.
  public var hashesCode: Sourced<Bool>?
  /// How long a code lives, in milliseconds.
  public var ttlMilliseconds: Sourced<Int>?
  /// The code is consumed by the statement that reads it.
  public var consumesAtomically: Sourced<Bool>?
  /// The verifier is compared after the code is consumed, so a wrong one burns it.
  public var wrongVerifierBurns: Sourced<Bool>?
  /// The state given with the code is compared with the one it was issued for.
  public var checksState: Sourced<Bool>?
  /// The routes that expose it (nil: none found among the files read).
  public var routes: HandoffRoutesCode?

  public init() {}
}

/// What a bridge shell's message handler answers a refused message with (seed 001, What
/// crosses; OpenMapX's App.tsx drops every refusal, since an answer to an unauthenticated
/// sender is an oracle).
public enum RejectionReplies: String, Sendable, Equatable {
  /// receive()'s answer is discarded: the page hears nothing.
  case silent
  /// `native.error` with the refusal's code, except to a sender whose origin or nonce failed.
  case authenticatedOnly = "authenticated-only"
  /// `native.error` for every refusal, a frame of another origin included.
  case every
}

/// The config module's host test as its code answers it: the function is evaluated, not
/// matched against a shape.
public struct PublicHostCheck: Sendable, Equatable {
  /// The function as written, and whether it answers "not public" (`isNonPublicHost`).
  public var function: ScriptFunction
  public var negated: Bool
  /// Hosts taken for public whatever the function says (a mutation's broken check).
  public var alsoPublic: Set<String> = []

  public init(function: ScriptFunction, negated: Bool) {
    self.function = function
    self.negated = negated
  }

  /// Whether the module takes `host` for a public one; nil when qualify cannot evaluate the
  /// function on it.
  public func isPublic(_ host: String) -> Bool? {
    if alsoPublic.contains(host) { return true }
    guard let answer = function.call([.string(host)]) else { return nil }
    return negated ? !answer.truthy : answer.truthy
  }
}
