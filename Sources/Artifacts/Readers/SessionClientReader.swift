import Foundation
import QualifyCore

/// A session-contract app's own client code (seed 002's client rules), read from its
/// TypeScript: the rules qualify's reference client follows in the session scenarios, checked
/// where the app writes them. Each fact is true where the code keeps the rule, false (with
/// where) where it does not.
enum SessionClientReader {
  static let refreshPath = "/v1/mobile/session/refresh"

  static func read(_ code: CodeSearch, looked: String) -> SessionClientCode {
    var out = SessionClientCode()
    guard let first = code.files.first?.file else {
      out.unread = looked
      return out
    }
    // A rule the code lacks is placed at the refresh call, the heart of the client.
    let anywhere =
      code.find([refreshPath]) ?? FileLocation(file: first, line: 0, column: 1)
    func holds(_ pattern: String) -> FileLocation? {
      code.captures("(" + pattern + ")").first?.location
    }
    func fact(_ at: FileLocation?, missing: String) -> Sourced<Bool> {
      at.map { Sourced(true, at: $0) } ?? Sourced(false, at: anywhere, derivation: [missing])
    }
    func never(_ at: FileLocation?, found: String) -> Sourced<Bool> {
      at.map { Sourced(false, at: $0, derivation: [found]) } ?? Sourced(true, at: anywhere)
    }
    out.sendsBearer = fact(
      holds(#"Authorization["']?\s*:\s*[`"']Bearer \$?\{?"#), missing: "no Authorization: Bearer")
    out.leavesTokenOpaque = never(
      holds(#"jwt-decode|jwtDecode\(|\batob\(|\.split\(\s*["']\.["']\s*\)\s*\[\s*1\s*\]"#),
      found: "the client reads the token's contents")
    out.storesRefreshSecurely =
      holds(#"(?:AsyncStorage|localStorage|MMKV)[^\n]*[Rr]efresh"#).map {
        Sourced(false, at: $0, derivation: ["the refresh token goes to storage that is not secure"])
      }
      ?? fact(
        holds(#"SecureStore\.setItemAsync\(|Keychain\.set|setGenericPassword\("#),
        missing: "the refresh token is not written to secure storage")
    out.singleFlight = fact(
      // `\2`: holds() wraps the pattern in a group of its own.
      holds(#"if\s*\(\s*(\w+)\s*\)\s*return\s+\2\b|\?\?=\s*\w*[Rr]efresh"#),
      missing: "no refresh in flight is shared: concurrent callers each refresh")
    out.wipesOnTerminalError = terminalWipe(code, anywhere: anywhere)
    out.refreshesBeforeExpiry = fact(
      holds(#"[Ee]xpires?At[^\n;]*(?:<=?|>=?)|(?:<=?|>=?)[^\n;]*[Ee]xpires?At"#),
      missing: "no request compares the access token's known expiry: refresh waits for a 401")
    out.loadsBootstrap = fact(holds(#"/v1/mobile/api/me"#), missing: "no /v1/mobile/api/me")
    out.firstPartyLogin = never(
      holds(#"openAuthSessionAsync|WebBrowser\.|/oauth2/auth|[Mm]agic[-_ ]?[Ll]ink"#),
      found: "a browser or magic-link login")
    out.refreshWithoutDeviceId = refreshBody(code, anywhere: anywhere)
    // The old SecureStore state (`token`, `sid`): deleted by name, or through a list of the
    // legacy keys that the code deletes.
    let legacyList = code.captures(
      #"(?:const|let)\s+(\w*LEGACY\w*)\s*=\s*\[[^\]]*["'](?:token|sid)["']"#
    ).first
    // `for (const key of LEGACY_KEYS) … deleteItemAsync(key)` (`\2`: holds() adds a group).
    let purgesList =
      legacyList.flatMap { list in
        holds(
          #"for\s*\(\s*const\s+(\w+)\s+of\s+"# + list.value
            + #"\s*\)[^\n]*deleteItemAsync\(\s*\2\s*\)"#)
      } != nil
    out.purgesLegacyState =
      purgesList
      ? Sourced(true, at: legacyList?.location ?? anywhere)
      : fact(
        holds(#"deleteItemAsync\(\s*["'](?:token|sid)["']"#),
        missing: "the old SecureStore token and sid are neither purged nor migrated")
    out.answersStoredAccess = accessAnswered(code)
    out.tellsWrongCredentials = fact(
      holds(#"["']invalid_credentials["']"#),
      missing: "invalid_credentials is handled nowhere: a wrong password reads as any failure")
    return out
  }

  /// The function calling the refresh endpoint deletes the stored session when it fails for
  /// good: it calls a function of these files that deletes from secure storage, or does it.
  static func terminalWipe(_ code: CodeSearch, anywhere: FileLocation) -> Sourced<Bool> {
    let deleting = #"deleteItemAsync\(|removeItem\(|resetGenericPassword\("#
    var wipers: Set<String> = []
    for (_, lines) in code.files {
      let text = lines.map(\.1).joined(separator: "\n")
      for function in ScriptStatements.functions(in: text)
      where function.body.range(of: deleting, options: .regularExpression) != nil {
        wipers.insert(function.name)
      }
    }
    for (file, lines) in code.files {
      let text = lines.map(\.1).joined(separator: "\n")
      for function in ScriptStatements.functions(in: text)
      where function.body.contains(refreshPath) {
        let at = FileLocation(
          file: file, line: lines.count > function.line ? lines[function.line].0 + 1 : 0,
          column: 1)
        let wipes =
          function.body.range(of: deleting, options: .regularExpression) != nil
          || wipers.contains { function.body.contains($0 + "(") }
        return Sourced(
          wipes, at: at,
          derivation: wipes ? [] : ["the refresh's failure deletes nothing of the stored session"])
      }
    }
    return Sourced(
      false, at: anywhere, derivation: ["no function calls \(refreshPath)"])
  }

  /// The refresh request's body names the refresh token only: the token identifies the
  /// session, and a device id sent with it is the client deciding which device it is.
  static func refreshBody(_ code: CodeSearch, anywhere: FileLocation) -> Sourced<Bool> {
    guard let call = code.blocks(after: refreshPath).first else {
      return Sourced(false, at: anywhere, derivation: ["no call of \(refreshPath)"])
    }
    let sendsDevice =
      call.body.range(of: #"body:[^\n]*deviceId"#, options: .regularExpression) != nil
    return Sourced(
      !sendsDevice, at: FileLocation(file: call.file, line: call.line, column: 1),
      derivation: sendsDevice ? ["the refresh request sends deviceId"] : [])
  }
}

/// What a session-contract app's client code does about seed 002's client rules (nil facts:
/// not read).
public struct SessionClientCode: Sendable, Equatable {
  /// Where qualify looked when it found no client code (nil when it read some).
  public var unread: String?
  public var sendsBearer: Sourced<Bool>?
  /// The token is never decoded (no JWT library, no `atob` of its middle part).
  public var leavesTokenOpaque: Sourced<Bool>?
  public var storesRefreshSecurely: Sourced<Bool>?
  public var singleFlight: Sourced<Bool>?
  public var wipesOnTerminalError: Sourced<Bool>?
  public var refreshesBeforeExpiry: Sourced<Bool>?
  public var loadsBootstrap: Sourced<Bool>?
  /// No browser (Hydra) or magic-link login.
  public var firstPartyLogin: Sourced<Bool>?
  public var refreshWithoutDeviceId: Sourced<Bool>?
  /// `invalid_credentials` is told apart from the other failures.
  public var tellsWrongCredentials: Sourced<Bool>?
  /// The state the app stored before the contract (SecureStore `token`, `sid`) is purged or
  /// migrated (seed 002, Suivi Mobile).
  public var purgesLegacyState: Sourced<Bool>?
  /// The accessor private requests take the token from answers it once an envelope is stored
  /// (nil: no accessor read).
  public var answersStoredAccess: Sourced<Bool>?

  public init() {}

  /// Each rule by name, with the fact and what breaks without it.
  public var rules: [(name: String, fact: Sourced<Bool>?, without: String)] {
    [
      ("bearer", sendsBearer, "private routes are called without Authorization: Bearer"),
      (
        "opaque-token", leavesTokenOpaque,
        "the client reads the token's contents (roles, routing) instead of the bootstrap"
      ),
      ("secure-storage", storesRefreshSecurely, "the refresh token is kept outside secure storage"),
      (
        "single-flight", singleFlight,
        "concurrent requests each refresh: the second presents a rotated token and the session ends as refresh_reused"
      ),
      (
        "wipe", wipesOnTerminalError,
        "a terminal refresh error leaves the session's material stored"
      ),
      ("refresh-before-expiry", refreshesBeforeExpiry, "every expiry costs a failed request first"),
      ("bootstrap", loadsBootstrap, "the app never loads /v1/mobile/api/me"),
      (
        "first-party-login", firstPartyLogin,
        "the app signs in through a browser or a magic link, out of the first-party contract"
      ),
      (
        "refresh-body", refreshWithoutDeviceId,
        "the refresh sends deviceId, which the refresh token already identifies"
      ),
      (
        "invalid-credentials", tellsWrongCredentials,
        "a wrong password is not told apart from a failure"
      ),
      (
        "access", answersStoredAccess,
        "the accessor answers no access while a token is held: every private request is sent without it"
      ),
      (
        "legacy-state", purgesLegacyState,
        "the old SecureStore token and sid stay on the device, readable by whatever reads them next"
      ),
    ]
  }
}
