import {
  currentAccess,
  replaceEnvelope,
  storedRefreshToken,
  wipeSession,
  type SessionEnvelope,
} from "./sessionStore";

const API = process.env.EXPO_PUBLIC_API_ORIGIN ?? "https://api.heymoov.example";

/** Refresh this long before the access token's known expiry rather than wait for a 401. */
const EXPIRY_MARGIN_MS = 30_000;

/** Errors after which the session is gone: the user signs in again. */
const TERMINAL = new Set(["session_expired", "refresh_reused", "profile_banned", "reauth_required"]);

export class SessionEndedError extends Error {}

let refreshing: Promise<void> | null = null;

/** One refresh at a time: concurrent callers wait for the one in flight. */
export function refreshSession(): Promise<void> {
  if (refreshing) return refreshing;
  refreshing = doRefresh().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

async function doRefresh(): Promise<void> {
  const refreshToken = await storedRefreshToken();
  if (!refreshToken) throw new SessionEndedError("no session");
  const response = await fetch(`${API}/v1/mobile/session/refresh`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ refreshToken }),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    if (TERMINAL.has(body.error)) {
      await wipeSession();
      throw new SessionEndedError(body.error);
    }
    throw new Error(`refresh failed: ${response.status}`);
  }
  await replaceEnvelope(body as SessionEnvelope);
}

/** A private mobile route: the access token as a bearer, refreshed first when it is due. */
export async function privateFetch(path: string, init: RequestInit = {}): Promise<Response> {
  let access = currentAccess();
  if (!access || access.expiresAt - EXPIRY_MARGIN_MS <= Date.now()) {
    await refreshSession();
    access = currentAccess();
  }
  const send = (token: string) =>
    fetch(`${API}${path}`, {
      ...init,
      headers: { ...init.headers, Authorization: `Bearer ${token}` },
    });
  let response = await send(access?.token ?? "");
  if (response.status === 401) {
    await refreshSession();
    response = await send(currentAccess()?.token ?? "");
  }
  return response;
}
