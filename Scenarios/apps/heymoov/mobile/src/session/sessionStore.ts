import * as SecureStore from "expo-secure-store";

/**
 * The session envelope (seed 002): the refresh token, the session and device ids and the
 * bootstrap version live in secure storage; the access token stays in memory.
 */
export interface SessionEnvelope {
  sessionId: string;
  deviceId: string;
  accessToken: string;
  accessExpiresAt: string;
  refreshToken: string;
  refreshExpiresAt: string;
  bootstrapVersion: number;
}

const KEYS = {
  refreshToken: "hm.session.refreshToken",
  sessionId: "hm.session.sessionId",
  deviceId: "hm.session.deviceId",
  bootstrapVersion: "hm.session.bootstrapVersion",
} as const;

/** What the app stored before the first-party session: purged once, never read. */
const LEGACY_KEYS = ["token", "sid"];

let accessToken: string | null = null;
let accessExpiresAt: number | null = null;

export function currentAccess(): { token: string; expiresAt: number } | null {
  return accessToken && accessExpiresAt !== null
    ? { token: accessToken, expiresAt: accessExpiresAt }
    : null;
}

/** A whole new envelope replaces the old one, never a field at a time. */
export async function replaceEnvelope(envelope: SessionEnvelope): Promise<void> {
  accessToken = envelope.accessToken;
  accessExpiresAt = Date.parse(envelope.accessExpiresAt);
  await SecureStore.setItemAsync(KEYS.refreshToken, envelope.refreshToken);
  await SecureStore.setItemAsync(KEYS.sessionId, envelope.sessionId);
  await SecureStore.setItemAsync(KEYS.deviceId, envelope.deviceId);
  await SecureStore.setItemAsync(KEYS.bootstrapVersion, String(envelope.bootstrapVersion));
}

export async function storedRefreshToken(): Promise<string | null> {
  return SecureStore.getItemAsync(KEYS.refreshToken);
}

export async function storedBootstrapVersion(): Promise<number | null> {
  const value = await SecureStore.getItemAsync(KEYS.bootstrapVersion);
  return value === null ? null : Number(value);
}

/** Logout, or a refresh the server refuses for good: nothing of the session stays. */
export async function wipeSession(): Promise<void> {
  accessToken = null;
  accessExpiresAt = null;
  for (const key of Object.values(KEYS)) await SecureStore.deleteItemAsync(key);
}

export async function purgeLegacyState(): Promise<void> {
  for (const key of LEGACY_KEYS) await SecureStore.deleteItemAsync(key);
}
