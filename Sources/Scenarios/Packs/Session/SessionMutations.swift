import Artifacts
import Devices
import Foundation
import HTTP
import MockStack
import QualifyCore
import QualifyCrypto
import StackPorts

/// The session contract's negative controls (seed 002): backend and client behaviours
/// switched off, each breaking one rule the pack's scenarios prove.
extension SessionPack {
  static let mutations: [MutationSpec] = [
    MutationSpec(
      "app.client-lacks",
      [.value("rule", .choice(SessionClientCode().rules.map(\.name)))],
      summary:
        "The app's client code breaks one of seed 002's client rules (RULE: bearer, opaque-token, secure-storage, single-flight, wipe, refresh-before-expiry, bootstrap, first-party-login, refresh-body, invalid-credentials, access, legacy-state).",
      breaks: "seed 002, the client rules"
    ) { configuration, arguments in
      guard var client = configuration.build.sessionClient else { return }
      let no = Sourced(false, at: FileLocation(file: "(mutation)", line: 0, column: 1))
      switch arguments["rule"] {
      case "bearer": client.sendsBearer = no
      case "opaque-token": client.leavesTokenOpaque = no
      case "secure-storage": client.storesRefreshSecurely = no
      case "single-flight": client.singleFlight = no
      case "wipe": client.wipesOnTerminalError = no
      case "refresh-before-expiry": client.refreshesBeforeExpiry = no
      case "bootstrap": client.loadsBootstrap = no
      case "first-party-login": client.firstPartyLogin = no
      case "refresh-body": client.refreshWithoutDeviceId = no
      case "legacy-state": client.purgesLegacyState = no
      case "access": client.answersStoredAccess = no
      default: client.tellsWrongCredentials = no
      }
      configuration.build.sessionClient = client
    },
    MutationSpec(
      "backend.session-no-rotation", summary: "A refresh returns the same refresh token.",
      breaks: "seed 002, Refresh: a rotating refresh token"
    ) { configuration, _ in configuration.stack.sessionNoRotation = true },
    MutationSpec(
      "backend.session-no-reuse-detection",
      summary: "A refresh token already used is accepted again.",
      breaks: "seed 002: a replayed refresh token is refused (refresh_reused)"
    ) { configuration, _ in configuration.stack.sessionNoReuseDetection = true },
    MutationSpec(
      "backend.session-forgets-no-store",
      summary: "Auth, refresh and bootstrap answers lack Cache-Control: no-store.",
      breaks: "seed 002: no-store on auth, refresh and bootstrap"
    ) { configuration, _ in configuration.stack.sessionForgetsNoStore = true },
    MutationSpec(
      "backend.session-accepts-unknown-device",
      summary: "Login accepts a deviceId the backend never issued.",
      breaks: "seed 002: a deviceId sent must be a known mobile_devices.id"
    ) { configuration, _ in configuration.stack.sessionAcceptsUnknownDevice = true },
    MutationSpec(
      "backend.session-logout-all-keeps-others",
      summary: "logout-all ends only the caller's session.",
      breaks: "seed 002: logout-all ends every session of the user"
    ) { configuration, _ in configuration.stack.sessionLogoutAllKeepsOthers = true },
    MutationSpec(
      "backend.session-device-delete-keeps-sessions",
      summary: "Deleting a device keeps its sessions alive.",
      breaks: "seed 002: deleting a device ends its sessions"
    ) { configuration, _ in configuration.stack.sessionDeviceDeleteKeepsSessions = true },
    MutationSpec(
      "backend.session-challenges-never-expire",
      summary: "A WebAuthn challenge may be answered whatever its age.",
      breaks: "seed 002: challenge_expired"
    ) { configuration, _ in configuration.stack.sessionChallengesNeverExpire = true },
    MutationSpec(
      "backend.session-challenges-reusable",
      summary: "A WebAuthn challenge may be answered more than once.",
      breaks: "WebAuthn: a challenge is single use (a replayed assertion is refused)"
    ) { configuration, _ in configuration.stack.sessionChallengesReusable = true },
    MutationSpec(
      "backend.session-skips-reauth",
      summary: "Registering a passkey is allowed however old the login is.",
      breaks: "seed 002: reauth_required (auth.reauthRequiredAt)"
    ) { configuration, _ in configuration.stack.sessionSkipsReauth = true },
    MutationSpec(
      "backend.session-jwt-access-tokens",
      summary: "Access tokens are JWTs carrying the user's roles.",
      breaks: "seed 002: opaque access tokens, never decoded for roles"
    ) { configuration, _ in configuration.stack.sessionJWTAccessTokens = true },
    MutationSpec(
      "backend.session-access-leeway",
      summary: "An access token is accepted for a minute past its accessExpiresAt.",
      breaks: "seed 002: the access token lives until accessExpiresAt (15 minutes), not longer"
    ) { configuration, _ in configuration.stack.sessionAccessLeeway = 60 },
    MutationSpec(
      "backend.session-refresh-leeway",
      summary: "A refresh token is accepted for a day past its refreshExpiresAt.",
      breaks: "seed 002: the session ends at refreshExpiresAt (30 days after the login)"
    ) { configuration, _ in configuration.stack.sessionRefreshLeeway = 86400 },
    MutationSpec(
      "backend.session-ignores-sign-count",
      summary: "A passkey's sign count may stand still or go back.",
      breaks: "WebAuthn: a counter that does not move forward is a cloned authenticator"
    ) { configuration, _ in configuration.stack.sessionIgnoresSignCount = true },
    MutationSpec(
      "backend.session-skips-passkey-signature",
      summary: "A passkey assertion is accepted without verifying its signature.",
      breaks: "WebAuthn: the assertion verifies with the registered public key"
    ) { configuration, _ in configuration.stack.sessionSkipsPasskeySignature = true },
    MutationSpec(
      "backend.session-enrolment-reusable",
      summary: "An invitation or a recovery link still works after its flow completed.",
      breaks: "seed 002, Onboarding et recovery: an invitation and a link are single use"
    ) { configuration, _ in configuration.stack.sessionEnrolmentReusable = true },
    MutationSpec(
      "backend.session-enrolment-never-expires",
      summary: "An invitation or a recovery link works whatever its age.",
      breaks: "onboarding and recovery: an invitation or a link expires"
    ) { configuration, _ in configuration.stack.sessionEnrolmentNeverExpires = true },
    MutationSpec(
      "backend.session-recovery-link-signs-in",
      summary: "Opening a recovery link answers a session envelope by itself.",
      breaks: "seed 002: recovery passkey/password, no direct login by link"
    ) { configuration, _ in configuration.stack.sessionRecoveryLinkSignsIn = true },
    MutationSpec(
      "backend.session-recovery-keeps-password",
      summary: "The password a recovery replaced still signs in.",
      breaks: "seed 002: recovery replaces the password (the old one no longer signs in)"
    ) { configuration, _ in configuration.stack.sessionRecoveryKeepsPassword = true },
    MutationSpec(
      "backend.session-recovery-tells-unknown",
      summary: "Recovery asked for an unknown address answers 404 unknown_account.",
      breaks: "account recovery does not tell who has an account"
    ) { configuration, _ in configuration.stack.sessionRecoveryTellsUnknown = true },
    MutationSpec(
      "client.no-single-flight",
      summary: "Concurrent refreshes are not serialised: each sends the same refresh token.",
      breaks: "seed 002: concurrent refreshes serialised"
    ) { configuration, _ in configuration.shell.sessionClientNoSingleFlight = true },
    MutationSpec(
      "client.makes-device-id", summary: "The client makes up a deviceId at its first login.",
      breaks: "seed 002: the mobile never generates deviceId"
    ) { configuration, _ in configuration.shell.sessionClientMakesDeviceId = true },
    MutationSpec(
      "client.keeps-old-refresh-token",
      summary: "After a refresh the client keeps the old refresh token.",
      breaks: "seed 002: the whole envelope replaced after each refresh"
    ) { configuration, _ in configuration.shell.sessionClientKeepsOldRefreshToken = true },
    MutationSpec(
      "client.keeps-state-on-terminal-error",
      summary: "A terminal refresh error leaves the local state in place.",
      breaks: "seed 002: local state wiped on a terminal refresh error"
    ) { configuration, _ in configuration.shell.sessionClientKeepsStateOnTerminalError = true },
    MutationSpec(
      "client.wipes-only-after-confirmed-logout",
      summary: "Sign-out wipes the local state only when the backend answered it.",
      breaks: "seed 002: all local auth state deleted after logout"
    ) { configuration, _ in configuration.shell.sessionClientWipesOnlyAfterConfirmedLogout = true },
    MutationSpec(
      "client.wipe-keeps-refresh-token",
      summary: "The wipe deletes the session's keys but the refresh token.",
      breaks: "seed 002: all local auth state deleted after logout or a terminal refresh error"
    ) { configuration, _ in configuration.shell.sessionClientWipeKeepsRefreshToken = true },
    MutationSpec(
      "client.foreground-threshold", [.value("seconds", .integer)],
      summary:
        "Back in the foreground, the client reloads the bootstrap past SECONDS instead of the profile's `session.foregroundReload` (a unit slip, a bound off by some).",
      breaks: "seed 002, Bootstrap: after a return to the foreground beyond a defined threshold"
    ) { configuration, arguments in
      configuration.shell.sessionClientForegroundThreshold = arguments["seconds"].flatMap(
        Double.init)
    },
    MutationSpec(
      "client.reloads-bootstrap-on-navigation",
      summary: "The bootstrap is reloaded on each navigation.",
      breaks: "seed 002: never on each navigation"
    ) { configuration, _ in configuration.shell.sessionClientReloadsOnNavigation = true },
    MutationSpec(
      "client.reloads-bootstrap-on-refresh",
      summary: "The bootstrap is reloaded after every refresh, changed version or not.",
      breaks: "seed 002: after a refresh only when bootstrapVersion changes"
    ) { configuration, _ in configuration.shell.sessionClientReloadsOnRefresh = true },
  ]
}
