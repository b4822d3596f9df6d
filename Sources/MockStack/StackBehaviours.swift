/// Behaviours of the mocks that a negative control can switch, each breaking one fidelity
/// rule of DESIGN.md on purpose.
public struct StackBehaviours: Sendable, Hashable {
  // Transport and configuration.
  /// The servers present a certificate from a CA the clients do not trust.
  public var untrustedCertificate = false
  /// `/config` advertises this manifest URL instead of the env's.
  public var configManifestURLOverride: String?
  /// The heartbeat answers 503.
  public var backendUnhealthy = false

  // The session-contract backend (seed 002).
  /// A refresh returns the same refresh token (no rotation).
  public var sessionNoRotation = false
  /// A replayed refresh token is accepted (no reuse detection).
  public var sessionNoReuseDetection = false
  /// Auth, refresh and bootstrap answers lack `Cache-Control: no-store`.
  public var sessionForgetsNoStore = false
  /// A deviceId the backend never issued is accepted at login.
  public var sessionAcceptsUnknownDevice = false
  /// logout-all ends only the caller's session.
  public var sessionLogoutAllKeepsOthers = false
  /// Deleting a device keeps its sessions alive.
  public var sessionDeviceDeleteKeepsSessions = false
  /// A WebAuthn challenge never expires.
  public var sessionChallengesNeverExpire = false
  /// A WebAuthn challenge may be answered more than once.
  public var sessionChallengesReusable = false
  /// A passkey assertion is accepted without checking its signature.
  public var sessionSkipsPasskeySignature = false
  /// A passkey's sign count may stand still or go back (a cloned authenticator passes).
  public var sessionIgnoresSignCount = false
  /// A sensitive action (registering a passkey) is allowed however old the login is.
  public var sessionSkipsReauth = false
  /// Access tokens are JWTs carrying the user's roles (the contract wants opaque tokens).
  public var sessionJWTAccessTokens = false
  /// An access token is still accepted this many seconds after its `accessExpiresAt` (a "leeway").
  public var sessionAccessLeeway: Double = 0
  /// A refresh token is still accepted this many seconds after its `refreshExpiresAt`.
  public var sessionRefreshLeeway: Double = 0
  /// An invitation or a recovery link still works after its flow completed.
  public var sessionEnrolmentReusable = false
  /// An invitation or a recovery link works whatever its age.
  public var sessionEnrolmentNeverExpires = false
  /// A recovery link signs in by itself (the contract: no direct login by link).
  public var sessionRecoveryLinkSignsIn = false
  /// The password a recovery replaced still signs in.
  public var sessionRecoveryKeepsPassword = false
  /// Recovery asked for an unknown address answers otherwise than for a known one.
  public var sessionRecoveryTellsUnknown = false

  // Identity provider.
  /// The identity cookie is persistent even without remember-me (breaks rule 3).
  public var identityCookieAlwaysPersistent = false
  /// `end_session` redirects but keeps the IdP session (breaks rule 9).
  public var idpKeepsSessionOnLogout = false

  // Backend, mobile authentication (rules 2, 4, 5, 9).
  /// The mobile logout skips the IdP's end_session and returns straight to the scheme.
  public var backendSkipsIdPLogout = false
  /// The callback answers with a 302 to the custom scheme instead of the hand-off page.
  public var backendRedirectsDirectlyToScheme = false
  /// The callback consumes a mobile flag whatever its state.
  public var backendFlagIgnoresState = false
  /// The callback consumes a mobile flag whatever its age.
  public var backendFlagIgnoresAge = false
  /// The exchange verifies before deleting the token, so a failed attempt can be retried.
  public var backendVerifiesBeforeDeleting = false
  /// The exchange never deletes the token: it can be replayed.
  public var backendTokenReusable = false
  /// The exchange ignores the token's TTL.
  public var backendIgnoresTokenTTL = false
  /// The exchange does not check the PKCE verifier.
  public var backendSkipsPKCE = false
  /// `authenticate` accepts any mobile scheme.
  public var backendSkipsSchemeAllowlist = false
  /// A browser that already holds a valid backend session gets a mobile token without a
  /// round-trip to the IdP (the false positive of seed 000).
  public var backendShortCircuitsValidSession = false
  // Backend, push (rule 15).
  /// Logout leaves the session's push devices registered.
  public var backendKeepsPushChannelsOnLogout = false
  /// Logout deletes every device of the user, the other phones' included.
  public var backendLogoutDeletesEveryDevice = false
  /// A device is deleted by its id alone, whoever's session asks (an IDOR).
  public var backendDeletesAnyUsersDevice = false
  /// Headers the backend's APNs sender writes over its own (a sender that formats one wrong).
  public var apnsHeaderOverrides: [String: String] = [:]
  /// The device table is unique per user and token: a token another user registered on the
  /// same phone stays theirs too.
  public var backendPushTokenUniquePerUser = false
  /// Dead tokens (APNs 410, FCM UNREGISTERED) are never pruned.
  public var backendKeepsDeadTokens = false
  /// The gateway credentials are minted once and never refreshed: the APNs provider token
  /// (Apple rejects it after an hour) and the FCM access token (it expires after an hour).
  public var backendNeverRefreshesProviderToken = false
  /// FCM's transient errors (QUOTA_EXCEEDED, UNAVAILABLE, INTERNAL) end the send: no retry.
  public var backendNeverRetriesFCM = false
  /// The sender prunes a device on any FCM error, not only on UNREGISTERED.
  public var backendPrunesOnAnyFCMError = false
  // The push gateways (rule 14): what makes a pairing mistake visible.
  /// APNs delivers a token of either environment on either gateway.
  public var apnsAcceptsAnyEnvironment = false
  /// APNs delivers whatever `apns-topic` names.
  public var apnsIgnoresTopic = false
  /// FCM delivers to a registration token of any Firebase project.
  public var fcmIgnoresProject = false
  // A hybrid WebView app's site (seed 003).
  /// `/.well-known/*` answers 301 to the www host instead of the file.
  public var wellKnownRedirects = false

  /// The mobile logout endpoint does not end the session.
  public var backendIgnoresMobileLogout = false
  /// Logout ends every session of the user: the other devices are signed out too.
  public var backendLogoutEndsEverySession = false

  // Backend, CSRF (rule 6).
  /// HTTPS unsafe requests are accepted without a trusted `Origin`.
  public var backendSkipsOriginCheck = false
  /// The Origin check accepts whatever Origin a request names (only a missing one fails).
  public var backendTrustsAnyOrigin = false
  /// The Origin check compares hosts only: the same host on another port or over http passes.
  public var backendOriginComparesHost = false
  /// The Origin check accepts a host that ends with a trusted host (`evilmessages.example`).
  public var backendOriginSuffixMatch = false
  /// `authenticate` accepts a scheme that starts with an allowlisted one.
  public var backendSchemePrefixMatch = false
  /// How long the callback honours a mobile flag, in seconds, when not seed 000's 10 minutes.
  public var backendFlagMaxAge: Double?
  /// The OIDC callback does not compare `state` with the one it stored (login CSRF).
  public var backendCallbackIgnoresState = false
  /// Unsafe requests are accepted without the CSRF token.
  public var backendSkipsCSRFToken = false

  public init() {}
}
