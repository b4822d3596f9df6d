/**
 * The diagnostic bundle a user may send with a bug report: shell and web
 * versions, the negotiated protocol, the last bridge errors by code. Handoff
 * material (the callback code, the state, the PKCE verifier) is never part of it.
 */

const EXCLUDED_KEYS = ["codeVerifier", "handoffCode", "callbackCode", "state", "cookie"];

export function exportDiagnostics(snapshot: Record<string, unknown>): string {
  return JSON.stringify(snapshot, (key, value) => (EXCLUDED_KEYS.includes(key) ? undefined : value));
}
